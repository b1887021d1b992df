//! CAN framing (the robot firmware's scheme) and page reassembly.
//!
//! * payload ≤ 8 bytes → one standard 11-bit frame, `id = command << 5 | device`;
//! * longer → extended 29-bit frames, one per 8-byte page:
//!   `id = command << 23 | device << 18 | LAST_PAGE (1 << 17) | page`.
//!
//! Command 0..=63, device 0..=31. The [`Reassembler`] accepts pages of one message only in
//! order from page 0; a gap, a repeat, a short middle page, a new page 0 before the last
//! page or a stale partial message is counted and dropped: never delivered as a packet.
//!
//! Limit of the firmware scheme (no message counter in the id): if the tail pages of one
//! message *and* the head pages of the next message with the same command and device
//! are lost or swapped so that the survivors still count 0, 1, …, last, the two are
//! spliced into one message of plausible length. One lost, repeated or reordered page
//! never does this (see the property tests); a real CAN bus neither reorders nor
//! silently drops frames, so it matters mainly for CAN-over-UDP.
use crate::counters::{Counters, RejectKind, Rejected};
use crate::error::{Error, Result};
use crate::packet::Packet;
use std::collections::{BTreeMap, VecDeque};
use std::fmt;

/// Bit 17 of an extended id: this page is the last.
pub const LAST_PAGE: u32 = 1 << 17;
/// Mask of the page number in an extended id.
pub const PAGE_MASK: u32 = LAST_PAGE - 1;
/// Largest standard id.
pub const MAX_STANDARD_ID: u16 = 0x7ff;
/// Largest extended id.
pub const MAX_EXTENDED_ID: u32 = 0x1fff_ffff;
/// Largest command in a CAN id.
pub const MAX_COMMAND: u8 = 63;
/// Largest device in a CAN id.
pub const MAX_DEVICE: u8 = 31;

/// A CAN identifier, always within its 11 or 29 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CanId {
    /// An 11-bit standard id.
    Standard(u16),
    /// A 29-bit extended id.
    Extended(u32),
}

impl CanId {
    /// `None` when `id` does not fit 11 bits.
    pub fn standard(id: u16) -> Option<CanId> {
        (id <= MAX_STANDARD_ID).then_some(CanId::Standard(id))
    }

    /// `None` when `id` does not fit 29 bits.
    pub fn extended(id: u32) -> Option<CanId> {
        (id <= MAX_EXTENDED_ID).then_some(CanId::Extended(id))
    }

    /// The numeric id without flags.
    pub fn raw(self) -> u32 {
        match self {
            CanId::Standard(id) => u32::from(id),
            CanId::Extended(id) => id,
        }
    }

    /// True for a 29-bit id.
    pub fn is_extended(self) -> bool {
        matches!(self, CanId::Extended(_))
    }
}

/// One classic CAN data frame (0..=8 bytes).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct CanFrame {
    id: CanId,
    len: u8,
    data: [u8; 8],
}

impl CanFrame {
    /// `None` when `data` is longer than 8 bytes.
    pub fn new(id: CanId, data: &[u8]) -> Option<CanFrame> {
        let mut buf = [0u8; 8];
        buf.get_mut(..data.len())?.copy_from_slice(data);
        Some(CanFrame {
            id,
            len: data.len() as u8,
            data: buf,
        })
    }

    /// The frame's id.
    pub fn id(&self) -> CanId {
        self.id
    }

    /// The frame's data bytes (0 to 8).
    pub fn data(&self) -> &[u8] {
        &self.data[..usize::from(self.len)]
    }
}

impl fmt::Debug for CanFrame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.id {
            CanId::Standard(id) => write!(f, "CanFrame({id:03x}#")?,
            CanId::Extended(id) => write!(f, "CanFrame({id:08x}#")?,
        }
        for b in self.data() {
            write!(f, "{b:02x}")?;
        }
        write!(f, ")")
    }
}

