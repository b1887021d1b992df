//! Everything the node counts, in one place: the `/diagnostics` counters
//! ([`Counters`], `node_glue::diagnostics::Counter`) and the rate limits of the log lines
//! a peer can cause at any rate ([`Gates`]: refused requests, failed plans, rejected
//! maps). Each refusal is counted here, always; its log line is written at most once per
//! [`LOG_EVERY_S`] per kind, the next one saying how many were left out
//! (`log_lines_suppressed` counts them).
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use node_glue::diagnostics::{Counter, Level, Status};

use crate::node::Throttle;

/// At most one log line per kind of refusal per this many seconds.
pub(crate) const LOG_EVERY_S: f64 = 5.0;

/// `PlanPath` `error_code` names for /diagnostics, indexed by code.
const CODE_NAMES: [&str; 8] = [
    "ok",
    "no_map",
    "start_outside",
    "goal_outside",
    "start_blocked",
    "goal_blocked",
    "no_path",
    "invalid_request",
];

/// `UpdateMap` outcome names for /diagnostics, indexed by outcome.
const UPDATE_NAMES: [&str; 3] = ["updates_ok", "updates_no_map", "updates_refused"];

/// What /diagnostics shows. Written by the planner task only.
#[derive(Default)]
pub(crate) struct Counters {
    /// `PlanPath` requests answered.
    pub(crate) requests: Counter,
    /// `PlanPath` answers by `error_code` (0 = OK; 7 = INVALID_REQUEST: refused).
    by_code: [Counter; CODE_NAMES.len()],
    /// Maps received on /map.
    pub(crate) maps_received: Counter,
    /// Maps in use (file or /map).
    pub(crate) map_updates: Counter,
    /// Maps refused (rotated, malformed).
    pub(crate) maps_rejected: Counter,
    /// `UpdateMap` requests answered.
    pub(crate) update_requests: Counter,
    /// `UpdateMap` answers by outcome (OK, NO_MAP, INVALID_REQUEST: refused).
    by_update: [Counter; UPDATE_NAMES.len()],
    /// Marks forgotten at their ttl.
    pub(crate) marks_expired: Counter,
    /// Log lines left out by the rate limits.
    pub(crate) log_lines_suppressed: Counter,
    /// Marks live after the last update or plan (a gauge).
    pub(crate) marks: AtomicU64,
    /// f64 bits of the last search time [s].
    pub(crate) last_plan_time_s: AtomicU64,
    /// Cells the last search expanded.
    pub(crate) last_expansions: AtomicU64,
    /// `width << 32 | height` of the current map (0 = none).
    pub(crate) map_size: AtomicU64,
    /// Why the last map was refused.
    pub(crate) last_map_error: Mutex<String>,
}

impl Counters {
    /// Counts one `PlanPath` answer by its code.
    pub(crate) fn count_code(&self, code: u16) {
        if let Some(c) = self.by_code.get(usize::from(code)) {
            c.inc();
        }
    }

    /// Counts one `UpdateMap` answer by its outcome.
    pub(crate) fn count_update(&self, outcome: u8) {
        self.update_requests.inc();
        if let Some(c) = self.by_update.get(usize::from(outcome)) {
            c.inc();
        }
    }

    /// The current map's size, `(width, height)` cells.
    pub(crate) fn set_map_size(&self, width: usize, height: usize) {
        let size = (width as u64) << 32 | (height as u64 & 0xffff_ffff);
        self.map_size.store(size, Ordering::Relaxed);
    }

    /// The `planner` status; `source` names where maps come from.
    pub(crate) fn statuses(&self, source: &str) -> Vec<Status> {
        let size = self.map_size.load(Ordering::Relaxed);
        let (level, message) = if size == 0 {
            (Level::Warn, format!("no map yet ({source})"))
        } else {
            (
                Level::Ok,
                format!("map {}x{} ({source})", size >> 32, size & 0xffff_ffff),
            )
        };
        let mut s = Status {
            name: "planner".into(),
            level,
            message,
            values: vec![],
        }
        .with("requests", self.requests.get());
        for (name, n) in CODE_NAMES.iter().zip(&self.by_code) {
            s = s.with(*name, n.get());
        }
        let last_error = self
            .last_map_error
            .lock()
            .map(|e| e.clone())
            .unwrap_or_default();
        s = s
            .with("maps_received", self.maps_received.get())
            .with("map_updates", self.map_updates.get())
            .with("maps_rejected", self.maps_rejected.get())
            .with("update_requests", self.update_requests.get());
        for (name, n) in UPDATE_NAMES.iter().zip(&self.by_update) {
            s = s.with(*name, n.get());
        }
        vec![s
            .with("marks", self.marks.load(Ordering::Relaxed))
            .with("marks_expired", self.marks_expired.get())
            .with("log_lines_suppressed", self.log_lines_suppressed.get())
            .with("last_map_error", last_error)
            .with(
                "last_plan_time_s",
                f64::from_bits(self.last_plan_time_s.load(Ordering::Relaxed)),
            )
            .with(
                "last_expansions",
                self.last_expansions.load(Ordering::Relaxed),
            )]
    }
}

/// The kinds of rate-limited log lines.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Line {
    /// A `PlanPath` refused (INVALID_REQUEST).
    PlanRefused,
    /// A `PlanPath` answered with an error (no path, blocked, outside, no map).
    PlanFailed,
    /// An `UpdateMap` refused (INVALID_REQUEST) or without a map.
    UpdateRefused,
    /// A map on /map rejected.
    MapRejected,
}

/// One [`Throttle`] per [`Line`], on the node's monotonic clock.
pub(crate) struct Gates {
    t0: Instant,
    throttles: [Throttle; 4],
}

impl Gates {
    pub(crate) fn new() -> Self {
        Gates {
            t0: Instant::now(),
            throttles: std::array::from_fn(|_| Throttle::new(LOG_EVERY_S)),
        }
    }

    /// `Some(suffix)` when a `line` may be written now (the suffix tells how many like it
    /// were left out since, or is empty); `None` when it is left out (counted).
    pub(crate) fn pass(&mut self, line: Line, counters: &Counters) -> Option<String> {
        let now = self.t0.elapsed().as_secs_f64();
        match self.throttles[line as usize].allow(now) {
            None => {
                counters.log_lines_suppressed.inc();
                None
            }
            Some(0) => Some(String::new()),
            Some(n) => Some(format!(" ({n} more like it not logged)")),
        }
    }
}
