//! Decoding record bodies: [`Dec`] (bounds-checked little-endian reads), each record's
//! `decode`, and [`iter_records`] over a buffer of framed records (a pure move out of
//! `records.rs`). Decoding never panics: a short or inconsistent body is a [`Malformed`].
use std::collections::BTreeMap;

use super::*;

/// Reads little-endian fields from a record body, with bounds checks.
pub struct Dec<'a> {
    buf: &'a [u8],
    pos: usize,
    what: &'static str,
}

impl<'a> Dec<'a> {
    /// Reads `buf`, a body of record `what` (named in the errors).
    pub fn new(buf: &'a [u8], what: &'static str) -> Self {
        Dec { buf, pos: 0, what }
    }
    fn take(&mut self, n: usize) -> R<&'a [u8]> {
        if self.buf.len() - self.pos < n {
            return Err(Malformed(format!("{} record too short", self.what)));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    /// Reads a byte.
    pub fn u8(&mut self) -> R<u8> {
        Ok(self.take(1)?[0])
    }
    /// Reads a little-endian u16.
    pub fn u16(&mut self) -> R<u16> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    /// Reads a little-endian u32.
    pub fn u32(&mut self) -> R<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    /// Reads a little-endian u64.
    pub fn u64(&mut self) -> R<u64> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
    /// Reads a string (u32 length, UTF-8).
    pub fn str(&mut self) -> R<String> {
        let n = self.u32()? as usize;
        let b = self.take(n)?;
        String::from_utf8(b.to_vec())
            .map_err(|_| Malformed(format!("{} record: string is not UTF-8", self.what)))
    }
    /// Reads bytes with a u32 length in front.
    pub fn bytes32(&mut self) -> R<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    /// Reads bytes with a u64 length in front.
    pub fn bytes64(&mut self) -> R<&'a [u8]> {
        let n = self.u64()?;
        let n = usize::try_from(n)
            .map_err(|_| Malformed(format!("{} record: length too large", self.what)))?;
        self.take(n)
    }
    /// The bytes not read yet (all consumed).
    pub fn rest(&mut self) -> &'a [u8] {
        let s = &self.buf[self.pos..];
        self.pos = self.buf.len();
        s
    }
    /// Reads a map of strings (u32 byte length, then key/value strings).
    pub fn string_map(&mut self) -> R<BTreeMap<String, String>> {
        let inner = self.bytes32()?;
        let mut d = Dec::new(inner, self.what);
        let mut m = BTreeMap::new();
        while d.pos < inner.len() {
            let k = d.str()?;
            let v = d.str()?;
            m.insert(k, v);
        }
        Ok(m)
    }
}

impl Header {
    /// Decodes the record's body.
    ///
    /// # Errors
    /// [`Malformed`] when the body is short, too long or inconsistent.
    pub fn decode(b: &[u8]) -> R<Self> {
        let mut d = Dec::new(b, "header");
        Ok(Header {
            profile: d.str()?,
            library: d.str()?,
        })
    }
}

impl Footer {
    /// Decodes the record's body.
    ///
    /// # Errors
    /// [`Malformed`] when the body is short, too long or inconsistent.
    pub fn decode(b: &[u8]) -> R<Self> {
        let mut d = Dec::new(b, "footer");
        Ok(Footer {
            summary_start: d.u64()?,
            summary_offset_start: d.u64()?,
            summary_crc: d.u32()?,
        })
    }
}

impl Schema {
    /// Decodes the record's body.
    ///
    /// # Errors
    /// [`Malformed`] when the body is short, too long or inconsistent.
    pub fn decode(b: &[u8]) -> R<Self> {
        let mut d = Dec::new(b, "schema");
        Ok(Schema {
            id: d.u16()?,
            name: d.str()?,
            encoding: d.str()?,
            data: d.bytes32()?.to_vec(),
        })
    }
}

impl Channel {
    /// Decodes the record's body.
    ///
    /// # Errors
    /// [`Malformed`] when the body is short, too long or inconsistent.
    pub fn decode(b: &[u8]) -> R<Self> {
        let mut d = Dec::new(b, "channel");
        Ok(Channel {
            id: d.u16()?,
            schema_id: d.u16()?,
            topic: d.str()?,
            message_encoding: d.str()?,
            metadata: d.string_map()?,
        })
    }
}

impl<'a> MessageRef<'a> {
    /// Decodes the record's body.
    ///
    /// # Errors
    /// [`Malformed`] when the body is short, too long or inconsistent.
    pub fn decode(b: &'a [u8]) -> R<Self> {
        let mut d = Dec::new(b, "message");
        Ok(MessageRef {
            channel_id: d.u16()?,
            sequence: d.u32()?,
            log_time: d.u64()?,
            publish_time: d.u64()?,
            data: d.rest(),
        })
    }
}

