//! Serves the ROS 2 graph to Foxglove over WebSocket with the official `foxglove` SDK
//! (subprotocols `foxglove.sdk.v1` and, through a handshake-rewriting front,
//! `foxglove.websocket.v1` for Lichtblick and `@foxglove/ws-protocol` clients).
//!
//! Every topic of the graph (allowlist and denylist by regex) is advertised with its
//! `ros2msg` schema, the full concatenated definition built by the bag recorder's code
//! ([`ros_model::msgdef`]: one implementation for bags and the live bridge), message
//! encoding `cdr`. Raw CDR flows only while some client subscribes; latched topics are
//! replayed to a client that subscribes late; parameters are read and set through the
//! nodes' own parameter services; clients publish only on an allowlist of topics.
//!
//! This crate is the library with no ROS: time and inputs are passed in. The r2r glue is
//! the `ros` module (feature `ros`); the binary `arnie_foxglove` only calls it.
//!
//! # Layout
//! - [`config`]: the node's settings checked once ([`Config`]): bind address, topic and
//!   publish allowlists/denylists compiled into regexes.
//! - [`schema`]: a topic's Foxglove schema from the bag recorder's definition source.
//! - [`demand`]: which topics some client subscribes to now (subscribe on the first,
//!   drop after the last), and the per-client subscribe-storm detector.
//! - [`latched`]: the last messages of transient-local topics, for late subscribers.
//! - [`params`]: Foxglove parameters ⇄ `rcl_interfaces` values and `/node.param` names.
//! - [`hostile`]: counters of refused client input and a rate-limited logger; the
//!   SDK's own reports of bad frames and unknown channel ids are counted through `log`.
//! - [`assets`]: the `assets` capability: `package://` files (meshes, textures) a client
//!   fetches, resolved through the ament index, allowlisted and kept inside the package.
//! - [`graph`]: the `connectionGraph` capability's view of publishers, subscribers and
//!   services.
//! - [`subprotocol`]: which WebSocket subprotocols are accepted, and the handshake
//!   rewrite that serves a `foxglove.websocket.v1` client with the SDK.
//! - [`auth`]: access tokens (`viewer`, `operator`), the 401/429 answers, the limit on
//!   guesses per address, and the rule that keeps an unprotected bridge on loopback.
//! - `ros` (feature `ros`): discovery, raw subscriptions, publishers, parameter clients.
//!
//! # Errors
//! Configuration errors are [`config::ConfigError`] (one line naming the parameter);
//! everything a client sends that is refused is counted and logged, never a panic.
#![deny(missing_docs)]

pub mod assets;
pub mod auth;
pub mod config;
pub mod demand;
pub mod graph;
pub mod hostile;
pub mod latched;
pub mod params;
#[cfg(feature = "ros")]
pub mod ros;
pub mod schema;
pub mod subprotocol;

pub use config::Config;

/// The message encoding of every channel (raw CDR as rmw serializes it).
pub const MESSAGE_ENCODING: &str = "cdr";
