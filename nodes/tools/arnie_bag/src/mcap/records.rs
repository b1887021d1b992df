//! MCAP records (spec: mcap.dev/spec) as plain structs, with their byte encoding.
//!
//! Every record on disk is `opcode: u8, length: u64 (LE), body: [u8; length]`. Bodies are
//! little-endian fixed fields, strings as `u32 length + UTF-8`, byte arrays and maps with a
//! `u32` byte length in front. Decoding never panics: a short or inconsistent body is a
//! [`Malformed`] with the reason.

use std::collections::BTreeMap;

/// The 8 bytes that open and close every MCAP file.
pub const MAGIC: &[u8; 8] = b"\x89MCAP0\r\n";

/// Record opcodes.
pub mod op {
    /// Header: opens the data section.
    pub const HEADER: u8 = 0x01;
    /// Footer: closes the file, points at the summary.
    pub const FOOTER: u8 = 0x02;
    /// Schema: a message type's definition.
    pub const SCHEMA: u8 = 0x03;
    /// Channel: a topic.
    pub const CHANNEL: u8 = 0x04;
    /// Message: one message.
    pub const MESSAGE: u8 = 0x05;
    /// Chunk: records, possibly compressed.
    pub const CHUNK: u8 = 0x06;
    /// Message Index: where a channel's messages lie in a chunk.
    pub const MESSAGE_INDEX: u8 = 0x07;
    /// Chunk Index: where a chunk lies (summary).
    pub const CHUNK_INDEX: u8 = 0x08;
    /// Attachment: a file inside the file.
    pub const ATTACHMENT: u8 = 0x09;
    /// Attachment Index (summary).
    pub const ATTACHMENT_INDEX: u8 = 0x0A;
    /// Statistics (summary).
    pub const STATISTICS: u8 = 0x0B;
    /// Metadata: named key-value pairs.
    pub const METADATA: u8 = 0x0C;
    /// Metadata Index (summary).
    pub const METADATA_INDEX: u8 = 0x0D;
    /// Summary Offset: where a group of summary records lies.
    pub const SUMMARY_OFFSET: u8 = 0x0E;
    /// Data End: ends the data section (with its CRC).
    pub const DATA_END: u8 = 0x0F;
}

/// A body that does not decode, with why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed(pub String);

type R<T> = Result<T, Malformed>;

/// Header record: profile (`ros2`) and the writing library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// Profile: `ros2` in bags we write.
    pub profile: String,
    /// The writing library (e.g. [`crate::LIBRARY`]).
    pub library: String,
}

/// Footer record: where the summary section and its offsets start (0 = none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footer {
    /// File offset of the summary section (0: none).
    pub summary_start: u64,
    /// File offset of the first Summary Offset record (0: none).
    pub summary_offset_start: u64,
    /// CRC-32 of the summary section up to the footer's CRC field (0: not computed).
    pub summary_crc: u32,
}

/// Schema record (ros2: name `pkg/msg/Type`, encoding `ros2msg`, data = definition text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schema {
    /// Schema id (1 or more; 0 means no schema).
    pub id: u16,
    /// Type name, `pkg/msg/Type`.
    pub name: String,
    /// Schema encoding: `ros2msg` or `ros2idl`.
    pub encoding: String,
    /// The definition text.
    pub data: Vec<u8>,
}

/// Channel record (ros2: one per topic, message encoding `cdr`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Channel {
    /// Channel id, unique in the file.
    pub id: u16,
    /// The schema id of its messages (0: none).
    pub schema_id: u16,
    /// Topic name.
    pub topic: String,
    /// Message encoding: `cdr`.
    pub message_encoding: String,
    /// Channel metadata (ros2: `offered_qos_profiles` YAML, `topic_type_hash`).
    pub metadata: BTreeMap<String, String>,
}

/// Message record, data borrowed from the buffer it was decoded from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageRef<'a> {
    /// The channel the message belongs to.
    pub channel_id: u16,
    /// The publisher's sequence number (0 when unknown).
    pub sequence: u32,
    /// Receive time, ns since the epoch.
    pub log_time: u64,
    /// Send time, ns since the epoch.
    pub publish_time: u64,
    /// The serialized message.
    pub data: &'a [u8],
}

/// Chunk record; `records` is the (possibly compressed) inner record stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkRef<'a> {
    /// Earliest log time in the chunk [ns].
    pub message_start_time: u64,
    /// Latest log time in the chunk [ns].
    pub message_end_time: u64,
    /// Size of `records` once decompressed [bytes].
    pub uncompressed_size: u64,
    /// CRC-32 of the decompressed records (0: not computed).
    pub uncompressed_crc: u32,
    /// `zstd`, `lz4` or empty (none).
    pub compression: String,
    /// The records, compressed as `compression` says.
    pub records: &'a [u8],
}

