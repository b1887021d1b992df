//! UART framing (the robot firmware's): `[size: 1|2 B][command][payload][xor]`, and a
//! streaming [`Decoder`] fed arbitrary chunks.
//!
//! `size` = 1 + payload length. Below 128 it is one byte; otherwise two bytes, big-endian,
//! top bit set (15 bits): 513 → `82 01`. The checksum is the XOR (from 0) of every byte
//! before it, so a whole good frame XORs to 0. Zero bytes between frames are skipped.
//!
//! Resynchronisation: when the candidate frame at the head of the buffer fails (bad
//! checksum, size over the maximum, unknown command or wrong length when the decoder knows
//! the definitions, or a timeout mid-frame), only its *first byte* is dropped and the
//! search restarts one byte later, so a corrupted size byte cannot swallow the good
//! frames behind it. The first failure of a bad stretch is returned and counted by kind;
//! the bytes dropped while resynchronising are counted as `garbage_bytes`.
use crate::counters::{Counters, RejectKind, Rejected};
use crate::error::{Error, Result};
use crate::packet::Packet;

/// Largest value of the 15-bit size field.
pub const MAX_SIZE_FIELD: usize = 0x7fff;

/// Encodes one frame.
///
/// # Errors
/// [`Error::FrameTooLarge`] when `1 + payload.len()` exceeds 15 bits.
pub fn encode_frame(command: u8, payload: &[u8]) -> Result<Vec<u8>> {
    let size = payload.len() + 1;
    if size > MAX_SIZE_FIELD {
        return Err(Error::FrameTooLarge {
            bytes: size + 3,
            max: MAX_SIZE_FIELD + 3,
        });
    }
    let mut out = Vec::with_capacity(size + 3);
    if size < 0x80 {
        out.push(size as u8);
    } else {
        out.push(0x80 | (size >> 8) as u8);
        out.push((size & 0xff) as u8);
    }
    out.push(command);
    out.extend_from_slice(payload);
    out.push(xor(&out));
    Ok(out)
}

/// Encodes a packet as one frame.
pub fn encode_packet(packet: &Packet) -> Result<Vec<u8>> {
    encode_frame(packet.id(), &packet.encode_payload())
}

/// XOR of all bytes.
pub fn xor(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0, |a, b| a ^ b)
}

/// One good frame (checksum verified).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The command id (the frame's first byte after the size).
    pub command: u8,
    /// The whole frame as received, size bytes and checksum included.
    pub raw: Vec<u8>,
    /// Position of the frame's first byte in the stream (bytes pushed before it).
    pub offset: u64,
    payload_start: usize,
}

impl Frame {
    /// The payload bytes.
    pub fn payload(&self) -> &[u8] {
        let end = self.raw.len().saturating_sub(1);
        self.raw.get(self.payload_start..end).unwrap_or(&[])
    }
}

/// Decoder settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecoderConfig {
    /// Largest whole frame accepted (size bytes + command + payload + checksum) [bytes].
    pub max_frame_len: usize,
    /// A partial frame with no new byte for this long is dropped as truncated [ms].
    pub frame_timeout_ms: u64,
}

impl Default for DecoderConfig {
    fn default() -> Self {
        DecoderConfig {
            max_frame_len: 1024,
            frame_timeout_ms: 100,
        }
    }
}

/// What the head of the buffer holds.
enum Step {
    NeedMore,
    Good { len: usize, payload_start: usize },
    Bad(RejectKind, Option<u8>),
}

/// Streaming frame decoder: a state machine over a byte buffer; time is passed in.
///
/// ```
/// use arnie_packets::uart::{encode_frame, Decoder, DecoderConfig};
/// let mut d = Decoder::new(DecoderConfig::default());
/// d.push(&[0, 0xff], 0);                       // idle zeros and a garbage byte
/// d.push(&encode_frame(5, &[1, 2]).unwrap(), 0);
/// let mut got = vec![];
/// while let Some(r) = d.next(0) { got.push(r); }
/// assert_eq!(got.len(), 2);                    // one rejection, then the frame
/// assert_eq!(got[1].as_ref().unwrap().payload(), &[1, 2]);
/// ```
#[derive(Clone, Debug)]
pub struct Decoder {
    cfg: DecoderConfig,
    /// Expected payload length per command, when the definitions are known.
    lengths: Option<Box<[Option<u16>; 256]>>,
    buf: Vec<u8>,
    /// Bytes of `buf` before `head` are consumed.
    head: usize,
    /// Stream offset of `buf[0]`.
    base: u64,
    /// True between a rejection and the next good frame: further failures of the same
    /// bad stretch are counted only as garbage bytes.
    resyncing: bool,
    last_rx_ms: u64,
    counters: Counters,
}

