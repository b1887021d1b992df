//! [`Decoder`]: the LD06's byte stream → [`Packet`]s, resynchronised on anything else.
//!
//! A packet starts at `0x54 0x2C`. Bytes before such a pair are garbage (counted,
//! dropped). At a candidate with its 47 bytes in:
//! - a valid CRC gives the packet (a CRC-valid packet with an angle ≥ 360° is counted as
//!   `bad_angle` and dropped);
//! - a bad CRC is a **truncated** packet when a valid packet starts inside its 47 bytes
//!   (the next packet's header cut it short: the stream resumes there), else a **bad
//!   CRC** (the stream resumes at the byte after its header, so a packet hidden in the
//!   corrupted bytes is still found);
//! - a partial packet followed by silence for `gap_s` (a packet cut short by a pause),
//!   or by the end of the stream ([`Decoder::finish`]: the port closed), is truncated.
//!
//! Every byte is accounted for: `bytes = 47 × (packets + bad_angle) + garbage_bytes +
//! bytes of bad-CRC and truncated candidates + the bytes still pending` (a property test
//! checks it). Nothing here allocates per packet; the buffer holds at most two packets'
//! worth beyond what was last pushed.
use std::collections::VecDeque;

use crate::{Packet, Rejected, HEADER, PACKET_LEN, VER_LEN};

/// What the decoder has seen, for `/diagnostics`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DecoderCounters {
    /// Bytes pushed.
    pub bytes: u64,
    /// Good packets decoded.
    pub packets: u64,
    /// Candidates (a header pair and 47 bytes) with a bad CRC.
    pub bad_crc: u64,
    /// Packets cut short (by the next header, a silence, or the end of the stream).
    pub truncated: u64,
    /// Bytes dropped outside any candidate while resynchronising.
    pub garbage_bytes: u64,
    /// CRC-valid packets with an angle of 360° or more.
    pub bad_angle: u64,
    /// Bytes dropped with bad-CRC and truncated candidates.
    pub rejected_bytes: u64,
}

impl DecoderCounters {
    /// Every counter as `(name, value)`, for `/diagnostics`.
    pub fn pairs(&self) -> [(&'static str, u64); 7] {
        [
            ("bytes", self.bytes),
            ("packets", self.packets),
            ("bad_crc", self.bad_crc),
            ("truncated", self.truncated),
            ("garbage_bytes", self.garbage_bytes),
            ("bad_angle", self.bad_angle),
            ("rejected_bytes", self.rejected_bytes),
        ]
    }
}

/// The streaming decoder (see the module doc).
#[derive(Clone, Debug)]
pub struct Decoder {
    buf: Vec<u8>,
    /// Bytes of `buf` before this are consumed.
    start: usize,
    gap_s: f64,
    last_byte: Option<f64>,
    counters: DecoderCounters,
    /// Decided before new bytes came (a silence, the end of the stream), for `next_packet`.
    ready: VecDeque<Result<Packet, Rejected>>,
}

/// What the decision at the front of the buffer is.
enum Front {
    /// Nothing to decide yet (more bytes needed).
    Wait,
    /// Consumed this many garbage bytes; look again.
    Skipped,
    /// A packet or a rejection.
    Done(Result<Packet, Rejected>),
}

impl Decoder {
    /// A decoder that drops a partial packet after `gap_s` seconds without a byte (at
    /// 230 400 baud a packet takes 2 ms; 0.05 s is a good value).
    pub fn new(gap_s: f64) -> Decoder {
        Decoder {
            buf: Vec::with_capacity(4 * PACKET_LEN),
            start: 0,
            gap_s: if gap_s.is_finite() {
                gap_s.max(0.0)
            } else {
                0.05
            },
            last_byte: None,
            counters: DecoderCounters::default(),
            ready: VecDeque::new(),
        }
    }

    /// The counters so far.
    pub fn counters(&self) -> &DecoderCounters {
        &self.counters
    }

    /// Bytes waiting for a decision (a partial packet, a header at the very end).
    pub fn pending(&self) -> usize {
        self.buf.len() - self.start
    }

    /// Takes bytes read at `now` [s]. What was pending from before a silence longer than
    /// `gap_s` is decided first as the end of a stream (a partial packet is truncated);
    /// [`Decoder::next_packet`] returns it before anything of `bytes`.
    pub fn push(&mut self, bytes: &[u8], now: f64) {
        if let Some(t) = self.last_byte {
            if now - t > self.gap_s && self.pending() > 0 {
                self.finish();
            }
        }
        if !bytes.is_empty() {
            self.last_byte = Some(now);
        }
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        self.buf.extend_from_slice(bytes);
        self.counters.bytes += bytes.len() as u64;
    }

