//! Writing a bag: a folder with `metadata.yaml` and `<folder>_0.mcap`, `_1`, ... .
//!
//! The [`Recorder`] takes raw CDR messages with their receive time and writes them as
//! rosbag2 does (channel per topic, schema per type, `log_time` = receive time,
//! `publish_time` = send time or receive time), splitting by size or duration. It never
//! leaves an unreadable bag behind: [`Recorder::tick`] closes the open chunk and hands it
//! to the disk every `flush_period` and rewrites `metadata.yaml` every
//! `metadata_period`, each split and [`Recorder::finish`] complete a file, and a file cut
//! off by a crash is recovered by [`crate::reindex`]. Time is passed in; the recorder
//! reads no clock.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::{BagError, Result};
use crate::mcap::{Compression, Layout, McapWriter, WriterOptions, DEFAULT_CHUNK_SIZE};
use crate::metadata::{BagMetadata, FileInformation, TopicInformation, TopicMetadata, NO_START};
use crate::msgdef::{DefinitionSource, MessageDefinition};
use crate::qos::{self, Qos};

/// Everything about a topic that goes into the bag.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicSpec {
    /// Fully qualified name (`/arm/position`).
    pub name: String,
    /// `pkg/msg/Type`.
    pub type_name: String,
    /// `cdr`.
    pub serialization_format: String,
    /// What the topic's publishers offer (from the graph).
    pub offered_qos_profiles: Vec<Qos>,
    /// `RIHS01_...`, or empty when unknown.
    pub type_description_hash: String,
    /// The schema text.
    pub definition: MessageDefinition,
}

impl TopicSpec {
    /// A CDR topic whose definition and hash come from `source` (the install's
    /// `share/<pkg>/msg`). A type the install lacks gets an empty definition, as in
    /// rosbag2; the error is returned beside it for the caller to log.
    pub fn resolve(
        name: &str,
        type_name: &str,
        offered: Vec<Qos>,
        source: &mut DefinitionSource,
    ) -> (TopicSpec, Option<BagError>) {
        // A service event topic's schema holds its service's definition (rosbag2's
        // writer looks up `pkg/srv/Name`, not `pkg/srv/Name_Event`).
        let definition_of = if crate::filter::is_service_event(name, type_name) {
            crate::filter::service_of_event_type(type_name)
        } else {
            type_name
        };
        let (definition, err) = match source.full_text(definition_of) {
            Ok(d) => (d, None),
            Err(e) => (MessageDefinition::empty(definition_of), Some(e.into())),
        };
        let spec = TopicSpec {
            name: name.into(),
            type_name: type_name.into(),
            serialization_format: "cdr".into(),
            offered_qos_profiles: offered,
            type_description_hash: source.type_hash(type_name).unwrap_or_default(),
            definition,
        };
        (spec, err)
    }

    fn metadata(&self) -> TopicMetadata {
        TopicMetadata {
            name: self.name.clone(),
            type_name: self.type_name.clone(),
            serialization_format: self.serialization_format.clone(),
            offered_qos_profiles: self.offered_qos_profiles.clone(),
            type_description_hash: self.type_description_hash.clone(),
        }
    }
}

/// A topic's handle in one [`Recorder`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TopicId(usize);

/// How a bag is recorded.
#[derive(Debug, Clone)]
pub struct RecorderOptions {
    /// The bag folder (must not exist).
    pub dir: PathBuf,
    /// MCAP chunk compression (`--compression`, default zstd).
    pub compression: Compression,
    /// zstd's level (1; `--storage-preset-profile` / `--storage-config-file` choose others).
    pub zstd_level: i32,
    /// Uncompressed chunk size before a chunk is closed.
    pub chunk_size: usize,
    /// Whether chunks carry their CRC (yes; rosbag2's plugin default is no).
    pub chunk_crc: bool,
    /// The parts of each file written (all, unless the storage flags leave some out).
    pub layout: Layout,
    /// Split when the current file reaches this many bytes (`--max-bag-size`; 0: never).
    pub max_bag_size: u64,
    /// Split when a message is this much later than the file's first (`--max-bag-duration`; 0: never).
    pub max_bag_duration_ns: u64,
    /// `ros_distro` in the metadata (rosbag2 takes `$ROS_DISTRO`).
    pub ros_distro: String,
    /// `custom_data` in the metadata (`--custom-data k=v`).
    pub custom_data: BTreeMap<String, String>,
    /// Close the open chunk and hand it to the disk this often.
    pub flush_period_ns: u64,
    /// Rewrite `metadata.yaml` this often.
    pub metadata_period_ns: u64,
    /// `fsync` at each periodic flush (so a power loss keeps what was flushed).
    pub sync: bool,
}

