//! The ROS 2 side of the `trajectory_server` node (feature `ros`): the only module that
//! uses r2r. The binary only calls [`setup`].
//!
//! - serves `arnie_interfaces/action/MoveTo` on `/trajectory/move_to`;
//! - subscribes `/arm/position` (`geometry_msgs/PointStamped`, sensor QoS) and
//!   `/arm/target` (legacy target topic, `geometry_msgs/PointStamped`, command QoS);
//! - publishes one set-point per period on `/arm/command` (`PointStamped`, command QoS),
//!   the path being run on `/trajectory/plan` (`nav_msgs/Path`, latched), counters on
//!   `/diagnostics`.
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

mod convert;
mod counters;
mod params;
mod position;
mod running;
mod server;

use std::sync::Arc;
use std::time::Duration;

use node_glue::r2r::{
    arnie_interfaces::action::MoveTo, geometry_msgs::msg::PointStamped, nav_msgs::msg::Path,
};
use node_glue::{qos, topics, App, Error};

use crate::LegacyTargets;
use counters::Counters;
use params::TrajectoryParams;
use position::{track_position, Latest};
use server::{control, Server};

/// The node's name (and the log target).
pub const NODE: &str = "trajectory_server";

/// Creates the node's action server, subscriptions, publishers and tasks
/// (`node_glue::main_with(NODE, setup)`).
///
/// # Errors
/// Invalid parameters, or a ROS entity that could not be created.
pub fn setup(app: &mut App) -> Result<(), Error> {
    // Every parameter is live (read at each goal): a change is checked as a whole first.
    let rules = node_glue::params::Rules {
        check: |p: &TrajectoryParams| p.config().map(|_| ()).map_err(|e| e.to_string()),
    };
    let params = app.parameters_checked(TrajectoryParams::default(), rules)?;
    let config = params
        .lock()
        .map_err(|_| Error::Setup("parameter table poisoned".into()))?
        .config()
        .map_err(|e| Error::Parameter(e.to_string()))?;
    let goals = app
        .node
        .create_action_server::<MoveTo::Action>(topics::MOVE_TO)?;
    let positions = app.subscribe::<PointStamped>(topics::ARM_POSITION, qos::sensor())?;
    // Best effort: matches reliable and best-effort publishers alike (the spine's legacy
    // inputs, rclpy scripts, `ros2 topic pub`), so a legacy target is never lost to QoS.
    let targets = app.subscribe::<PointStamped>(topics::ARM_TARGET, qos::legacy_commands())?;
    let command = app
        .node
        .create_publisher::<PointStamped>(topics::ARM_COMMAND, qos::commands())?;
    let plan = app
        .node
        .create_publisher::<Path>(topics::TRAJECTORY_PLAN, qos::latched())?;
    let diagnostics = app.diagnostics()?;
    let counters = Arc::new(Counters::default());
    let arm = Latest::new();
    let shutdown = app.shutdown();
    let _rt = app.handle().enter();

    tokio::spawn(track_position(positions, arm.clone(), counters.clone()));
    let server = Server {
        params,
        config,
        arm,
        command,
        plan,
        counters: counters.clone(),
        logs: node_glue::ratelimit::RateLimit::default(),
        legacy: LegacyTargets::new(),
        active: None,
    };
    tokio::spawn(control(server, goals, targets, shutdown.clone()));
    diagnostics.spawn_periodic(Duration::from_secs(1), shutdown, move || {
        vec![counters.status()]
    });
    Ok(())
}
