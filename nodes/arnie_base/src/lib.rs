//! The Eurobot base controller (`arnie_base`): a `NavigateTo` action server that asks the
//! planner for a path, follows it with turn-and-drive segments, and commands the motor
//! board through comms packets. The library has no ROS: time and inputs are passed in.
//!
//! Layout:
//! - [`geom`]: [`Pose2`], angles, polylines (metres, radians, map frame).
//! - [`config`]: [`BaseConfig`], checked once ([`BaseConfig::check`]).
//! - [`follower`]: [`Follower`], turn-and-drive along a polyline (the controller's choice
//!   and why: its module doc).
//! - [`avoid`]: [`Avoid`], the LiDAR's gate on the drive path (the zone ahead, marks,
//!   the clear hold, scan freshness).
//! - [`navigator`]: [`Navigator`], the state machine: goals, plans, obstacle reports,
//!   no progress, marks, re-plans, the link watchdog; everything it wants done comes out
//!   as [`Output`]s.
//! - [`odom`]: REP 105 frames (`map` → `odom`, [`MapOdom`]) and the odometry's
//!   covariances from the board's noise model ([`OdomCovariance`]).
//! - [`teleop`]: manual driving (`cmd_vel`): limits, ramps, the command watchdog.
//! - [`nav2`]: Nav2's error codes for the navigator's outcomes (every action's, from
//!   `msg/nav2_msgs`).
//! - [`behavior`]: Nav2's behaviours on the base (spin, back up, drive on heading, wait).
//! - [`waypoints`]: `follow_waypoints`: the next waypoint, the missed ones.
//! - [`cmd_vel`]: `cmd_vel`'s message type and the publishers of the other one.
//! - [`board`]: the motor board's packets (names and fields) ⇄ [`Output`]s and events.
//! - `ros` (feature `ros`): the r2r glue of the node.
#![deny(missing_docs)]

pub mod avoid;
pub mod behavior;
pub mod board;
pub mod cmd_vel;
pub mod config;
pub mod follower;
pub mod geom;
pub mod nav2;
pub mod navigator;
pub mod odom;
#[cfg(feature = "ros")]
pub mod ros;
pub mod teleop;
pub mod waypoints;

pub use avoid::{scan_points, Avoid, Gate, ScanPoints, ScanRays};
pub use behavior::{Behavior, BehaviorKind, BehaviorStep, Ended, Wait};
pub use config::{BaseConfig, ConfigError};
pub use follower::{Follower, Step};
pub use geom::Pose2;
pub use navigator::{
    Feedback, Finish, Goal, KnownObstacles, NavCounters, Navigator, Outcome, Output, Phase,
    PlanFailure, PlanReply, Refused,
};
pub use odom::{MapOdom, OdomCovariance, OdomNoise, OdomNoiseError};
pub use teleop::{Teleop, TeleopLimits, TeleopLimitsError, TeleopRefused};
