//! [`setup`]: the brain node's entities and tasks, created once before the node spins;
//! [`run`]: the whole node (`node_glue::main_with(NODE, setup)`), all the binary calls.
//!
//! - action server `/brain/run_task` (`arnie_interfaces/action/RunTask`);
//! - publishes `/brain/state` (`arnie_interfaces/BrainState`, reliable, keep-last 10)
//!   every tick, `brain/markers` (when `markers_rate_hz` > 0) and `/diagnostics`;
//! - client of `/trajectory/move_to` (`MoveTo`), or publisher of the legacy `/arm/target`
//!   (`command_mode: topic`);
//! - subscribes `/arm/position` (`PointStamped`) and `/eyes/observations`
//!   (`Coordinates`), sensor QoS, metres in `world`.
use std::sync::Arc;
use std::time::Duration;

use node_glue::r2r::{
    arnie_interfaces::action::RunTask, arnie_interfaces::msg::BrainState,
    arnie_interfaces::msg::Coordinates, geometry_msgs::msg::PointStamped,
};
use node_glue::{qos, topics, App, Error};

use super::params::{rules, BrainParams};
use super::{inputs, markers, BrainServer, Counters, Inputs, Mover, SettingsFn};
use crate::config::CommandMode;

/// The node's name (`main_with`; the logger is the node's).
pub const NODE: &str = "brain";
/// History of the `/brain/state` publisher (reliable).
const STATE_HISTORY: usize = 10;
/// Period of `/diagnostics`.
const DIAGNOSTICS_PERIOD: Duration = Duration::from_secs(1);

/// Runs the brain node until shutdown, then exits the process (exit 2 on bad parameters
/// or a bad `instructions_file`, naming the reason).
pub fn run() -> ! {
    node_glue::main_with(NODE, setup)
}

/// Creates the node's action server, subscriptions, publishers and tasks.
///
/// # Errors
/// Invalid parameters (the reason names the parameter, its range and the value), an
/// `instructions_file` that does not load, or a ROS entity that could not be created.
pub fn setup(app: &mut App) -> Result<(), Error> {
    let params = app.parameters_checked(BrainParams::default(), rules())?;
    let (settings, mode, autostart, markers_period) = {
        let p = params
            .lock()
            .map_err(|_| Error::Setup("parameters poisoned".into()))?;
        let config = p.config().map_err(Error::Parameter)?;
        (
            p.settings().map_err(Error::Parameter)?,
            config.command_mode,
            p.autostart,
            config.markers_period,
        )
    };
    if autostart && settings.instructions_file.trim().is_empty() {
        return Err(Error::Parameter("autostart needs instructions_file".into()));
    }
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
    let markers = match markers_period {
        Some(period) => Some((markers::publisher(&mut app.node)?, period)),
        None => None,
    };
    let diagnostics = app.diagnostics()?;
    let shutdown = app.shutdown();
    let _rt = app.handle().enter();
    let mover = match mode {
        CommandMode::MoveTo => Mover::move_to(&mut app.node, counters.clone())?,
        CommandMode::Topic => Mover::topic(&mut app.node, counters.clone())?,
    };
    node_glue::log_info!(
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
    ));
    tokio::spawn(inputs::track_observations(
        observations,
        inputs.clone(),
        counters.clone(),
    ));

    // Parameters are read again for every run: `ros2 param set` applies to the next one.
    let live = params;
    let settings_fn: SettingsFn = Arc::new(move || {
        let p = live.lock().map_err(|_| "parameters poisoned".to_owned())?;
        p.settings().map_err(|e| format!("parameter {e}"))
    });
    let server = BrainServer::new(
        inputs.clone(),
        mover,
        state,
        settings_fn.clone(),
        counters.clone(),
        shutdown.clone(),
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
    if let Some((publisher, period)) = markers {
        tokio::spawn(markers::run(
            publisher,
            server.clone(),
            inputs,
            settings_fn,
            period,
            shutdown.clone(),
        ));
    }
    tokio::spawn(server.serve(goals, first));

    diagnostics.spawn_periodic(DIAGNOSTICS_PERIOD, shutdown, move || counters.statuses());
    Ok(())
}
