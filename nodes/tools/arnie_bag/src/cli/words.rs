//! The command line's words (clap's derive API) and the second stage that checks them
//! into a [`Command`]: what one flag alone cannot say.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::error::ErrorKind;
use clap::{Args, CommandFactory, Parser, Subcommand};

use super::{absolute, default_output, Command, NodeArgs, PlayArgs, RecordArgs, RewriteArgs};
use crate::error::BagError;
use crate::filter::{RequestSource, Selection, TopicFilter};
use crate::mcap::Compression;
use crate::player::{PlayOptions, TopicRegex};
use crate::qos::QosOverrides;
use crate::recorder::RecorderOptions;
use crate::storage::StorageConfig;

/// Record, play, inspect and repair rosbag2 bags (MCAP storage).
#[derive(Parser, Debug)]
#[command(
    name = "arnie_bag",
    args_override_self = true,
    after_help = "BAG is a bag folder (metadata.yaml + MCAP files) or a single .mcap file.\n\
                  Flags are ros2 bag's (Jazzy); arguments from --ros-args on are rcl's."
)]
struct Cli {
    #[command(subcommand)]
    command: Words,
}

#[derive(Subcommand, Debug)]
enum Words {
    /// Subscribe to topics and write a bag (until SIGINT / SIGTERM)
    #[command(after_help = "While recording: SPACE pause/resume.")]
    Record(RecordWords),
    /// Publish a bag's messages on their topics, in their timing
    #[command(
        after_help = "While playing: SPACE pause/resume, RIGHT next message, UP/DOWN rate +/- 0.1, q quit."
    )]
    Play(PlayWords),
    /// Print what a bag holds (as ros2 bag info)
    Info {
        /// The bag folder or .mcap file
        #[arg(value_name = "BAG")]
        bag: PathBuf,
        /// Print JSON instead of ros2 bag info's text
        #[arg(long)]
        json: bool,
        /// Print only the topic names
        #[arg(short = 't', long = "topic-name")]
        topic_name: bool,
    },
    /// Rebuild metadata.yaml (and repair cut-off files) from the MCAP files
    Reindex {
        /// The bag folder
        #[arg(value_name = "BAG")]
        bag: PathBuf,
    },
    /// Copy a bag, filtered, into a new one
    Rewrite(RewriteWords),
}

#[derive(Args, Debug)]
struct RecordWords {
    /// Topics to record
    #[arg(value_name = "TOPIC")]
    topics: Vec<String>,
    /// Topics to record (as the words before the options)
    #[arg(long = "topics", value_name = "T", num_args = 1..)]
    more_topics: Vec<String>,
    /// Services to record (their service-introspection event topics)
    #[arg(long, value_name = "S", num_args = 1..)]
    services: Vec<String>,
    /// Record the topics of these types
    #[arg(long, value_name = "TYPE", num_args = 1..)]
    topic_types: Vec<String>,
    /// Record every topic and every service
    #[arg(short, long)]
    all: bool,
    /// Record every topic
    #[arg(long)]
    all_topics: bool,
    /// Record every service (through service introspection)
    #[arg(long)]
    all_services: bool,
    /// Record the topics and services whose name the regex finds (a search)
    #[arg(short = 'e', long, value_name = "RE", value_parser = regex_search, allow_hyphen_values = true)]
    regex: Option<String>,
    /// Leave out the topics and services whose name the regex finds
    #[arg(short = 'x', long, value_name = "RE", value_parser = regex_search, allow_hyphen_values = true)]
    exclude_regex: Option<String>,
    /// Leave out these topics
    #[arg(long, value_name = "T", num_args = 1..)]
    exclude_topics: Vec<String>,
    /// Leave out the topics of these types
    #[arg(long, value_name = "TYPE", num_args = 1..)]
    exclude_topic_types: Vec<String>,
    /// Leave out these services
    #[arg(long, value_name = "S", num_args = 1..)]
    exclude_services: Vec<String>,
    /// Also record hidden topics (a name part starting with `_`)
    #[arg(long)]
    include_hidden_topics: bool,
    /// The bag folder to create [default: rosbag2_YYYY_MM_DD-HH_MM_SS, local time]
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
    #[command(flatten)]
    split: SplitWords,
    /// Write nothing until resumed (SPACE)
    #[arg(long)]
    start_paused: bool,
    /// How often to look for new topics [ms]
    #[arg(short, long, value_name = "MS", default_value_t = 100,
          value_parser = clap::value_parser!(u64).range(1..))]
    polling_interval: u64,
    /// custom_data in the bag's metadata
    #[arg(long, value_name = "KEY=VALUE", num_args = 0.., value_parser = key_value)]
    custom_data: Vec<(String, String)>,
    /// Do not fsync at each periodic flush
    #[arg(long)]
    no_fsync: bool,
    /// Stamp messages with /clock time; write nothing before the first /clock
    #[arg(long)]
    use_sim_time: bool,
    /// Keep messages in memory; write them only when ~/snapshot is called
    #[arg(long)]
    snapshot_mode: bool,
    /// The snapshot cache's size [bytes of messages] (must be > 0 with --snapshot-mode)
    #[arg(long, value_name = "BYTES", default_value_t = 100 * 1024 * 1024)]
    max_cache_size: usize,
    #[command(flatten)]
    storage: StorageWords,
    #[command(flatten)]
    writer: WriterWords,
    #[command(flatten)]
    node: NodeWords,
}

