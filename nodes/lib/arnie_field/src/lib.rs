//! The Eurobot playing field: one scenario file (`params/eurobot/table.json`) that gives
//! the planner its map and the simulated motor board its world, so the two never
//! disagree. No ROS here.
//!
//! - [`scenario`]: the model and its loader ([`Scenario::load`], errors naming the field).
//! - [`raster`]: the table as the planner's grid ([`Scenario::rasterise`]).
//! - [`geometry`]: distances and ray casts (the proximity sensors).
//!
//! The simulated board that plays on it is `nodes/tools/arnie_table` (`board_sim`).

#![deny(missing_docs)]

pub mod geometry;
pub mod raster;
pub mod scenario;

pub use raster::{Raster, ResolutionError};
pub use scenario::{Scenario, ScenarioError};
