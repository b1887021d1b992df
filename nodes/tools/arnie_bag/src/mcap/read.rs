//! Reading MCAP files: the summary (through the footer) and messages in log-time order
//! (chunk by chunk through the chunk indexes, or streamed from an unchunked file). The
//! record-by-record scan that `reindex` uses is [`super::linear`].

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::compress::{decompress, Compression};
use super::linear::{Item, LinearReader};
use super::records::*;
use crate::error::{BagError, Result};

/// Largest chunk we agree to decompress (a corrupt size must not exhaust memory).
pub(super) const MAX_CHUNK: u64 = 4 << 30;

/// A message with its data, as read from a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedMessage {
    /// The MCAP channel the message belongs to.
    pub channel_id: u16,
    /// The publisher's sequence number (0 when unknown).
    pub sequence: u32,
    /// Receive time, ns since the epoch.
    pub log_time: u64,
    /// Send time, ns since the epoch (the receive time when unknown).
    pub publish_time: u64,
    /// The serialized (CDR) message.
    pub data: Vec<u8>,
}

impl From<MessageRef<'_>> for OwnedMessage {
    fn from(m: MessageRef<'_>) -> Self {
        OwnedMessage {
            channel_id: m.channel_id,
            sequence: m.sequence,
            log_time: m.log_time,
            publish_time: m.publish_time,
            data: m.data.to_vec(),
        }
    }
}

/// What the summary section says (or, for a file without one, what a scan found).
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Schemas by id.
    pub schemas: BTreeMap<u16, Schema>,
    /// Channels by id.
    pub channels: BTreeMap<u16, Channel>,
    /// Message counts and time range, when the file has a Statistics record.
    pub statistics: Option<Statistics>,
    /// Where each chunk lies and what it holds.
    pub chunk_indexes: Vec<ChunkIndex>,
    /// Where each Metadata record lies.
    pub metadata_indexes: Vec<MetadataIndex>,
}

/// An open MCAP file.
pub struct McapFile {
    path: PathBuf,
    file: File,
    len: u64,
    header: Header,
    summary: Summary,
    /// For a file without chunk indexes (read by a linear scan): how far, in ns, a
    /// message's log time lies behind the latest one before it in the file (0 when the
    /// file is in log-time order), found by the scan at open. Reading holds back only
    /// messages within that window, so an unchunked file of any size streams in order.
    unindexed: Option<u64>,
    /// Metadata records of a file without a summary, gathered by the scan at open.
    scanned_metadata: Vec<Metadata>,
}