impl RecorderOptions {
    /// Defaults for a bag in `dir`: zstd, 768 KiB chunks, no split, flush every second,
    /// metadata every 5 s, `ros_distro` from `$ROS_DISTRO`.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        RecorderOptions {
            dir: dir.into(),
            compression: Compression::Zstd,
            zstd_level: 1,
            chunk_size: DEFAULT_CHUNK_SIZE,
            chunk_crc: true,
            layout: Layout::default(),
            max_bag_size: 0,
            max_bag_duration_ns: 0,
            ros_distro: std::env::var("ROS_DISTRO").unwrap_or_default(),
            custom_data: BTreeMap::new(),
            flush_period_ns: 1_000_000_000,
            metadata_period_ns: 5_000_000_000,
            sync: true,
        }
    }
}

struct TopicState {
    spec: TopicSpec,
    channel: u16,
    written: u64,
    lost: u64,
    sequence: u32,
}

/// One line of the report printed at exit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicReport {
    /// The topic name.
    pub topic: String,
    /// `pkg/msg/Type`.
    pub type_name: String,
    /// Messages written to the bag.
    pub recorded: u64,
    /// Messages known lost before they reached the recorder (e.g. a full receive queue).
    pub lost: u64,
}

/// Per-topic counts of a recording.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordReport {
    /// The bag folder written.
    pub dir: PathBuf,
    /// Its storage files, relative to the folder.
    pub files: Vec<String>,
    /// One line per topic, by name.
    pub topics: Vec<TopicReport>,
}

impl RecordReport {
    /// Messages lost over all topics.
    pub fn total_lost(&self) -> u64 {
        self.topics.iter().map(|t| t.lost).sum()
    }
    /// Messages written over all topics.
    pub fn total_recorded(&self) -> u64 {
        self.topics.iter().map(|t| t.recorded).sum()
    }
}

impl fmt::Display for RecordReport {
    /// A table: one line per topic with its recorded and lost counts, then the totals.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w_topic = self
            .topics
            .iter()
            .map(|t| t.topic.len())
            .chain([5])
            .max()
            .unwrap_or(5);
        let w_type = self
            .topics
            .iter()
            .map(|t| t.type_name.len())
            .chain([4])
            .max()
            .unwrap_or(4);
        writeln!(
            f,
            "Recorded {} ({} file{}):",
            self.dir.display(),
            self.files.len(),
            if self.files.len() == 1 { "" } else { "s" }
        )?;
        writeln!(
            f,
            "  {:<w_topic$}  {:<w_type$}  {:>10}  {:>8}",
            "topic", "type", "recorded", "lost"
        )?;
        for t in &self.topics {
            writeln!(
                f,
                "  {:<w_topic$}  {:<w_type$}  {:>10}  {:>8}",
                t.topic, t.type_name, t.recorded, t.lost
            )?;
        }
        write!(
            f,
            "  {:<w_topic$}  {:<w_type$}  {:>10}  {:>8}",
            "total",
            "",
            self.total_recorded(),
            self.total_lost()
        )
    }
}

/// Writes one bag. See the module doc.
pub struct Recorder {
    opts: RecorderOptions,
    base: String,
    writer: Option<McapWriter>,
    schemas: HashMap<String, u16>,
    topics: Vec<TopicState>,
    by_name: HashMap<String, TopicId>,
    meta: BagMetadata,
    last_flush_ns: Option<u64>,
    last_metadata_ns: Option<u64>,
    splits: Vec<(PathBuf, PathBuf)>,
}

