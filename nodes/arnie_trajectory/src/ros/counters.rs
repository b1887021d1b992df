//! The node's counters, published on `/diagnostics`.
use std::sync::atomic::{AtomicU8, Ordering};

use node_glue::diagnostics::{Counter, Level, Status};

use crate::Outcome;

/// Counters published on /diagnostics.
#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) positions: Counter,
    pub(crate) positions_not_finite: Counter,
    pub(crate) goals_accepted: Counter,
    pub(crate) goals_rejected: Counter,
    pub(crate) legacy_targets: Counter,
    pub(crate) legacy_repeats: Counter,
    pub(crate) legacy_rejected: Counter,
    pub(crate) setpoints_sent: Counter,
    pub(crate) reached: Counter,
    pub(crate) reversed_to_start: Counter,
    pub(crate) aborted_help_needed: Counter,
    pub(crate) cancelled: Counter,
    pub(crate) preempted: Counter,
    pub(crate) publish_errors: Counter,
    /// 0 idle, 1 moving, 2 the last move needed help.
    pub(crate) state: AtomicU8,
}

impl Counters {
    pub(crate) fn status(&self) -> Status {
        let (level, message) = match self.state.load(Ordering::Relaxed) {
            1 => (Level::Ok, "moving"),
            2 => (Level::Warn, "last move aborted: help needed"),
            _ => (Level::Ok, "idle"),
        };
        let mut s = Status::ok("move_to", message);
        s.level = level;
        s.with("positions", self.positions.get())
            .with("positions_not_finite", self.positions_not_finite.get())
            .with("goals_accepted", self.goals_accepted.get())
            .with("goals_rejected", self.goals_rejected.get())
            .with("legacy_targets", self.legacy_targets.get())
            .with("legacy_repeats", self.legacy_repeats.get())
            .with("legacy_rejected", self.legacy_rejected.get())
            .with("setpoints_sent", self.setpoints_sent.get())
            .with("reached", self.reached.get())
            .with("reversed_to_start", self.reversed_to_start.get())
            .with("aborted_help_needed", self.aborted_help_needed.get())
            .with("cancelled", self.cancelled.get())
            .with("preempted", self.preempted.get())
            .with("publish_errors", self.publish_errors.get())
    }

    pub(crate) fn count_end(&self, outcome: Outcome) {
        match outcome {
            Outcome::Reached => self.reached.inc(),
            Outcome::ReversedToStart => self.reversed_to_start.inc(),
            Outcome::AbortedHelpNeeded => self.aborted_help_needed.inc(),
            Outcome::Cancelled => self.cancelled.inc(),
            Outcome::Rejected => self.goals_rejected.inc(),
            Outcome::Preempted => self.preempted.inc(),
        }
        let state = if outcome == Outcome::AbortedHelpNeeded {
            2
        } else {
            0
        };
        self.state.store(state, Ordering::Relaxed);
    }
}
