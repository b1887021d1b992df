//! The instructions of an instructions.json task (the original BrainJS's format): the
//! checked model the brain runs, and the two stages that build it from JSON text. No ROS,
//! no runtime. `arnie_brain` re-exports every module (`arnie_brain::model`, …), and
//! `arnie_english` compiles English into the same [`Instructions`].
//!
//! # Layout
//! - [`error`]: [`BrainError`], the one error type: why a file was rejected, with its path.
//! - [`loader`]: stage one, JSON text → raw instructions as written (shapes, types, ranges).
//! - [`validate`]: stage two, raw → checked [`Instructions`] (names, variables resolved).
//! - [`model`]: the checked instructions.
//! - [`vars`]: variable names and the store of captured points.
//!
//! Units: millimetres and the legacy frame of instructions.json.
#![deny(missing_docs)]

pub mod error;
pub mod loader;
pub mod model;
pub mod validate;
pub mod vars;

pub use crate::error::BrainError;
pub use crate::model::Instructions;

/// Load and check an instructions file. Never panics, whatever the text.
///
/// # Errors
/// A [`BrainError`] naming the path and the problem of the first fault found.
pub fn load(text: &str) -> Result<Instructions, BrainError> {
    validate::validate(&loader::parse(text)?)
}
