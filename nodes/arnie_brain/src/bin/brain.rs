//! `brain`: runs instructions.json tasks (see nodes/arnie_brain/README.md).
//!
//! - action server `/brain/run_task` (`arnie_interfaces/action/RunTask`);
//! - publishes `/brain/state` (`arnie_interfaces/BrainState`, reliable, keep-last 10)
//!   every tick, and `/diagnostics`;
//! - client of `/trajectory/move_to` (`MoveTo`), or publisher of the legacy `/arm/target`
//!   (`command_mode: topic`);
//! - subscribes `/arm/position` (`PointStamped`) and `/eyes/observations`
//!   (`Coordinates`), sensor QoS, metres in `world`.
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arnie_brain::ros::{
    inputs, markers, BrainServer, CommandMode, Counters, Inputs, Mover, Scale, Settings, SettingsFn,
};
use node_glue::r2r::{
    self, arnie_interfaces::action::RunTask, arnie_interfaces::msg::BrainState,
    arnie_interfaces::msg::Coordinates, geometry_msgs::msg::PointStamped, RosParams,
};
use node_glue::{main_with, qos, topics, App, Error};

/// History of the `/brain/state` publisher (reliable).
const STATE_HISTORY: usize = 10;
/// Period of `/diagnostics`.
const DIAGNOSTICS_PERIOD: Duration = Duration::from_secs(1);

#[derive(RosParams, Clone, Debug)]
struct BrainParams {
    /// instructions.json run by RunTask goals that name no task, and by autostart; "" = goals must bring their task
    instructions_file: String,
    /// Time between two ticks [s] (10 s in the original lab set-up)
    tick_period_s: f64,
    /// Run instructions_file at start, without a RunTask goal
    autostart: bool,
    /// Tick limit of a run whose goal gives 0, and of the autostart run (0 = none)
    max_ticks: i64,
    /// An arm position older than this is stale: actions needing the arm pause [s]
    position_timeout_s: f64,
    /// Observations older than this are dropped [s]
    observation_timeout_s: f64,
    /// Trajectory verification tolerance on every axis [mm, instructions units]
    verify_tolerance_mm: f64,
    /// Metres per instructions unit (instructions.json is in mm: 0.001)
    m_per_unit: f64,
    /// Where targets go, read at start: "move_to" (MoveTo goals) or "topic" (legacy /arm/target)
    command_mode: String,
    /// brain/markers (observations, target, variables, actions for rviz) publications per second, read at start [Hz]; 0 = off
    markers_rate_hz: f64,
    /// Folders task files (a goal's task_file, instructions_file) may be read from, symlinks and .. resolved; [] = any folder
    allowed_dirs: node_glue::files::Dirs,
    /// Largest task file, and largest inline task_json / task_english [bytes] (at most 64 MiB)
    max_file_bytes: i64,
}

impl Default for BrainParams {
    fn default() -> Self {
        BrainParams {
            instructions_file: String::new(),
            tick_period_s: 10.0,
            autostart: false,
            max_ticks: 0,
            position_timeout_s: 1.0,
            observation_timeout_s: 1.0,
            verify_tolerance_mm: 25.0,
            m_per_unit: 0.001,
            command_mode: "move_to".into(),
            markers_rate_hz: 10.0,
            allowed_dirs: node_glue::files::Dirs::default(),
            max_file_bytes: node_glue::files::DEFAULT_MAX_FILE_BYTES,
        }
    }
}

fn seconds(name: &str, v: f64) -> Result<Duration, String> {
    if !(v.is_finite() && v > 0.0) {
        return Err(format!("{name} must be a finite number > 0, got {v}"));
    }
    Duration::try_from_secs_f64(v).map_err(|e| format!("{name}: {e}"))
}

impl TryFrom<&BrainParams> for Settings {
    type Error = String;
    fn try_from(p: &BrainParams) -> Result<Self, String> {
        if !(p.verify_tolerance_mm.is_finite() && p.verify_tolerance_mm >= 0.0) {
            return Err(format!(
                "verify_tolerance_mm must be a finite number >= 0, got {}",
                p.verify_tolerance_mm
            ));
        }
        Ok(Settings {
            instructions_file: p.instructions_file.clone(),
            tick_period: seconds("tick_period_s", p.tick_period_s)?,
            max_ticks: u64::try_from(p.max_ticks)
                .map_err(|_| format!("max_ticks must be >= 0, got {}", p.max_ticks))?,
            position_timeout: seconds("position_timeout_s", p.position_timeout_s)?,
            observation_timeout: seconds("observation_timeout_s", p.observation_timeout_s)?,
            verify_tolerance_mm: p.verify_tolerance_mm,
            scale: Scale::new(p.m_per_unit).ok_or_else(|| {
                format!(
                    "m_per_unit must be a finite number > 0, got {}",
                    p.m_per_unit
                )
            })?,
            files: node_glue::files::FileRules::new(&p.allowed_dirs, p.max_file_bytes)?,
        })
    }
}

