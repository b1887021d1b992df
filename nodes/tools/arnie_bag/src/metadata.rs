//! `metadata.yaml` (and the same YAML inside the MCAP `rosbag2` metadata record).
//!
//! Written as rosbag2 Jazzy writes version 9, key for key and in its order:
//!
//! ```yaml
//! rosbag2_bagfile_information:
//!   version: 9
//!   storage_identifier: mcap
//!   duration:
//!     nanoseconds: 1500000000
//!   starting_time:
//!     nanoseconds_since_epoch: 1700000000000000000
//!   message_count: 3
//!   topics_with_message_count:
//!     - topic_metadata:
//!         name: /chatter
//!         type: std_msgs/msg/String
//!         serialization_format: cdr
//!         offered_qos_profiles:
//!           - history: keep_last
//!             ...
//!         type_description_hash: RIHS01_...
//!       message_count: 3
//!   compression_format: ""
//!   compression_mode: ""
//!   relative_file_paths:
//!     - bag_0.mcap
//!   files:
//!     - path: bag_0.mcap
//!       starting_time:
//!         nanoseconds_since_epoch: 1700000000000000000
//!       duration:
//!         nanoseconds: 1500000000
//!       message_count: 3
//!   custom_data: ~
//!   ros_distro: jazzy
//! ```
//!
//! Read: versions 1 to 9, each key required from the version rosbag2 introduced it
//! (compression 3, files 5, custom_data 6, type hash 7, ros_distro 8); QoS profiles as
//! YAML text (4..8) or a list (9), either spelling of the policies.

use std::collections::BTreeMap;
use std::path::Path;

use yaml_rust2::Yaml;

use crate::error::{BagError, Result};
use crate::qos::{self, Qos};
use crate::yaml::{self, Node};

/// The version this library writes.
pub const VERSION: u32 = 9;

/// rosbag2's "no message yet" starting time (`nanoseconds::max()`).
pub const NO_START: u64 = i64::MAX as u64;

/// A topic as the bag describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicMetadata {
    /// Topic name (absolute, e.g. `/arm/position`).
    pub name: String,
    /// `pkg/msg/Type`.
    pub type_name: String,
    /// `cdr`.
    pub serialization_format: String,
    /// The QoS profiles the topic's publishers offered while recording.
    pub offered_qos_profiles: Vec<Qos>,
    /// `RIHS01_<sha256>` or empty.
    pub type_description_hash: String,
}

/// A topic and how many messages the bag holds for it.
#[derive(Debug, Clone, PartialEq)]
pub struct TopicInformation {
    /// The topic.
    pub topic_metadata: TopicMetadata,
    /// Messages recorded on it.
    pub message_count: u64,
}

/// One storage file of the bag.
#[derive(Debug, Clone, PartialEq)]
pub struct FileInformation {
    /// Relative to the bag folder.
    pub path: String,
    /// Receive time of the file's first message, ns since the epoch.
    pub starting_time_ns: u64,
    /// From the first to the last message of the file [ns].
    pub duration_ns: u64,
    /// Messages in the file.
    pub message_count: u64,
}

/// The whole of `rosbag2_bagfile_information`.
#[derive(Debug, Clone, PartialEq)]
pub struct BagMetadata {
    /// `metadata.yaml` format version (we write 9; read 1 to 9).
    pub version: u32,
    /// Storage plugin: `mcap` (the only one read).
    pub storage_identifier: String,
    /// From the first to the last message [ns].
    pub duration_ns: u64,
    /// Receive time of the first message, ns since the epoch ([`NO_START`] before any).
    pub starting_time_ns: u64,
    /// Messages in the bag.
    pub message_count: u64,
    /// Every topic with its message count.
    pub topics_with_message_count: Vec<TopicInformation>,
    /// rosbag2's file/message compression (not MCAP chunk compression): always empty
    /// in bags we write.
    pub compression_format: String,
    /// rosbag2's compression mode (`file`, `message` or empty); always empty in bags we write.
    pub compression_mode: String,
    /// The storage files, relative to the bag folder.
    pub relative_file_paths: Vec<String>,
    /// Per-file time range and message count.
    pub files: Vec<FileInformation>,
    /// Free key-value pairs (rosbag2's `custom_data`).
    pub custom_data: BTreeMap<String, String>,
    /// The ROS distribution that recorded the bag (`jazzy`).
    pub ros_distro: String,
}

impl Default for BagMetadata {
    fn default() -> Self {
        BagMetadata {
            version: VERSION,
            storage_identifier: "mcap".into(),
            duration_ns: 0,
            starting_time_ns: NO_START,
            message_count: 0,
            topics_with_message_count: Vec::new(),
            compression_format: String::new(),
            compression_mode: String::new(),
            relative_file_paths: Vec::new(),
            files: Vec::new(),
            custom_data: BTreeMap::new(),
            ros_distro: String::new(),
        }
    }
}

