//! Rate-limited log lines for input-driven warnings: at most one line (or `burst`
//! lines) per period per key; the lines in between are counted and reported on the next
//! one as `" (K more suppressed)"`. A flood of bad messages costs one line a period, and
//! no count is lost (the counters still count every one).
//!
//! No ROS here: a node logs through `node_glue::warn_limited!`, a library hands the
//! allowed lines to its own sink.
//! ```
//! use glue_core::ratelimit::{suffix, RateLimit};
//! let limit = RateLimit::default(); // one line per key per DEFAULT_PERIOD
//! let mut lines = vec![];
//! for x in [f64::NAN, f64::NAN] {
//!     if let Some(n) = limit.allow("position") {
//!         lines.push(format!("position not finite: {x}{}", suffix(n)));
//!     }
//! }
//! assert_eq!(lines, ["position not finite: NaN"]); // the second is counted for later
//! ```
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The period of [`RateLimit::default`].
pub const DEFAULT_PERIOD: Duration = Duration::from_secs(2);
/// Keys kept at the most (keys beyond share one slot, so input cannot grow the table).
pub const MAX_KEYS: usize = 256;
const OVERFLOW_KEY: &str = "(other)";

/// Per-key rate limiter (see the module doc). Shareable (`&self`), e.g. in an `Arc`.
#[derive(Debug)]
pub struct RateLimit {
    period: Duration,
    burst: u64,
    keys: Mutex<HashMap<String, Slot>>,
}

/// One key's window: when it started, the lines allowed in it, the events suppressed.
#[derive(Debug)]
struct Slot {
    start: Instant,
    used: u64,
    suppressed: u64,
}

impl Default for RateLimit {
    fn default() -> Self {
        RateLimit::new(DEFAULT_PERIOD)
    }
}

impl RateLimit {
    /// At most one line per `period` per key.
    pub fn new(period: Duration) -> Self {
        RateLimit::with_burst(1, period)
    }

    /// At most `burst` lines per `period` per key (the period starts at the first line
    /// allowed after the last one ended).
    pub fn with_burst(burst: u32, period: Duration) -> Self {
        RateLimit {
            period,
            burst: u64::from(burst),
            keys: Mutex::new(HashMap::new()),
        }
    }

    /// Notes one event of `key`: `Some(suppressed before)` if a line may be logged now.
    pub fn allow(&self, key: &str) -> Option<u64> {
        self.allow_at(key, 1, Instant::now())
    }

    /// Notes `n` events of `key` at `now`: `Some(suppressed before)` if one line may be
    /// logged (it stands for one event; the other `n - 1` are counted as suppressed).
    pub fn allow_at(&self, key: &str, n: u64, now: Instant) -> Option<u64> {
        if n == 0 {
            return None;
        }
        let mut keys = self.keys.lock().unwrap_or_else(|e| e.into_inner());
        let key = if keys.contains_key(key) || keys.len() < MAX_KEYS {
            key
        } else {
            OVERFLOW_KEY
        };
        let slot = keys.entry(key.to_string()).or_insert(Slot {
            start: now,
            used: 0,
            suppressed: 0,
        });
        if now.saturating_duration_since(slot.start) >= self.period {
            slot.start = now;
            slot.used = 0;
        }
        if slot.used < self.burst {
            slot.used += 1;
            Some(std::mem::replace(&mut slot.suppressed, n - 1))
        } else {
            slot.suppressed += n;
            None
        }
    }
}

/// `" (K more suppressed)"`, or nothing for 0.
pub fn suffix(suppressed: u64) -> String {
    if suppressed == 0 {
        String::new()
    } else {
        format!(" ({suppressed} more suppressed)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_period_per_key_with_the_count() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let l = RateLimit::new(Duration::from_secs(1));
        assert_eq!(l.allow_at("a", 1, t0), Some(0));
        assert_eq!(l.allow_at("b", 1, t0), Some(0));
        assert_eq!(l.allow_at("a", 1, t0 + ms(10)), None);
        assert_eq!(l.allow_at("a", 5, t0 + ms(20)), None);
        assert_eq!(l.allow_at("a", 3, t0 + ms(1100)), Some(6));
        assert_eq!(l.allow_at("a", 1, t0 + ms(2200)), Some(2));
        assert_eq!(l.allow_at("b", 0, t0 + ms(2200)), None);
        assert_eq!(suffix(0), "");
        assert_eq!(suffix(4), " (4 more suppressed)");
    }

    #[test]
    fn keys_are_bounded() {
        let t0 = Instant::now();
        let l = RateLimit::new(Duration::from_secs(1));
        for k in 0..MAX_KEYS {
            assert_eq!(l.allow_at(&k.to_string(), 1, t0), Some(0));
        }
        assert_eq!(l.allow_at("new", 1, t0), Some(0));
        assert_eq!(l.allow_at("newer", 1, t0), None);
        assert_eq!(l.keys.lock().unwrap().len(), MAX_KEYS + 1);
    }

    #[test]
    fn a_burst_per_period_then_the_count() {
        let t0 = Instant::now();
        let l = RateLimit::with_burst(2, Duration::from_secs(1));
        assert_eq!(l.allow_at("k", 1, t0), Some(0));
        assert_eq!(l.allow_at("k", 1, t0), Some(0));
        assert_eq!(l.allow_at("k", 1, t0), None);
        assert_eq!(l.allow_at("k", 1, t0), None);
        assert_eq!(l.allow_at("other", 1, t0), Some(0));
        assert_eq!(l.allow_at("k", 1, t0 + Duration::from_secs(1)), Some(2));
        assert_eq!(l.allow_at("k", 1, t0 + Duration::from_secs(1)), Some(0));
        assert_eq!(l.allow_at("k", 1, t0 + Duration::from_secs(1)), None);
    }
}
