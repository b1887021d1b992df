//! Rejected input as values, and counters by kind for `/diagnostics`.
use std::collections::BTreeMap;
use std::fmt;

/// Why incoming bytes did not become a packet. One kind per failure mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RejectKind {
    /// UART: XOR over the frame is not zero.
    Checksum,
    /// UART: size field larger than the configured maximum frame.
    Oversize,
    /// UART: size field of 0 (no room for the command byte).
    EmptyFrame,
    /// No definition for the command id.
    UnknownCommand,
    /// Payload length differs from the definition's.
    LengthMismatch,
    /// UART: a frame stopped arriving before it was complete (inter-byte timeout).
    Truncated,
    /// A payload byte that is no value of its type (a bool other than 0/1).
    BadValue,
    /// CAN: a page is missing (a gap, a new first page, or the rest never came).
    CanMissingPage,
    /// CAN: a page arrived before its predecessors (or twice).
    CanOutOfOrder,
    /// CAN: a page other than the last is shorter than 8 bytes.
    CanShortPage,
    /// CAN: a reassembled payload grew beyond the configured maximum.
    CanOversize,
    /// CAN: a UDP datagram not in the documented format, or a remote/error frame.
    BadCanFrame,
}

impl RejectKind {
    /// Every kind, in diagnostics order.
    pub const ALL: [RejectKind; 12] = [
        RejectKind::Checksum,
        RejectKind::Oversize,
        RejectKind::EmptyFrame,
        RejectKind::UnknownCommand,
        RejectKind::LengthMismatch,
        RejectKind::Truncated,
        RejectKind::BadValue,
        RejectKind::CanMissingPage,
        RejectKind::CanOutOfOrder,
        RejectKind::CanShortPage,
        RejectKind::CanOversize,
        RejectKind::BadCanFrame,
    ];

    /// The diagnostics key.
    pub fn key(self) -> &'static str {
        match self {
            RejectKind::Checksum => "checksum",
            RejectKind::Oversize => "oversize",
            RejectKind::EmptyFrame => "empty_frame",
            RejectKind::UnknownCommand => "unknown_command",
            RejectKind::LengthMismatch => "length_mismatch",
            RejectKind::Truncated => "truncated",
            RejectKind::BadValue => "bad_value",
            RejectKind::CanMissingPage => "can_missing_page",
            RejectKind::CanOutOfOrder => "can_out_of_order",
            RejectKind::CanShortPage => "can_short_page",
            RejectKind::CanOversize => "can_oversize",
            RejectKind::BadCanFrame => "bad_can_frame",
        }
    }
}

/// One rejection, for the log line. It has already been counted where it was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rejected {
    /// What was wrong.
    pub kind: RejectKind,
    /// The command id, when the bytes got that far.
    pub command: Option<u8>,
}

impl Rejected {
    /// A rejection of `kind`, of command `command` when known.
    pub fn new(kind: RejectKind, command: Option<u8>) -> Rejected {
        Rejected { kind, command }
    }
}

impl fmt::Display for Rejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.command {
            Some(c) => write!(f, "rejected ({}) command {c}", self.kind.key()),
            None => write!(f, "rejected ({})", self.kind.key()),
        }
    }
}

/// Counts for one link. All kinds are always listed, zeros included, so the keys on
/// `/diagnostics` are stable.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Packets decoded and delivered.
    pub rx_packets: u64,
    /// Packets written to the link.
    pub tx_packets: u64,
    /// UART: non-zero bytes dropped while resynchronising.
    pub garbage_bytes: u64,
    /// CAN: pages dropped after their message was already rejected.
    pub can_pages_dropped: u64,
    /// Reads or writes that failed.
    pub io_errors: u64,
    rejected: BTreeMap<RejectKind, u64>,
}

impl Counters {
    /// Counts one rejection.
    pub fn record(&mut self, kind: RejectKind) {
        *self.rejected.entry(kind).or_default() += 1;
    }

    /// Rejections of one kind.
    pub fn get(&self, kind: RejectKind) -> u64 {
        self.rejected.get(&kind).copied().unwrap_or(0)
    }

    /// All rejections.
    pub fn total_rejected(&self) -> u64 {
        self.rejected.values().sum()
    }

    /// Adds `other` into `self`.
    pub fn merge(&mut self, other: &Counters) {
        self.rx_packets += other.rx_packets;
        self.tx_packets += other.tx_packets;
        self.garbage_bytes += other.garbage_bytes;
        self.can_pages_dropped += other.can_pages_dropped;
        self.io_errors += other.io_errors;
        for (k, v) in &other.rejected {
            *self.rejected.entry(*k).or_default() += v;
        }
    }

    /// `(key, value)` pairs for a `DiagnosticStatus`.
    pub fn key_values(&self) -> Vec<(String, String)> {
        let mut out = vec![
            ("rx_packets".to_string(), self.rx_packets.to_string()),
            ("tx_packets".to_string(), self.tx_packets.to_string()),
            ("garbage_bytes".to_string(), self.garbage_bytes.to_string()),
            (
                "can_pages_dropped".to_string(),
                self.can_pages_dropped.to_string(),
            ),
            ("io_errors".to_string(), self.io_errors.to_string()),
        ];
        out.extend(
            RejectKind::ALL
                .iter()
                .map(|k| (k.key().to_string(), self.get(*k).to_string())),
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_merge_and_list_every_kind() {
        let mut a = Counters::default();
        a.record(RejectKind::Checksum);
        a.record(RejectKind::Checksum);
        let mut b = Counters {
            rx_packets: 3,
            ..Counters::default()
        };
        b.record(RejectKind::CanMissingPage);
        a.merge(&b);
        assert_eq!(a.get(RejectKind::Checksum), 2);
        assert_eq!(a.total_rejected(), 3);
        let kv = a.key_values();
        assert_eq!(kv.len(), 5 + RejectKind::ALL.len());
        assert!(kv.contains(&("rx_packets".into(), "3".into())));
        assert!(kv.contains(&("can_missing_page".into(), "1".into())));
        assert!(kv.contains(&("truncated".into(), "0".into())));
    }
}
