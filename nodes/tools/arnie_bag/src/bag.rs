//! Reading a bag: a rosbag2 folder (`metadata.yaml` + MCAP files, metadata v1..v9) or a
//! bare `.mcap` file, checked on open (storage id, each file readable, each channel's
//! schema the type its topic has), then read message by message.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{BagError, Result};
use crate::mcap::{McapFile, OwnedMessage};
use crate::metadata::{BagMetadata, FileInformation, TopicInformation, TopicMetadata};
use crate::msgdef::MessageDefinition;
use crate::qos;

/// A topic of an open bag.
#[derive(Debug, Clone, PartialEq)]
pub struct BagTopic {
    /// The topic's name, type, serialization and recorded QoS, from `metadata.yaml`.
    pub metadata: TopicMetadata,
    /// Messages of the topic in the bag (the file's statistics, else `metadata.yaml`).
    pub message_count: u64,
    /// The schema stored in the MCAP file, if it has one for this topic.
    pub definition: Option<MessageDefinition>,
}

/// One message read from a bag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BagMessage {
    /// The topic the message was recorded on.
    pub topic: Arc<str>,
    /// Receive time when recorded, ns since the epoch (MCAP `log_time`).
    pub log_time: u64,
    /// Send time, or the receive time (MCAP `publish_time`).
    pub publish_time: u64,
    /// The publisher's sequence number (MCAP `sequence`; 0 when unknown).
    pub sequence: u32,
    /// The serialized (CDR) message.
    pub data: Vec<u8>,
}

/// An open, checked bag.
pub struct Bag {
    path: PathBuf,
    metadata: BagMetadata,
    files: Vec<McapFile>,
    topics: Vec<BagTopic>,
    /// Per file: channel id -> topic name.
    channel_topics: Vec<HashMap<u16, Arc<str>>>,
    bag_size: u64,
}

impl Bag {
    /// Opens a bag folder or a bare `.mcap` file.
    ///
    /// # Errors
    /// One [`BagError`] naming the file at fault: missing path, missing or bad
    /// `metadata.yaml`, a storage other than MCAP, rosbag2 file compression, a
    /// truncated or corrupt MCAP file, a schema that is not its topic's type.
    pub fn open(path: impl AsRef<Path>) -> Result<Bag> {
        let path = path.as_ref().to_path_buf();
        let md = std::fs::metadata(&path).map_err(|e| BagError::io(&path, e))?;
        if md.is_dir() {
            Self::open_dir(path)
        } else {
            Self::open_file(path, md.len())
        }
    }

    fn open_dir(dir: PathBuf) -> Result<Bag> {
        let meta_path = dir.join("metadata.yaml");
        let metadata = BagMetadata::read_dir(&dir)?;
        if metadata.storage_identifier != "mcap" {
            return Err(BagError::UnsupportedStorage {
                path: meta_path,
                storage_id: metadata.storage_identifier,
            });
        }
        if !metadata.compression_mode.is_empty()
            && !metadata.compression_mode.eq_ignore_ascii_case("none")
        {
            return Err(BagError::UnsupportedCompression {
                path: meta_path,
                what: format!(
                    "rosbag2 {} compression ({})",
                    metadata.compression_mode, metadata.compression_format
                ),
            });
        }
        let mut files = Vec::new();
        for rel in &metadata.relative_file_paths {
            let mut p = dir.join(rel);
            if !p.exists() {
                // Versions before 4 stored the bag folder in front of the file name.
                if let Some(name) = Path::new(rel).file_name() {
                    p = dir.join(name);
                }
            }
            files.push(McapFile::open(&p)?);
        }
        let type_of: HashMap<&str, &str> = metadata
            .topics_with_message_count
            .iter()
            .map(|t| {
                (
                    t.topic_metadata.name.as_str(),
                    t.topic_metadata.type_name.as_str(),
                )
            })
            .collect();
        for f in &files {
            for c in f.summary().channels.values() {
                let found = f
                    .summary()
                    .schemas
                    .get(&c.schema_id)
                    .map(|s| s.name.as_str())
                    .unwrap_or("");
                if let Some(expected) = type_of.get(c.topic.as_str()) {
                    if !found.is_empty() && found != *expected {
                        return Err(BagError::SchemaMismatch {
                            path: f.path().to_path_buf(),
                            topic: c.topic.clone(),
                            expected: expected.to_string(),
                            found: found.to_string(),
                        });
                    }
                }
            }
        }
        let topics = bag_topics(&metadata, &files);
        let bag_size = dir_size(&dir);
        Ok(Bag {
            channel_topics: channel_maps(&files),
            path: dir,
            metadata,
            files,
            topics,
            bag_size,
        })
    }

    fn open_file(path: PathBuf, size: u64) -> Result<Bag> {
        let file = McapFile::open(&path)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let metadata = metadata_from_mcap(&file, &name)?;
        let files = vec![file];
        let topics = bag_topics(&metadata, &files);
        Ok(Bag {
            channel_topics: channel_maps(&files),
            path,
            metadata,
            files,
            topics,
            bag_size: size,
        })
    }

    /// The path it was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// The bag's metadata (from `metadata.yaml`, or built from a bare file).
    pub fn metadata(&self) -> &BagMetadata {
        &self.metadata
    }
    /// Its topics, in metadata order.
    pub fn topics(&self) -> &[BagTopic] {
        &self.topics
    }
    /// A topic by name.
    pub fn topic(&self, name: &str) -> Option<&BagTopic> {
        self.topics.iter().find(|t| t.metadata.name == name)
    }
    /// Total size in bytes (every file of the folder, as `ros2 bag info` counts).
    pub fn size(&self) -> u64 {
        self.bag_size
    }
    /// The MCAP files, in order.
    pub fn files(&self) -> &[McapFile] {
        &self.files
    }

