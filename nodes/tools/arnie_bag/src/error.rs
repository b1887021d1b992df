//! The library's one error type: one variant per failure, each message one line that
//! names the file (or folder) it is about.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Everything that can go wrong reading, writing or repairing a bag.
///
/// Every variant carries the path it is about, so the `Display` text alone tells the
/// user which file to look at. Nothing in this crate panics on bad input: a bad file
/// becomes one of these.
#[derive(Debug)]
#[non_exhaustive]
pub enum BagError {
    /// The bag path does not exist.
    NotFound {
        /// The file or folder it is about.
        path: PathBuf,
    },
    /// An operating-system error while reading or writing `path`.
    Io {
        /// The file or folder it is about.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// The folder to record into exists already (rosbag2 refuses too).
    AlreadyExists {
        /// The file or folder it is about.
        path: PathBuf,
    },
    /// A bag folder without `metadata.yaml` (a recording cut off before its first
    /// metadata write, or not a bag): `reindex` rebuilds it.
    MissingMetadata {
        /// The bag folder.
        dir: PathBuf,
    },
    /// `metadata.yaml` is not YAML, or lacks a key its version requires.
    BadMetadata {
        /// The file or folder it is about.
        path: PathBuf,
        /// Why, in words.
        reason: String,
    },
    /// A metadata version this reader does not know (newer than 9, or below 1).
    UnsupportedVersion {
        /// The file or folder it is about.
        path: PathBuf,
        /// The `version` found in `metadata.yaml`.
        version: i64,
    },
    /// A storage other than MCAP (e.g. `sqlite3`).
    UnsupportedStorage {
        /// The file or folder it is about.
        path: PathBuf,
        /// The `storage_identifier` found.
        storage_id: String,
    },
    /// rosbag2's file-level compression (`compression_mode: file|message`), which this
    /// reader does not undo.
    UnsupportedCompression {
        /// The file or folder it is about.
        path: PathBuf,
        /// The compression found (mode and format).
        what: String,
    },
    /// The file does not start with the MCAP magic bytes.
    NotMcap {
        /// The file or folder it is about.
        path: PathBuf,
    },
    /// The MCAP file ends early (no footer): a crash or a copy cut short. `reindex`
    /// recovers what was flushed.
    Truncated {
        /// The file or folder it is about.
        path: PathBuf,
        /// Byte offset where the file ends early.
        at: u64,
    },
    /// A record or field inside an MCAP file is malformed.
    Corrupt {
        /// The file or folder it is about.
        path: PathBuf,
        /// Byte offset of the record in the file.
        offset: u64,
        /// Why, in words.
        reason: String,
    },
    /// A chunk uses a compression this library does not know.
    UnknownChunkCompression {
        /// The file or folder it is about.
        path: PathBuf,
        /// The chunk's compression name.
        compression: String,
    },
    /// A chunk's CRC does not match its content.
    ChunkCrc {
        /// The file or folder it is about.
        path: PathBuf,
        /// Byte offset of the record in the file.
        offset: u64,
    },
    /// The MCAP channel for `topic` uses a schema whose name is not the type
    /// `metadata.yaml` gives the topic.
    SchemaMismatch {
        /// The file or folder it is about.
        path: PathBuf,
        /// The topic name.
        topic: String,
        /// The type `metadata.yaml` gives the topic.
        expected: String,
        /// The MCAP schema's name.
        found: String,
    },
    /// A message refers to a channel id the file never defined.
    UnknownChannel {
        /// The file or folder it is about.
        path: PathBuf,
        /// The unknown channel id.
        channel: u16,
    },
    /// No message definition for a type (not installed, a bad name, a cycle).
    Definition(ros_model::DefinitionError),
    /// `write` for a topic id the recorder never handed out.
    UnknownTopic {
        /// The topic name.
        topic: String,
    },
    /// A topic added twice with a different type.
    TopicTypeConflict {
        /// The topic name.
        topic: String,
        /// The type it was first added with.
        first: String,
        /// The other type.
        second: String,
    },
    /// An invalid option (a bad regex, a rate of 0, ...), in the user's own words.
    BadOption {
        /// The option as the user wrote it.
        option: String,
        /// Why, in words.
        reason: String,
    },
    /// The writer was used after `finish` or after a failed write.
    WriterClosed {
        /// The file or folder it is about.
        path: PathBuf,
    },
}

/// The crate's result alias.
pub type Result<T, E = BagError> = std::result::Result<T, E>;

impl BagError {
    pub(crate) fn io(path: impl AsRef<Path>, source: io::Error) -> Self {
        if source.kind() == io::ErrorKind::NotFound {
            return BagError::NotFound {
                path: path.as_ref().to_path_buf(),
            };
        }
        BagError::Io {
            path: path.as_ref().to_path_buf(),
            source,
        }
    }

