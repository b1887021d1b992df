//! A chunked MCAP writer with exactly the layout rosbag2's MCAP storage produces.
//!
//! Data section: magic, Header, then Chunks (each followed by its MessageIndex records,
//! one per channel with messages in the chunk, by channel id) and Metadata records
//! outside chunks; Schema and Channel records go into the chunk open when they are
//! added. Summary: Schemas, Channels, Statistics, ChunkIndexes, MetadataIndexes, then
//! one SummaryOffset per group, the Footer (with the summary CRC) and the magic.
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
        };
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
        Ok(())
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
        frame(&mut self.chunk.records, op::SCHEMA, &s.encode());
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
        frame(&mut self.chunk.records, op::CHANNEL, &c.encode());
        self.channels.push(c);
        Ok(id)
    }

    /// Appends a message to the open chunk; closes the chunk when it is full.
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
        self.message_count += 1;
        *self.channel_counts.entry(channel_id).or_default() += 1;
        self.time_range = Some(match self.time_range {
            None => (log_time, log_time),
            Some((a, b)) => (a.min(log_time), b.max(log_time)),
        });
        if self.chunk.records.len() >= self.opts.chunk_size {
            self.finish_chunk()?;
        }
        Ok(())
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
        for (channel_id, records) in chunk.index {
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

    /// Closes the last chunk, writes DataEnd, the summary and the footer, and syncs the
    /// file. Returns the file's statistics.
    pub fn finish(mut self) -> Result<Statistics> {
        self.check_open()?;
        self.finish_chunk()?;
        let stats = self.statistics();
        let mut data_end = Vec::new();
        frame(&mut data_end, op::DATA_END, &0u32.to_le_bytes());
        self.put(&data_end)?;

        let summary_start = self.pos;
        let mut s = Vec::new();
        let mut groups: Vec<(u8, u64, u64)> = Vec::new();
        let mut group = |s: &mut Vec<u8>, opcode: u8, bodies: Vec<Vec<u8>>| {
            if bodies.is_empty() {
                return;
            }
            let start = s.len() as u64;
            for b in bodies {
                frame(s, opcode, &b);
            }
            groups.push((opcode, summary_start + start, s.len() as u64 - start));
        };
        group(
            &mut s,
            op::SCHEMA,
            self.schemas.iter().map(Schema::encode).collect(),
        );
        group(
            &mut s,
            op::CHANNEL,
            self.channels.iter().map(Channel::encode).collect(),
        );
        group(&mut s, op::STATISTICS, vec![stats.encode()]);
        group(
            &mut s,
            op::CHUNK_INDEX,
            self.chunk_indexes.iter().map(ChunkIndex::encode).collect(),
        );
        group(
            &mut s,
            op::METADATA_INDEX,
            self.metadata_indexes
                .iter()
                .map(MetadataIndex::encode)
                .collect(),
        );
        let summary_offset_start = summary_start + s.len() as u64;
        for (group_opcode, group_start, group_length) in groups {
            frame(
                &mut s,
                op::SUMMARY_OFFSET,
                &SummaryOffset {
                    group_opcode,
                    group_start,
                    group_length,
                }
                .encode(),
            );
        }
        // The footer's CRC covers the summary through the footer's own offset fields.
        s.push(op::FOOTER);
        s.extend_from_slice(&20u64.to_le_bytes());
        s.extend_from_slice(&summary_start.to_le_bytes());
        s.extend_from_slice(&summary_offset_start.to_le_bytes());
        let crc = crc32fast::hash(&s);
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