/// Splits a payload into frames.
///
/// # Errors
/// [`Error::CanCommandOutOfRange`], [`Error::CanDeviceOutOfRange`], [`Error::CanPayloadTooLong`].
pub fn encode(command: u8, device: u8, payload: &[u8]) -> Result<Vec<CanFrame>> {
    if command > MAX_COMMAND {
        return Err(Error::CanCommandOutOfRange(command));
    }
    if device > MAX_DEVICE {
        return Err(Error::CanDeviceOutOfRange(device));
    }
    let too_long = || Error::CanPayloadTooLong(payload.len());
    if payload.len() <= 8 {
        let id = CanId::Standard(u16::from(command) << 5 | u16::from(device));
        return CanFrame::new(id, payload)
            .map(|f| vec![f])
            .ok_or_else(too_long);
    }
    let pages = payload.len().div_ceil(8);
    if pages > PAGE_MASK as usize + 1 {
        return Err(too_long());
    }
    let base = u32::from(command) << 23 | u32::from(device) << 18;
    payload
        .chunks(8)
        .enumerate()
        .map(|(page, chunk)| {
            let last = if page + 1 == pages { LAST_PAGE } else { 0 };
            let id = CanId::Extended(base | last | page as u32);
            CanFrame::new(id, chunk).ok_or_else(too_long)
        })
        .collect()
}

/// Splits a packet (its id and device) into frames.
pub fn encode_packet(packet: &Packet) -> Result<Vec<CanFrame>> {
    encode(packet.id(), packet.device, &packet.encode_payload())
}

/// A whole received message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CanMessage {
    /// The command id (6 bits on the wire).
    pub command: u8,
    /// The device (5 bits on the wire).
    pub device: u8,
    /// The whole payload, pages joined.
    pub payload: Vec<u8>,
}

/// Reassembler settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReassemblerConfig {
    /// Longest payload reassembled [bytes].
    pub max_payload_len: usize,
    /// A partial message with no new page for this long is dropped [ms].
    pub page_timeout_ms: u64,
}

impl Default for ReassemblerConfig {
    fn default() -> Self {
        ReassemblerConfig {
            max_payload_len: 4096,
            page_timeout_ms: 100,
        }
    }
}

#[derive(Clone, Debug)]
enum Partial {
    Collecting {
        next_page: u32,
        data: Vec<u8>,
        last_ms: u64,
    },
    /// The message was already rejected: its remaining pages are dropped quietly.
    Discarding { last_ms: u64 },
}

impl Partial {
    fn last_ms(&self) -> u64 {
        match self {
            Partial::Collecting { last_ms, .. } | Partial::Discarding { last_ms } => *last_ms,
        }
    }
}

/// Turns frames back into messages; one partial message per (command, device).
/// Feed with [`push`](Self::push), drain with [`pop`](Self::pop).
#[derive(Clone, Debug, Default)]
pub struct Reassembler {
    cfg: ReassemblerConfig,
    partial: BTreeMap<(u8, u8), Partial>,
    out: VecDeque<std::result::Result<CanMessage, Rejected>>,
    counters: Counters,
}

impl Reassembler {
    /// An empty reassembler with these limits.
    pub fn new(cfg: ReassemblerConfig) -> Reassembler {
        Reassembler {
            cfg,
            ..Reassembler::default()
        }
    }

