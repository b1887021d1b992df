//! The `comms_bridge` node: the Eurobot robot's board link (JSON-defined packets over
//! UART and CAN, the `arnie_packets` library) bridged to ROS 2. The ROS 2 glue (topics
//! `/comms/rx`, `/comms/tx`, the send service, `/diagnostics`) is the [`ros`] module
//! (feature `ros`); nothing else here uses ROS, and the binaries only call [`ros::run`]
//! and [`sim::main`].
//!
//! # Layout
//! - [`bridge`]: the node's event loop without ROS: one task owns the [`Link`], sends
//!   [`bridge::Command`]s, matches replies, reports [`bridge::Event`]s and counts.
//! - [`front`]: the one path from outside input (a packet to send, a send request) to a
//!   [`bridge::Command`], with the caps ([`front::Limits`]: `fields_json` size, requests
//!   in flight) and the outcome codes.
//! - [`config`]: the bridge's settings, raw ([`config::RawConfig`]) and checked, every
//!   range in one place.
//! - `ros` (feature `ros`): the `comms_bridge` node's glue.
//!
//! The packets, the codec, the wires and the device simulator are `arnie_packets`'s,
//! re-exported here under their own names ([`definition`], [`link`], [`sim`], ...).

#![deny(missing_docs)]

pub mod bridge;
pub mod config;
pub mod front;
#[cfg(feature = "ros")]
pub mod ros;

pub use arnie_packets::{
    can, counters, definition, device, error, link, packet, reliable, reply, sim, transport, typed,
    uart, value,
};
pub use arnie_packets::{
    CanFrame, CanId, CanMessage, Counters, Decoder, DecoderConfig, Definition, Definitions, Error,
    Field, FieldType, Frame, Link, LinkConfig, LinkEvent, Packet, PacketError, RawDefinition,
    Reassembler, ReassemblerConfig, Received, RejectKind, Rejected, Reliable, ReplyTracker, Result,
    TypedPacket, Value,
};
pub use bridge::{Command, Outcome, Stats, Transport};