fn duration(ns: u64) -> Node {
    Node::map(vec![("nanoseconds", Node::int(ns))])
}
fn time_point(ns: u64) -> Node {
    Node::map(vec![("nanoseconds_since_epoch", Node::int(ns))])
}

impl TopicMetadata {
    fn to_node(&self, version: u32) -> Node {
        let qos = if version < 9 {
            Node::str(qos::profiles_to_yaml(&self.offered_qos_profiles, version))
        } else {
            qos::profiles_node(&self.offered_qos_profiles, version)
        };
        Node::map(vec![
            ("name", Node::str(&self.name)),
            ("type", Node::str(&self.type_name)),
            (
                "serialization_format",
                Node::str(&self.serialization_format),
            ),
            ("offered_qos_profiles", qos),
            (
                "type_description_hash",
                Node::str(&self.type_description_hash),
            ),
        ])
    }
}

impl BagMetadata {
    /// The `rosbag2_bagfile_information` node, rosbag2's key order.
    pub fn to_node(&self) -> Node {
        let v = self.version;
        let topics = self
            .topics_with_message_count
            .iter()
            .map(|t| {
                Node::map(vec![
                    ("topic_metadata", t.topic_metadata.to_node(v)),
                    ("message_count", Node::int(t.message_count)),
                ])
            })
            .collect();
        let files = self
            .files
            .iter()
            .map(|f| {
                Node::map(vec![
                    ("path", Node::str(&f.path)),
                    ("starting_time", time_point(f.starting_time_ns)),
                    ("duration", duration(f.duration_ns)),
                    ("message_count", Node::int(f.message_count)),
                ])
            })
            .collect();
        let custom = if self.custom_data.is_empty() {
            Node::Null
        } else {
            Node::Map(
                self.custom_data
                    .iter()
                    .map(|(k, v)| (k.clone(), Node::str(v)))
                    .collect(),
            )
        };
        Node::map(vec![
            ("version", Node::int(v)),
            ("storage_identifier", Node::str(&self.storage_identifier)),
            ("duration", duration(self.duration_ns)),
            ("starting_time", time_point(self.starting_time_ns)),
            ("message_count", Node::int(self.message_count)),
            ("topics_with_message_count", Node::Seq(topics)),
            ("compression_format", Node::str(&self.compression_format)),
            ("compression_mode", Node::str(&self.compression_mode)),
            (
                "relative_file_paths",
                Node::Seq(self.relative_file_paths.iter().map(Node::str).collect()),
            ),
            ("files", Node::Seq(files)),
            ("custom_data", custom),
            ("ros_distro", Node::str(&self.ros_distro)),
        ])
    }

    /// The text of `metadata.yaml` (no trailing newline, as yaml-cpp writes it).
    pub fn to_metadata_yaml(&self) -> String {
        yaml::dump(&Node::Map(vec![(
            "rosbag2_bagfile_information".into(),
            self.to_node(),
        )]))
    }

    /// The text of the MCAP `rosbag2` record's `serialized_metadata` (no root key).
    pub fn to_serialized(&self) -> String {
        yaml::dump(&self.to_node())
    }

    /// Reads `metadata.yaml` text (with the root key) or `serialized_metadata` text
    /// (without); `source` names the file in errors.
    pub fn from_yaml(text: &str, source: &Path) -> Result<BagMetadata> {
        let doc = yaml::parse(text).map_err(|e| BagError::bad_metadata(source, e.to_string()))?;
        let root = yaml::get(&doc, "rosbag2_bagfile_information").unwrap_or(&doc);
        if !matches!(root, Yaml::Hash(_)) {
            return Err(BagError::bad_metadata(
                source,
                "no rosbag2_bagfile_information map",
            ));
        }
        decode(root, source)
    }

    /// Reads `<dir>/metadata.yaml`.
    pub fn read_dir(dir: &Path) -> Result<BagMetadata> {
        let path = dir.join("metadata.yaml");
        let text = match std::fs::read(&path) {
            Ok(b) => {
                String::from_utf8(b).map_err(|_| BagError::bad_metadata(&path, "not UTF-8 text"))?
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(BagError::MissingMetadata {
                    dir: dir.to_path_buf(),
                })
            }
            Err(e) => return Err(BagError::io(&path, e)),
        };
        Self::from_yaml(&text, &path)
    }

