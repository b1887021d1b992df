//! A linear record scan: a file read record by record from its start, chunks opened as
//! they come. It works on files without a summary and on files cut off mid-write, keeping
//! everything before the cut (what `reindex` needs).

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use super::compress::Compression;
use super::read::{decode_chunk, read_start, Inner, OwnedMessage, MAX_CHUNK};
use super::records::*;
use crate::error::{BagError, Result};

/// One item of a linear scan.
#[derive(Debug)]
pub enum Item {
    /// A Schema record.
    Schema(Schema),
    /// A Channel record.
    Channel(Channel),
    /// A message (from a chunk or outside one).
    Message(OwnedMessage),
    /// A Metadata record.
    Metadata(Metadata),
    /// The end of a chunk's records (everything before it was complete).
    ChunkEnd,
    /// The DataEnd record: the data section is over.
    DataEnd,
}

/// Reads a file record by record from the start, opening chunks as it meets them.
/// Stops at DataEnd. A record cut off by the end of the file is
/// [`BagError::Truncated`] with the offset of the last complete record.
pub struct LinearReader {
    path: PathBuf,
    input: BufReader<File>,
    len: u64,
    pos: u64,
    pending: VecDeque<Item>,
    done: bool,
    /// Offset just past the last record read whole.
    pub good_until: u64,
    /// The file's header.
    pub header: Header,
    /// The compression of the chunks seen so far (the last one).
    pub chunk_compression: Option<Compression>,
}

impl LinearReader {
    /// Opens `path` and reads its magic and Header.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = File::open(&path).map_err(|e| BagError::io(&path, e))?;
        let len = file.metadata().map_err(|e| BagError::io(&path, e))?.len();
        let header = read_start(&file, &path, len)?;
        let mut input = BufReader::with_capacity(1 << 20, file);
        let mut skip = vec![0u8; 8 + 9];
        input
            .read_exact(&mut skip)
            .map_err(|e| BagError::io(&path, e))?;
        let hl = u64::from_le_bytes(skip[9..17].try_into().unwrap_or([0; 8]));
        let mut body = vec![0u8; hl as usize];
        input
            .read_exact(&mut body)
            .map_err(|e| BagError::io(&path, e))?;
        let pos = 17 + hl;
        Ok(LinearReader {
            path,
            input,
            len,
            pos,
            pending: VecDeque::new(),
            done: false,
            good_until: pos,
            header,
            chunk_compression: None,
        })
    }

    /// The next item, `None` at DataEnd or at a clean end of file.
    pub fn next_item(&mut self) -> Result<Option<Item>> {
        loop {
            if let Some(i) = self.pending.pop_front() {
                return Ok(Some(i));
            }
            if self.done {
                return Ok(None);
            }
            if self.pos == self.len {
                self.done = true;
                return Ok(None);
            }
            if self.len - self.pos < 9 {
                self.done = true;
                return Err(BagError::Truncated {
                    path: self.path.clone(),
                    at: self.good_until,
                });
            }
            let mut head = [0u8; 9];
            self.input
                .read_exact(&mut head)
                .map_err(|e| BagError::io(&self.path, e))?;
            let opcode = head[0];
            let len = u64::from_le_bytes(head[1..9].try_into().unwrap_or([0; 8]));
            if len > self.len - self.pos - 9 {
                self.done = true;
                return Err(BagError::Truncated {
                    path: self.path.clone(),
                    at: self.good_until,
                });
            }
            if len > MAX_CHUNK {
                self.done = true;
                return Err(BagError::corrupt(
                    &self.path,
                    self.pos,
                    "record length out of range",
                ));
            }
            let at = self.pos;
            let mut body = vec![0u8; len as usize];
            self.input
                .read_exact(&mut body)
                .map_err(|e| BagError::io(&self.path, e))?;
            self.pos += 9 + len;
            let bad = |m: Malformed| BagError::corrupt(&self.path, at, m.0);
            match opcode {
                op::SCHEMA => self
                    .pending
                    .push_back(Item::Schema(Schema::decode(&body).map_err(bad)?)),
                op::CHANNEL => self
                    .pending
                    .push_back(Item::Channel(Channel::decode(&body).map_err(bad)?)),
                op::MESSAGE => self.pending.push_back(Item::Message(
                    MessageRef::decode(&body).map_err(bad)?.into(),
                )),
                op::METADATA => self
                    .pending
                    .push_back(Item::Metadata(Metadata::decode(&body).map_err(bad)?)),
                op::CHUNK => {
                    if let Ok(c) = ChunkRef::decode(&body) {
                        self.chunk_compression = Compression::from_mcap_name(&c.compression);
                    }
                    let mut items = Vec::new();
                    decode_chunk(&self.path, at, &body, |i| {
                        items.push(match i {
                            Inner::Schema(s) => Item::Schema(s),
                            Inner::Channel(c) => Item::Channel(c),
                            Inner::Message(m) => Item::Message(m),
                        })
                    })?;
                    self.pending.extend(items);
                    self.pending.push_back(Item::ChunkEnd);
                }
                op::DATA_END => {
                    self.done = true;
                    self.good_until = self.pos;
                    return Ok(Some(Item::DataEnd));
                }
                op::FOOTER => {
                    self.done = true;
                }
                _ => {}
            }
            self.good_until = self.pos;
        }
    }
}
