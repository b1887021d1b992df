//! `arnie_bag reindex`: repair a bag cut off by a crash or a power loss.
//!
//! Each `.mcap` file of the folder that has no valid footer is read record by record up
//! to the point where it was cut off; every complete chunk (the recorder closes one each
//! second) is kept and the file is rewritten whole (schemas, channels, messages,
//! indexes, summary) beside it, then renamed over it. `metadata.yaml` is then rebuilt
//! from the files (like rosbag2's reindex), keeping `ros_distro` and `custom_data` from
//! the old one when it is readable.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::bag::metadata_from_mcap;
use crate::error::{BagError, Result};
use crate::mcap::{Compression, Item, LinearReader, McapFile, McapWriter, WriterOptions};
use crate::metadata::{BagMetadata, TopicInformation, NO_START};

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileRepair {
    /// Complete already.
    Intact,
    /// Rewritten from what could be read.
    Recovered {
        /// Messages kept.
        messages: u64,
        /// Bytes of the old file that were readable (everything after was lost).
        readable_bytes: u64,
        /// Why reading stopped.
        reason: String,
    },
}

/// The outcome of a reindex.
#[derive(Debug, Clone)]
pub struct ReindexReport {
    /// The bag folder.
    pub dir: PathBuf,
    /// Each storage file and what was done to it.
    pub files: Vec<(String, FileRepair)>,
    /// The `metadata.yaml` written.
    pub metadata: BagMetadata,
}

impl std::fmt::Display for ReindexReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (name, r) in &self.files {
            match r {
                FileRepair::Intact => writeln!(f, "{name}: complete")?,
                FileRepair::Recovered { messages, readable_bytes, reason } => writeln!(
                    f,
                    "{name}: recovered {messages} messages from the first {readable_bytes} bytes ({reason})"
                )?,
            }
        }
        write!(
            f,
            "{}: metadata.yaml rebuilt, {} messages",
            self.dir.join("metadata.yaml").display(),
            self.metadata.message_count
        )
    }
}

/// The `.mcap` files of a folder in split order (`_0`, `_1`, ... `_10`).
pub fn mcap_files(dir: &Path) -> Result<Vec<String>> {
    let rd = std::fs::read_dir(dir).map_err(|e| BagError::io(dir, e))?;
    let mut names: Vec<String> = rd
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".mcap"))
        .collect();
    let index = |n: &str| -> u64 {
        let stem = n.trim_end_matches(".mcap");
        stem.rsplit_once('_')
            .and_then(|(_, i)| i.parse().ok())
            .unwrap_or(0)
    };
    names.sort_by(|a, b| index(a).cmp(&index(b)).then_with(|| a.cmp(b)));
    Ok(names)
}

/// Repairs the bag folder `dir`; see the module doc.
///
/// # Errors
/// A folder that does not exist or holds no `.mcap` file, a file that is not MCAP at
/// all, I/O errors; each naming the path.
pub fn reindex(dir: &Path) -> Result<ReindexReport> {
    if !dir.is_dir() {
        return Err(if dir.exists() {
            BagError::option(dir.display().to_string(), "not a bag folder")
        } else {
            BagError::NotFound {
                path: dir.to_path_buf(),
            }
        });
    }
    let old = BagMetadata::read_dir(dir).ok();
    let names = mcap_files(dir)?;
    if names.is_empty() {
        return Err(BagError::option(
            dir.display().to_string(),
            "no .mcap files to reindex",
        ));
    }
    let distro = old.as_ref().map(|m| m.ros_distro.clone());
    let mut files = Vec::new();
    let mut opened = Vec::new();
    for name in &names {
        let path = dir.join(name);
        let repair = match McapFile::open(&path) {
            Ok(f) => {
                opened.push(f);
                FileRepair::Intact
            }
            Err(
                BagError::Truncated { .. } | BagError::Corrupt { .. } | BagError::ChunkCrc { .. },
            ) => {
                let r = recover_file(&path, distro.as_deref().unwrap_or(""))?;
                opened.push(McapFile::open(&path)?);
                r
            }
            Err(e) => return Err(e),
        };
        files.push((name.clone(), repair));
    }

    let mut meta = BagMetadata::default();
    let mut topics: Vec<TopicInformation> = Vec::new();
    let mut end = 0u64;
    for (f, name) in opened.iter().zip(&names) {
        let fm = metadata_from_mcap(f, name)?;
        if meta.ros_distro.is_empty() {
            meta.ros_distro = fm.ros_distro.clone();
            meta.custom_data = fm.custom_data.clone();
        }
        meta.relative_file_paths.push(name.clone());
        meta.files.extend(fm.files.iter().cloned());
        meta.message_count += fm.message_count;
        if fm.message_count > 0 {
            meta.starting_time_ns = meta.starting_time_ns.min(fm.starting_time_ns);
            end = end.max(fm.end_time_ns());
        }
        for t in fm.topics_with_message_count {
            match topics
                .iter_mut()
                .find(|x| x.topic_metadata.name == t.topic_metadata.name)
            {
                Some(x) => x.message_count += t.message_count,
                None => topics.push(t),
            }
        }
    }
    if meta.starting_time_ns != NO_START {
        meta.duration_ns = end - meta.starting_time_ns;
    }
    if let Some(old) = &old {
        meta.ros_distro = old.ros_distro.clone();
        meta.custom_data = old.custom_data.clone();
        // Keep the old topic order, then any topic it did not list.
        let order: HashMap<&str, usize> = old
            .topics_with_message_count
            .iter()
            .enumerate()
            .map(|(i, t)| (t.topic_metadata.name.as_str(), i))
            .collect();
        topics.sort_by_key(|t| {
            order
                .get(t.topic_metadata.name.as_str())
                .copied()
                .unwrap_or(usize::MAX)
        });
    }
    meta.topics_with_message_count = topics;
    meta.write_dir(dir)?;
    Ok(ReindexReport {
        dir: dir.to_path_buf(),
        files,
        metadata: meta,
    })
}

