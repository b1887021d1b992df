//! The ROS 2 side of the `trajectory_server` node (feature `ros`): the only module that
//! uses r2r. The binary only calls [`run`].
//!
//! - serves `arnie_interfaces/action/MoveTo` on `/trajectory/move_to`;
//! - subscribes `/arm/position` (`geometry_msgs/PointStamped`, sensor QoS) and
//!   `/arm/target` (legacy target topic, `geometry_msgs/PointStamped`, command QoS);
//! - publishes one set-point per period on `/arm/command` (`PointStamped`, command QoS),
//!   the path being run on `/trajectory/plan` (`nav_msgs/Path`, latched), counters on
//!   `/diagnostics`;
//! - remembers where moves were stopped: `/trajectory/obstructions`
//!   (`arnie_interfaces/KnownObstructions`, latched), `/trajectory/obstruction_markers`
//!   (`visualization_msgs/MarkerArray`, latched), the service
//!   `/trajectory/clear_obstructions` (`arnie_interfaces/srv/ClearObstructions`); later
//!   moves plan detours around them (the library's [`crate::detour`]).
//!
//! One task owns the running move (the library's [`crate::Executor`]) and selects over: the
//! period tick, new goals, legacy targets, the running goal's cancel requests, shutdown.
//! A second task stores the latest arm position with its receive time. Topics are in
//! metres; the library works in millimetres: the conversion happens here, once, with
//! [`crate::units`].
//!
//! Goal handling (see README.md):
//! - a bad goal is accepted and at once aborted with outcome `REJECTED` and the reason in
//!   `message` (a plain rejection cannot carry a reason); it does not disturb a running move;
//! - a good goal preempts the running move (outcome `PREEMPTED`) and starts from the
//!   latest measured position;
//! - cancel ends the move at once and publishes the measured position once on
//!   `/arm/command`, so the arm holds where it is (outcome `CANCELLED`).
//!
//! Layout:
//! - `params`: the ROS parameters and their conversion to [`crate::TrajectoryConfig`].
//! - `counters`: the `/diagnostics` counters.
//! - `convert`: points (m ↔ mm), feedback, `MoveTo` outcome and phase constants.
//! - `position`: the latest arm position and the task that tracks it.
//! - `server`: the control task, goals and legacy targets.
//! - `running`: stepping, cancelling and ending the running move.
//! - `obstructions`: the remembered obstructions (topic, markers, clear service, expiry).

mod convert;
mod counters;
mod obstructions;
mod params;
mod position;
mod running;
mod server;

use std::sync::Arc;
use std::time::Duration;

use node_glue::lifecycle::{Failed, Managed, Outcome, State};
use node_glue::r2r::{
    arnie_interfaces::{action::MoveTo, msg::KnownObstructions, srv::ClearObstructions},
    geometry_msgs::msg::PointStamped,
    nav_msgs::msg::Path,
    visualization_msgs::msg::MarkerArray,
};
use node_glue::{qos, topics, App, Error, ParameterError};

use crate::LegacyTargets;
use counters::Counters;
use params::TrajectoryParams;
use position::{track_position, Latest};
use server::{control, Server};

/// The node's name (and the log target).
pub const NODE: &str = "trajectory_server";

/// `geometry_msgs/PointStamped` from rviz's Publish Point tool: a point to move to.
pub const CLICKED_POINT: &str = "clicked_point";

/// Runs the node until shutdown, then exits the process (exit 2 when it cannot start,
/// naming the reason). All the binary calls. A managed node: see [`Lifecycle`].
pub fn run() -> ! {
    node_glue::lifecycle::main_with(NODE, setup)
}

/// The trajectory server as a managed node. It owns nothing outside ROS, so configure
/// and cleanup have nothing to acquire; while it is not active it refuses `MoveTo`
/// goals (outcome `REJECTED`, with the reason), ignores legacy targets and clicked
/// points (counted `inactive_refused`) and publishes nothing on `/arm/command`,
/// `/trajectory/plan` or the obstruction topics (the latched ones go out on activation).
/// Deactivation stops a running move where the arm is (one hold set-point, before
/// `/arm/command` closes) and ends its goal.
struct Lifecycle {
    control: tokio::sync::mpsc::UnboundedSender<std::sync::mpsc::Sender<()>>,
}

/// How long deactivation waits for the running move to stop.
const STOP_WAIT: Duration = Duration::from_secs(3);