/// The node of `record` and `play`.
#[derive(Args, Debug)]
struct NodeWords {
    /// The node's name [default: rosbag2_recorder, rosbag2_player]
    #[arg(long, value_name = "NAME", value_parser = node_name)]
    node_name: Option<String>,
    /// Logger level: debug, info, warn, error, fatal
    #[arg(long, value_name = "LEVEL", default_value = "info", hide_possible_values = true,
          value_parser = PossibleValuesParser::new(["debug", "info", "warn", "error", "fatal"]))]
    log_level: String,
    /// QoS per topic, from a YAML file (rosbag2's format)
    #[arg(long, value_name = "FILE")]
    qos_profile_overrides_path: Option<PathBuf>,
}

impl NodeWords {
    fn args(&self) -> NodeArgs {
        NodeArgs {
            name: self.node_name.clone(),
            log_level: self.log_level.clone(),
        }
    }

    /// The overrides file, read and checked (none: no overrides).
    fn qos_overrides(&self) -> Result<QosOverrides, BagError> {
        let Some(path) = &self.qos_profile_overrides_path else {
            return Ok(QosOverrides::default());
        };
        let text = std::fs::read_to_string(path).map_err(|e| {
            BagError::option(
                "--qos-profile-overrides-path",
                format!("{}: {e}", path.display()),
            )
        })?;
        QosOverrides::from_yaml_text(&text, &path.display().to_string())
            .map_err(|e| BagError::option("--qos-profile-overrides-path", e.to_string()))
    }
}

/// A ROS node name: letters, digits and `_`, not starting with a digit.
fn node_name(v: &str) -> Result<String, String> {
    let ok = !v.is_empty()
        && !v.starts_with(|c: char| c.is_ascii_digit())
        && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(v.to_string())
    } else {
        Err(format!(
            "{v:?} is not a node name (letters, digits and _, not starting with a digit)"
        ))
    }
}

/// How the bag is written: `record` and `rewrite`.
#[derive(Args, Debug)]
struct SplitWords {
    /// Chunk compression
    #[arg(long, value_name = "FORMAT", default_value = "zstd",
          value_parser = PossibleValuesParser::new(["none", "zstd", "lz4"])
              .try_map(|s| s.parse::<Compression>()))]
    compression: Compression,
    /// Split the bag at this file size [bytes] (0: never)
    #[arg(short = 'b', long, value_name = "BYTES", default_value_t = 0)]
    max_bag_size: u64,
    /// Split the bag at this duration [s] (0: never)
    #[arg(short = 'd', long, value_name = "SECONDS", default_value_t = 0,
          value_parser = whole_seconds)]
    max_bag_duration: u64,
}