/// Rewrites a cut-off file from its readable records; returns what was kept.
fn recover_file(path: &Path, ros_distro: &str) -> Result<FileRepair> {
    let tmp = path.with_extension("mcap.reindex.tmp");
    let _ = std::fs::remove_file(&tmp);
    let mut reader = match LinearReader::open(path) {
        Ok(r) => Some(r),
        // Cut off inside the header: nothing to keep but an empty, valid file.
        Err(BagError::Truncated { .. }) => None,
        Err(e) => return Err(e),
    };
    let compression = Compression::Zstd;
    let mut writer = McapWriter::create(
        &tmp,
        WriterOptions {
            compression,
            ..WriterOptions::default()
        },
    )?;
    let mut schemas: BTreeMap<u16, u16> = BTreeMap::new();
    let mut channels: BTreeMap<u16, u16> = BTreeMap::new();
    let mut messages = 0u64;
    let mut reason = String::from("cut off in the file header");
    let mut readable = 0;
    let mut last_rosbag2: Option<BTreeMap<String, String>> = None;
    let mut pending: Vec<Item> = Vec::new();
    if let Some(r) = reader.as_mut() {
        // Items of a chunk are kept only once the chunk was read whole.
        loop {
            match r.next_item() {
                Ok(None) => {
                    reason = "no footer".into();
                    break;
                }
                Ok(Some(Item::ChunkEnd)) => {}
                Ok(Some(Item::DataEnd)) => {
                    reason = "cut off in the summary".into();
                    break;
                }
                Ok(Some(item)) => pending.push(item),
                Err(e) => {
                    reason = e.to_string();
                    break;
                }
            }
            for item in pending.drain(..) {
                match item {
                    Item::Schema(s) => {
                        let id = writer.add_schema(&s.name, &s.encoding, &s.data)?;
                        schemas.insert(s.id, id);
                    }
                    Item::Channel(c) => {
                        let sid = schemas.get(&c.schema_id).copied().unwrap_or(0);
                        let id = writer.add_channel(
                            sid,
                            &c.topic,
                            &c.message_encoding,
                            c.metadata.clone(),
                        )?;
                        channels.insert(c.id, id);
                    }
                    Item::Message(m) => {
                        if let Some(&ch) = channels.get(&m.channel_id) {
                            writer.write_message(
                                ch,
                                m.sequence,
                                m.log_time,
                                m.publish_time,
                                &m.data,
                            )?;
                            messages += 1;
                        }
                    }
                    Item::Metadata(m) if m.name == "rosbag2" => last_rosbag2 = Some(m.metadata),
                    Item::Metadata(m) => writer.write_metadata(&m.name, m.metadata)?,
                    Item::ChunkEnd | Item::DataEnd => {}
                }
            }
        }
        readable = r.good_until;
    }
    // A fresh rosbag2 record describing this file as recovered.
    let stats = writer.statistics();
    let mut fm = BagMetadata {
        ros_distro: ros_distro.to_string(),
        ..BagMetadata::default()
    };
    if let Some(prev) = last_rosbag2
        .as_ref()
        .and_then(|m| m.get("serialized_metadata"))
    {
        if let Ok(p) = BagMetadata::from_yaml(prev, path) {
            if fm.ros_distro.is_empty() {
                fm.ros_distro = p.ros_distro;
            }
            fm.custom_data = p.custom_data;
        }
    }
    fm.message_count = stats.message_count;
    if stats.message_count > 0 {
        fm.starting_time_ns = stats.message_start_time;
        fm.duration_ns = stats.message_end_time - stats.message_start_time;
    }
    let record = BTreeMap::from([
        ("serialized_metadata".to_string(), fm.to_serialized()),
        ("ROS_DISTRO".to_string(), fm.ros_distro.clone()),
    ]);
    writer.write_metadata("rosbag2", record)?;
    writer.finish()?;
    std::fs::rename(&tmp, path).map_err(|e| BagError::io(path, e))?;
    Ok(FileRepair::Recovered {
        messages,
        readable_bytes: readable,
        reason,
    })
}