impl McapFile {
    /// Opens a complete MCAP file. A file without a footer is [`BagError::Truncated`];
    /// one without a summary section is scanned record by record.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = File::open(&path).map_err(|e| BagError::io(&path, e))?;
        let len = file.metadata().map_err(|e| BagError::io(&path, e))?.len();
        let mut f = McapFile {
            path,
            file,
            len,
            header: Header {
                profile: String::new(),
                library: String::new(),
            },
            summary: Summary::default(),
            unindexed: None,
            scanned_metadata: Vec::new(),
        };
        f.header = read_start(&f.file, &f.path, f.len)?;
        // Footer: opcode 2, length 20, body, then the magic.
        const TAIL: u64 = 9 + 20 + 8;
        if f.len < 8 + 9 + TAIL {
            return Err(BagError::Truncated {
                path: f.path.clone(),
                at: f.len,
            });
        }
        let tail = f.read_at(f.len - TAIL, TAIL as usize)?;
        if &tail[29..] != MAGIC || tail[0] != op::FOOTER || tail[1..9] != 20u64.to_le_bytes() {
            return Err(BagError::Truncated {
                path: f.path.clone(),
                at: f.len,
            });
        }
        let footer = Footer::decode(&tail[9..29])
            .map_err(|m| BagError::corrupt(&f.path, f.len - TAIL, m.0))?;
        let footer_pos = f.len - TAIL;
        if footer.summary_start == 0 {
            f.scan_whole()?;
            return Ok(f);
        }
        if footer.summary_start > footer_pos {
            return Err(BagError::corrupt(
                &f.path,
                footer_pos,
                "footer points past the end of the file",
            ));
        }
        let summary = f.read_at(
            footer.summary_start,
            (footer_pos - footer.summary_start) as usize,
        )?;
        if footer.summary_crc != 0 {
            let mut h = crc32fast::Hasher::new();
            h.update(&summary);
            h.update(&tail[..25]);
            if h.finalize() != footer.summary_crc {
                return Err(BagError::corrupt(
                    &f.path,
                    footer.summary_start,
                    "summary CRC mismatch",
                ));
            }
        }
        for r in iter_records(&summary) {
            let (off, opcode, body) =
                r.map_err(|m| BagError::corrupt(&f.path, footer.summary_start, m.0))?;
            let at = footer.summary_start + off as u64;
            let bad = |m: Malformed| BagError::corrupt(&f.path, at, m.0);
            match opcode {
                op::SCHEMA => {
                    let s = Schema::decode(body).map_err(bad)?;
                    f.summary.schemas.insert(s.id, s);
                }
                op::CHANNEL => {
                    let c = Channel::decode(body).map_err(bad)?;
                    f.summary.channels.insert(c.id, c);
                }
                op::STATISTICS => {
                    f.summary.statistics = Some(Statistics::decode(body).map_err(bad)?)
                }
                op::CHUNK_INDEX => f
                    .summary
                    .chunk_indexes
                    .push(ChunkIndex::decode(body).map_err(bad)?),
                op::METADATA_INDEX => f
                    .summary
                    .metadata_indexes
                    .push(MetadataIndex::decode(body).map_err(bad)?),
                _ => {}
            }
        }
        let has_messages = f
            .summary
            .statistics
            .as_ref()
            .is_none_or(|s| s.message_count > 0);
        let schema_missing = f
            .summary
            .channels
            .values()
            .any(|c| c.schema_id != 0 && !f.summary.schemas.contains_key(&c.schema_id));
        if f.summary.channels.is_empty()
            || schema_missing
            || f.summary.statistics.is_none()
            || (has_messages && f.summary.chunk_indexes.is_empty())
        {
            // A summary without what we need (each part is optional in the spec, as the
            // writers' `no…` options show): fall back to a scan.
            f.scan_whole()?;
        }
        Ok(f)
    }

    /// Builds the summary from a strict linear scan (any damage is an error).
    fn scan_whole(&mut self) -> Result<()> {
        let mut scan = LinearReader::open(&self.path)?;
        let mut lateness = 0u64;
        let mut latest: Option<u64> = None;
        let mut schemas = BTreeMap::new();
        let mut channels = BTreeMap::new();
        let mut stats = Statistics::default();
        let mut range: Option<(u64, u64)> = None;
        while let Some(item) = scan.next_item()? {
            match item {
                Item::Schema(s) => {
                    schemas.insert(s.id, s);
                }
                Item::Channel(c) => {
                    channels.insert(c.id, c);
                }
                Item::Message(m) => {
                    stats.message_count += 1;
                    *stats
                        .channel_message_counts
                        .entry(m.channel_id)
                        .or_default() += 1;
                    range = Some(match range {
                        None => (m.log_time, m.log_time),
                        Some((a, b)) => (a.min(m.log_time), b.max(m.log_time)),
                    });
                    let newest = latest.map_or(m.log_time, |l| l.max(m.log_time));
                    lateness = lateness.max(newest - m.log_time);
                    latest = Some(newest);
                }
                Item::Metadata(m) => self.scanned_metadata.push(m),
                Item::ChunkEnd | Item::DataEnd => {}
            }
        }
        if let Some((a, b)) = range {
            stats.message_start_time = a;
            stats.message_end_time = b;
        }
        stats.schema_count = schemas.len() as u16;
        stats.channel_count = channels.len() as u32;
        stats.metadata_count = self.scanned_metadata.len() as u32;
        self.summary = Summary {
            schemas,
            channels,
            statistics: Some(stats),
            chunk_indexes: Vec::new(),
            metadata_indexes: Vec::new(),
        };
        self.unindexed = Some(lateness);
        Ok(())
    }

    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let mut buf = vec![0u8; len];
        self.file.read_exact_at(&mut buf, offset).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                BagError::Truncated {
                    path: self.path.clone(),
                    at: self.len,
                }
            } else {
                BagError::io(&self.path, e)
            }
        })?;
        Ok(buf)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// The file's size in bytes.
    pub fn size(&self) -> u64 {
        self.len
    }
    /// The Header record.
    pub fn header(&self) -> &Header {
        &self.header
    }
    /// Schemas, channels, statistics and indexes.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// The Metadata records named `name`, in file order.
    pub fn metadata_records(&self, name: &str) -> Result<Vec<Metadata>> {
        if self.unindexed.is_some() {
            return Ok(self
                .scanned_metadata
                .iter()
                .filter(|m| m.name == name)
                .cloned()
                .collect());
        }
        let mut out = Vec::new();
        let mut idx: Vec<_> = self
            .summary
            .metadata_indexes
            .iter()
            .filter(|i| i.name == name)
            .collect();
        idx.sort_by_key(|i| i.offset);
        for i in idx {
            let rec = self.read_at(
                i.offset,
                usize::try_from(i.length)
                    .unwrap_or(usize::MAX)
                    .min(self.len as usize),
            )?;
            if rec.len() < 9 || rec[0] != op::METADATA {
                return Err(BagError::corrupt(
                    &self.path,
                    i.offset,
                    "metadata index points at no metadata record",
                ));
            }
            out.push(
                Metadata::decode(&rec[9..])
                    .map_err(|m| BagError::corrupt(&self.path, i.offset, m.0))?,
            );
        }
        Ok(out)
    }

    /// Every message, in log-time order (ties in file order).
    pub fn messages(&self) -> Messages<'_> {
        let mut chunks = self.summary.chunk_indexes.clone();
        chunks.sort_by_key(|c| (c.message_start_time, c.chunk_start_offset));
        Messages {
            file: self,
            chunks: chunks.into(),
            heap: BinaryHeap::new(),
            order: 0,
            unindexed: self.unindexed.map(|lateness| Unindexed {
                scan: LinearReader::open(&self.path),
                lateness,
                latest: 0,
            }),
        }
    }

    fn load_chunk(&self, ci: &ChunkIndex) -> Result<Vec<OwnedMessage>> {
        if ci.chunk_length > MAX_CHUNK {
            return Err(BagError::corrupt(
                &self.path,
                ci.chunk_start_offset,
                "chunk length out of range",
            ));
        }
        let rec = self.read_at(ci.chunk_start_offset, ci.chunk_length as usize)?;
        if rec.len() < 9 || rec[0] != op::CHUNK {
            return Err(BagError::corrupt(
                &self.path,
                ci.chunk_start_offset,
                "chunk index points at no chunk",
            ));
        }
        let mut out = Vec::new();
        decode_chunk(&self.path, ci.chunk_start_offset, &rec[9..], |inner| {
            if let Inner::Message(m) = inner {
                out.push(m);
            }
        })?;
        Ok(out)
    }
}