/// Message index record: (log_time, offset in the uncompressed chunk) per message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageIndex {
    /// The channel indexed.
    pub channel_id: u16,
    /// (log time [ns], byte offset in the decompressed chunk) per message of the channel.
    pub records: Vec<(u64, u64)>,
}

/// Chunk index record (summary section).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkIndex {
    /// Earliest log time in the chunk [ns].
    pub message_start_time: u64,
    /// Latest log time in the chunk [ns].
    pub message_end_time: u64,
    /// File offset of the Chunk record.
    pub chunk_start_offset: u64,
    /// Length of the Chunk record (opcode and length included) [bytes].
    pub chunk_length: u64,
    /// File offset of each channel's Message Index record after the chunk.
    pub message_index_offsets: BTreeMap<u16, u64>,
    /// Total length of the chunk's Message Index records [bytes].
    pub message_index_length: u64,
    /// The chunk's compression (`zstd`, `lz4` or empty).
    pub compression: String,
    /// Size of the chunk's compressed records [bytes].
    pub compressed_size: u64,
    /// Size of the chunk's records decompressed [bytes].
    pub uncompressed_size: u64,
}

/// Statistics record (summary section).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Statistics {
    /// Messages in the file.
    pub message_count: u64,
    /// Schemas in the file.
    pub schema_count: u16,
    /// Channels in the file.
    pub channel_count: u32,
    /// Attachments in the file.
    pub attachment_count: u32,
    /// Metadata records in the file.
    pub metadata_count: u32,
    /// Chunks in the file.
    pub chunk_count: u32,
    /// Earliest message log time [ns] (0 with no message).
    pub message_start_time: u64,
    /// Latest message log time [ns] (0 with no message).
    pub message_end_time: u64,
    /// Messages per channel id.
    pub channel_message_counts: BTreeMap<u16, u64>,
}

/// Metadata record (rosbag2 writes one named `rosbag2`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    /// Its name (`rosbag2`).
    pub name: String,
    /// Key-value pairs.
    pub metadata: BTreeMap<String, String>,
}

/// Metadata index record (summary section).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataIndex {
    /// File offset of the Metadata record.
    pub offset: u64,
    /// Length of the Metadata record [bytes].
    pub length: u64,
    /// The Metadata record's name.
    pub name: String,
}

/// Summary offset record: where one group of summary records lies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SummaryOffset {
    /// Opcode of the records in the group.
    pub group_opcode: u8,
    /// File offset of the group's first record.
    pub group_start: u64,
    /// Length of the group [bytes].
    pub group_length: u64,
}

// ---------------------------------------------------------------- encoding

/// Appends little-endian fields to a record body.
#[derive(Default)]
pub struct Enc {
    /// The body so far.
    pub buf: Vec<u8>,
}

impl Enc {
    /// Appends a byte.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.buf.push(v);
        self
    }
    /// Appends a little-endian u16.
    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }
    /// Appends a little-endian u32.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }
    /// Appends a little-endian u64.
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }
    /// Appends a string: u32 byte length, then UTF-8.
    pub fn str(&mut self, s: &str) -> &mut Self {
        self.u32(s.len() as u32);
        self.buf.extend_from_slice(s.as_bytes());
        self
    }
    /// Appends bytes with a u32 length in front.
    pub fn bytes32(&mut self, b: &[u8]) -> &mut Self {
        self.u32(b.len() as u32);
        self.buf.extend_from_slice(b);
        self
    }
    /// Appends a map of strings: u32 byte length, then key/value strings.
    pub fn string_map(&mut self, m: &BTreeMap<String, String>) -> &mut Self {
        let mut inner = Enc::default();
        for (k, v) in m {
            inner.str(k).str(v);
        }
        self.bytes32(&inner.buf)
    }
}

/// Writes `opcode, length, body` into `out`.
pub fn frame(out: &mut Vec<u8>, opcode: u8, body: &[u8]) {
    out.push(opcode);
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(body);
}

impl Header {
    /// The record's body in MCAP's layout (no opcode or length).
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Enc::default();
        e.str(&self.profile).str(&self.library);
        e.buf
    }
}

impl Footer {
    /// The record's body in MCAP's layout (no opcode or length).
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Enc::default();
        e.u64(self.summary_start)
            .u64(self.summary_offset_start)
            .u32(self.summary_crc);
        e.buf
    }
}

impl Schema {
    /// The record's body in MCAP's layout (no opcode or length).
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Enc::default();
        e.u16(self.id)
            .str(&self.name)
            .str(&self.encoding)
            .bytes32(&self.data);
        e.buf
    }
}

