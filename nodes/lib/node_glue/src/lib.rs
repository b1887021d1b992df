//! Shared ROS 2 glue for every arnie node. Nothing here knows about arms or flames.
//!
//! Layout:
//! - [`App`]: creates the rcl context and node, a tokio runtime beside it, registers the
//!   node's parameters, and spins the node on the calling thread until SIGINT/SIGTERM
//!   (then exits 0). Every node's `main` is `App::new` → create entities → spawn tasks →
//!   [`App::spin`].
//! - [`qos`]: the three QoS presets of the project (measurements, commands, latched).
//! - [`qos_check`]: incompatible QoS never fails silently: every subscription made with
//!   [`App::subscribe`] (or registered with [`App::watch_subscription`]) is checked
//!   against its publishers on the graph; a mismatch is logged and counted.
//! - [`topics`]: the names of the shared topics, one place for all of them (from
//!   `glue_core`, the ROS-free part of the glue, with [`ratelimit`] and
//!   [`diagnostics::Counter`]: libraries without ROS use them from there).
//! - [`diagnostics`]: publishes `diagnostic_msgs/DiagnosticArray` on `/diagnostics`.
//! - [`counters`]: the counter registry: [`counters!`] declares a node's counters once
//!   (name = field) grouped by status; `/diagnostics` is built from it
//!   ([`counters::CounterSet::statuses`]). Example in the module doc.
//! - [`action`]: action servers' one policy: a bad goal is accepted and aborted with
//!   `REJECTED` and the reason ([`action::reject`]); a new good goal preempts the running
//!   one (outcome `PREEMPTED`).
//! - [`tracker`]: the latest sample of a stream with its arrival time
//!   ([`tracker::Tracker`]: `set`, `latest` + `age`, `fresh(max_age)`).
//! - [`tf`]: a TF buffer (tf2's `lookupTransform`): static and dynamic transforms,
//!   lookup at a time with interpolation, errors naming the frames.
//! - [`ratelimit`]: rate-limited warnings for input-driven log lines ([`warn_limited!`]:
//!   one line per key per period, then "(K more suppressed)").
//! - [`time`]: the node's ROS clock (`use_sim_time` honoured: `/clock`): stamps, headers,
//!   sleeps and intervals.
//! - [`msgs`]: common messages built from plain values (`nav_msgs/Path`).
//! - [`params`]: checked parameters (a refused `ros2 param set` says why).
//! - [`files`]: files named by outside input (goal files) read safely: off the runtime,
//!   regular files only, a size cap, only from allowed folders (`allowed_dirs`).
//! - [`lifecycle`]: managed (lifecycle) nodes: the `lifecycle_msgs` services and
//!   `~/transition_event`, the callbacks a node implements ([`lifecycle::Managed`]),
//!   publishers silent while inactive ([`lifecycle::LifecyclePublisher`]), the `managed`
//!   parameter, and [`lifecycle::main_with`]; the state machine is `glue_core::lifecycle`.
//! - [`log`]: logging through ROS: [`log_info!`] and its siblings write to the console
//!   and to `/rosout` under the node's logger name (`left.brain`).
//! - [`typesupport`]: any message type installed on `AMENT_PREFIX_PATH`, its type
//!   support loaded at run time (rosbag2's way), for raw publishers and subscriptions
//!   with a sized, counted queue (the bag tool and the Foxglove bridge).
//! - [`exit`]: a bounded teardown: a stopped node's process ends within
//!   [`exit::TEARDOWN_LIMIT`] even when the middleware's teardown hangs (a Fast DDS
//!   deadlock; [`main_with`] and [`main_with_loop`] arm it).
//!
//! Errors: set-up failures are returned as [`Error`], an enum: a bad parameter
//! ([`ParameterError`]), a setting refused ([`ConfigError`]), an rcl error, or the node's
//! own set-up error enum ([`Error::node`]); [`main_with`] turns one into one clear log
//! line and exit code 2.
#![deny(missing_docs)]

pub mod action;
pub mod action_client;
pub mod counters;
pub mod diagnostics;
pub mod exit;
pub mod files;
pub mod lifecycle;
pub mod log;
pub mod msgs;
pub mod params;
pub mod qos;
pub mod qos_check;
pub mod ratelimit;
pub mod tf;
pub mod time;
pub mod tracker;
pub mod typesupport;

mod app;
pub use app::{
    main_with, main_with_loop, App, Error, Finishing, ParameterError, Shutdown, Stop, FINISH_LIMIT,
};
pub use glue_core::{topics, ConfigError};
pub use r2r;