    /// Takes one received frame (after expiring stale partial messages).
    pub fn push(&mut self, frame: &CanFrame, now_ms: u64) {
        self.expire(now_ms);
        let id = match frame.id() {
            CanId::Standard(id) => {
                let msg = CanMessage {
                    command: (id >> 5) as u8,
                    device: (id & 0x1f) as u8,
                    payload: frame.data().to_vec(),
                };
                self.out.push_back(Ok(msg));
                return;
            }
            CanId::Extended(id) => id,
        };
        let command = ((id >> 23) & 0x3f) as u8;
        let device = ((id >> 18) & 0x1f) as u8;
        let last = id & LAST_PAGE != 0;
        let page = id & PAGE_MASK;
        let key = (command, device);
        let full_page = frame.data().len() == 8;

        let state = if page == 0 {
            if let Some(Partial::Collecting { .. }) = self.partial.remove(&key) {
                self.reject(RejectKind::CanMissingPage, command);
            }
            if !last && !full_page {
                self.reject(RejectKind::CanShortPage, command);
                Partial::Discarding { last_ms: now_ms }
            } else {
                Partial::Collecting {
                    next_page: 0,
                    data: Vec::new(),
                    last_ms: now_ms,
                }
            }
        } else {
            match self.partial.remove(&key) {
                None => {
                    self.reject(RejectKind::CanOutOfOrder, command);
                    Partial::Discarding { last_ms: now_ms }
                }
                Some(Partial::Discarding { .. }) => {
                    self.counters.can_pages_dropped += 1;
                    Partial::Discarding { last_ms: now_ms }
                }
                Some(Partial::Collecting { next_page, .. }) if page != next_page => {
                    let kind = if page > next_page {
                        RejectKind::CanMissingPage
                    } else {
                        RejectKind::CanOutOfOrder
                    };
                    self.reject(kind, command);
                    Partial::Discarding { last_ms: now_ms }
                }
                Some(Partial::Collecting { .. }) if !last && !full_page => {
                    self.reject(RejectKind::CanShortPage, command);
                    Partial::Discarding { last_ms: now_ms }
                }
                Some(collecting) => collecting,
            }
        };

        match state {
            Partial::Collecting {
                next_page,
                mut data,
                ..
            } => {
                data.extend_from_slice(frame.data());
                if data.len() > self.cfg.max_payload_len {
                    self.reject(RejectKind::CanOversize, command);
                    if !last {
                        self.partial
                            .insert(key, Partial::Discarding { last_ms: now_ms });
                    }
                } else if last {
                    self.out.push_back(Ok(CanMessage {
                        command,
                        device,
                        payload: data,
                    }));
                } else {
                    self.partial.insert(
                        key,
                        Partial::Collecting {
                            next_page: next_page + 1,
                            data,
                            last_ms: now_ms,
                        },
                    );
                }
            }
            discarding @ Partial::Discarding { .. } => {
                if !last {
                    self.partial.insert(key, discarding);
                }
            }
        }
    }

    /// The next message or rejection, if any.
    pub fn pop(&mut self) -> Option<std::result::Result<CanMessage, Rejected>> {
        self.out.pop_front()
    }

    /// Drops partial messages with no page for `page_timeout_ms` (counted as missing pages).
    pub fn expire(&mut self, now_ms: u64) {
        let timeout = self.cfg.page_timeout_ms;
        let stale: Vec<(u8, u8)> = self
            .partial
            .iter()
            .filter(|(_, p)| now_ms >= p.last_ms().saturating_add(timeout))
            .map(|(k, _)| *k)
            .collect();
        for key in stale {
            if let Some(Partial::Collecting { .. }) = self.partial.remove(&key) {
                self.reject(RejectKind::CanMissingPage, key.0);
            }
        }
    }

    /// When [`expire`](Self::expire) will next have something to drop.
    pub fn deadline_ms(&self) -> Option<u64> {
        self.partial
            .values()
            .map(|p| p.last_ms().saturating_add(self.cfg.page_timeout_ms))
            .min()
    }

    /// Counts of what was rejected.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    fn reject(&mut self, kind: RejectKind, command: u8) {
        self.counters.record(kind);
        self.out.push_back(Err(Rejected::new(kind, Some(command))));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(
        r: &mut Reassembler,
        frames: &[CanFrame],
    ) -> Vec<std::result::Result<CanMessage, Rejected>> {
        for f in frames {
            r.push(f, 0);
        }
        std::iter::from_fn(|| r.pop()).collect()
    }

    #[test]
    fn short_payload_is_one_standard_frame() {
        let frames = encode(3, 5, &[1, 2, 3]).expect("fits");
        assert_eq!(frames.len(), 1);
        assert_eq!(frames[0].id(), CanId::Standard(3 << 5 | 5));
        let got = feed(&mut Reassembler::default(), &frames);
        assert_eq!(
            got,
            [Ok(CanMessage {
                command: 3,
                device: 5,
                payload: vec![1, 2, 3]
            })]
        );
    }

    #[test]
    fn long_payload_pages_and_ids() {
        let payload: Vec<u8> = (0..20).collect();
        let frames = encode(2, 1, &payload).expect("fits");
        let ids: Vec<u32> = frames.iter().map(|f| f.id().raw()).collect();
        let base = 2 << 23 | 1 << 18;
        assert_eq!(ids, [base, base | 1, base | LAST_PAGE | 2]);
        assert_eq!(frames[2].data(), &[16, 17, 18, 19]);
        let got = feed(&mut Reassembler::default(), &frames);
        assert_eq!(
            got,
            [Ok(CanMessage {
                command: 2,
                device: 1,
                payload
            })]
        );
    }

