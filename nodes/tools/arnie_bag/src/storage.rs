//! `--storage-preset-profile` and `--storage-config-file`: the MCAP storage plugin's
//! writer options, as rosbag2 Jazzy's `rosbag2_storage_mcap` takes them.
//!
//! With either flag the base is the plugin's own defaults (uncompressed chunks, no chunk
//! CRC), then the preset, then the file's keys on top (rosbag2's order). Presets:
//! `none`, `fastwrite` (no chunks, no summary CRC), `zstd_fast` (zstd at the fastest
//! level, no chunk CRC), `zstd_small` (zstd at the slowest level, 4 MiB chunks).
//!
//! File keys (the MCAP C++ writer's option names): `compression` (`None`, `Lz4`,
//! `Zstd`), `compressionLevel` (`Fastest`, `Fast`, `Default`, `Slow`, `Slowest`: zstd
//! levels -5, -3, 1, 5, 19 as the MCAP library maps them; LZ4 here has one level),
//! `chunkSize`, `noChunkCRC`, `forceCompression` (chunks are always stored compressed
//! here), and the options that leave parts of the file out ([`Layout`]): `noChunking`,
//! `noMessageIndex`, `noSummary`, `noChunkIndex`, `noStatistics`, `noSummaryOffsets`,
//! `noRepeatedSchemas`, `noRepeatedChannels`, `noMetadataIndex`, `noSummaryCRC`,
//! `noCRC` (every CRC) and `enableDataCRC`. `noAttachmentIndex` and `noAttachmentCRC`
//! are read and change nothing: arnie_bag writes no attachments. Keys rosbag2 does not
//! read either (`profile`, `library`, unknown ones) are returned to be logged.

use crate::error::{BagError, Result};
use crate::mcap::{Compression, Layout};
use crate::yaml;
use yaml_rust2::Yaml;

/// How hard zstd works (the MCAP library's `CompressionLevel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Level {
    /// zstd -5.
    Fastest,
    /// zstd -3.
    Fast,
    /// zstd 1 (arnie_bag's level without these flags).
    #[default]
    Default,
    /// zstd 5.
    Slow,
    /// zstd 19.
    Slowest,
}

impl Level {
    /// The zstd level the MCAP library uses for it.
    pub fn zstd(self) -> i32 {
        match self {
            Level::Fastest => -5,
            Level::Fast => -3,
            Level::Default => 1,
            Level::Slow => 5,
            Level::Slowest => 19,
        }
    }

    fn parse(s: &str) -> Option<Level> {
        Some(match s {
            "Fastest" => Level::Fastest,
            "Fast" => Level::Fast,
            "Default" => Level::Default,
            "Slow" => Level::Slow,
            "Slowest" => Level::Slowest,
            _ => return None,
        })
    }
}

/// The writer options the flags choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StorageConfig {
    /// Chunk compression.
    pub compression: Compression,
    /// zstd level.
    pub level: Level,
    /// Uncompressed bytes per chunk.
    pub chunk_size: usize,
    /// Whether chunks carry their CRC.
    pub chunk_crc: bool,
    /// The parts of the file written.
    pub layout: Layout,
}

/// The presets `--storage-preset-profile` takes.
pub const PRESETS: [&str; 4] = ["none", "fastwrite", "zstd_fast", "zstd_small"];

impl StorageConfig {
    /// rosbag2's MCAP plugin defaults: uncompressed chunks of the library's size, no
    /// chunk CRC.
    pub fn plugin_defaults() -> Self {
        StorageConfig {
            compression: Compression::None,
            level: Level::Default,
            chunk_size: crate::mcap::DEFAULT_CHUNK_SIZE,
            chunk_crc: false,
            layout: Layout::default(),
        }
    }