impl Decoder {
    /// A decoder that checks framing only.
    pub fn new(cfg: DecoderConfig) -> Decoder {
        Decoder {
            cfg,
            lengths: None,
            buf: Vec::new(),
            head: 0,
            base: 0,
            resyncing: false,
            last_rx_ms: 0,
            counters: Counters::default(),
        }
    }

    /// Also rejects unknown commands and wrong lengths as soon as the command byte is in,
    /// which resynchronises faster (`Definitions::payload_lengths`).
    pub fn with_lengths(mut self, lengths: Box<[Option<u16>; 256]>) -> Decoder {
        self.lengths = Some(lengths);
        self
    }

    /// Appends received bytes.
    pub fn push(&mut self, bytes: &[u8], now_ms: u64) {
        if self.head > 0 {
            self.buf.drain(..self.head);
            self.base += self.head as u64;
            self.head = 0;
        }
        if !bytes.is_empty() {
            self.buf.extend_from_slice(bytes);
            self.last_rx_ms = now_ms;
        }
    }

    /// The next frame or rejection, or `None` when more bytes are needed.
    pub fn next(&mut self, now_ms: u64) -> Option<std::result::Result<Frame, Rejected>> {
        loop {
            while self.buf.get(self.head) == Some(&0) {
                self.head += 1;
            }
            if self.head >= self.buf.len() {
                return None;
            }
            match self.step() {
                Step::Good { len, payload_start } => {
                    let raw = self.buf[self.head..self.head + len].to_vec();
                    let frame = Frame {
                        command: raw[payload_start - 1],
                        raw,
                        offset: self.base + self.head as u64,
                        payload_start,
                    };
                    self.head += len;
                    self.resyncing = false;
                    return Some(Ok(frame));
                }
                Step::NeedMore if now_ms < self.deadline_after_last_byte() => return None,
                Step::NeedMore => {
                    if let Some(r) = self.reject(RejectKind::Truncated, self.head_command()) {
                        return Some(Err(r));
                    }
                }
                Step::Bad(kind, command) => {
                    if let Some(r) = self.reject(kind, command) {
                        return Some(Err(r));
                    }
                }
            }
        }
    }

    /// When [`next`](Self::next) will give up on the partial frame now buffered, if any.
    pub fn deadline_ms(&self) -> Option<u64> {
        let rest = self.buf.get(self.head..).unwrap_or(&[]);
        rest.iter()
            .any(|b| *b != 0)
            .then(|| self.deadline_after_last_byte())
    }

