//! The arm's legacy UDP side, without ROS, sockets or clocks: what the Spine bridge
//! and the simulated xPC Targets both speak, so the two never disagree.
//!
//! # Layout
//! - [`config`]: the original Spine `config.json` (loads unchanged, plus optional
//!   per-interface `topic`, `kind`, `qos`, `allowedSources`, `resendIntervalMs`) →
//!   checked [`config::Config`];
//!   [`config::LoopbackMap`] runs a multi-machine file on one machine.
//! - [`wire`]: the `csv` and `simulink` UDP formats, bytes ⇄ `Vec<Item>`; bad bytes are a
//!   [`wire::Rejected`] value with a stable `kind()` for counters.
//! - [`transform`]: the 4x4 device ⇄ global matrices of the config.
//! - [`frames`]: the interfaces' rigid transforms as TF frames (`world` → interface,
//!   metres, quaternions) for `/tf_static`; non-rigid ones with the reason they are not.
//! - [`units`]: [`units::Scale`], the one mm ⇄ m conversion every node shares
//!   (`arnie_constants::units`), used at the topic edge.
//!
//! The router that forwards between them (de-duplication, the radius check) is the
//! spine bridge's (`nodes/arnie_spine`).
//!
//! # Errors
//! [`LoadError`] is the config's error type, naming the field. A bad datagram is not an
//! error but normal flow: a [`wire::Rejected`] value, never a panic. NaN and ±inf are
//! rejected by the decoder.

#![deny(missing_docs)]

pub mod config;
mod error;
pub mod frames;
mod resolve;
pub mod transform;
pub mod units;
pub mod wire;

pub use config::{Config, LoopbackMap, RawConfig};
pub use error::LoadError;
pub use transform::Transform;
pub use units::Scale;
pub use wire::{Format, Limits, Rejected};

/// One item of a message: any number of values (for points, x y z first; extras such
/// as a confidence follow).
pub type Item = Vec<f64>;
