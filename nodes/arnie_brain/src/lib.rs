//! Runs instructions.json tasks (the original BrainJS, node.js) as a pure library; the ROS 2
//! node (`src/bin`, feature `ros`) only wires topics and the action server to it.
//!
//! # Layout
//! The first five modules are the `arnie_instructions` crate's, re-exported (arnie_english
//! compiles English into the same model, and the node compiles English task files with it:
//! a crate of their own keeps the packages free of a cycle).
//! - [`error`]: [`BrainError`], the one error type: why a file was rejected, with its path.
//! - [`loader`]: stage one, JSON text → raw instructions as written (shapes, types, ranges).
//! - [`validate`]: stage two, raw → checked [`Instructions`] (names, variables resolved).
//! - [`model`]: the checked instructions the core runs.
//! - [`vars`]: variable names and the store of captured points.
//! - [`decide`]: evaluating one decision against the arm and the [`Observation`]s.
//! - [`core`]: [`Brain`], the tick-driven state machine (no clock, no I/O).
//! - [`status`]: [`Status`] of a run and its `RunTask` [`Outcome`].
//! - [`event`]: [`Event`]s and the [`TickOutput`] of a tick.
//! - [`snapshot`]: [`Snapshot`], the state shaped like `BrainState.msg`.
//! - [`markers`]: what the brain sees and wants as rviz markers (plain values).
//! - [`config`]: the node's settings as written and checked (every period, timeout and
//!   rate within a stated range).
//! - `ros` (feature `ros`, the node's glue; the only module that uses r2r): inputs,
//!   the `MoveTo` client, the `/brain/run_task` server (tasks in JSON, or in English
//!   through arnie_english) and `/brain/state`.
//!
//! # Use
//! ```
//! # fn main() -> Result<(), arnie_brain::BrainError> {
//! let text = std::fs::read_to_string(concat!(
//!     env!("CARGO_MANIFEST_DIR"), "/../../../shared/reference/arnie/instructions.json"
//! )).unwrap_or_default();
//! # if text.is_empty() { return Ok(()); }
//! let mut brain = arnie_brain::Brain::from_json(&text)?.with_max_ticks(100);
//! let out = brain.tick(Some(nalgebra::Point3::origin()), &[]);
//! assert_eq!(out.target_mm, Some(nalgebra::Point3::origin())); // start's only step
//! # Ok(()) }
//! ```
//!
//! Units: millimetres and the legacy frame of instructions.json everywhere in this crate;
//! the node converts to metres at the topic edge. Differences from BrainJS: `README.md`.

#![deny(missing_docs)]

pub mod config;
pub mod core;
pub mod decide;
pub mod event;
pub mod markers;
#[cfg(feature = "ros")]
pub mod ros;
pub mod snapshot;
pub mod status;

// The instructions model, loader and validator live in `arnie_instructions` (shared with
// arnie_english without a package cycle); their paths here are unchanged.
pub use arnie_instructions::{error, load, loader, model, validate, vars};

pub use crate::core::{
    Brain, Outcome, Status, MAX_ACTIONS, MAX_MOVE_WAIT_TICKS, VERIFY_TOLERANCE_MM,
};
pub use crate::decide::Observation;
pub use crate::error::BrainError;
pub use crate::event::{Event, Mismatch, ResetCause, TickOutput};
pub use crate::model::Instructions;
pub use crate::snapshot::{ActiveSnapshot, ScheduledSnapshot, Snapshot, VariableSnapshot};