/// `-s` / `--storage`: rosbag2's storage id. arnie_bag reads and writes MCAP (Jazzy's
/// default storage); any other id is refused with that reason.
#[derive(Args, Debug)]
struct StorageWords {
    /// The storage id: mcap only
    #[arg(short, long = "storage", value_name = "ID", value_parser = storage)]
    _storage: Option<()>,
}

/// The MCAP plugin's writer options (`record` only).
#[derive(Args, Debug)]
struct WriterWords {
    /// MCAP writer preset: none, fastwrite (unchunked), zstd_fast, zstd_small
    #[arg(long, value_name = "NAME", conflicts_with = "compression")]
    storage_preset_profile: Option<String>,
    /// MCAP writer options from a YAML file (the plugin's keys), over the preset
    #[arg(long, value_name = "FILE", conflicts_with = "compression")]
    storage_config_file: Option<PathBuf>,
}

impl WriterWords {
    /// Applies the preset and the file (rosbag2's order, over the plugin's defaults).
    fn apply(&self, o: &mut RecorderOptions) -> Result<(), BagError> {
        if self.storage_preset_profile.is_none() && self.storage_config_file.is_none() {
            return Ok(());
        }
        let mut c = StorageConfig::plugin_defaults();
        if let Some(p) = &self.storage_preset_profile {
            c = c.preset(p)?;
        }
        if let Some(path) = &self.storage_config_file {
            let text = std::fs::read_to_string(path).map_err(|e| {
                BagError::option("--storage-config-file", format!("{}: {e}", path.display()))
            })?;
            for key in c.apply_yaml(&text, &path.display().to_string())? {
                eprintln!(
                    "arnie_bag: {}: {key}: not an MCAP writer option rosbag2 reads; ignored",
                    path.display()
                );
            }
        }
        o.compression = c.compression;
        o.zstd_level = c.level.zstd();
        o.chunk_size = c.chunk_size;
        o.chunk_crc = c.chunk_crc;
        o.layout = c.layout;
        Ok(())
    }
}

/// Which topics `play` and `rewrite` take.
#[derive(Args, Debug)]
struct SelectWords {
    /// Only these topics
    #[arg(long, value_name = "T", num_args = 1..)]
    topics: Vec<String>,
    /// Only the topics whose whole name the regex matches (as ros2 bag play: -e '/arm/.*')
    #[arg(short = 'e', long, value_name = "RE", value_parser = regex_whole, allow_hyphen_values = true)]
    regex: Option<TopicRegex>,
    /// Leave out the topics whose whole name the regex matches
    #[arg(short = 'x', long, value_name = "RE", value_parser = regex_whole, allow_hyphen_values = true)]
    exclude_regex: Option<TopicRegex>,
    /// Leave out these topics
    #[arg(long, value_name = "T", num_args = 1..)]
    exclude_topics: Vec<String>,
    /// Only these services' recorded events
    #[arg(long, value_name = "S", num_args = 1..)]
    services: Vec<String>,
    /// Leave out these services' recorded events
    #[arg(long, value_name = "S", num_args = 1..)]
    exclude_services: Vec<String>,
}

