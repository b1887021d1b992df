//! [`setup`]: the strategy node's entities and tasks, created once before the node spins;
//! [`run`]: the whole node (`node_glue::main_with(NODE, setup)`), all the binary calls.
//!
//! - action server `/strategy/run` (`arnie_interfaces/action/RunStrategy`);
//! - publishes `/strategy/events` (`arnie_interfaces/StrategyEvent`, reliable) and
//!   `/diagnostics`;
//! - clients of `/trajectory/move_to` (MoveTo) or `base/navigate_to` (NavigateTo),
//!   `/planner/plan_path` (PlanPath), `/comms/send` (SendPacket); subscribes
//!   `/arm/position` (or `base/pose`) and the `wait_topics`.
use std::sync::Arc;

use node_glue::r2r::{arnie_interfaces::action::RunStrategy, arnie_interfaces::msg::StrategyEvent};
use node_glue::{qos, topics, App, Error};

use super::params::{rules, StrategyParams};
use super::{Counters, Motion, RosRobot, SettingsFn, StrategyServer};

/// The node's name (`main_with`; the logger is the node's).
pub const NODE: &str = "strategy";
/// History of the `/strategy/events` publisher.
const EVENT_HISTORY: usize = 100;

/// Runs the strategy node until shutdown, then exits the process (exit 2 on bad
/// parameters, naming the reason).
pub fn run() -> ! {
    node_glue::main_with(NODE, setup)
}

/// Creates the node's action server, clients, subscriptions, publishers and tasks.
///
/// # Errors
/// Invalid parameters (the reason names the parameter, its range and the value), or a
/// ROS entity that could not be created.
pub fn setup(app: &mut App) -> Result<(), Error> {
    let params = app.parameters_checked(StrategyParams::default(), rules())?;
    let (settings, start) = {
        let p = params
            .lock()
            .map_err(|_| Error::Setup("parameters poisoned".into()))?;
        (
            p.settings().map_err(Error::Parameter)?,
            p.start().map_err(Error::Parameter)?,
        )
    };
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

    let nav2 = match start.motion {
        Motion::NavigateToPose => Some(super::robot::Nav2Source {
            action: start.navigate_to_pose_action.clone(),
            robot_frame: start.robot_frame.clone(),
            tf: node_glue::tf::Listener::new(app, std::time::Duration::from_secs(10))?,
        }),
        _ => None,
    };
    let robot = RosRobot::new(
        &mut app.node,
        start.motion,
        nav2,
        &start.wait_topics,
        settings,
        counters.clone(),
    )?;
    // RosRobot subscribes on the node itself: its subscriptions join the QoS check here.
    match start.motion {
        Motion::MoveTo => app.watch_subscription(topics::ARM_POSITION, &qos::sensor()),
        Motion::NavigateTo => app.watch_subscription(super::navigate::BASE_POSE, &qos::commands()),
        // Its position comes from node_glue::tf's listener (tf2's QoS).
        Motion::NavigateToPose => {}
    }
    for w in &start.wait_topics {
        app.watch_subscription(&w.topic, &w.kind.qos());
    }
    // Parameters are read again for every goal: `ros2 param set` applies to the next run.
    let live = params;
    let settings_fn: SettingsFn = Arc::new(move || {
        let p = live.lock().map_err(|_| "parameters poisoned".to_owned())?;
        p.settings().map_err(|e| format!("parameter {e}"))
    });
    let server = StrategyServer::new(
        robot,
        events,
        settings_fn,
        counters.clone(),
        shutdown.clone(),
    );
    tokio::spawn(server.clone().serve(goals));

    diagnostics.spawn_periodic(start.diagnostics_period, shutdown, move || {
        counters.statuses(server.running())
    });
    Ok(())
}
