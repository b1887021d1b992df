//! `strategy`: runs strategy files on the robot (see nodes/arnie_strategy/README.md).
//!
//! - action server `/strategy/run` (`arnie_interfaces/action/RunStrategy`);
//! - publishes `/strategy/events` (`arnie_interfaces/StrategyEvent`, reliable) and
//!   `/diagnostics`;
//! - clients of `/trajectory/move_to` (MoveTo), `/planner/plan_path` (PlanPath),
//!   `/comms/send` (SendPacket); subscribes `/arm/position` and the `wait_topics`.
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arnie_strategy::ros::{
    parse_wait_topics, Counters, Motion, RosRobot, Settings, SettingsFn, StrategyServer,
};
use node_glue::r2r::{
    arnie_interfaces::action::RunStrategy, arnie_interfaces::msg::StrategyEvent, RosParams,
};
use node_glue::{main_with, qos, topics, App, Error};

/// History of the `/strategy/events` publisher.
const EVENT_HISTORY: usize = 100;

#[derive(RosParams, Clone, Debug)]
struct StrategyParams {
    /// Strategy file (JSON) run when a RunStrategy goal names none; "" = goals must name one
    strategy_file: String,
    /// Match time when a goal gives 0 [s]
    match_time_s: f64,
    /// How long a step waits for the MoveTo server or the comms service to appear [ms]
    server_wait_ms: i64,
    /// How long to wait for the planner before scoring and moving by straight lines [ms]
    planner_wait_ms: i64,
    /// Longest wait for a PlanPath or SendPacket answer (plus the packet's reply timeout) and for a MoveTo goal to be accepted [ms]
    call_timeout_ms: i64,
    /// RunStrategy feedback is sent on every event and at least this often [ms]
    feedback_period_ms: i64,
    /// Folders strategy files may be read from, symlinks and .. resolved; [] = any folder
    allowed_dirs: node_glue::files::Dirs,
    /// Largest strategy file [bytes] (at most 64 MiB)
    max_file_bytes: i64,
    /// Topics wait_for steps may watch, read at start: "topic=pkg/msg/Type;..."
    wait_topics: String,
    /// Period of /diagnostics [ms]
    diagnostics_period_ms: i64,
    /// How moves are made, read at start: "move_to" (the arm's MoveTo, position from arm/position) or "navigate_to" (the base's NavigateTo on base/navigate_to, position from base/pose)
    motion: String,
}

impl Default for StrategyParams {
    fn default() -> Self {
        StrategyParams {
            strategy_file: String::new(),
            match_time_s: 90.0,
            server_wait_ms: 2000,
            planner_wait_ms: 300,
            call_timeout_ms: 5000,
            feedback_period_ms: 500,
            allowed_dirs: node_glue::files::Dirs::default(),
            max_file_bytes: node_glue::files::DEFAULT_MAX_FILE_BYTES,
            wait_topics: "comms/rx=arnie_interfaces/msg/Packet;eyes/observations=arnie_interfaces/msg/Coordinates".into(),
            diagnostics_period_ms: 1000,
            motion: "move_to".into(),
        }
    }
}

fn millis(name: &str, v: i64, min: i64) -> Result<Duration, String> {
    if v < min {
        return Err(format!("{name} must be >= {min}, got {v}"));
    }
    Ok(Duration::from_millis(v as u64))
}

impl TryFrom<&StrategyParams> for Settings {
    type Error = String;
    fn try_from(p: &StrategyParams) -> Result<Self, String> {
        if !(p.match_time_s.is_finite() && p.match_time_s > 0.0) {
            return Err(format!(
                "match_time_s must be a finite number > 0, got {}",
                p.match_time_s
            ));
        }
        Ok(Settings {
            strategy_file: p.strategy_file.clone(),
            match_time: Duration::try_from_secs_f64(p.match_time_s)
                .map_err(|e| format!("match_time_s: {e}"))?,
            server_wait: millis("server_wait_ms", p.server_wait_ms, 0)?,
            planner_wait: millis("planner_wait_ms", p.planner_wait_ms, 0)?,
            call_timeout: millis("call_timeout_ms", p.call_timeout_ms, 1)?,
            feedback_period: millis("feedback_period_ms", p.feedback_period_ms, 1)?,
            files: node_glue::files::FileRules::new(&p.allowed_dirs, p.max_file_bytes)?,
        })
    }
}

fn main() {
    main_with("strategy", setup)
}

fn setup(app: &mut App) -> Result<(), Error> {
    let params = app.parameters(StrategyParams::default())?;
    let (settings, wait_topics, diagnostics_period, motion) = {
        let p = params
            .lock()
            .map_err(|_| Error::Setup("parameters poisoned".into()))?;
        let settings = Settings::try_from(&*p).map_err(Error::Parameter)?;
        let wait_topics =
            parse_wait_topics(&p.wait_topics).map_err(|e| Error::Parameter(e.to_string()))?;
        let motion = Motion::parse(&p.motion).map_err(Error::Parameter)?;
        (
            settings,
            wait_topics,
            millis("diagnostics_period_ms", p.diagnostics_period_ms, 1)
                .map_err(Error::Parameter)?,
            motion,
        )
    };
    let name = app.name().to_owned();
    let counters = Arc::new(Counters::default());
    // Reliable, with a deeper history than the commands preset: a run emits events in
    // bursts and a slow subscriber must not lose any.
    let events = app.node.create_publisher::<StrategyEvent>(
        topics::STRATEGY_EVENTS,
        qos::commands().keep_last(EVENT_HISTORY),
    )?;
    let goals = app
        .node
        .create_action_server::<RunStrategy::Action>(topics::STRATEGY_RUN)?;
    let diagnostics = app.diagnostics()?;
    let shutdown = app.shutdown();
    let _rt = app.handle().enter();

    let robot = RosRobot::new(
        &mut app.node,
        motion,
        &wait_topics,
        settings,
        counters.clone(),
        &name,
    )?;
    // RosRobot subscribes on the node itself: its subscriptions join the QoS check here.
    match motion {
        Motion::MoveTo => app.watch_subscription(topics::ARM_POSITION, &qos::sensor()),
        Motion::NavigateTo => {
            app.watch_subscription(arnie_strategy::ros::navigate::BASE_POSE, &qos::commands())
        }
    }
    for w in &wait_topics {
        app.watch_subscription(&w.topic, &w.kind.qos());
    }
    // Parameters are read again for every goal: `ros2 param set` applies to the next run.
    let live: Arc<Mutex<StrategyParams>> = params;
    let settings_fn: SettingsFn = Arc::new(move || {
        let p = live.lock().map_err(|_| "parameters poisoned".to_owned())?;
        Settings::try_from(&*p).map_err(|e| format!("parameter {e}"))
    });
    let server = StrategyServer::new(
        robot,
        events,
        settings_fn,
        counters.clone(),
        shutdown.clone(),
        &name,
    );
    tokio::spawn(server.clone().serve(goals));

    diagnostics.spawn_periodic(diagnostics_period, shutdown, move || {
        counters.statuses(server.running())
    });
    Ok(())
}