impl Managed for Lifecycle {
    fn on_deactivate(&mut self, _: State) -> Outcome {
        let (done, wait) = std::sync::mpsc::channel();
        if self.control.send(done).is_err() {
            // The control task has ended (the node is stopping): it held the arm.
            return Ok(());
        }
        match wait.recv_timeout(STOP_WAIT) {
            Ok(()) | Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Ok(()),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(Failed::failure(format!(
                "the move did not stop within {} s",
                STOP_WAIT.as_secs()
            ))),
        }
    }
}

/// Creates the node's action server, subscriptions, publishers and tasks
/// (`node_glue::lifecycle::main_with(NODE, setup)`).
///
/// # Errors
/// Invalid parameters, or a ROS entity that could not be created.
pub fn setup(
    app: &mut App,
    lc: &node_glue::lifecycle::Lifecycle,
) -> Result<Box<dyn Managed>, Error> {
    // Every parameter is live (read at each goal): a change is checked as a whole first.
    let rules = node_glue::params::Rules {
        check: |p: &TrajectoryParams| p.check().map_err(Into::into),
    };
    let params = app.parameters_checked(TrajectoryParams::default(), rules)?;
    let (config, detour, obstruction_config) = {
        let p = params.lock()?;
        let bad = |e: crate::TrajectoryError| ParameterError::node(e);
        (
            p.config().map_err(bad)?,
            p.detour().map_err(bad)?,
            p.obstructions().map_err(bad)?,
        )
    };
    let goals = app
        .node
        .create_action_server::<MoveTo::Action>(topics::MOVE_TO)?;
    let positions = app.subscribe::<PointStamped>(topics::ARM_POSITION, qos::sensor())?;
    // Best effort: matches reliable and best-effort publishers alike (the spine's legacy
    // inputs, rclpy scripts, `ros2 topic pub`), so a legacy target is never lost to QoS.
    let targets = app.subscribe::<PointStamped>(topics::ARM_TARGET, qos::legacy_commands())?;
    let command =
        lc.publisher::<PointStamped>(&mut app.node, topics::ARM_COMMAND, qos::commands())?;
    let plan =
        lc.latched_publisher::<Path>(&mut app.node, topics::TRAJECTORY_PLAN, qos::latched())?;
    let obstruction_topic = lc.latched_publisher::<KnownObstructions>(
        &mut app.node,
        obstructions::OBSTRUCTIONS,
        qos::latched(),
    )?;
    let obstruction_markers = lc.latched_publisher::<MarkerArray>(
        &mut app.node,
        obstructions::OBSTRUCTION_MARKERS,
        qos::latched(),
    )?;
    // rviz's Publish Point tool (reliable) and Foxglove (best effort) alike.
    let clicked = app.subscribe::<PointStamped>(CLICKED_POINT, qos::legacy_commands())?;
    let tf = node_glue::tf::Listener::new(app, Duration::from_secs(10))?;
    let clears = app.node.create_service::<ClearObstructions::Service>(
        obstructions::CLEAR_OBSTRUCTIONS,
        qos::commands(),
    )?;
    let diagnostics = app.diagnostics()?;
    let counters = Arc::new(Counters::default());
    let arm = Latest::new();
    let shutdown = app.shutdown();
    let _rt = app.handle().enter();
    let (lifecycle_tx, lifecycle_rx) = tokio::sync::mpsc::unbounded_channel();

    tokio::spawn(track_position(positions, arm.clone(), counters.clone()));
    let server = Server {
        params,
        config,
        detour,
        obstructions: obstructions::Memory::new(
            obstruction_config,
            obstruction_topic,
            obstruction_markers,
        ),
        tf,
        arm,
        command,
        plan,
        lc: lc.clone(),
        deactivations: lifecycle_rx,
        counters: counters.clone(),
        logs: node_glue::ratelimit::RateLimit::default(),
        legacy: LegacyTargets::new(),
        active: None,
    };
    tokio::spawn(control(
        server,
        goals,
        targets,
        clears,
        clicked,
        shutdown.clone(),
        app.finishing(),
    ));
    diagnostics.spawn_periodic(Duration::from_secs(1), shutdown, move || {
        vec![counters.status(), counters.detours_status()]
    });
    Ok(Box::new(Lifecycle {
        control: lifecycle_tx,
    }))
}