    pub(crate) fn corrupt(path: impl AsRef<Path>, offset: u64, reason: impl Into<String>) -> Self {
        BagError::Corrupt {
            path: path.as_ref().to_path_buf(),
            offset,
            reason: reason.into(),
        }
    }

    pub(crate) fn bad_metadata(path: impl AsRef<Path>, reason: impl Into<String>) -> Self {
        BagError::BadMetadata {
            path: path.as_ref().to_path_buf(),
            reason: reason.into(),
        }
    }

    pub(crate) fn option(option: impl Into<String>, reason: impl Into<String>) -> Self {
        BagError::BadOption {
            option: option.into(),
            reason: reason.into(),
        }
    }

    /// True for the failures `reindex` can repair (a cut-off MCAP, a missing or
    /// unreadable `metadata.yaml`).
    pub fn is_recoverable(&self) -> bool {
        matches!(
            self,
            BagError::Truncated { .. }
                | BagError::MissingMetadata { .. }
                | BagError::BadMetadata { .. }
        )
    }
}

impl fmt::Display for BagError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use BagError::*;
        match self {
            NotFound { path } => write!(f, "{}: no such file or directory", path.display()),
            Io { path, source } => write!(f, "{}: {source}", path.display()),
            AlreadyExists { path } => {
                write!(f, "{}: exists already; a bag is never recorded over another", path.display())
            }
            MissingMetadata { dir } => write!(
                f,
                "{}: no metadata.yaml in this bag folder (run `arnie_bag reindex {}` to rebuild it)",
                dir.display(),
                dir.display()
            ),
            BadMetadata { path, reason } => write!(f, "{}: unreadable bag metadata: {reason}", path.display()),
            UnsupportedVersion { path, version } => {
                write!(f, "{}: metadata version {version} is not supported (1..=9)", path.display())
            }
            UnsupportedStorage { path, storage_id } => write!(
                f,
                "{}: storage id {storage_id:?} is not supported (only \"mcap\")",
                path.display()
            ),
            UnsupportedCompression { path, what } => {
                write!(f, "{}: {what} is not supported", path.display())
            }
            NotMcap { path } => write!(f, "{}: not an MCAP file (bad magic bytes)", path.display()),
            Truncated { path, at } => write!(
                f,
                "{}: MCAP file is truncated at byte {at} (recording cut off?); `arnie_bag reindex` recovers it",
                path.display()
            ),
            Corrupt { path, offset, reason } => {
                write!(f, "{}: corrupt MCAP at byte {offset}: {reason}", path.display())
            }
            UnknownChunkCompression { path, compression } => write!(
                f,
                "{}: chunk compression {compression:?} is not supported (none, zstd, lz4)",
                path.display()
            ),
            ChunkCrc { path, offset } => {
                write!(f, "{}: chunk at byte {offset} fails its CRC check", path.display())
            }
            SchemaMismatch { path, topic, expected, found } => write!(
                f,
                "{}: topic {topic} is {expected} in metadata.yaml but its MCAP schema is {found}",
                path.display()
            ),
            UnknownChannel { path, channel } => {
                write!(f, "{}: message on undefined channel {channel}", path.display())
            }
            Definition(e) => write!(f, "{e}"),
            UnknownTopic { topic } => write!(f, "topic {topic} was never added to the recorder"),
            TopicTypeConflict { topic, first, second } => {
                write!(f, "topic {topic} has two types: {first} and {second}")
            }
            BadOption { option, reason } => write!(f, "{option}: {reason}"),
            WriterClosed { path } => write!(f, "{}: the bag writer is closed", path.display()),
        }
    }
}

impl std::error::Error for BagError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BagError::Io { source, .. } => Some(source),
            BagError::Definition(e) => e.source(),
            _ => None,
        }
    }
}

impl From<ros_model::DefinitionError> for BagError {
    fn from(e: ros_model::DefinitionError) -> Self {
        BagError::Definition(e)
    }
}
