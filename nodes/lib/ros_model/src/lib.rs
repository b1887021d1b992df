//! ROS 2 concepts without rcl: what the bag tool, the Foxglove bridge and the glue share
//! and can test without a ROS graph.
//!
//! Layout:
//! - [`msgdef`]: a type's message definition (`.msg` text with its dependencies appended,
//!   or `.idl`), found exactly as rosbag2's `LocalMessageDefinitionSource` finds it, and
//!   its type hash: the schemas of bags and of the Foxglove bridge's channels.
//! - [`qos`]: QoS profiles as rosbag2 writes and reads them (metadata v8/v9 YAML,
//!   `--qos-profile-overrides-path` files).
//! - [`yaml`]: the YAML emitter and readers those use (yaml-cpp's output, key for key).
//! - [`ament`]: which prefix of `AMENT_PREFIX_PATH` holds a package.
//! - [`tf`]: a TF buffer (tf2's `BufferCore`): frames, interpolation, lookups.
#![deny(missing_docs)]

pub mod ament;
pub mod msgdef;
pub mod qos;
pub mod tf;
pub mod yaml;

pub use msgdef::{DefinitionError, DefinitionSource, MessageDefinition};
pub use qos::Qos;