/// Items found inside a chunk.
pub(super) enum Inner {
    Schema(Schema),
    Channel(Channel),
    Message(OwnedMessage),
}

/// Decompresses a chunk body (checking its CRC when set) and hands out its records.
pub(super) fn decode_chunk(
    path: &Path,
    at: u64,
    body: &[u8],
    mut f: impl FnMut(Inner),
) -> Result<()> {
    let chunk = ChunkRef::decode(body).map_err(|m| BagError::corrupt(path, at, m.0))?;
    let compression = Compression::from_mcap_name(&chunk.compression).ok_or_else(|| {
        BagError::UnknownChunkCompression {
            path: path.to_path_buf(),
            compression: chunk.compression.clone(),
        }
    })?;
    if chunk.uncompressed_size > MAX_CHUNK {
        return Err(BagError::corrupt(path, at, "chunk size out of range"));
    }
    let data = decompress(compression, chunk.records, chunk.uncompressed_size as usize)
        .map_err(|e| BagError::corrupt(path, at, format!("chunk does not decompress: {e}")))?;
    if data.len() as u64 != chunk.uncompressed_size {
        return Err(BagError::corrupt(
            path,
            at,
            "chunk size differs from its header",
        ));
    }
    if chunk.uncompressed_crc != 0 && crc32fast::hash(&data) != chunk.uncompressed_crc {
        return Err(BagError::ChunkCrc {
            path: path.to_path_buf(),
            offset: at,
        });
    }
    for r in iter_records(&data) {
        let (_, opcode, b) = r.map_err(|m| BagError::corrupt(path, at, m.0))?;
        let bad = |m: Malformed| BagError::corrupt(path, at, m.0);
        match opcode {
            op::MESSAGE => f(Inner::Message(MessageRef::decode(b).map_err(bad)?.into())),
            op::SCHEMA => f(Inner::Schema(Schema::decode(b).map_err(bad)?)),
            op::CHANNEL => f(Inner::Channel(Channel::decode(b).map_err(bad)?)),
            _ => {}
        }
    }
    Ok(())
}