    #[test]
    fn id_limits() {
        assert!(matches!(
            encode(64, 0, &[]),
            Err(Error::CanCommandOutOfRange(64))
        ));
        assert!(matches!(
            encode(1, 32, &[]),
            Err(Error::CanDeviceOutOfRange(32))
        ));
        assert_eq!(CanId::standard(0x800), None);
        assert_eq!(CanId::extended(0x2000_0000), None);
    }

    #[test]
    fn missing_and_out_of_order_pages_never_yield_a_packet() {
        let payload: Vec<u8> = (0..24).collect();
        let f = encode(1, 0, &payload).expect("fits");
        let kinds = |got: &[std::result::Result<CanMessage, Rejected>]| -> Vec<RejectKind> {
            assert!(got.iter().all(|r| r.is_err()), "{got:?}");
            got.iter()
                .filter_map(|r| r.as_ref().err())
                .map(|r| r.kind)
                .collect()
        };
        let mut r = Reassembler::default();
        assert_eq!(
            kinds(&feed(&mut r, &[f[0], f[2]])),
            [RejectKind::CanMissingPage]
        );
        assert_eq!(
            kinds(&feed(&mut r, &[f[1], f[0], f[2]])),
            [RejectKind::CanOutOfOrder, RejectKind::CanMissingPage]
        );
        assert_eq!(
            kinds(&feed(&mut r, &[f[0], f[1], f[1], f[2]])),
            [RejectKind::CanOutOfOrder]
        );
        assert_eq!(r.counters().can_pages_dropped, 1);
        // A new message starting before the last one ended.
        let got = feed(&mut r, &[f[0], f[1], f[0], f[1], f[2]]);
        assert_eq!(got.len(), 2);
        assert_eq!(
            got[0],
            Err(Rejected::new(RejectKind::CanMissingPage, Some(1)))
        );
        assert_eq!(
            got[1].as_ref().map(|m| m.payload.clone()).ok(),
            Some(payload)
        );
    }

    #[test]
    fn stale_partial_expires_and_short_middle_page_is_rejected() {
        let f = encode(1, 0, &[9; 12]).expect("fits");
        let mut r = Reassembler::new(ReassemblerConfig {
            max_payload_len: 64,
            page_timeout_ms: 10,
        });
        r.push(&f[0], 0);
        assert_eq!(r.deadline_ms(), Some(10));
        r.expire(9);
        assert_eq!(r.pop(), None);
        r.expire(10);
        assert_eq!(
            r.pop(),
            Some(Err(Rejected::new(RejectKind::CanMissingPage, Some(1))))
        );
        let short = CanFrame::new(f[0].id(), &[1, 2]).expect("fits");
        assert_eq!(
            feed(&mut r, &[short, f[1]]),
            [Err(Rejected::new(RejectKind::CanShortPage, Some(1)))]
        );
    }

    #[test]
    fn firmware_scheme_limit_a_page_swapped_across_two_messages_splices_them() {
        // Documents the limit stated in the module doc: A = [a0, a1], B = [b0, b1] with
        // the same command and device arrive as a0 b0 a1 b1. b0 restarts (A counted as
        // missing a page), a1 completes "B" with A's tail: b0 ++ a1 is delivered.
        let a = encode(1, 0, &[0xaa; 12]).expect("fits");
        let b = encode(1, 0, &[0xbb; 12]).expect("fits");
        let got = feed(&mut Reassembler::default(), &[a[0], b[0], a[1], b[1]]);
        let mut spliced = vec![0xbb; 8];
        spliced.extend([0xaa; 4]);
        assert_eq!(
            got[0],
            Err(Rejected::new(RejectKind::CanMissingPage, Some(1)))
        );
        assert_eq!(
            got[1],
            Ok(CanMessage {
                command: 1,
                device: 0,
                payload: spliced
            })
        );
        assert_eq!(
            got[2],
            Err(Rejected::new(RejectKind::CanOutOfOrder, Some(1)))
        );
    }

    #[test]
    fn oversize_is_rejected() {
        let f = encode(1, 0, &[9; 40]).expect("fits");
        let mut r = Reassembler::new(ReassemblerConfig {
            max_payload_len: 16,
            page_timeout_ms: 10,
        });
        let got = feed(&mut r, &f);
        assert_eq!(got, [Err(Rejected::new(RejectKind::CanOversize, Some(1)))]);
        assert_eq!(r.counters().can_pages_dropped, 2);
    }
}