#[derive(Args, Debug)]
struct PlayWords {
    /// The bag folder or .mcap file
    #[arg(value_name = "BAG")]
    bag: PathBuf,
    /// Playback rate (2: twice as fast)
    #[arg(short, long, value_name = "R", default_value_t = 1.0, value_parser = positive)]
    rate: f64,
    /// Play again from the start at the end
    #[arg(short, long = "loop")]
    loop_playback: bool,
    #[command(flatten)]
    select: SelectWords,
    /// Publish topic OLD as NEW
    #[arg(short = 'm', long, value_name = "OLD:=NEW", num_args = 1.., value_parser = remap)]
    remap: Vec<(String, String)>,
    /// Start this far into the bag [s]
    #[arg(long, value_name = "S", value_parser = seconds, allow_hyphen_values = true)]
    start_offset: Option<u64>,
    /// Stop after playing this long [s]
    #[arg(long, value_name = "S", value_parser = seconds, allow_hyphen_values = true)]
    playback_duration: Option<u64>,
    /// Stop at this bag time [s since the epoch]
    #[arg(long, value_name = "S", value_parser = seconds, conflicts_with = "playback_until_nsec")]
    playback_until_sec: Option<u64>,
    /// Stop at this bag time [ns since the epoch]
    #[arg(long, value_name = "NS")]
    playback_until_nsec: Option<u64>,
    /// Wait this long before playing [s]
    #[arg(short, long, value_name = "S", value_parser = seconds, allow_hyphen_values = true)]
    delay: Option<u64>,
    /// Start paused (SPACE resumes)
    #[arg(short = 'p', long)]
    start_paused: bool,
    /// Publish /clock at HZ, from the bag's time [default HZ: 40]
    #[arg(long, value_name = "HZ", num_args = 0..=1, default_missing_value = "40",
          value_parser = hertz)]
    clock: Option<f64>,
    /// Publish /clock at the time of each message played on these topics
    #[arg(long, value_name = "T", num_args = 1..)]
    clock_topics: Vec<String>,
    /// Publish /clock at the time of every message played
    #[arg(long)]
    clock_topics_all: bool,
    /// Do not read keys from the terminal
    #[arg(long)]
    disable_keyboard_controls: bool,
    /// Before playing, wait until every publisher has a subscription (arnie_bag's own)
    #[arg(long)]
    wait_for_subscribers: bool,
    /// At the end, wait until all is acknowledged, at most MS [ms] (0: no limit)
    #[arg(long, value_name = "MS")]
    wait_for_all_acked: Option<u64>,
    /// Call the recorded services with their recorded requests instead of publishing
    /// the service events
    #[arg(long)]
    publish_service_requests: bool,
    /// Whose recorded requests --publish-service-requests sends
    #[arg(long, value_name = "SOURCE", default_value = "service_introspection",
          value_parser = request_source)]
    service_requests_source: RequestSource,
    #[command(flatten)]
    storage: StorageWords,
    #[command(flatten)]
    node: NodeWords,
}

#[derive(Args, Debug)]
struct RewriteWords {
    /// The bag to read
    #[arg(value_name = "BAG")]
    bag: PathBuf,
    /// The bag folder to create
    #[arg(value_name = "OUTPUT")]
    output: PathBuf,
    #[command(flatten)]
    split: SplitWords,
    #[command(flatten)]
    select: SelectWords,
}

fn storage(v: &str) -> Result<(), String> {
    if v == "mcap" {
        Ok(())
    } else {
        Err(format!("storage {v:?} is not supported: arnie_bag reads and writes MCAP (\"mcap\", rosbag2's default in Jazzy) only"))
    }
}

/// A number of seconds, 0 or more, in nanoseconds.
fn seconds(v: &str) -> Result<u64, String> {
    let s: f64 = v
        .parse()
        .map_err(|_| format!("{v:?} is not a number of seconds"))?;
    if !s.is_finite() || s < 0.0 {
        return Err(format!("{v} must be 0 or more"));
    }
    Ok((s * 1e9).round() as u64)
}

/// A whole number of seconds, in nanoseconds.
fn whole_seconds(v: &str) -> Result<u64, String> {
    v.parse::<u64>()
        .map_err(|_| format!("{v:?} is not a non-negative integer"))?
        .checked_mul(1_000_000_000)
        .ok_or_else(|| format!("{v} s is too long"))
}