    /// Applies a preset on top.
    ///
    /// # Errors
    /// An unknown preset (naming the valid ones).
    pub fn preset(mut self, name: &str) -> Result<Self> {
        match name {
            "none" => {}
            "zstd_fast" => {
                self.compression = Compression::Zstd;
                self.level = Level::Fastest;
                self.chunk_crc = false;
            }
            "zstd_small" => {
                self.compression = Compression::Zstd;
                self.level = Level::Slowest;
                self.chunk_size = 4 * 1024 * 1024;
            }
            "fastwrite" => {
                self.layout.chunked = false;
                self.layout.summary_crc = false;
            }
            other => {
                return Err(BagError::option(
                    "--storage-preset-profile",
                    format!(
                        "unknown MCAP preset {other:?} (valid: {})",
                        PRESETS.join(", ")
                    ),
                ))
            }
        }
        Ok(self)
    }

    /// Applies a storage config file's keys on top; returns the keys not read.
    ///
    /// # Errors
    /// Text that is not a YAML map, a value of the wrong kind, or an option this writer
    /// cannot honour; each names `file` and the key.
    pub fn apply_yaml(&mut self, text: &str, file: &str) -> Result<Vec<String>> {
        let flag = "--storage-config-file";
        let bad = |key: &str, why: &str| BagError::option(flag, format!("{file}: {key}: {why}"));
        let doc = yaml::parse(text).map_err(|e| BagError::option(flag, format!("{file}: {e}")))?;
        let map = match &doc {
            Yaml::Hash(h) => h,
            Yaml::Null => return Ok(Vec::new()),
            _ => {
                return Err(BagError::option(
                    flag,
                    format!("{file}: not a map of options"),
                ))
            }
        };
        let mut ignored = Vec::new();
        let mut no_crc = false;
        for (k, v) in map {
            let Some(key) = yaml::as_string(k) else {
                return Err(BagError::option(
                    flag,
                    format!("{file}: a key that is not text"),
                ));
            };
            let boolean = || yaml::as_bool(v).ok_or_else(|| bad(&key, "not true or false"));
            match key.as_str() {
                "compression" => {
                    self.compression = match yaml::as_string(v).as_deref() {
                        Some("None") => Compression::None,
                        Some("Lz4") => Compression::Lz4,
                        Some("Zstd") => Compression::Zstd,
                        _ => return Err(bad(&key, "not one of None, Lz4, Zstd")),
                    }
                }
                "compressionLevel" => {
                    self.level = yaml::as_string(v)
                        .as_deref()
                        .and_then(Level::parse)
                        .ok_or_else(|| {
                            bad(&key, "not one of Fastest, Fast, Default, Slow, Slowest")
                        })?
                }
                "chunkSize" => {
                    self.chunk_size = yaml::as_u64(v)
                        .and_then(|n| usize::try_from(n).ok())
                        .filter(|n| *n > 0)
                        .ok_or_else(|| bad(&key, "not a positive number of bytes"))?
                }
                "noChunkCRC" => self.chunk_crc = !boolean()?,
                "forceCompression" => {
                    boolean()?;
                }
                "noChunking" => self.layout.chunked = !boolean()?,
                "noMessageIndex" => self.layout.message_indexes = !boolean()?,
                "noSummary" => self.layout.summary = !boolean()?,
                "noChunkIndex" => self.layout.chunk_indexes = !boolean()?,
                "noStatistics" => self.layout.statistics = !boolean()?,
                "noSummaryOffsets" => self.layout.summary_offsets = !boolean()?,
                "noRepeatedSchemas" => self.layout.repeated_schemas = !boolean()?,
                "noRepeatedChannels" => self.layout.repeated_channels = !boolean()?,
                "noMetadataIndex" => self.layout.metadata_indexes = !boolean()?,
                "noSummaryCRC" => self.layout.summary_crc = !boolean()?,
                "enableDataCRC" => self.layout.data_crc = boolean()?,
                "noCRC" => no_crc = boolean()?,
                "noAttachmentIndex" | "noAttachmentCRC" => {
                    boolean()?;
                }
                _ => ignored.push(key),
            }
        }
        if no_crc {
            // As the MCAP library: `noCRC` wins over the single CRC options.
            self.chunk_crc = false;
            self.layout.summary_crc = false;
            self.layout.data_crc = false;
        }
        Ok(ignored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_as_rosbag2s_plugin() {
        let base = StorageConfig::plugin_defaults();
        assert_eq!(base.compression, Compression::None);
        let fast = base.preset("zstd_fast").unwrap();
        assert_eq!(
            (fast.compression, fast.level.zstd()),
            (Compression::Zstd, -5)
        );
        let small = base.preset("zstd_small").unwrap();
        assert_eq!(
            (small.level.zstd(), small.chunk_size),
            (19, 4 * 1024 * 1024)
        );
        assert_eq!(base.preset("none").unwrap(), base);
        let fastwrite = base.preset("fastwrite").unwrap();
        assert!(!fastwrite.layout.chunked && !fastwrite.layout.summary_crc);
        assert_eq!(
            Layout {
                chunked: true,
                summary_crc: true,
                ..fastwrite.layout
            },
            Layout::default()
        );
        let e = base.preset("turbo").unwrap_err().to_string();
        assert!(e.contains("turbo") && e.contains("zstd_small"), "{e}");
    }

    #[test]
    fn a_config_file_overlays_the_preset() {
        let mut c = StorageConfig::plugin_defaults()
            .preset("zstd_fast")
            .unwrap();
        let ignored = c
            .apply_yaml(
                "compressionLevel: Slow\nchunkSize: 1048576\nnoChunkCRC: false\nnoChunking: false\nprofile: ros2\n",
                "c.yaml",
            )
            .unwrap();
        assert_eq!(ignored, ["profile"]);
        assert_eq!(
            (c.compression, c.level, c.chunk_size, c.chunk_crc),
            (Compression::Zstd, Level::Slow, 1 << 20, true)
        );
        for (text, key) in [
            ("compression: Gzip\n", "compression"),
            ("chunkSize: -1\n", "chunkSize"),
            ("noChunking: 3\n", "noChunking"),
            ("noChunkCRC: maybe\n", "noChunkCRC"),
            ("- a\n", "not a map"),
            ("a: [\n", "c.yaml"),
        ] {
            let e = c.apply_yaml(text, "c.yaml").unwrap_err().to_string();
            assert!(e.contains(key) && e.contains("c.yaml"), "{text}: {e}");
        }
    }

    #[test]
    fn the_no_options_leave_parts_out_and_no_crc_wins() {
        let mut c = StorageConfig::plugin_defaults();
        let text = "noChunking: true\nnoMessageIndex: true\nnoSummary: true\nnoChunkIndex: true\n\
                    noStatistics: true\nnoSummaryOffsets: true\nnoRepeatedSchemas: true\n\
                    noRepeatedChannels: true\nnoMetadataIndex: true\nnoAttachmentIndex: true\n";
        assert!(c.apply_yaml(text, "c.yaml").unwrap().is_empty());
        let none = Layout {
            chunked: false,
            message_indexes: false,
            summary: false,
            repeated_schemas: false,
            repeated_channels: false,
            statistics: false,
            chunk_indexes: false,
            metadata_indexes: false,
            summary_offsets: false,
            summary_crc: true,
            data_crc: false,
        };
        assert_eq!(c.layout, none);
        let mut c = StorageConfig::plugin_defaults();
        c.apply_yaml("enableDataCRC: true\nnoChunkCRC: false\n", "c.yaml")
            .unwrap();
        assert!(c.layout.data_crc && c.chunk_crc && c.layout.summary_crc);
        c.apply_yaml("noCRC: true\nenableDataCRC: true\n", "c.yaml")
            .unwrap();
        assert!(!c.layout.data_crc && !c.chunk_crc && !c.layout.summary_crc);
    }
}