impl Channel {
    /// The record's body in MCAP's layout (no opcode or length).
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Enc::default();
        e.u16(self.id)
            .u16(self.schema_id)
            .str(&self.topic)
            .str(&self.message_encoding);
        e.string_map(&self.metadata);
        e.buf
    }
}

/// Encodes a whole Message record (opcode and length included) into `out`.
pub fn encode_message(
    out: &mut Vec<u8>,
    channel_id: u16,
    sequence: u32,
    log_time: u64,
    publish_time: u64,
    data: &[u8],
) {
    out.push(op::MESSAGE);
    out.extend_from_slice(&((2 + 4 + 8 + 8 + data.len()) as u64).to_le_bytes());
    out.extend_from_slice(&channel_id.to_le_bytes());
    out.extend_from_slice(&sequence.to_le_bytes());
    out.extend_from_slice(&log_time.to_le_bytes());
    out.extend_from_slice(&publish_time.to_le_bytes());
    out.extend_from_slice(data);
}

impl MessageIndex {
    /// The record's body in MCAP's layout (no opcode or length).
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Enc::default();
        e.u16(self.channel_id).u32((self.records.len() * 16) as u32);
        for (t, o) in &self.records {
            e.u64(*t).u64(*o);
        }
        e.buf
    }
}

impl ChunkIndex {
    /// The record's body in MCAP's layout (no opcode or length).
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Enc::default();
        e.u64(self.message_start_time).u64(self.message_end_time);
        e.u64(self.chunk_start_offset).u64(self.chunk_length);
        e.u32((self.message_index_offsets.len() * 10) as u32);
        for (c, o) in &self.message_index_offsets {
            e.u16(*c).u64(*o);
        }
        e.u64(self.message_index_length).str(&self.compression);
        e.u64(self.compressed_size).u64(self.uncompressed_size);
        e.buf
    }
}

impl Statistics {
    /// The record's body in MCAP's layout (no opcode or length).
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Enc::default();
        e.u64(self.message_count)
            .u16(self.schema_count)
            .u32(self.channel_count);
        e.u32(self.attachment_count)
            .u32(self.metadata_count)
            .u32(self.chunk_count);
        e.u64(self.message_start_time).u64(self.message_end_time);
        e.u32((self.channel_message_counts.len() * 10) as u32);
        for (c, n) in &self.channel_message_counts {
            e.u16(*c).u64(*n);
        }
        e.buf
    }
}

impl Metadata {
    /// The record's body in MCAP's layout (no opcode or length).
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Enc::default();
        e.str(&self.name).string_map(&self.metadata);
        e.buf
    }
}

impl MetadataIndex {
    /// The record's body in MCAP's layout (no opcode or length).
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Enc::default();
        e.u64(self.offset).u64(self.length).str(&self.name);
        e.buf
    }
}

impl SummaryOffset {
    /// The record's body in MCAP's layout (no opcode or length).
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Enc::default();
        e.u8(self.group_opcode)
            .u64(self.group_start)
            .u64(self.group_length);
        e.buf
    }
}

mod decode;
pub use decode::{iter_records, Dec};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let ci = ChunkIndex {
            message_start_time: 1,
            message_end_time: 2,
            chunk_start_offset: 3,
            chunk_length: 4,
            message_index_offsets: [(1u16, 10u64), (7, 20)].into_iter().collect(),
            message_index_length: 5,
            compression: "zstd".into(),
            compressed_size: 6,
            uncompressed_size: 7,
        };
        assert_eq!(ChunkIndex::decode(&ci.encode()).unwrap(), ci);
        let st = Statistics {
            message_count: 3,
            schema_count: 1,
            channel_count: 2,
            metadata_count: 1,
            chunk_count: 1,
            message_start_time: 5,
            message_end_time: 9,
            channel_message_counts: [(1u16, 2u64), (2, 1)].into_iter().collect(),
            ..Default::default()
        };
        assert_eq!(Statistics::decode(&st.encode()).unwrap(), st);
        let ch = Channel {
            id: 3,
            schema_id: 1,
            topic: "/a".into(),
            message_encoding: "cdr".into(),
            metadata: [("k".to_string(), "v".to_string())].into_iter().collect(),
        };
        assert_eq!(Channel::decode(&ch.encode()).unwrap(), ch);
    }

    #[test]
    fn short_bodies_are_errors_not_panics() {
        assert!(ChunkIndex::decode(&[1, 2, 3]).is_err());
        assert!(Channel::decode(&[0; 5]).is_err());
        assert!(Schema::decode(&[0, 0, 255, 255, 255, 255]).is_err());
        let mut buf = Vec::new();
        frame(&mut buf, op::SCHEMA, &[1, 2, 3]);
        buf.truncate(buf.len() - 1);
        let r: Vec<_> = iter_records(&buf).collect();
        assert!(r[0].is_err());
    }
}