fn positive(v: &str) -> Result<f64, String> {
    v.parse()
        .ok()
        .filter(|r: &f64| r.is_finite() && *r > 0.0)
        .ok_or_else(|| format!("{v:?} is not a positive number"))
}

fn hertz(v: &str) -> Result<f64, String> {
    positive(v).map_err(|_| format!("{v:?} is not a positive rate in Hz"))
}

fn key_value(kv: &str) -> Result<(String, String), String> {
    let (k, v) = kv
        .split_once('=')
        .ok_or_else(|| format!("{kv:?} is not KEY=VALUE"))?;
    Ok((k.to_string(), v.to_string()))
}

fn remap(r: &str) -> Result<(String, String), String> {
    match r.split_once(":=") {
        Some((old, new)) if !old.is_empty() && !new.is_empty() => {
            Ok((absolute(old), absolute(new)))
        }
        _ => Err(format!("{r:?} is not OLD:=NEW")),
    }
}

/// A regex that searches a name (record's); kept as written for [`TopicFilter`].
fn regex_search(re: &str) -> Result<String, String> {
    regex::Regex::new(re)
        .map(|_| re.to_string())
        .map_err(|e| format!("bad regex: {e}"))
}

/// A regex that must match a whole name (play's and rewrite's).
fn regex_whole(re: &str) -> Result<TopicRegex, String> {
    regex_search(re)?;
    TopicRegex::new("--regex", re).map_err(|e| e.to_string())
}

/// The usage text: `arnie_bag --help`.
pub fn help() -> String {
    Cli::command().render_long_help().to_string()
}

/// Parses the words after the program name, up to `--ros-args` (the rest is rcl's).
/// `now_epoch_s` and `utc_offset_s` name the default output folder of `record`. No words
/// at all: [`Command::Help`].
///
/// # Errors
/// clap's error: a usage error naming the flag and what is wrong with it, or the help
/// asked for (`-h`, `--help`, `help`); [`clap::Error::exit`] prints either and exits
/// (status 2, or 0 for help).
pub fn parse(
    words: &[String],
    now_epoch_s: i64,
    utc_offset_s: i64,
) -> Result<Command, clap::Error> {
    let words = words.iter().take_while(|w| *w != "--ros-args");
    if words.clone().next().is_none() {
        return Ok(Command::Help);
    }
    let cli = Cli::try_parse_from(std::iter::once("arnie_bag").chain(words.map(String::as_str)))?;
    check(cli.command, now_epoch_s, utc_offset_s)
        .map_err(|e| Cli::command().error(ErrorKind::ValueValidation, e))
}

/// The second stage: what one flag alone cannot say.
fn check(words: Words, now: i64, offset: i64) -> Result<Command, BagError> {
    Ok(match words {
        Words::Record(r) => record(r, now, offset)?,
        Words::Play(p) => play(p)?,
        Words::Info {
            bag,
            json,
            topic_name,
        } => Command::Info {
            bag,
            json,
            topic_names: topic_name,
        },
        Words::Reindex { bag } => Command::Reindex { bag },
        Words::Rewrite(r) => {
            let mut output = RecorderOptions::new(r.output);
            r.split.apply(&mut output);
            Command::Rewrite(RewriteArgs {
                bag: r.bag,
                output,
                play: r.select.apply(PlayOptions::default()),
            })
        }
    })
}

impl SplitWords {
    fn apply(self, o: &mut RecorderOptions) {
        o.compression = self.compression;
        o.max_bag_size = self.max_bag_size;
        o.max_bag_duration_ns = self.max_bag_duration;
    }
}

impl SelectWords {
    fn apply(self, mut o: PlayOptions) -> PlayOptions {
        o.topics = self.topics.iter().map(|t| absolute(t)).collect();
        o.exclude_topics = self.exclude_topics.iter().map(|t| absolute(t)).collect();
        let events = |v: &[String]| {
            v.iter()
                .map(|s| crate::filter::event_topic_of_service(&absolute(s)))
                .collect()
        };
        o.services = events(&self.services);
        o.exclude_services = events(&self.exclude_services);
        o.regex = self.regex;
        o.exclude_regex = self.exclude_regex;
        o
    }
}

