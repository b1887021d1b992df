//! Latency statistics: p50 / p90 / p99 / max of a set of samples.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Stats {
    pub(crate) n: usize,
    pub(crate) lost: usize,
    /// Of the lost: datagrams the spine counted as stale (a newer one was waiting).
    pub(crate) stale: Option<u64>,
    pub(crate) p50: f64,
    pub(crate) p90: f64,
    pub(crate) p99: f64,
    pub(crate) max: f64,
}

/// Latencies (µs) → p50 / p99 / max; `expected` samples were sent.
pub(crate) fn stats(mut us: Vec<f64>, expected: usize) -> Stats {
    us.sort_by(f64::total_cmp);
    let pick = |q: f64| {
        if us.is_empty() {
            f64::NAN
        } else {
            us[((us.len() - 1) as f64 * q).round() as usize]
        }
    };
    Stats {
        n: us.len(),
        lost: expected.saturating_sub(us.len()),
        stale: None,
        p50: pick(0.5),
        p90: pick(0.9),
        p99: pick(0.99),
        max: pick(1.0),
    }
}