impl<'a> ChunkRef<'a> {
    /// Decodes the record's body.
    ///
    /// # Errors
    /// [`Malformed`] when the body is short, too long or inconsistent.
    pub fn decode(b: &'a [u8]) -> R<Self> {
        let mut d = Dec::new(b, "chunk");
        Ok(ChunkRef {
            message_start_time: d.u64()?,
            message_end_time: d.u64()?,
            uncompressed_size: d.u64()?,
            uncompressed_crc: d.u32()?,
            compression: d.str()?,
            records: d.bytes64()?,
        })
    }
}

impl ChunkIndex {
    /// Decodes the record's body.
    ///
    /// # Errors
    /// [`Malformed`] when the body is short, too long or inconsistent.
    pub fn decode(b: &[u8]) -> R<Self> {
        let mut d = Dec::new(b, "chunk index");
        let message_start_time = d.u64()?;
        let message_end_time = d.u64()?;
        let chunk_start_offset = d.u64()?;
        let chunk_length = d.u64()?;
        let offsets = d.bytes32()?;
        let mut od = Dec::new(offsets, "chunk index");
        let mut message_index_offsets = BTreeMap::new();
        while od.pos < offsets.len() {
            let c = od.u16()?;
            let o = od.u64()?;
            message_index_offsets.insert(c, o);
        }
        Ok(ChunkIndex {
            message_start_time,
            message_end_time,
            chunk_start_offset,
            chunk_length,
            message_index_offsets,
            message_index_length: d.u64()?,
            compression: d.str()?,
            compressed_size: d.u64()?,
            uncompressed_size: d.u64()?,
        })
    }
}

impl Statistics {
    /// Decodes the record's body.
    ///
    /// # Errors
    /// [`Malformed`] when the body is short, too long or inconsistent.
    pub fn decode(b: &[u8]) -> R<Self> {
        let mut d = Dec::new(b, "statistics");
        let mut s = Statistics {
            message_count: d.u64()?,
            schema_count: d.u16()?,
            channel_count: d.u32()?,
            attachment_count: d.u32()?,
            metadata_count: d.u32()?,
            chunk_count: d.u32()?,
            message_start_time: d.u64()?,
            message_end_time: d.u64()?,
            channel_message_counts: BTreeMap::new(),
        };
        let counts = d.bytes32()?;
        let mut cd = Dec::new(counts, "statistics");
        while cd.pos < counts.len() {
            let c = cd.u16()?;
            let n = cd.u64()?;
            s.channel_message_counts.insert(c, n);
        }
        Ok(s)
    }
}

impl Metadata {
    /// Decodes the record's body.
    ///
    /// # Errors
    /// [`Malformed`] when the body is short, too long or inconsistent.
    pub fn decode(b: &[u8]) -> R<Self> {
        let mut d = Dec::new(b, "metadata");
        Ok(Metadata {
            name: d.str()?,
            metadata: d.string_map()?,
        })
    }
}

impl MetadataIndex {
    /// Decodes the record's body.
    ///
    /// # Errors
    /// [`Malformed`] when the body is short, too long or inconsistent.
    pub fn decode(b: &[u8]) -> R<Self> {
        let mut d = Dec::new(b, "metadata index");
        Ok(MetadataIndex {
            offset: d.u64()?,
            length: d.u64()?,
            name: d.str()?,
        })
    }
}

/// Splits a buffer of back-to-back records into `(offset, opcode, body)`. Stops with an
/// error at the first record that does not fit in the buffer.
pub fn iter_records(buf: &[u8]) -> impl Iterator<Item = R<(usize, u8, &[u8])>> + '_ {
    let mut pos = 0usize;
    let mut failed = false;
    std::iter::from_fn(move || {
        if failed || pos >= buf.len() {
            return None;
        }
        if buf.len() - pos < 9 {
            failed = true;
            return Some(Err(Malformed(format!("record header cut off at {pos}"))));
        }
        let opcode = buf[pos];
        let mut l = [0u8; 8];
        l.copy_from_slice(&buf[pos + 1..pos + 9]);
        let len = u64::from_le_bytes(l);
        let avail = (buf.len() - pos - 9) as u64;
        if len > avail {
            failed = true;
            return Some(Err(Malformed(format!(
                "record at {pos} longer than its buffer"
            ))));
        }
        let start = pos;
        let body = &buf[pos + 9..pos + 9 + len as usize];
        pos += 9 + len as usize;
        Some(Ok((start, opcode, body)))
    })
}
