//! The `arnie_bag` command line, parsed in two stages: the words by clap (derive API,
//! `words`), then checked options ([`RecorderOptions`], [`TopicFilter`],
//! [`PlayOptions`]) so the binary has no string left to interpret. Flags follow `ros2 bag`
//! (Jazzy) where it has them. Everything from `--ros-args` on is left to rcl
//! (remappings, parameters, as `ros2 run` and `ros2 launch` append them).

use std::path::PathBuf;

use crate::filter::{RequestSource, TopicFilter};
use crate::player::PlayOptions;
use crate::qos::QosOverrides;
use crate::recorder::RecorderOptions;

mod words;

pub use words::{help, parse};

/// `record`, checked.
#[derive(Debug, Clone)]
pub struct RecordArgs {
    /// Where and how to write the bag.
    pub recorder: RecorderOptions,
    /// Which topics to record (`--all`, names, `-e` regex, `-x` exclude).
    pub filter: TopicFilter,
    /// Start paused (`--start-paused`): nothing is written until resumed.
    pub start_paused: bool,
    /// How often to look for new topics (rosbag2's `--polling-interval`, 100 ms).
    pub polling_interval_ms: u64,
    /// `--use-sim-time`: log times from `/clock`; nothing is written before the first.
    pub use_sim_time: bool,
    /// The node: its name and logger level (`--node-name`, `--log-level`).
    pub node: NodeArgs,
    /// `--qos-profile-overrides-path`: the subscriptions' QoS per topic.
    pub qos_overrides: QosOverrides,
    /// `--snapshot-mode`: the cache's size in bytes (`--max-cache-size`); nothing is
    /// written until `~/snapshot`.
    pub snapshot_cache: Option<usize>,
}

/// The recorder's or player's node (`--node-name`, `--log-level`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeArgs {
    /// `--node-name`: the node's name instead of the default.
    pub name: Option<String>,
    /// `--log-level`: debug, info, warn, error or fatal.
    pub log_level: String,
}

/// `play`, checked.
#[derive(Debug, Clone)]
pub struct PlayArgs {
    /// The bag folder (or bare `.mcap` file) to play.
    pub bag: PathBuf,
    /// Rate, loop, clock, topics, remaps, start offset, delay.
    pub options: PlayOptions,
    /// Read keys from the terminal (SPACE, arrows, q) while playing.
    pub keyboard: bool,
    /// Before playing, wait until every publisher has at least one subscription
    /// (`--wait-for-subscribers`, our addition: nothing is published into the void).
    pub wait_for_subscribers: bool,
    /// `--wait-for-all-acked MS`: at the end, wait for every reliable subscription to
    /// acknowledge every message, at most `MS` ms (`Some(0)`: no limit).
    pub wait_for_all_acked_ms: Option<u64>,
    /// The node: its name and logger level (`--node-name`, `--log-level`).
    pub node: NodeArgs,
    /// `--qos-profile-overrides-path`: the publishers' QoS per topic.
    pub qos_overrides: QosOverrides,
    /// `--publish-service-requests`: call the recorded services with the recorded
    /// requests of this side (`--service-requests-source`) instead of publishing their
    /// events.
    pub service_requests: Option<RequestSource>,
}

/// `rewrite`, checked.
#[derive(Debug, Clone)]
pub struct RewriteArgs {
    /// The bag to read.
    pub bag: PathBuf,
    /// Where and how to write the new bag.
    pub output: RecorderOptions,
    /// Which messages to copy (topics, start offset).
    pub play: PlayOptions,
}

/// A command to run.
#[derive(Debug, Clone)]
pub enum Command {
    /// `record`: subscribe and write a bag.
    Record(RecordArgs),
    /// `play`: publish a bag's messages on their topics.
    Play(PlayArgs),
    /// `info`: print what a bag holds.
    Info {
        /// The bag folder or file.
        bag: PathBuf,
        /// Print JSON instead of rosbag2's text (`--json`).
        json: bool,
        /// Print only the topic names (`--topic-name`).
        topic_names: bool,
    },
    /// `reindex`: rebuild `metadata.yaml` (and repair cut-off files) from the MCAP files.
    Reindex {
        /// The bag folder.
        bag: PathBuf,
    },
    /// `rewrite`: copy a bag, filtered, into a new one.
    Rewrite(RewriteArgs),
    /// No words: print the usage ([`help`]).
    Help,
}

/// A topic name as a node in `/` resolves it (`a/b` -> `/a/b`).
pub fn absolute(topic: &str) -> String {
    if topic.starts_with('/') {
        topic.to_string()
    } else {
        format!("/{topic}")
    }
}

/// rosbag2's default output folder: `rosbag2_YYYY_MM_DD-HH_MM_SS`, local time.
pub fn default_output(now_epoch_s: i64, utc_offset_s: i64) -> String {
    let local = now_epoch_s + utc_offset_s;
    let (y, m, d) = crate::info::civil_from_days(local.div_euclid(86_400));
    let sod = local.rem_euclid(86_400);
    format!(
        "rosbag2_{y:04}_{m:02}_{d:02}-{:02}_{:02}_{:02}",
        sod / 3600,
        sod / 60 % 60,
        sod % 60
    )
}

#[cfg(test)]
mod tests;