fn main() {
    main_with("brain", setup)
}

fn setup(app: &mut App) -> Result<(), Error> {
    let params = app.parameters(BrainParams::default())?;
    let (settings, mode, autostart, markers_rate_hz) = {
        let p = params
            .lock()
            .map_err(|_| Error::Setup("parameters poisoned".into()))?;
        let mode: CommandMode = p.command_mode.parse().map_err(Error::Parameter)?;
        (
            Settings::try_from(&*p).map_err(Error::Parameter)?,
            mode,
            p.autostart,
            p.markers_rate_hz,
        )
    };
    if !(markers_rate_hz.is_finite() && (0.0..=100.0).contains(&markers_rate_hz)) {
        return Err(Error::Parameter(format!(
            "markers_rate_hz must be in [0, 100], got {markers_rate_hz}"
        )));
    }
    if autostart && settings.instructions_file.trim().is_empty() {
        return Err(Error::Parameter("autostart needs instructions_file".into()));
    }
    let name = app.name().to_owned();
    let counters = Arc::new(Counters::default());
    let inputs = Arc::new(Inputs::default());
    let positions = app.subscribe::<PointStamped>(topics::ARM_POSITION, qos::sensor())?;
    let observations = app.subscribe::<Coordinates>(topics::EYES_OBSERVATIONS, qos::sensor())?;
    let state = app.node.create_publisher::<BrainState>(
        topics::BRAIN_STATE,
        qos::commands().keep_last(STATE_HISTORY),
    )?;
    let goals = app
        .node
        .create_action_server::<RunTask::Action>(topics::RUN_TASK)?;
    let markers = match markers_rate_hz > 0.0 {
        true => Some(markers::publisher(&mut app.node)?),
        false => None,
    };
    let diagnostics = app.diagnostics()?;
    let shutdown = app.shutdown();
    let _rt = app.handle().enter();
    let mover = match mode {
        CommandMode::MoveTo => Mover::move_to(&mut app.node, counters.clone(), &name)?,
        CommandMode::Topic => Mover::topic(&mut app.node, counters.clone(), &name)?,
    };
    r2r::log_info!(
        &name,
        "targets go to {}",
        match mode {
            CommandMode::MoveTo => topics::MOVE_TO,
            CommandMode::Topic => topics::ARM_TARGET,
        }
    );

    tokio::spawn(inputs::track_arm(
        positions,
        inputs.clone(),
        counters.clone(),
        name.clone(),
    ));
    tokio::spawn(inputs::track_observations(
        observations,
        inputs.clone(),
        counters.clone(),
        name.clone(),
    ));

    // Parameters are read again for every run: `ros2 param set` applies to the next one.
    let live: Arc<Mutex<BrainParams>> = params;
    let settings_fn: SettingsFn = Arc::new(move || {
        let p = live.lock().map_err(|_| "parameters poisoned".to_owned())?;
        Settings::try_from(&*p).map_err(|e| format!("parameter {e}"))
    });
    let server = BrainServer::new(
        inputs.clone(),
        mover,
        state,
        settings_fn.clone(),
        counters.clone(),
        shutdown.clone(),
        &name,
    );

    // A bad instructions_file fails the start (naming file, key and reason), not the
    // first goal that falls back on it.
    let mut first = None;
    if !settings.instructions_file.trim().is_empty() {
        let task = app
            .block_on(server.load(&RunTask::Goal::default()))
            .map_err(|e| Error::Setup(format!("instructions_file {e}")))?;
        first = autostart.then_some(task);
    }
    if let Some(publisher) = markers {
        let period = Duration::from_secs_f64(1.0 / markers_rate_hz);
        tokio::spawn(markers::run(
            publisher,
            server.clone(),
            inputs,
            settings_fn,
            period,
            name.clone(),
            shutdown.clone(),
        ));
    }
    tokio::spawn(server.serve(goals, first));

    diagnostics.spawn_periodic(DIAGNOSTICS_PERIOD, shutdown, move || counters.statuses());
    Ok(())
}