    /// Counts of what was rejected.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    fn deadline_after_last_byte(&self) -> u64 {
        self.last_rx_ms.saturating_add(self.cfg.frame_timeout_ms)
    }

    fn head_command(&self) -> Option<u8> {
        let b0 = *self.buf.get(self.head)?;
        self.buf
            .get(self.head + if b0 & 0x80 != 0 { 2 } else { 1 })
            .copied()
    }

    /// Drops the head byte; returns the rejection when it starts a bad stretch.
    fn reject(&mut self, kind: RejectKind, command: Option<u8>) -> Option<Rejected> {
        self.head += 1;
        self.counters.garbage_bytes += 1;
        if self.resyncing {
            return None;
        }
        self.resyncing = true;
        self.counters.record(kind);
        Some(Rejected::new(kind, command))
    }

    fn step(&self) -> Step {
        let avail = &self.buf[self.head..];
        let b0 = avail[0];
        let (hdr, size) = if b0 & 0x80 == 0 {
            (1, usize::from(b0))
        } else {
            match avail.get(1) {
                Some(b1) => (2, usize::from(b0 & 0x7f) << 8 | usize::from(*b1)),
                None => return Step::NeedMore,
            }
        };
        if size == 0 {
            return Step::Bad(RejectKind::EmptyFrame, None);
        }
        let len = hdr + size + 1;
        if len > self.cfg.max_frame_len {
            return Step::Bad(RejectKind::Oversize, None);
        }
        let command = avail.get(hdr).copied();
        if let (Some(table), Some(c)) = (&self.lengths, command) {
            match table[usize::from(c)] {
                None => return Step::Bad(RejectKind::UnknownCommand, command),
                Some(n) if usize::from(n) + 1 != size => {
                    return Step::Bad(RejectKind::LengthMismatch, command)
                }
                Some(_) => {}
            }
        }
        if avail.len() < len {
            return Step::NeedMore;
        }
        if xor(&avail[..len]) != 0 {
            return Step::Bad(RejectKind::Checksum, command);
        }
        Step::Good {
            len,
            payload_start: hdr + 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(d: &mut Decoder, now_ms: u64) -> Vec<std::result::Result<Frame, Rejected>> {
        std::iter::from_fn(|| d.next(now_ms)).collect()
    }

    #[test]
    fn two_byte_size() {
        let payload = vec![7u8; 512];
        let f = encode_frame(9, &payload).expect("fits");
        assert_eq!(&f[..3], &[0x82, 0x01, 9]);
        assert_eq!(xor(&f), 0);
        let mut d = Decoder::new(DecoderConfig::default());
        d.push(&f, 0);
        let got = drain(&mut d, 0);
        assert_eq!(got.len(), 1);
        let frame = got[0].as_ref().expect("good");
        assert_eq!((frame.command, frame.payload()), (9, &payload[..]));
    }

    #[test]
    fn size_limits() {
        assert!(encode_frame(0, &vec![0; MAX_SIZE_FIELD - 1]).is_ok());
        assert!(matches!(
            encode_frame(0, &vec![0; MAX_SIZE_FIELD]),
            Err(Error::FrameTooLarge { .. })
        ));
        let mut d = Decoder::new(DecoderConfig {
            max_frame_len: 16,
            frame_timeout_ms: 10,
        });
        let big = encode_frame(1, &[1; 20]).expect("fits");
        let small = encode_frame(2, &[3]).expect("fits");
        d.push(&big, 0);
        d.push(&small, 0);
        let got = drain(&mut d, 0);
        assert_eq!(
            got.first(),
            Some(&Err(Rejected::new(RejectKind::Oversize, None)))
        );
        assert_eq!(
            got.last().and_then(|r| r.as_ref().ok()).map(|f| f.command),
            Some(2)
        );
        assert_eq!(d.counters().get(RejectKind::Oversize), 1);
    }

    #[test]
    fn checksum_failure_then_recovery_of_next_frame() {
        let mut bad = encode_frame(1, &[1, 2, 3]).expect("fits");
        bad[2] ^= 0x10;
        let good = encode_frame(2, &[4]).expect("fits");
        let mut d = Decoder::new(DecoderConfig::default());
        d.push(&bad, 0);
        d.push(&good, 0);
        // The corrupted byte (0x11) reads as a 17-byte size when rescanned: with no length
        // table the decoder must wait for the timeout before it can give up on it.
        let got = drain(&mut d, 99);
        assert_eq!(got, [Err(Rejected::new(RejectKind::Checksum, Some(1)))]);
        let got = drain(&mut d, 100);
        assert!(
            got.iter().all(|r| r.is_ok()),
            "one error per bad stretch: {got:?}"
        );
        let frames: Vec<_> = got.iter().filter_map(|r| r.as_ref().ok()).collect();
        assert_eq!(frames.len(), 1);
        assert_eq!((frames[0].command, frames[0].offset), (2, bad.len() as u64));
        assert_eq!(d.counters().get(RejectKind::Checksum), 1);
        assert!(d.counters().garbage_bytes >= 1);
    }

    #[test]
    fn corrupted_size_byte_does_not_swallow_following_frames() {
        // A size byte claiming 100 bytes, then three good frames, then silence.
        let frames: Vec<_> = (1..=3)
            .map(|c| encode_frame(c, &[c; 4]).expect("fits"))
            .collect();
        let mut d = Decoder::new(DecoderConfig::default());
        d.push(&[100], 0);
        for f in &frames {
            d.push(f, 1);
        }
        assert!(
            drain(&mut d, 5).is_empty(),
            "waits for the 100-byte candidate"
        );
        assert_eq!(d.deadline_ms(), Some(101));
        let got = drain(&mut d, 101);
        assert_eq!(
            got[0],
            Err(Rejected::new(RejectKind::Truncated, Some(frames[0][0])))
        );
        let cmds: Vec<_> = got
            .iter()
            .filter_map(|r| r.as_ref().ok())
            .map(|f| f.command)
            .collect();
        assert_eq!(cmds, [1, 2, 3]);
    }

    #[test]
    fn length_table_rejects_at_once() {
        let mut table = Box::new([None; 256]);
        table[1] = Some(2);
        let mut d = Decoder::new(DecoderConfig::default()).with_lengths(table);
        d.push(&[0x7e, 9], 0); // 126-byte frame of unknown command 9: no waiting for it
        d.push(&encode_frame(1, &[5, 6]).expect("fits"), 0);
        let got = drain(&mut d, 0);
        assert_eq!(
            got[0],
            Err(Rejected::new(RejectKind::UnknownCommand, Some(9)))
        );
        assert_eq!(got.iter().filter(|r| r.is_ok()).count(), 1);
        d.push(&encode_frame(1, &[5]).expect("fits"), 0);
        assert_eq!(
            drain(&mut d, 0)[0],
            Err(Rejected::new(RejectKind::LengthMismatch, Some(1)))
        );
    }

    #[test]
    fn zeros_are_skipped_and_empty_size_rejected() {
        let mut d = Decoder::new(DecoderConfig::default());
        d.push(&[0, 0, 0], 0);
        assert!(drain(&mut d, 1000).is_empty());
        assert_eq!(d.deadline_ms(), None);
        d.push(&[0x80, 0x00], 0);
        assert_eq!(
            drain(&mut d, 0),
            [Err(Rejected::new(RejectKind::EmptyFrame, None))]
        );
    }
}
