//! Per-interface counters, listed as `(key, value)` pairs for `/diagnostics`.

use std::collections::BTreeMap;

use crate::wire::Rejected;

/// What happened to the messages of one interface (input or output).
///
/// For an input: `received` datagrams, of which `unauthorised` (source not allowed),
/// `malformed` (by [`Rejected::kind`]), `deduplicated` (same value as the previous one:
/// not forwarded) and `forwarded` (a new value, offered to every connected output);
/// `stale_dropped` counts datagrams the glue skipped because a newer one was waiting.
///
/// For an output: `received` offers (from inputs or a topic), of which `forwarded`
/// (sent), `deduplicated` (same as the last value sent), `rejected_radius` (too far
/// from the last value sent, or too short to measure) and `malformed` (bad values from
/// a topic, non-finite after the inverse transform, or too long to send); `resent`
/// counts re-sends of the last value sent (`resendIntervalMs`), which are not offers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counters {
    /// Messages that arrived.
    pub received: u64,
    /// Messages passed on.
    pub forwarded: u64,
    /// Messages equal to the previous one.
    pub deduplicated: u64,
    /// Messages dropped by the radius check (outputs only).
    pub rejected_radius: u64,
    /// Messages rejected as malformed, by [`Rejected::kind`].
    pub malformed: BTreeMap<&'static str, u64>,
    /// Datagrams from a source not in `allowedSources` (inputs only).
    pub unauthorised: u64,
    /// Datagrams skipped because a newer one was waiting (inputs only).
    pub stale_dropped: u64,
    /// Re-sends of the last value sent (outputs with `resendIntervalMs` only).
    pub resent: u64,
}

impl Counters {
    /// Counts one malformed message of this kind.
    pub fn count_malformed(&mut self, kind: &'static str) {
        *self.malformed.entry(kind).or_insert(0) += 1;
    }

    /// Malformed messages of every kind.
    pub fn malformed_total(&self) -> u64 {
        self.malformed.values().sum()
    }

    /// Malformed messages of one kind.
    pub fn malformed_of(&self, kind: &str) -> u64 {
        self.malformed.get(kind).copied().unwrap_or(0)
    }

    /// Every counter as `(key, value)`, keys prefixed by `prefix` and a dot. Every
    /// [`Rejected`] kind is listed (zero included) so the key set is stable.
    pub fn pairs(&self, prefix: &str) -> Vec<(String, u64)> {
        let mut out = vec![
            (format!("{prefix}.received"), self.received),
            (format!("{prefix}.forwarded"), self.forwarded),
            (format!("{prefix}.deduplicated"), self.deduplicated),
            (format!("{prefix}.rejected_radius"), self.rejected_radius),
            (format!("{prefix}.unauthorised"), self.unauthorised),
            (format!("{prefix}.stale_dropped"), self.stale_dropped),
            (format!("{prefix}.resent"), self.resent),
        ];
        for kind in Rejected::KINDS {
            out.push((
                format!("{prefix}.malformed.{kind}"),
                self.malformed_of(kind),
            ));
        }
        for (kind, n) in &self.malformed {
            if !Rejected::KINDS.contains(kind) {
                out.push((format!("{prefix}.malformed.{kind}"), *n));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_list_every_kind() {
        let mut c = Counters {
            received: 3,
            ..Counters::default()
        };
        c.count_malformed("not_finite");
        c.count_malformed("not_finite");
        let pairs = c.pairs("input.arm");
        assert!(pairs.contains(&("input.arm.received".to_string(), 3)));
        assert!(pairs.contains(&("input.arm.malformed.not_finite".to_string(), 2)));
        assert!(pairs.contains(&("input.arm.malformed.empty".to_string(), 0)));
        assert_eq!(pairs.len(), 7 + Rejected::KINDS.len());
        assert_eq!(c.malformed_total(), 2);
    }
}
