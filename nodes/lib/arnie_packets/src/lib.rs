//! JSON-defined packets over UART and CAN, without ROS: the definitions, the codec, the
//! typed packets generated from `packets/*.json`, the wires and a device simulator. Both
//! ends of the Eurobot robot's board link use it: the `comms_bridge` node
//! (`nodes/arnie_comms`), the base (`nodes/arnie_base`, typed packets) and the simulated
//! board (`nodes/tools/arnie_table`).
//!
//! # Layout
//! - [`value`]: field types and typed [`Value`]s; JSON ⇄ value (range-checked, never
//!   clamped) and value ⇄ little-endian bytes.
//! - [`definition`]: one JSON file per packet, raw ([`RawDefinition`]) then checked
//!   ([`Definitions`]: by id, by name, with the optional `reply`).
//! - [`packet`]: [`Packet`] = a definition + one value per field; payload bytes and JSON.
//! - [`typed`]: one Rust type per packet, generated from `packets/*.json` at build time
//!   (`typed::DriveSpeed`, ...), and [`TypedPacket`], their one encoder and decoder
//!   (to and from a [`Packet`], to and from `fields_json`).
//! - [`uart`]: the firmware's UART frame and a streaming, resynchronising [`Decoder`].
//! - [`can`]: the firmware's CAN id scheme, paging and the [`Reassembler`].
//! - [`counters`]: [`Rejected`] input as values and [`Counters`] by kind for /diagnostics.
//! - [`transport`]: the wires: serial port (termios), SocketCAN, CAN-over-UDP.
//! - [`link`]: [`Link`] = codec + transport: `send(&Packet)` and `recv()`.
//! - [`reply`]: [`ReplyTracker`], which pending send-service call a packet answers.
//! - [`reliable`]: definitions marked `reliable`: the sender's [`reliable::Repeater`]
//!   (repeat until acknowledged, bounded) and the receiver's [`reliable::Receiver`]
//!   (de-duplicate by `seq`, acknowledge every copy).
//! - [`device`]: what every simulated device program shares (its link options, opening
//!   the pty / serial / CAN-over-UDP end, announcing it, signals, exit codes).
//! - [`sim`]: the device simulator (Ping → Pong, anything else echoed) and the
//!   `comms_sim` program.
//!
//! # Errors
//! [`Error`] is everything a caller asked for that could not be done (a bad definition,
//! a value out of range, a port that will not open). Bad bytes *received* are not errors:
//! they are [`Rejected`] values, counted by kind, and the link carries on.
//!
//! The pure cores ([`Decoder`], [`Reassembler`], [`ReplyTracker`], [`sim::Simulator`])
//! take time as a `now_ms` argument; only [`link`] and [`transport`] touch clocks and
//! fds.

#![deny(missing_docs)]

pub mod can;
pub mod counters;
pub mod definition;
pub mod device;
pub mod error;
pub mod link;
pub mod packet;
pub mod reliable;
pub mod reply;
pub mod sim;
pub mod transport;
pub mod typed;
pub mod uart;
pub mod value;

pub use can::{CanFrame, CanId, CanMessage, Reassembler, ReassemblerConfig};
pub use counters::{Counters, RejectKind, Rejected};
pub use definition::{Definition, Definitions, Field, RawDefinition, Reliable};
pub use error::{Error, Result};
pub use link::{Link, LinkConfig, LinkEvent, Received};
pub use packet::Packet;
pub use reply::ReplyTracker;
pub use typed::{PacketError, TypedPacket};
pub use uart::{Decoder, DecoderConfig, Frame};
pub use value::{FieldType, Value};
