//! The ROS 2 glue of the `sim` node that is more than wiring (feature `ros`); the
//! binary (`src/bin/sim.rs`) creates the entities and spawns these tasks.
//!
//! - [`markers`]: `sim/markers` (`visualization_msgs/MarkerArray`), the scene for rviz.
pub mod markers;