    /// The next packet or rejection from the bytes pushed so far; `None` when more bytes
    /// are needed.
    pub fn next_packet(&mut self) -> Option<Result<Packet, Rejected>> {
        if let Some(r) = self.ready.pop_front() {
            return Some(r);
        }
        loop {
            match self.front(false) {
                Front::Wait => return None,
                Front::Skipped => continue,
                Front::Done(r) => return Some(r),
            }
        }
    }

    /// The stream ended (the port closed): everything pending is decided with no more
    /// bytes to come (a partial packet is truncated, a lone header byte garbage); the
    /// results come out of [`Decoder::next_packet`].
    pub fn finish(&mut self) {
        loop {
            match self.front(true) {
                Front::Wait => break,
                Front::Skipped => continue,
                Front::Done(r) => self.ready.push_back(r),
            }
        }
    }

    fn rest(&self) -> &[u8] {
        &self.buf[self.start..]
    }

    fn consume(&mut self, n: usize) {
        self.start += n;
    }

    /// One decision at the front; `eof`: no more bytes will come.
    fn front(&mut self, eof: bool) -> Front {
        let rest = self.rest();
        let len = rest.len();
        if len == 0 {
            return Front::Wait;
        }
        // Resynchronise: the first header pair (a header as the very last byte may be one).
        let at = (0..len).find(|&i| rest[i] == HEADER && (i + 1 == len || rest[i + 1] == VER_LEN));
        match at {
            Some(i) if eof && i + 1 == len => {
                // A lone header byte at the end of the stream.
                self.skip(len);
                return Front::Skipped;
            }
            Some(0) => {}
            Some(i) => {
                self.skip(i);
                return Front::Skipped;
            }
            None => {
                self.skip(len);
                return Front::Wait;
            }
        }
        if len < PACKET_LEN {
            if eof && len >= 2 {
                return Front::Done(Err(self.truncated(len)));
            }
            return Front::Wait;
        }
        let mut bytes = [0u8; PACKET_LEN];
        bytes.copy_from_slice(&rest[..PACKET_LEN]);
        let crc = match Packet::decode(&bytes) {
            Ok(p) => {
                self.consume(PACKET_LEN);
                self.counters.packets += 1;
                return Front::Done(Ok(p));
            }
            Err(e @ Rejected::Angle(_)) => {
                self.consume(PACKET_LEN);
                self.counters.bad_angle += 1;
                return Front::Done(Err(e));
            }
            Err(crc) => crc,
        };
        // Cut short by the next packet? A header pair inside with a valid packet there.
        let mut cut = None;
        for k in 2..PACKET_LEN {
            if !(rest[k] == HEADER && rest.get(k + 1).is_none_or(|&b| b == VER_LEN)) {
                continue;
            }
            if len < k + PACKET_LEN {
                if eof {
                    continue;
                }
                return Front::Wait;
            }
            let mut next = [0u8; PACKET_LEN];
            next.copy_from_slice(&rest[k..k + PACKET_LEN]);
            if Packet::decode(&next).is_ok() {
                cut = Some(k);
                break;
            }
        }
        if let Some(k) = cut {
            return Front::Done(Err(self.truncated(k)));
        }
        self.counters.bad_crc += 1;
        self.counters.rejected_bytes += 1;
        self.consume(1);
        Front::Done(Err(crc))
    }

    fn skip(&mut self, n: usize) {
        self.counters.garbage_bytes += n as u64;
        self.consume(n);
    }