fn record(r: RecordWords, now: i64, offset: i64) -> Result<Command, BagError> {
    let b = r.split.max_bag_size;
    if b != 0 && b < 1024 {
        return Err(BagError::option(
            "--max-bag-size",
            format!("{b} is below the minimum split size 1024 bytes"),
        ));
    }
    let topics: Vec<String> = r
        .topics
        .iter()
        .chain(&r.more_topics)
        .map(|t| absolute(t))
        .collect();
    let names = |v: &[String]| v.iter().map(|t| absolute(t)).collect::<Vec<_>>();
    let filter = TopicFilter::new(Selection {
        all_topics: r.all || r.all_topics,
        all_services: r.all || r.all_services,
        topics,
        topic_types: r.topic_types,
        services: names(&r.services),
        regex: r.regex,
        exclude_regex: r.exclude_regex,
        exclude_topics: names(&r.exclude_topics),
        exclude_topic_types: r.exclude_topic_types,
        exclude_services: names(&r.exclude_services),
        include_hidden: r.include_hidden_topics,
    })?;
    if filter.selects_nothing() {
        return Err(BagError::option(
            "record",
            "nothing selected: name topics or services, or use --all, --all-topics, \
             --all-services, --topic-types or --regex",
        ));
    }
    let dir = r
        .output
        .unwrap_or_else(|| PathBuf::from(default_output(now, offset)));
    let mut opts = RecorderOptions::new(dir);
    r.split.apply(&mut opts);
    r.writer.apply(&mut opts)?;
    opts.custom_data = r.custom_data.into_iter().collect::<BTreeMap<_, _>>();
    opts.sync = !r.no_fsync;
    if r.snapshot_mode && r.max_cache_size == 0 {
        return Err(BagError::option(
            "--max-cache-size",
            "must be greater than 0 with --snapshot-mode",
        ));
    }
    Ok(Command::Record(RecordArgs {
        snapshot_cache: r.snapshot_mode.then_some(r.max_cache_size),
        recorder: opts,
        filter,
        start_paused: r.start_paused,
        polling_interval_ms: r.polling_interval,
        use_sim_time: r.use_sim_time,
        node: r.node.args(),
        qos_overrides: r.node.qos_overrides()?,
    }))
}

fn play(p: PlayWords) -> Result<Command, BagError> {
    let mut o = p.select.apply(PlayOptions::default());
    o.rate = p.rate;
    o.loop_playback = p.loop_playback;
    o.remap = p.remap;
    o.start_offset_ns = p.start_offset.unwrap_or(0);
    o.playback_duration_ns = p.playback_duration;
    o.playback_until_ns = p.playback_until_sec.or(p.playback_until_nsec);
    o.delay_ns = p.delay.unwrap_or(0);
    o.start_paused = p.start_paused;
    o.clock_hz = p.clock;
    o.clock_topics = p.clock_topics.iter().map(|t| absolute(t)).collect();
    o.clock_topics_all = p.clock_topics_all;
    Ok(Command::Play(PlayArgs {
        qos_overrides: p.node.qos_overrides()?,
        bag: p.bag,
        options: o,
        keyboard: !p.disable_keyboard_controls,
        wait_for_subscribers: p.wait_for_subscribers,
        wait_for_all_acked_ms: p.wait_for_all_acked,
        node: p.node.args(),
        service_requests: p
            .publish_service_requests
            .then_some(p.service_requests_source),
    }))
}

fn request_source(s: &str) -> Result<RequestSource, String> {
    RequestSource::parse(s).ok_or_else(|| format!("one of {}", RequestSource::NAMES.join(", ")))
}
