//! Bridges the xPC Target UDP controllers (arm, eyes) and the other legacy UDP peers of
//! the original Spine to each other and to typed ROS 2 topics. This library is the pure
//! part (no ROS, no sockets, no clock); the `ros` feature's binary is the glue. The
//! config, the wire formats, the transforms and the scale are the `arnie_xpc` library's
//! (shared with the simulator), re-exported here under their own names.
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
//! - [`gate`]: [`gate::OutputGate`], per-output de-duplication and radius check.
//! - [`forward`]: [`forward::Router`], the state machine: datagram or topic value in,
//!   datagrams to send and values to publish out.
//! - [`counters`]: per-interface counters and their `(key, value)` list for /diagnostics.
//! - [`units`]: [`units::Scale`], the one mm ⇄ m conversion every node shares
//!   (`arnie_constants::units`), used at the topic edge.
//! - `ros` (feature `ros`, off for `--no-default-features`): the node's glue around
//!   the router: parameters, sockets, topics, `/diagnostics`. The binary `spine_bridge`
//!   only calls `ros::run`.
//!
//! # Example (what the glue does per datagram)
//! ```
//! use arnie_spine::{wire, Config, Format, Limits, Router, Scale};
//!
//! let config = Config::from_json(r#"{
//!     "host": "127.0.0.1",
//!     "transforms": { "default": "1 0 0 0;0 1 0 0;0 0 1 0;0 0 0 1",
//!                     "arm": "0 -1 0 0;1 0 0 0;0 0 1 0;0 0 0 1" },
//!     "interfaces": {
//!         "input":  { "arm": { "port": 25001, "streamed": true, "format": "simulink",
//!                              "topic": "/arm/position", "kind": "point" } },
//!         "output": { "log": { "host": "127.0.0.1", "port": 25091, "format": "csv" } }
//!     },
//!     "connections": [ { "input": "arm", "output": "log" } ]
//! }"#, None)?;
//! let mut router = Router::new(config, Limits::default());
//! let arm = router.input_id("arm").ok_or("no arm")?;
//! let packet = wire::encode(Format::Simulink, &[vec![1.0, 2.0, 3.0]]);
//! let routed = router.on_datagram(arm, "127.0.0.1:40000".parse()?, &packet);
//! for emit in &routed.emits {
//!     // socket.send_to(&emit.bytes, emit.to)
//!     assert_eq!(emit.bytes, b"-2,1,3");
//! }
//! if let Some(global_mm) = routed.publish {
//!     let first_m = Scale::default().to_m(global_mm[0].clone()); // publish as PointStamped
//!     assert!((first_m[0] + 0.002).abs() < 1e-12);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Units and frames
//! Everything here is in the config's millimetres; the wire is in each device's frame,
//! [`forward::Router`] works in the global frame (`p_global = T · p_device` on inputs,
//! `T⁻¹` on outputs). Topics are in metres: convert once with [`units::Scale`].
//!
//! # Errors
//! [`LoadError`] is the crate's error type: a config that does not load, naming the
//! field. A bad datagram is not an error but normal flow: a [`wire::Rejected`] that the
//! router counts and returns, never a panic, never forwarded. NaN and ±inf are rejected
//! before any gate, so an output never sends them.
//!
//! # Reuse
//! The simulator speaks the same formats through `arnie_xpc`, never through this crate.

#![deny(missing_docs)]

pub mod counters;
pub mod forward;
pub mod gate;
#[cfg(feature = "ros")]
pub mod ros;

pub use arnie_xpc::{config, frames, transform, units, wire};
pub use arnie_xpc::{
    Config, Format, Item, Limits, LoadError, LoopbackMap, RawConfig, Rejected, Scale, Transform,
};
pub use forward::{Emit, InputId, Outcome, OutputId, Routed, Router};
pub use gate::{OutputGate, Verdict};