impl Recorder {
    /// Creates the folder and its first file, and writes a first `metadata.yaml`.
    ///
    /// # Errors
    /// [`BagError::AlreadyExists`] when the folder exists; I/O errors naming the path.
    pub fn create(opts: RecorderOptions) -> Result<Recorder> {
        let dir = opts.dir.clone();
        if dir.exists() {
            return Err(BagError::AlreadyExists { path: dir });
        }
        std::fs::create_dir_all(&dir).map_err(|e| BagError::io(&dir, e))?;
        let base = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|n| !n.is_empty() && n != "." && n != "..")
            .ok_or_else(|| {
                BagError::option("-o", format!("{} does not name a folder", dir.display()))
            })?;
        let meta = BagMetadata {
            ros_distro: opts.ros_distro.clone(),
            custom_data: opts.custom_data.clone(),
            ..BagMetadata::default()
        };
        let mut r = Recorder {
            opts,
            base,
            writer: None,
            schemas: HashMap::new(),
            topics: Vec::new(),
            by_name: HashMap::new(),
            meta,
            last_flush_ns: None,
            last_metadata_ns: None,
            splits: Vec::new(),
        };
        r.open_file()?;
        r.write_metadata_yaml()?;
        Ok(r)
    }

    /// The bag folder.
    pub fn dir(&self) -> &Path {
        &self.opts.dir
    }

    fn open_file(&mut self) -> Result<()> {
        let n = self.meta.relative_file_paths.len();
        let name = format!("{}_{n}.mcap", self.base);
        let path = self.opts.dir.join(&name);
        let wopts = WriterOptions {
            compression: self.opts.compression,
            zstd_level: self.opts.zstd_level,
            chunk_size: self.opts.chunk_size,
            chunk_crc: self.opts.chunk_crc,
            layout: self.opts.layout,
            ..WriterOptions::default()
        };
        let mut w = McapWriter::create(&path, wopts)?;
        self.meta.relative_file_paths.push(name.clone());
        self.meta.files.push(FileInformation {
            path: name,
            starting_time_ns: NO_START,
            duration_ns: 0,
            message_count: 0,
        });
        self.schemas.clear();
        w.write_metadata("rosbag2", self.metadata_record())?;
        self.writer = Some(w);
        for i in 0..self.topics.len() {
            self.register(TopicId(i))?;
        }
        Ok(())
    }

    fn metadata_record(&self) -> BTreeMap<String, String> {
        let m = self.snapshot();
        BTreeMap::from([
            ("serialized_metadata".to_string(), m.to_serialized()),
            ("ROS_DISTRO".to_string(), m.ros_distro.clone()),
        ])
    }

    fn writer(&mut self) -> Result<&mut McapWriter> {
        let dir = self.opts.dir.clone();
        self.writer
            .as_mut()
            .ok_or(BagError::WriterClosed { path: dir })
    }

    /// Schema (once per type per file) and channel of a topic in the current file.
    fn register(&mut self, id: TopicId) -> Result<()> {
        let spec = self.topics[id.0].spec.clone();
        let schema = match self.schemas.get(&spec.type_name) {
            Some(s) => *s,
            None => {
                let s = self.writer()?.add_schema(
                    &spec.type_name,
                    &spec.definition.encoding,
                    spec.definition.text.as_bytes(),
                )?;
                self.schemas.insert(spec.type_name.clone(), s);
                s
            }
        };
        let metadata = BTreeMap::from([
            (
                "offered_qos_profiles".to_string(),
                qos::profiles_to_yaml(&spec.offered_qos_profiles, crate::metadata::VERSION),
            ),
            (
                "topic_type_hash".to_string(),
                spec.type_description_hash.clone(),
            ),
        ]);
        let channel =
            self.writer()?
                .add_channel(schema, &spec.name, &spec.serialization_format, metadata)?;
        self.topics[id.0].channel = channel;
        Ok(())
    }

    /// Adds a topic (once; adding it again with the same type returns the same id).
    ///
    /// # Errors
    /// [`BagError::TopicTypeConflict`] when the name exists with another type.
    pub fn add_topic(&mut self, spec: TopicSpec) -> Result<TopicId> {
        if let Some(id) = self.by_name.get(&spec.name) {
            let first = &self.topics[id.0].spec.type_name;
            if *first != spec.type_name {
                return Err(BagError::TopicTypeConflict {
                    topic: spec.name,
                    first: first.clone(),
                    second: spec.type_name,
                });
            }
            return Ok(*id);
        }
        let id = TopicId(self.topics.len());
        self.by_name.insert(spec.name.clone(), id);
        self.topics.push(TopicState {
            spec,
            channel: 0,
            written: 0,
            lost: 0,
            sequence: 0,
        });
        self.register(id)?;
        Ok(id)
    }

    /// The id of a topic added before.
    pub fn topic_id(&self, name: &str) -> Option<TopicId> {
        self.by_name.get(name).copied()
    }

    /// The spec a topic was added with.
    pub fn topic(&self, id: TopicId) -> Option<&TopicSpec> {
        self.topics.get(id.0).map(|t| &t.spec)
    }

    /// Writes one message: `recv_time_ns` becomes its `log_time`, `send_time_ns` (0 when
    /// unknown: the receive time is used) its `publish_time`. Splits first when the
    /// current file is full.
    pub fn write(
        &mut self,
        topic: TopicId,
        recv_time_ns: u64,
        send_time_ns: u64,
        data: &[u8],
    ) -> Result<()> {
        if topic.0 >= self.topics.len() {
            return Err(BagError::UnknownTopic {
                topic: format!("#{}", topic.0),
            });
        }
        if self.should_split(recv_time_ns) {
            self.split()?;
        }
        let publish = if send_time_ns == 0 {
            recv_time_ns
        } else {
            send_time_ns
        };
        let t = &mut self.topics[topic.0];
        t.sequence = t.sequence.wrapping_add(1);
        let (channel, seq) = (t.channel, t.sequence);
        self.writer()?
            .write_message(channel, seq, recv_time_ns, publish, data)?;
        self.topics[topic.0].written += 1;
        let m = &mut self.meta;
        m.starting_time_ns = m.starting_time_ns.min(recv_time_ns);
        m.duration_ns = m
            .duration_ns
            .max(recv_time_ns.saturating_sub(m.starting_time_ns));
        m.message_count += 1;
        if let Some(f) = m.files.last_mut() {
            f.starting_time_ns = f.starting_time_ns.min(recv_time_ns);
            f.duration_ns = f
                .duration_ns
                .max(recv_time_ns.saturating_sub(f.starting_time_ns));
            f.message_count += 1;
        }
        Ok(())
    }

    /// Counts messages of `topic` lost before they reached [`Recorder::write`].
    pub fn count_lost(&mut self, topic: TopicId, n: u64) {
        if let Some(t) = self.topics.get_mut(topic.0) {
            t.lost += n;
        }
    }

    fn should_split(&self, recv_time_ns: u64) -> bool {
        let Some(w) = self.writer.as_ref() else {
            return false;
        };
        let file_has_messages = self.meta.files.last().is_some_and(|f| f.message_count > 0);
        // Bytes in the file plus the open chunk before compression: never later than
        // rosbag2 (which counts only the file), at most one chunk early.
        if self.opts.max_bag_size > 0
            && file_has_messages
            && w.bytes_written() + w.pending_bytes() as u64 >= self.opts.max_bag_size
        {
            return true;
        }
        if self.opts.max_bag_duration_ns > 0 {
            if let Some(f) = self.meta.files.last() {
                if f.starting_time_ns != NO_START
                    && recv_time_ns.saturating_sub(f.starting_time_ns)
                        > self.opts.max_bag_duration_ns
                {
                    return true;
                }
            }
        }
        false
    }

    /// Finishes the current file and starts the next (`_1.mcap`, ...); rewrites
    /// `metadata.yaml`.
    pub fn split(&mut self) -> Result<()> {
        let file = |r: &Self| {
            r.meta
                .relative_file_paths
                .last()
                .map(|n| r.opts.dir.join(n))
                .unwrap_or_default()
        };
        let closed = file(self);
        self.close_file()?;
        self.open_file()?;
        self.splits.push((closed, file(self)));
        self.write_metadata_yaml()
    }

    /// The splits since the last call: (file closed, file opened), full paths, in order
    /// (rosbag2's `WriteSplitEvent`s).
    pub fn take_splits(&mut self) -> Vec<(PathBuf, PathBuf)> {
        std::mem::take(&mut self.splits)
    }

    fn close_file(&mut self) -> Result<()> {
        let record = self.metadata_record();
        if let Some(mut w) = self.writer.take() {
            w.write_metadata("rosbag2", record)?;
            w.finish()?;
        }
        Ok(())
    }

    /// Periodic duties at monotonic time `now_ns`: flush every `flush_period`, rewrite
    /// `metadata.yaml` every `metadata_period`. Call it often (e.g. every 100 ms).
    pub fn tick(&mut self, now_ns: u64) -> Result<()> {
        let due = |last: &mut Option<u64>, period: u64| match *last {
            None => {
                *last = Some(now_ns);
                false
            }
            Some(t) if now_ns.saturating_sub(t) >= period => {
                *last = Some(now_ns);
                true
            }
            Some(_) => false,
        };
        if due(&mut self.last_flush_ns, self.opts.flush_period_ns) {
            self.flush()?;
        }
        if due(&mut self.last_metadata_ns, self.opts.metadata_period_ns) {
            self.write_metadata_yaml()?;
        }
        Ok(())
    }

    /// Closes the open chunk and hands the file to the disk now.
    pub fn flush(&mut self) -> Result<()> {
        let sync = self.opts.sync;
        self.writer()?.flush(sync)
    }

    /// The metadata as it stands (counts of what was written so far).
    pub fn snapshot(&self) -> BagMetadata {
        let mut m = self.meta.clone();
        m.topics_with_message_count = self
            .topics
            .iter()
            .map(|t| TopicInformation {
                topic_metadata: t.spec.metadata(),
                message_count: t.written,
            })
            .collect();
        m
    }

    /// Rewrites `metadata.yaml` (atomically) with the counts so far.
    pub fn write_metadata_yaml(&mut self) -> Result<()> {
        self.snapshot().write_dir(&self.opts.dir)
    }

    /// Counts so far.
    pub fn report(&self) -> RecordReport {
        RecordReport {
            dir: self.opts.dir.clone(),
            files: self.meta.relative_file_paths.clone(),
            topics: self
                .topics
                .iter()
                .map(|t| TopicReport {
                    topic: t.spec.name.clone(),
                    type_name: t.spec.type_name.clone(),
                    recorded: t.written,
                    lost: t.lost,
                })
                .collect(),
        }
    }

    /// Completes the last file (summary, footer) and writes the final `metadata.yaml`.
    pub fn finish(mut self) -> Result<RecordReport> {
        self.close_file()?;
        self.write_metadata_yaml()?;
        Ok(self.report())
    }
}