    fn truncated(&mut self, len: usize) -> Rejected {
        self.counters.truncated += 1;
        self.counters.rejected_bytes += len as u64;
        self.consume(len);
        Rejected::Truncated { len }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Point;

    fn packet(start: u16) -> Packet {
        let mut p = Packet {
            speed_deg_s: 3600,
            start_angle_cdeg: start,
            end_angle_cdeg: (start + 880) % 36_000,
            timestamp_ms: start / 10,
            ..Packet::default()
        };
        for (i, pt) in p.points.iter_mut().enumerate() {
            *pt = Point {
                distance_mm: 1000 + i as u16,
                intensity: 200,
            };
        }
        p
    }

    fn drain(d: &mut Decoder) -> Vec<Result<Packet, Rejected>> {
        std::iter::from_fn(|| d.next_packet()).collect()
    }

    #[test]
    fn packets_split_anywhere_come_out_whole() {
        let stream: Vec<u8> = (0..5).flat_map(|i| packet(i * 900).encode()).collect();
        for chunk in [1, 2, 7, 46, 47, 48, 200] {
            let mut d = Decoder::new(0.05);
            let mut got = Vec::new();
            for c in stream.chunks(chunk) {
                d.push(c, 0.0);
                got.extend(drain(&mut d));
            }
            let want: Vec<_> = (0..5).map(|i| Ok(packet(i * 900))).collect();
            assert_eq!(got, want, "chunks of {chunk}");
            assert_eq!(d.counters().garbage_bytes, 0);
            assert_eq!(d.pending(), 0);
        }
    }

    #[test]
    fn garbage_before_between_and_inside_is_skipped_and_counted() {
        let mut s = vec![0x00, 0x54, 0x00, 0xFF, 0x2C, 0x54];
        s.extend(packet(0).encode());
        s.extend([0x54, 0x54, 0x2C, 0x01]);
        s.extend(packet(900).encode());
        let mut d = Decoder::new(0.05);
        d.push(&s, 0.0);
        let got = drain(&mut d);
        let oks: Vec<_> = got
            .iter()
            .filter_map(|r| r.as_ref().ok())
            .copied()
            .collect();
        assert_eq!(oks, vec![packet(0), packet(900)]);
        let c = d.counters().clone();
        // "54 2C 01" + the next packet's first 44 bytes is a candidate with a bad CRC ...
        // which a valid packet inside makes a truncated one.
        assert_eq!(c.truncated, 1, "{got:?}");
        assert_eq!(c.bad_crc, 0);
        assert_eq!(c.garbage_bytes, 6 + 1);
        assert_eq!(
            c.bytes,
            47 * c.packets + c.garbage_bytes + c.rejected_bytes + d.pending() as u64
        );
    }

    #[test]
    fn a_corrupted_packet_is_a_bad_crc_and_the_next_one_survives() {
        let mut bad = packet(0).encode();
        bad[20] ^= 0x40;
        let mut s = bad.to_vec();
        s.extend(packet(900).encode());
        let mut d = Decoder::new(0.05);
        d.push(&s, 0.0);
        let got = drain(&mut d);
        assert!(matches!(got[0], Err(Rejected::Crc { .. })), "{got:?}");
        assert_eq!(got.last(), Some(&Ok(packet(900))));
        assert_eq!(d.counters().bad_crc, 1);
        assert_eq!(d.counters().packets, 1);
    }

    #[test]
    fn a_packet_cut_by_the_next_header_is_truncated() {
        let first = packet(0).encode();
        let mut s = first[..30].to_vec();
        s.extend(packet(900).encode());
        s.extend(packet(1800).encode());
        let mut d = Decoder::new(0.05);
        d.push(&s, 0.0);
        let got = drain(&mut d);
        assert_eq!(
            got,
            vec![
                Err(Rejected::Truncated { len: 30 }),
                Ok(packet(900)),
                Ok(packet(1800))
            ]
        );
    }

    #[test]
    fn a_partial_packet_before_a_silence_or_the_end_is_truncated() {
        let p = packet(0).encode();
        let mut d = Decoder::new(0.05);
        d.push(&p[..20], 1.0);
        assert_eq!(d.next_packet(), None);
        // 0.2 s later another packet: the partial one is dropped first.
        d.push(&packet(900).encode(), 1.2);
        assert_eq!(
            drain(&mut d),
            vec![Err(Rejected::Truncated { len: 20 }), Ok(packet(900))]
        );
        d.push(&p[..10], 1.3);
        d.finish();
        assert_eq!(drain(&mut d), vec![Err(Rejected::Truncated { len: 10 })]);
        assert_eq!(d.counters().truncated, 2);
        assert_eq!(d.pending(), 0);
        // A lone header byte at the end is garbage, not a packet; a whole packet left
        // in the buffer at the end still comes out.
        d.push(&[0x54], 1.4);
        d.finish();
        assert_eq!(drain(&mut d), vec![]);
        d.push(&packet(1800).encode(), 1.41);
        d.finish();
        assert_eq!(drain(&mut d), vec![Ok(packet(1800))]);
        assert_eq!(d.pending(), 0);
    }

    #[test]
    fn a_crc_valid_packet_with_a_bad_angle_is_dropped() {
        let mut b = packet(0).encode();
        b[42..44].copy_from_slice(&40_000u16.to_le_bytes());
        b[46] = crate::crc8(&b[..46]);
        let mut d = Decoder::new(0.05);
        d.push(&b, 0.0);
        d.push(&packet(900).encode(), 0.0);
        assert_eq!(
            drain(&mut d),
            vec![Err(Rejected::Angle(40_000)), Ok(packet(900))]
        );
        assert_eq!(d.counters().bad_angle, 1);
    }
}
