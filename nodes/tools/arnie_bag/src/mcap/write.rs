//! An MCAP writer with exactly the layout rosbag2's MCAP storage produces.
//!
//! Data section: magic, Header, then Chunks (each followed by its MessageIndex records,
//! one per channel with messages in the chunk, by channel id) and Metadata records
//! outside chunks; Schema and Channel records go into the chunk open when they are
//! added. Summary: Schemas, Channels, Statistics, ChunkIndexes, MetadataIndexes, then
//! one SummaryOffset per group, the Footer (with the summary CRC) and the magic.
//!
//! [`Layout`] leaves parts out as the MCAP library's `no…` options do (rosbag2's
//! `fastwrite` preset: no chunks, no summary CRC): unchunked, Schema, Channel and
//! Message records go straight into the data section.
//!
//! [`McapWriter::flush`] closes the open chunk and hands it to the OS, so a file cut off
//! later still holds every complete chunk up to that point; `reindex` recovers them.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::compress::{compress, Compression};
use super::records::*;
use crate::error::{BagError, Result};

/// rosbag2's (the MCAP C++ library's) default chunk size.
pub const DEFAULT_CHUNK_SIZE: usize = 768 * 1024;

/// Which optional parts of a file are written: the MCAP library's `no…` writer options
/// (and `enableDataCRC`), with its defaults (everything but the data section CRC).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Messages go into chunks (`noChunking` clears it).
    pub chunked: bool,
    /// Each chunk is followed by its MessageIndex records (`noMessageIndex`).
    pub message_indexes: bool,
    /// A summary section is written (`noSummary`).
    pub summary: bool,
    /// The summary repeats the Schema records (`noRepeatedSchemas`).
    pub repeated_schemas: bool,
    /// The summary repeats the Channel records (`noRepeatedChannels`).
    pub repeated_channels: bool,
    /// The summary holds a Statistics record (`noStatistics`).
    pub statistics: bool,
    /// The summary holds ChunkIndex records (`noChunkIndex`).
    pub chunk_indexes: bool,
    /// The summary holds MetadataIndex records (`noMetadataIndex`).
    pub metadata_indexes: bool,
    /// SummaryOffset records follow the summary (`noSummaryOffsets`).
    pub summary_offsets: bool,
    /// The footer carries the summary CRC (`noSummaryCRC`).
    pub summary_crc: bool,
    /// DataEnd carries the CRC of the data section (`enableDataCRC`; off by default).
    pub data_crc: bool,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            chunked: true,
            message_indexes: true,
            summary: true,
            repeated_schemas: true,
            repeated_channels: true,
            statistics: true,
            chunk_indexes: true,
            metadata_indexes: true,
            summary_offsets: true,
            summary_crc: true,
            data_crc: false,
        }
    }
}

/// How a file is written.
#[derive(Debug, Clone)]
pub struct WriterOptions {
    /// Header profile; `ros2` for bags.
    pub profile: String,
    /// Header library string.
    pub library: String,
    /// Chunk compression.
    pub compression: Compression,
    /// zstd's level (1: fast enough to keep up with recording).
    pub zstd_level: i32,
    /// A chunk is closed once its uncompressed records reach this many bytes.
    pub chunk_size: usize,
    /// Fill each chunk's `uncompressed_crc` (rosbag2 leaves it 0; readers accept both).
    pub chunk_crc: bool,
    /// The parts written.
    pub layout: Layout,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            profile: "ros2".into(),
            library: crate::LIBRARY.into(),
            compression: Compression::Zstd,
            zstd_level: 1,
            chunk_size: DEFAULT_CHUNK_SIZE,
            chunk_crc: true,
            layout: Layout::default(),
        }
    }
}

#[derive(Default)]
struct OpenChunk {
    records: Vec<u8>,
    start: u64,
    end: u64,
    messages: u64,
    index: BTreeMap<u16, Vec<(u64, u64)>>,
}

/// Writes one MCAP file. Every method returns an error instead of panicking; after an
/// I/O error the writer refuses further use ([`BagError::WriterClosed`]).
pub struct McapWriter {
    path: PathBuf,
    out: Option<BufWriter<File>>,
    pos: u64,
    opts: WriterOptions,
    schemas: Vec<Schema>,
    channels: Vec<Channel>,
    chunk: OpenChunk,
    chunk_indexes: Vec<ChunkIndex>,
    metadata_indexes: Vec<MetadataIndex>,
    message_count: u64,
    time_range: Option<(u64, u64)>,
    channel_counts: BTreeMap<u16, u64>,
    /// The data section's CRC so far (with [`Layout::data_crc`], until DataEnd).
    data_crc: Option<crc32fast::Hasher>,
    /// An unchunked writer's record being framed (kept to reuse its allocation).
    scratch: Vec<u8>,
}