pub(super) fn read_start(file: &File, path: &Path, len: u64) -> Result<Header> {
    let mut magic = [0u8; 8];
    if len < 8 {
        return Err(BagError::NotMcap {
            path: path.to_path_buf(),
        });
    }
    file.read_exact_at(&mut magic, 0)
        .map_err(|e| BagError::io(path, e))?;
    if &magic != MAGIC {
        return Err(BagError::NotMcap {
            path: path.to_path_buf(),
        });
    }
    let mut head = [0u8; 9];
    if file.read_exact_at(&mut head, 8).is_err() {
        return Err(BagError::Truncated {
            path: path.to_path_buf(),
            at: len,
        });
    }
    let hlen = u64::from_le_bytes(head[1..9].try_into().unwrap_or([0; 8]));
    if head[0] != op::HEADER || hlen > 1 << 20 {
        return Err(BagError::corrupt(
            path,
            8,
            "the first record is not a header",
        ));
    }
    let mut body = vec![0u8; hlen as usize];
    if file.read_exact_at(&mut body, 17).is_err() {
        return Err(BagError::Truncated {
            path: path.to_path_buf(),
            at: len,
        });
    }
    Header::decode(&body).map_err(|m| BagError::corrupt(path, 8, m.0))
}

struct Pending {
    log_time: u64,
    order: u64,
    msg: OwnedMessage,
}
impl PartialEq for Pending {
    fn eq(&self, o: &Self) -> bool {
        (self.log_time, self.order) == (o.log_time, o.order)
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Pending {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.log_time, self.order).cmp(&(o.log_time, o.order))
    }
}

/// Iterator over a file's messages in log-time order. Holds one chunk's messages at a
/// time (more where chunks overlap in time).
pub struct Messages<'f> {
    file: &'f McapFile,
    chunks: VecDeque<ChunkIndex>,
    heap: BinaryHeap<Reverse<Pending>>,
    order: u64,
    unindexed: Option<Unindexed>,
}

/// A linear scan of a file without chunk indexes, and its reorder window.
struct Unindexed {
    /// The scan (its open error is reported by the first `next`).
    scan: Result<LinearReader>,
    /// [`McapFile::unindexed`].
    lateness: u64,
    /// The latest log time read so far.
    latest: u64,
}

impl Messages<'_> {
    /// The next message of an unindexed file: scans on until the earliest held message
    /// is one no later message can precede (older than the latest by the file's
    /// lateness), so the order is the log-time order, ties in file order.
    fn next_unindexed(&mut self) -> Option<Result<OwnedMessage>> {
        if matches!(self.unindexed, Some(Unindexed { scan: Err(_), .. })) {
            return match self.unindexed.take() {
                Some(Unindexed { scan: Err(e), .. }) => Some(Err(e)),
                _ => None,
            };
        }
        let u = self.unindexed.as_mut()?;
        let Ok(scan) = u.scan.as_mut() else {
            return None;
        };
        loop {
            if let Some(Reverse(p)) = self.heap.peek() {
                if p.log_time.saturating_add(u.lateness) <= u.latest {
                    return self.heap.pop().map(|Reverse(p)| Ok(p.msg));
                }
            }
            match scan.next_item() {
                Ok(Some(Item::Message(msg))) => {
                    u.latest = u.latest.max(msg.log_time);
                    self.order += 1;
                    self.heap.push(Reverse(Pending {
                        log_time: msg.log_time,
                        order: self.order,
                        msg,
                    }));
                }
                Ok(Some(_)) => {}
                Ok(None) => {
                    // The end: everything held is in order.
                    u.latest = u64::MAX;
                    u.lateness = 0;
                    return self.heap.pop().map(|Reverse(p)| Ok(p.msg));
                }
                Err(e) => {
                    self.unindexed = None;
                    self.heap.clear();
                    return Some(Err(e));
                }
            }
        }
    }
}

impl Iterator for Messages<'_> {
    type Item = Result<OwnedMessage>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.unindexed.is_some() {
            return self.next_unindexed();
        }
        loop {
            let load = match (self.chunks.front(), self.heap.peek()) {
                (Some(c), Some(Reverse(p))) => c.message_start_time <= p.log_time,
                (Some(_), None) => true,
                (None, _) => false,
            };
            if !load {
                return self.heap.pop().map(|Reverse(p)| Ok(p.msg));
            }
            let Some(ci) = self.chunks.pop_front() else {
                continue;
            };
            match self.file.load_chunk(&ci) {
                Ok(msgs) => {
                    for msg in msgs {
                        self.order += 1;
                        self.heap.push(Reverse(Pending {
                            log_time: msg.log_time,
                            order: self.order,
                            msg,
                        }));
                    }
                }
                Err(e) => {
                    self.chunks.clear();
                    self.heap.clear();
                    return Some(Err(e));
                }
            }
        }
    }
}
