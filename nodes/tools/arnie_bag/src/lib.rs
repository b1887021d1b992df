//! Record and replay rosbag2 bags (Jazzy, MCAP storage), with or without a ROS install.
//!
//! Bags written here are real rosbag2 bags (`ros2 bag play` plays them) and bags from
//! `ros2 bag record` (metadata v1..v9, a bare `.mcap` too) read here. This crate is the
//! pure library: no ROS, no clock, no threads. The `arnie_bag` binary's ROS parts feed it
//! raw CDR from r2r's `subscribe_raw` and publish what it yields with `publish_raw`.
//!
//! # Layout
//! - [`mcap`]: the MCAP container (records, chunk compression, writer, reader, scan).
//! - [`metadata`]: `metadata.yaml` v9 in rosbag2's exact layout; reads v1..v9.
//! - [`qos`]: QoS profiles in both stored forms; rosbag2's request/offer adaptation
//!   (the `ros_model` crate's, shared with the Foxglove bridge).
//! - [`msgdef`]: schema text from `share/<pkg>/msg` exactly as rosbag2 builds it; type
//!   hashes (`ros_model`'s too).
//! - [`filter`]: which topics and services to record (`--all`, names, types, `--regex`,
//!   excludes); service event topics.
//! - [`recorder`]: [`Recorder`] writes a bag: topics, messages, splits, periodic flush.
//! - [`bag`]: [`Bag`] opens and checks a bag and iterates its messages.
//! - [`player`]: [`Player`], playback as a state machine over a passed-in clock
//!   (rate, pause, step, loop, offsets, `/clock` time); [`keys`] reads the keyboard.
//! - [`info`]: [`BagInfo`], the `ros2 bag info` text and a JSON form.
//! - [`reindex`]: repairs a bag cut off by a crash.
//! - [`storage`]: `--storage-preset-profile` / `--storage-config-file` writer options.
//! - [`snapshot`]: `--snapshot-mode`'s circular cache, written on `~/snapshot`.
//! - [`cli`]: the command line of `arnie_bag`, parsed and checked into options.
//! - [`yaml`]: a yaml-cpp-compatible emitter and reading helpers (`ros_model`'s).
//! - `ros` (feature `ros`): the r2r glue of `record` and `play`.
//!
//! # Errors
//! One enum, [`BagError`], one variant per failure; each message is one line naming the
//! file. Nothing here panics on bad input.
#![deny(missing_docs)]

pub mod bag;
pub use ros_model::{msgdef, qos, yaml};
pub mod cli;
pub mod error;
pub mod filter;
pub mod info;
pub mod keys;
pub mod mcap;
pub mod metadata;
pub mod player;
pub mod recorder;
pub mod reindex;
#[cfg(feature = "ros")]
pub mod ros;
pub mod snapshot;
pub mod storage;

pub use bag::{Bag, BagMessage, BagTopic};
pub use error::{BagError, Result};
pub use filter::TopicFilter;
pub use info::BagInfo;
pub use mcap::Compression;
pub use metadata::BagMetadata;
pub use msgdef::{DefinitionSource, MessageDefinition};
pub use player::{PlayOptions, Player, Step};
pub use qos::Qos;
pub use recorder::{RecordReport, Recorder, RecorderOptions, TopicId, TopicSpec};

/// The MCAP header's `library` string of the files we write.
pub const LIBRARY: &str = concat!(
    "arnie_bag ",
    env!("CARGO_PKG_VERSION"),
    " (rosbag2 mcap storage)"
);
