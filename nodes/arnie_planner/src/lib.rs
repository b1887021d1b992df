//! The `planner` node: grid path planning (A*, Jump Point Search) as a ROS 2 service.
//! The planning itself is the `arnie_grid` library (no ROS; its modules are re-exported
//! here under their own names); this crate is the node's ROS glue, [`ros`] (feature
//! `ros`: parameters, services, map publishing, diagnostics), and the binary
//! `src/bin/planner.rs`, which only calls `ros::run`.
#![deny(missing_docs)]

pub use arnie_grid::*;
#[cfg(feature = "ros")]
pub mod ros;
