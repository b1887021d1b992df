//! `arnie_state`: what `robot_state_publisher` does, for the ARNIE arm. The robot
//! description (a URDF) is served on `robot_description`; each measured arm position
//! becomes the joints' positions on `/joint_states` and their links' transforms on
//! `/tf`; the fixed joints go once to `/tf_static`.
//!
//! Layout:
//! - [`urdf`]: the URDF reader and its checks, every error with its line;
//! - [`stage`]: the arm as the Cartesian stage its controller exposes: a tool position
//!   → the three joints' positions and every link's transform ([`RobotState`]);
//! - `ros` (feature `ros`): the node's glue; `src/bin/arnie_state.rs` runs it.
//!
//! No ROS here: positions and transforms go in and out as plain values, so everything is
//! tested with `cargo test -p arnie_state --no-default-features`.
#![deny(missing_docs)]

pub mod stage;
pub mod urdf;

#[cfg(feature = "ros")]
pub mod ros;

pub use stage::{Frame, Rejected, RobotState, Sample, StageError};
pub use urdf::{Joint, JointKind, Urdf, UrdfError};
