//! The simulated Eurobot table: the motor / actuator board and the opponent, playing on
//! the field of one scenario file (`params/eurobot/table.json`, read by the
//! `arnie_field` library, which the planner reads too: the two never disagree). No ROS
//! here.
//!
//! - [`scenario`], [`raster`], [`geometry`]: the field (`arnie_field`'s, re-exported).
//! - [`opponent`]: the opponent's scripted path as a function of time.
//! - [`lidar`]: the simulated LD06 LiDAR (rays against the table, LD06 packets).
//! - [`board`]: the simulated motor / actuator board, pure (time passed in).
//! - [`wire`]: board commands and reports ⇄ the comms packets (`nodes/lib/arnie_packets/packets`).
//!
//! The `board_sim` binary runs a [`board::Board`] on a pty (UART framing) or over
//! CAN-over-UDP, like `comms_sim`.

#![deny(missing_docs)]

pub mod board;
pub mod lidar;
pub mod opponent;
pub mod wire;

pub use arnie_field::{geometry, raster, scenario};
pub use arnie_field::{Raster, ResolutionError, Scenario, ScenarioError};
pub use board::{Board, Input, Options, Output};
