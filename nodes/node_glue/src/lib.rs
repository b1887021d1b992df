//! Shared ROS 2 glue for every arnie node. Nothing here knows about arms or flames.
//!
//! Layout:
//! - [`App`]: creates the rcl context and node, a tokio runtime beside it, registers the
//!   node's parameters, and spins the node on the calling thread until SIGINT/SIGTERM
//!   (then exits 0). Every node's `main` is `App::new` → create entities → spawn tasks →
//!   [`App::spin`].
//! - [`qos`]: the three QoS presets of the project (measurements, commands, latched).
//! - [`topics`]: the names of the shared topics, one place for all of them.
//! - [`diagnostics`]: publishes `diagnostic_msgs/DiagnosticArray` on `/diagnostics`.
//! - [`time`]: `builtin_interfaces/Time` stamps and headers.
//! - [`msgs`]: common messages built from plain values (`nav_msgs/Path`).
//! - [`params`]: checked parameters (a refused `ros2 param set` says why).
//!
//! Errors: set-up failures (bad parameter, rcl errors) are returned as [`Error`] and
//! turned into one clear log line and exit code 2 by [`main_with`].

pub mod diagnostics;
pub mod msgs;
pub mod params;
pub mod qos;
pub mod time;
pub mod topics;

mod app;
pub use app::{main_with, App, Error, Shutdown};
pub use r2r;