impl McapWriter {
    /// Creates `path` (which must not exist) and writes the magic and Header.
    pub fn create(path: impl AsRef<Path>, opts: WriterOptions) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::AlreadyExists {
                    BagError::AlreadyExists { path: path.clone() }
                } else {
                    BagError::io(&path, e)
                }
            })?;
        let mut w = McapWriter {
            path,
            out: Some(BufWriter::with_capacity(256 * 1024, file)),
            pos: 0,
            opts,
            schemas: Vec::new(),
            channels: Vec::new(),
            chunk: OpenChunk::default(),
            chunk_indexes: Vec::new(),
            metadata_indexes: Vec::new(),
            message_count: 0,
            time_range: None,
            channel_counts: BTreeMap::new(),
            data_crc: None,
            scratch: Vec::new(),
        };
        if w.opts.layout.data_crc {
            w.data_crc = Some(crc32fast::Hasher::new());
        }
        let header = Header {
            profile: w.opts.profile.clone(),
            library: w.opts.library.clone(),
        }
        .encode();
        let mut buf = MAGIC.to_vec();
        frame(&mut buf, op::HEADER, &header);
        w.put(&buf)?;
        Ok(w)
    }

    /// The file being written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes handed to the file so far (the open chunk is not counted): what rosbag2
    /// compares with `--max-bag-size`.
    pub fn bytes_written(&self) -> u64 {
        self.pos
    }

    /// Uncompressed bytes waiting in the open chunk.
    pub fn pending_bytes(&self) -> usize {
        self.chunk.records.len()
    }

    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        let Some(out) = self.out.as_mut() else {
            return Err(BagError::WriterClosed {
                path: self.path.clone(),
            });
        };
        if let Err(e) = out.write_all(bytes) {
            self.out = None;
            return Err(BagError::io(&self.path, e));
        }
        self.pos += bytes.len() as u64;
        if let Some(h) = self.data_crc.as_mut() {
            h.update(bytes);
        }
        Ok(())
    }

    /// Frames a record into the open chunk, or (unchunked) straight into the file.
    fn put_record(&mut self, opcode: u8, body: &[u8]) -> Result<()> {
        if self.opts.layout.chunked {
            frame(&mut self.chunk.records, opcode, body);
            return Ok(());
        }
        let mut buf = std::mem::take(&mut self.scratch);
        buf.clear();
        frame(&mut buf, opcode, body);
        let r = self.put(&buf);
        self.scratch = buf;
        r
    }

    fn check_open(&self) -> Result<()> {
        if self.out.is_none() {
            return Err(BagError::WriterClosed {
                path: self.path.clone(),
            });
        }
        Ok(())
    }

    /// Adds a schema (ids from 1, in order); its record goes into the open chunk.
    pub fn add_schema(&mut self, name: &str, encoding: &str, data: &[u8]) -> Result<u16> {
        self.check_open()?;
        let id = u16::try_from(self.schemas.len() + 1)
            .map_err(|_| BagError::option("schemas", "more than 65535 types in one file"))?;
        let s = Schema {
            id,
            name: name.into(),
            encoding: encoding.into(),
            data: data.to_vec(),
        };
        self.put_record(op::SCHEMA, &s.encode())?;
        self.schemas.push(s);
        Ok(id)
    }

    /// Adds a channel (ids from 1, in order); its record goes into the open chunk.
    pub fn add_channel(
        &mut self,
        schema_id: u16,
        topic: &str,
        message_encoding: &str,
        metadata: BTreeMap<String, String>,
    ) -> Result<u16> {
        self.check_open()?;
        let id = u16::try_from(self.channels.len() + 1)
            .map_err(|_| BagError::option("topics", "more than 65535 topics in one file"))?;
        let c = Channel {
            id,
            schema_id,
            topic: topic.into(),
            message_encoding: message_encoding.into(),
            metadata,
        };
        self.put_record(op::CHANNEL, &c.encode())?;
        self.channels.push(c);
        Ok(id)
    }

    /// Appends a message to the open chunk (closing the chunk when it is full), or
    /// unchunked, writes it.
    pub fn write_message(
        &mut self,
        channel_id: u16,
        sequence: u32,
        log_time: u64,
        publish_time: u64,
        data: &[u8],
    ) -> Result<()> {
        self.check_open()?;
        if channel_id == 0 || channel_id as usize > self.channels.len() {
            return Err(BagError::UnknownChannel {
                path: self.path.clone(),
                channel: channel_id,
            });
        }
        self.count_message(channel_id, log_time);
        if !self.opts.layout.chunked {
            let mut buf = std::mem::take(&mut self.scratch);
            buf.clear();
            encode_message(&mut buf, channel_id, sequence, log_time, publish_time, data);
            let r = self.put(&buf);
            self.scratch = buf;
            return r;
        }
        let c = &mut self.chunk;
        let offset = c.records.len() as u64;
        encode_message(
            &mut c.records,
            channel_id,
            sequence,
            log_time,
            publish_time,
            data,
        );
        if c.messages == 0 {
            c.start = log_time;
            c.end = log_time;
        } else {
            c.start = c.start.min(log_time);
            c.end = c.end.max(log_time);
        }
        c.messages += 1;
        c.index
            .entry(channel_id)
            .or_default()
            .push((log_time, offset));
        if self.chunk.records.len() >= self.opts.chunk_size {
            self.finish_chunk()?;
        }
        Ok(())
    }

    fn count_message(&mut self, channel_id: u16, log_time: u64) {
        self.message_count += 1;
        *self.channel_counts.entry(channel_id).or_default() += 1;
        self.time_range = Some(match self.time_range {
            None => (log_time, log_time),
            Some((a, b)) => (a.min(log_time), b.max(log_time)),
        });
    }

    /// Writes the open chunk (if it holds any record) and its message indexes.
    fn finish_chunk(&mut self) -> Result<()> {
        if self.chunk.records.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::take(&mut self.chunk);
        let crc = if self.opts.chunk_crc {
            crc32fast::hash(&chunk.records)
        } else {
            0
        };
        let compressed = compress(self.opts.compression, self.opts.zstd_level, &chunk.records)
            .map_err(|e| BagError::io(&self.path, e))?;
        let mut body = Enc::default();
        body.u64(chunk.start)
            .u64(chunk.end)
            .u64(chunk.records.len() as u64)
            .u32(crc);
        body.str(self.opts.compression.mcap_name());
        body.u64(compressed.len() as u64);
        body.buf.extend_from_slice(&compressed);
        let mut out = Vec::with_capacity(body.buf.len() + 9 + 64 * chunk.index.len());
        frame(&mut out, op::CHUNK, &body.buf);
        let chunk_start = self.pos;
        let chunk_length = out.len() as u64;
        let mut offsets = BTreeMap::new();
        let indexes = if self.opts.layout.message_indexes {
            chunk.index
        } else {
            BTreeMap::new()
        };
        for (channel_id, records) in indexes {
            offsets.insert(channel_id, chunk_start + out.len() as u64);
            frame(
                &mut out,
                op::MESSAGE_INDEX,
                &MessageIndex {
                    channel_id,
                    records,
                }
                .encode(),
            );
        }
        self.put(&out)?;
        self.chunk_indexes.push(ChunkIndex {
            message_start_time: chunk.start,
            message_end_time: chunk.end,
            chunk_start_offset: chunk_start,
            chunk_length,
            message_index_offsets: offsets,
            message_index_length: out.len() as u64 - chunk_length,
            compression: self.opts.compression.mcap_name().into(),
            compressed_size: compressed.len() as u64,
            uncompressed_size: chunk.records.len() as u64,
        });
        Ok(())
    }

    /// Writes a Metadata record (after closing the open chunk, as rosbag2's files show).
    pub fn write_metadata(&mut self, name: &str, metadata: BTreeMap<String, String>) -> Result<()> {
        self.check_open()?;
        self.finish_chunk()?;
        let body = Metadata {
            name: name.into(),
            metadata,
        }
        .encode();
        let mut out = Vec::with_capacity(body.len() + 9);
        frame(&mut out, op::METADATA, &body);
        let offset = self.pos;
        self.put(&out)?;
        self.metadata_indexes.push(MetadataIndex {
            offset,
            length: out.len() as u64,
            name: name.into(),
        });
        Ok(())
    }

    /// Closes the open chunk and hands everything to the OS. With `sync`, also waits
    /// until it is on disk (so a power loss keeps it).
    pub fn flush(&mut self, sync: bool) -> Result<()> {
        self.check_open()?;
        self.finish_chunk()?;
        let path = self.path.clone();
        let Some(out) = self.out.as_mut() else {
            return Err(BagError::WriterClosed { path });
        };
        let r = out.flush().and_then(|_| {
            if sync {
                out.get_ref().sync_data()
            } else {
                Ok(())
            }
        });
        if let Err(e) = r {
            self.out = None;
            return Err(BagError::io(&path, e));
        }
        Ok(())
    }

    /// Statistics of what was written so far.
    pub fn statistics(&self) -> Statistics {
        let (start, end) = self.time_range.unwrap_or((0, 0));
        Statistics {
            message_count: self.message_count,
            schema_count: self.schemas.len() as u16,
            channel_count: self.channels.len() as u32,
            attachment_count: 0,
            metadata_count: self.metadata_indexes.len() as u32,
            chunk_count: self.chunk_indexes.len() as u32
                + u32::from(!self.chunk.records.is_empty()),
            message_start_time: start,
            message_end_time: end,
            channel_message_counts: self.channel_counts.clone(),
        }
    }

    /// Closes the last chunk, writes DataEnd, the summary (the parts [`Layout`] keeps)
    /// and the footer, and syncs the file. Returns the file's statistics.
    pub fn finish(mut self) -> Result<Statistics> {
        self.check_open()?;
        self.finish_chunk()?;
        let stats = self.statistics();
        let data_crc = self.data_crc.take().map_or(0, |h| h.finalize());
        let mut data_end = Vec::new();
        frame(&mut data_end, op::DATA_END, &data_crc.to_le_bytes());
        self.put(&data_end)?;

        let layout = self.opts.layout;
        let mut s = Vec::new();
        let (mut summary_start, mut summary_offset_start) = (0, 0);
        if layout.summary {
            summary_start = self.pos;
            let mut groups: Vec<(u8, u64, u64)> = Vec::new();
            let mut group = |s: &mut Vec<u8>, keep: bool, opcode: u8, bodies: Vec<Vec<u8>>| {
                if !keep || bodies.is_empty() {
                    return;
                }
                let start = s.len() as u64;
                for b in bodies {
                    frame(s, opcode, &b);
                }
                groups.push((opcode, summary_start + start, s.len() as u64 - start));
            };
            let l = layout;
            group(
                &mut s,
                l.repeated_schemas,
                op::SCHEMA,
                self.schemas.iter().map(Schema::encode).collect(),
            );
            group(
                &mut s,
                l.repeated_channels,
                op::CHANNEL,
                self.channels.iter().map(Channel::encode).collect(),
            );
            group(&mut s, l.statistics, op::STATISTICS, vec![stats.encode()]);
            group(
                &mut s,
                l.chunk_indexes,
                op::CHUNK_INDEX,
                self.chunk_indexes.iter().map(ChunkIndex::encode).collect(),
            );
            let metadata = self
                .metadata_indexes
                .iter()
                .map(MetadataIndex::encode)
                .collect();
            group(&mut s, l.metadata_indexes, op::METADATA_INDEX, metadata);
            if layout.summary_offsets && !groups.is_empty() {
                summary_offset_start = summary_start + s.len() as u64;
                for (group_opcode, group_start, group_length) in groups {
                    let offset = SummaryOffset {
                        group_opcode,
                        group_start,
                        group_length,
                    };
                    frame(&mut s, op::SUMMARY_OFFSET, &offset.encode());
                }
            }
            if s.is_empty() {
                summary_start = 0;
            }
        }
        // The footer's CRC covers the summary through the footer's own offset fields.
        s.push(op::FOOTER);
        s.extend_from_slice(&20u64.to_le_bytes());
        s.extend_from_slice(&summary_start.to_le_bytes());
        s.extend_from_slice(&summary_offset_start.to_le_bytes());
        let crc = if layout.summary_crc {
            crc32fast::hash(&s)
        } else {
            0
        };
        s.extend_from_slice(&crc.to_le_bytes());
        s.extend_from_slice(MAGIC);
        self.put(&s)?;
        self.flush(true)?;
        self.out = None;
        Ok(stats)
    }
}

impl Drop for McapWriter {
    fn drop(&mut self) {
        // An unfinished writer leaves a file `reindex` can recover: hand over what is
        // buffered. Errors here have nowhere to go; the next open reports the file.
        if self.out.is_some() {
            let _ = self.flush(false);
        }
    }
}
