//! Everything the node counts, in one place: the `/diagnostics` counters
//! ([`Counters`], declared once with `node_glue::counters!`) and the rate limits of the log lines
//! a peer can cause at any rate ([`Gates`]: refused requests, failed plans, rejected
//! maps). Each refusal is counted here, always; its log line is written at most once per
//! [`LOG_EVERY`] per kind, the next one saying how many were left out
//! (`log_lines_suppressed` counts them).
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use node_glue::counters::CounterSet;
use node_glue::diagnostics::{Level, Status};
use node_glue::ratelimit::{self, RateLimit};

/// At most one log line per kind of refusal per this period.
pub(crate) const LOG_EVERY: Duration = Duration::from_secs(5);

node_glue::counters! {
    /// What /diagnostics shows (the counters' names are written once, here). Written by
    /// the planner task only.
    pub(crate) struct Counters {
        /// The status `planner: planner`.
        planner {
            /// `PlanPath` requests answered.
            requests,
            /// `PlanPath` answers by `error_code` (`invalid_request`: refused).
            ok,
            no_map,
            start_outside,
            goal_outside,
            start_blocked,
            goal_blocked,
            no_path,
            invalid_request,
            /// `PlanPath` and `UpdateMap` requests refused while the node was not active.
            inactive_refused,
            /// Maps received on /map.
            maps_received,
            /// Maps in use (file or /map).
            map_updates,
            /// Maps refused (rotated, malformed).
            maps_rejected,
            /// `UpdateMap` requests answered, and by outcome (`updates_refused`:
            /// INVALID_REQUEST).
            update_requests,
            updates_ok,
            updates_no_map,
            updates_refused,
            /// Marks forgotten at their ttl.
            marks_expired,
            /// Log lines left out by the rate limits.
            log_lines_suppressed,
            /// Nav2's compute_path_to_pose / compute_path_through_poses goals, and those
            /// that failed (ABORTED with Nav2's code).
            compute_path_requests,
            compute_path_failed,
            /// clear_entirely_global_costmap / clear_entirely_local_costmap calls.
            costmap_clears,
            /// Answers (PlanPath or UpdateMap) the middleware could not send: the client
            /// left, or rmw_fastrtps had not matched its reader within 100 ms.
            answers_lost,
        }
        ;
        /// Marks live after the last update or plan (a gauge).
        pub(crate) marks: AtomicU64,
        /// f64 bits of the last search time [s].
        pub(crate) last_plan_time_s: AtomicU64,
        /// Cells the last search expanded.
        pub(crate) last_expansions: AtomicU64,
        /// `width << 32 | height` of the current map (0 = none).
        map_size: AtomicU64,
        /// Why the last map was refused.
        pub(crate) last_map_error: Mutex<String>,
    }
}

impl Counters {
    /// Counts one `PlanPath` answer by its code.
    pub(crate) fn count_code(&self, code: u16) {
        let c = match code {
            0 => &self.ok,
            1 => &self.no_map,
            2 => &self.start_outside,
            3 => &self.goal_outside,
            4 => &self.start_blocked,
            5 => &self.goal_blocked,
            6 => &self.no_path,
            _ => &self.invalid_request,
        };
        c.inc();
    }

    /// Counts one `UpdateMap` answer by its outcome (OK, NO_MAP, INVALID_REQUEST).
    pub(crate) fn count_update(&self, outcome: u8) {
        self.update_requests.inc();
        match outcome {
            0 => self.updates_ok.inc(),
            1 => self.updates_no_map.inc(),
            _ => self.updates_refused.inc(),
        }
    }

    /// The current map's size, `(width, height)` cells.
    pub(crate) fn set_map_size(&self, width: usize, height: usize) {
        let size = (width as u64) << 32 | (height as u64 & 0xffff_ffff);
        self.map_size.store(size, Ordering::Relaxed);
    }

    /// The `planner` status (WARN until a map is in use); `source` names where maps come
    /// from.
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
        let last_error = self
            .last_map_error
            .lock()
            .map(|e| e.clone())
            .unwrap_or_default();
        vec![self
            .status("planner")
            .level(level)
            .message(message)
            .with("marks", self.marks.load(Ordering::Relaxed))
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

impl Line {
    fn key(self) -> &'static str {
        match self {
            Line::PlanRefused => "plan_refused",
            Line::PlanFailed => "plan_failed",
            Line::UpdateRefused => "update_refused",
            Line::MapRejected => "map_rejected",
        }
    }
}

/// The rate limits of the [`Line`]s (`node_glue::ratelimit`, one key per kind).
pub(crate) struct Gates(RateLimit);

impl Gates {
    pub(crate) fn new() -> Self {
        Gates(RateLimit::new(LOG_EVERY))
    }

    /// `Some(suffix)` when a `line` may be written now (the suffix tells how many like it
    /// were left out since, or is empty); `None` when it is left out (counted).
    pub(crate) fn pass(&self, line: Line, counters: &Counters) -> Option<String> {
        match self.0.allow(line.key()) {
            None => {
                counters.log_lines_suppressed.inc();
                None
            }
            Some(n) => Some(ratelimit::suffix(n)),
        }
    }
}
