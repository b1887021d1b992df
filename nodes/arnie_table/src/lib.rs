//! The Eurobot table: one scenario file (`params/eurobot/table.json`) that gives the
//! planner its map and the simulated motor board its world, so the two never disagree.
//! No ROS here.
//!
//! - [`scenario`]: the model and its loader ([`Scenario::load`], errors naming the field).
//! - [`raster`]: the table as the planner's grid ([`Scenario::rasterise`]).
//! - [`geometry`]: distances and ray casts (the proximity sensors).
//! - [`opponent`]: the opponent's scripted path as a function of time.
//! - [`lidar`]: the simulated LD06 LiDAR (rays against the table, LD06 packets).
//! - [`board`]: the simulated motor / actuator board, pure (time passed in).
//! - [`wire`]: board commands and reports ⇄ the comms packets (`nodes/arnie_comms/packets`).
//!
//! The `board_sim` binary runs a [`board::Board`] on a pty (UART framing) or over
//! CAN-over-UDP, like `comms_sim`.

#![deny(missing_docs)]

pub mod board;
pub mod geometry;
pub mod lidar;
pub mod opponent;
pub mod raster;
pub mod scenario;
pub mod wire;

pub use board::{Board, Input, Options, Output};
pub use raster::{Raster, ResolutionError};
pub use scenario::{Scenario, ScenarioError};