    /// Every message: file after file, each file in log-time order.
    pub fn messages(&self) -> BagMessages<'_> {
        BagMessages {
            bag: self,
            file: 0,
            cur: None,
        }
    }
}

fn definition_in(files: &[McapFile], topic: &str) -> Option<MessageDefinition> {
    files.iter().find_map(|f| {
        let c = f.summary().channels.values().find(|c| c.topic == topic)?;
        let s = f.summary().schemas.get(&c.schema_id)?;
        Some(MessageDefinition {
            type_name: s.name.clone(),
            encoding: s.encoding.clone(),
            text: String::from_utf8_lossy(&s.data).into_owned(),
        })
    })
}

/// One [`BagTopic`] per topic of the metadata, with its definition from the files.
fn bag_topics(metadata: &BagMetadata, files: &[McapFile]) -> Vec<BagTopic> {
    metadata
        .topics_with_message_count
        .iter()
        .map(|t| BagTopic {
            metadata: t.topic_metadata.clone(),
            message_count: t.message_count,
            definition: definition_in(files, &t.topic_metadata.name),
        })
        .collect()
}

fn channel_maps(files: &[McapFile]) -> Vec<HashMap<u16, Arc<str>>> {
    files
        .iter()
        .map(|f| {
            f.summary()
                .channels
                .values()
                .map(|c| (c.id, Arc::<str>::from(c.topic.as_str())))
                .collect()
        })
        .collect()
}

/// Sum of the sizes of the files directly in `dir` (rcutils_calculate_directory_size).
pub fn dir_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// The metadata rosbag2's MCAP plugin reports for a single file: the `rosbag2` record's
/// YAML (version, distro, custom data) overlaid with what the summary says (counts,
/// times, topics from channels).
pub fn metadata_from_mcap(file: &McapFile, name: &str) -> Result<BagMetadata> {
    let mut m = BagMetadata::default();
    let records = file.metadata_records("rosbag2")?;
    if let Some(last) = records.last() {
        if let Some(text) = last
            .metadata
            .get("serialized_metadata")
            .filter(|t| !t.is_empty())
        {
            if let Ok(prev) = BagMetadata::from_yaml(text, file.path()) {
                m = prev;
            }
        }
        if let Some(d) = last.metadata.get("ROS_DISTRO") {
            m.ros_distro = d.clone();
        }
    }
    let stats = file.summary().statistics.clone().unwrap_or_default();
    m.storage_identifier = "mcap".into();
    m.compression_format.clear();
    m.compression_mode.clear();
    m.relative_file_paths = vec![name.to_string()];
    m.message_count = stats.message_count;
    m.starting_time_ns = stats.message_start_time;
    m.duration_ns = stats
        .message_end_time
        .saturating_sub(stats.message_start_time);
    m.files = vec![FileInformation {
        path: name.to_string(),
        starting_time_ns: m.starting_time_ns,
        duration_ns: m.duration_ns,
        message_count: m.message_count,
    }];
    m.topics_with_message_count.clear();
    for c in file.summary().channels.values() {
        let type_name = file
            .summary()
            .schemas
            .get(&c.schema_id)
            .map(|s| s.name.clone())
            .unwrap_or_default();
        let offered = match c.metadata.get("offered_qos_profiles") {
            Some(text) => qos::profiles_from_yaml_text(text).map_err(|e| {
                BagError::corrupt(file.path(), 0, format!("channel {} QoS: {e}", c.topic))
            })?,
            None => Vec::new(),
        };
        m.topics_with_message_count.push(TopicInformation {
            topic_metadata: TopicMetadata {
                name: c.topic.clone(),
                type_name,
                serialization_format: c.message_encoding.clone(),
                offered_qos_profiles: offered,
                type_description_hash: c
                    .metadata
                    .get("topic_type_hash")
                    .cloned()
                    .unwrap_or_default(),
            },
            message_count: stats
                .channel_message_counts
                .get(&c.id)
                .copied()
                .unwrap_or(0),
        });
    }
    Ok(m)
}

/// Iterator over a bag's messages.
pub struct BagMessages<'a> {
    bag: &'a Bag,
    file: usize,
    cur: Option<crate::mcap::read::Messages<'a>>,
}

impl Iterator for BagMessages<'_> {
    type Item = Result<BagMessage>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.cur.is_none() {
                let f = self.bag.files.get(self.file)?;
                self.cur = Some(f.messages());
            }
            let it = self.cur.as_mut()?;
            match it.next() {
                None => {
                    self.cur = None;
                    self.file += 1;
                }
                Some(Err(e)) => {
                    self.file = self.bag.files.len();
                    self.cur = None;
                    return Some(Err(e));
                }
                Some(Ok(m)) => return Some(self.convert(m)),
            }
        }
    }
}

impl BagMessages<'_> {
    fn convert(&self, m: OwnedMessage) -> Result<BagMessage> {
        let topic = self.bag.channel_topics[self.file]
            .get(&m.channel_id)
            .cloned()
            .ok_or_else(|| BagError::UnknownChannel {
                path: self.bag.files[self.file].path().to_path_buf(),
                channel: m.channel_id,
            })?;
        Ok(BagMessage {
            topic,
            log_time: m.log_time,
            publish_time: m.publish_time,
            sequence: m.sequence,
            data: m.data,
        })
    }
}