impl Drop for Recorder {
    /// A recorder dropped without [`Recorder::finish`] (an early return on error)
    /// still completes its file when it can.
    fn drop(&mut self) {
        if self.writer.is_some() {
            let _ = self.close_file();
            let _ = self.write_metadata_yaml();
        }
    }
}

/// Copies the topics `select` plays (`--topics`, `--exclude-topics`) of `bag` into a new
/// bag written by a [`Recorder`] (`arnie_bag rewrite`): a bag from any rosbag2 writer,
/// re-chunked, re-compressed, split anew, with v9 metadata. Schemas, QoS, hashes, times
/// and `ros_distro` are kept.
pub fn rewrite(
    bag: &crate::bag::Bag,
    mut opts: RecorderOptions,
    select: &crate::player::PlayOptions,
) -> Result<RecordReport> {
    let src = bag.metadata();
    if !src.ros_distro.is_empty() {
        opts.ros_distro = src.ros_distro.clone();
    }
    for (k, v) in &src.custom_data {
        opts.custom_data
            .entry(k.clone())
            .or_insert_with(|| v.clone());
    }
    let mut rec = Recorder::create(opts)?;
    let mut ids = HashMap::new();
    for t in bag
        .topics()
        .iter()
        .filter(|t| select.plays(&t.metadata.name))
    {
        let m = &t.metadata;
        let spec = TopicSpec {
            name: m.name.clone(),
            type_name: m.type_name.clone(),
            serialization_format: m.serialization_format.clone(),
            offered_qos_profiles: m.offered_qos_profiles.clone(),
            type_description_hash: m.type_description_hash.clone(),
            definition: t
                .definition
                .clone()
                .unwrap_or_else(|| MessageDefinition::empty(&m.type_name)),
        };
        ids.insert(m.name.clone(), rec.add_topic(spec)?);
    }
    for m in bag.messages() {
        let m = m?;
        if let Some(id) = ids.get(&*m.topic) {
            rec.write(*id, m.log_time, m.publish_time, &m.data)?;
        }
    }
    rec.finish()
}