    /// Writes `<dir>/metadata.yaml` atomically (a temporary file renamed over it), so a
    /// crash mid-write leaves the previous version.
    pub fn write_dir(&self, dir: &Path) -> Result<()> {
        let path = dir.join("metadata.yaml");
        let tmp = dir.join("metadata.yaml.tmp");
        std::fs::write(&tmp, self.to_metadata_yaml()).map_err(|e| BagError::io(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| BagError::io(&path, e))
    }

    /// Receive time of the last message (start + duration).
    pub fn end_time_ns(&self) -> u64 {
        self.starting_time_ns.saturating_add(self.duration_ns)
    }
}

fn decode(root: &Yaml, src: &Path) -> Result<BagMetadata> {
    let need = |node: &Yaml, key: &str| -> Result<Yaml> {
        yaml::get(node, key)
            .cloned()
            .ok_or_else(|| BagError::bad_metadata(src, format!("missing key {key}")))
    };
    let u64_at = |node: &Yaml, path: &[&str]| -> Result<u64> {
        let mut n = node.clone();
        for k in path {
            n = need(&n, k)?;
        }
        yaml::as_u64(&n).ok_or_else(|| {
            BagError::bad_metadata(
                src,
                format!("{} is not a non-negative integer", path.join(".")),
            )
        })
    };
    let string = |node: &Yaml, key: &str| -> Result<String> {
        yaml::as_string(&need(node, key)?)
            .ok_or_else(|| BagError::bad_metadata(src, format!("{key} is not a string")))
    };

    let version_raw = yaml::as_i64(&need(root, "version")?)
        .ok_or_else(|| BagError::bad_metadata(src, "version is not an integer"))?;
    if !(1..=i64::from(VERSION)).contains(&version_raw) {
        return Err(BagError::UnsupportedVersion {
            path: src.to_path_buf(),
            version: version_raw,
        });
    }
    let version = version_raw as u32;
    let mut m = BagMetadata {
        version,
        storage_identifier: string(root, "storage_identifier")?,
        duration_ns: u64_at(root, &["duration", "nanoseconds"])?,
        starting_time_ns: u64_at(root, &["starting_time", "nanoseconds_since_epoch"])?,
        message_count: u64_at(root, &["message_count"])?,
        ..BagMetadata::default()
    };
    let topics = need(root, "topics_with_message_count")?;
    let topics = match &topics {
        Yaml::Array(a) => a.clone(),
        Yaml::Null => Vec::new(),
        _ => {
            return Err(BagError::bad_metadata(
                src,
                "topics_with_message_count is not a list",
            ))
        }
    };
    for t in &topics {
        let tm = need(t, "topic_metadata")?;
        let offered = if version >= 4 {
            match yaml::get(&tm, "offered_qos_profiles") {
                Some(q) => qos::profiles_from_yaml(q)
                    .map_err(|e| BagError::bad_metadata(src, e.to_string()))?,
                None => {
                    return Err(BagError::bad_metadata(
                        src,
                        "missing key offered_qos_profiles",
                    ))
                }
            }
        } else {
            Vec::new()
        };
        m.topics_with_message_count.push(TopicInformation {
            topic_metadata: TopicMetadata {
                name: string(&tm, "name")?,
                type_name: string(&tm, "type")?,
                serialization_format: string(&tm, "serialization_format")?,
                offered_qos_profiles: offered,
                type_description_hash: if version >= 7 {
                    string(&tm, "type_description_hash")?
                } else {
                    String::new()
                },
            },
            message_count: u64_at(t, &["message_count"])?,
        });
    }
    m.relative_file_paths = match need(root, "relative_file_paths")? {
        Yaml::Array(a) => a
            .iter()
            .map(|p| {
                yaml::as_string(p).ok_or_else(|| {
                    BagError::bad_metadata(src, "a relative_file_paths entry is not a string")
                })
            })
            .collect::<Result<_>>()?,
        Yaml::Null => Vec::new(),
        _ => {
            return Err(BagError::bad_metadata(
                src,
                "relative_file_paths is not a list",
            ))
        }
    };
    if version >= 3 {
        m.compression_format = string(root, "compression_format")?;
        m.compression_mode = string(root, "compression_mode")?;
    }
    if version >= 5 {
        if let Yaml::Array(files) = need(root, "files")? {
            for f in &files {
                m.files.push(FileInformation {
                    path: string(f, "path")?,
                    starting_time_ns: u64_at(f, &["starting_time", "nanoseconds_since_epoch"])?,
                    duration_ns: u64_at(f, &["duration", "nanoseconds"])?,
                    message_count: u64_at(f, &["message_count"])?,
                });
            }
        }
    }
    if version >= 6 {
        if let Some(Yaml::Hash(h)) = yaml::get(root, "custom_data") {
            for (k, v) in h {
                if let (Some(k), Some(v)) = (yaml::as_string(k), yaml::as_string(v)) {
                    m.custom_data.insert(k, v);
                }
            }
        }
    }
    if version >= 8 {
        m.ros_distro = string(root, "ros_distro")?;
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qos::{Durability, RmwTime};

    fn sample() -> BagMetadata {
        BagMetadata {
            duration_ns: 1_500_000_000,
            starting_time_ns: 1_700_000_000_000_000_000,
            message_count: 3,
            topics_with_message_count: vec![TopicInformation {
                topic_metadata: TopicMetadata {
                    name: "/map".into(),
                    type_name: "nav_msgs/msg/OccupancyGrid".into(),
                    serialization_format: "cdr".into(),
                    offered_qos_profiles: vec![Qos {
                        durability: Durability::TransientLocal,
                        depth: 1,
                        lifespan: RmwTime::INFINITE,
                        ..Qos::default()
                    }],
                    type_description_hash: "RIHS01_abc".into(),
                },
                message_count: 3,
            }],
            relative_file_paths: vec!["b_0.mcap".into()],
            files: vec![FileInformation {
                path: "b_0.mcap".into(),
                starting_time_ns: 1_700_000_000_000_000_000,
                duration_ns: 1_500_000_000,
                message_count: 3,
            }],
            ros_distro: "jazzy".into(),
            ..BagMetadata::default()
        }
    }

    #[test]
    fn v9_text_is_rosbag2_layout() {
        let text = sample().to_metadata_yaml();
        let want = "rosbag2_bagfile_information:\n  version: 9\n  storage_identifier: mcap\n  duration:\n    nanoseconds: 1500000000\n  starting_time:\n    nanoseconds_since_epoch: 1700000000000000000\n  message_count: 3\n  topics_with_message_count:\n    - topic_metadata:\n        name: /map\n        type: nav_msgs/msg/OccupancyGrid\n        serialization_format: cdr\n        offered_qos_profiles:\n          - history: keep_last\n            depth: 1\n            reliability: reliable\n            durability: transient_local\n            deadline:\n              sec: 0\n              nsec: 0\n            lifespan:\n              sec: 9223372036\n              nsec: 854775807\n            liveliness: system_default\n            liveliness_lease_duration:\n              sec: 0\n              nsec: 0\n            avoid_ros_namespace_conventions: false\n        type_description_hash: RIHS01_abc\n      message_count: 3\n  compression_format: \"\"\n  compression_mode: \"\"\n  relative_file_paths:\n    - b_0.mcap\n  files:\n    - path: b_0.mcap\n      starting_time:\n        nanoseconds_since_epoch: 1700000000000000000\n      duration:\n        nanoseconds: 1500000000\n      message_count: 3\n  custom_data: ~\n  ros_distro: jazzy";
        assert_eq!(text, want);
        assert_eq!(
            BagMetadata::from_yaml(&text, Path::new("m")).unwrap(),
            sample()
        );
        assert_eq!(
            BagMetadata::from_yaml(&sample().to_serialized(), Path::new("m")).unwrap(),
            sample()
        );
    }

    #[test]
    fn v8_string_qos_round_trips() {
        let m = BagMetadata {
            version: 8,
            ..sample()
        };
        let text = m.to_metadata_yaml();
        assert!(
            text.contains("offered_qos_profiles: \"- history: 1\\n  depth: 1\\n"),
            "{text}"
        );
        assert_eq!(BagMetadata::from_yaml(&text, Path::new("m")).unwrap(), m);
    }

    #[test]
    fn empty_bag_matches_rosbag2_open_record() {
        // What rosbag2 writes into the MCAP at open (from a Jazzy test bag), with v9.
        let m = BagMetadata {
            relative_file_paths: vec!["x_0.mcap".into()],
            files: vec![FileInformation {
                path: "x_0.mcap".into(),
                starting_time_ns: NO_START,
                duration_ns: 0,
                message_count: 0,
            }],
            ..BagMetadata::default()
        };
        assert_eq!(m.to_serialized(), "version: 9\nstorage_identifier: mcap\nduration:\n  nanoseconds: 0\nstarting_time:\n  nanoseconds_since_epoch: 9223372036854775807\nmessage_count: 0\ntopics_with_message_count:\n  []\ncompression_format: \"\"\ncompression_mode: \"\"\nrelative_file_paths:\n  - x_0.mcap\nfiles:\n  - path: x_0.mcap\n    starting_time:\n      nanoseconds_since_epoch: 9223372036854775807\n    duration:\n      nanoseconds: 0\n    message_count: 0\ncustom_data: ~\nros_distro: \"\"");
    }

    #[test]
    fn bad_metadata_is_an_error_naming_the_file() {
        let p = Path::new("/bags/x/metadata.yaml");
        for text in [
            "",
            "rosbag2_bagfile_information: 3",
            "rosbag2_bagfile_information:\n  version: 12",
            ": : :\n\t-",
            "rosbag2_bagfile_information:\n  version: 9\n",
        ] {
            let e = BagMetadata::from_yaml(text, p).unwrap_err();
            assert!(e.to_string().starts_with("/bags/x/metadata.yaml: "), "{e}");
        }
    }
}
