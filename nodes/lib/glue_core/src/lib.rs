//! The ROS-free part of `node_glue`: what a library needs without r2r, and what
//! `node_glue` re-exports under the same names (`node_glue::ratelimit`,
//! `node_glue::topics`, `node_glue::diagnostics::Counter`, `node_glue::ConfigError`),
//! so nodes and libraries count, rate-limit, name topics and refuse settings with one
//! implementation.
//!
//! - [`config`]: [`ConfigError`], the one shape of a refused setting (name and why).
//! - [`counter`]: [`Counter`], one monotonic counter shared between tasks.
//! - [`lifecycle`]: the managed-node (lifecycle) state machine of ROS 2 (rcl's states,
//!   transitions and rules), which `node_glue::lifecycle` serves on a node.
//! - [`ratelimit`]: [`RateLimit`], at most `burst` lines per key per period, the rest
//!   counted and reported on the next line (`" (K more suppressed)"`).
//! - [`topics`]: the names of the shared topics, services and actions, one place for
//!   all of them.
#![deny(missing_docs)]

pub mod config;
pub mod counter;
pub mod lifecycle;
pub mod ratelimit;
pub mod topics;

pub use config::ConfigError;
pub use counter::Counter;
pub use ratelimit::RateLimit;
