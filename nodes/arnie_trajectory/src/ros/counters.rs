//! The node's counters, published on `/diagnostics` (declared once: `node_glue::counters!`).
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};

use node_glue::counters::CounterSet;
use node_glue::diagnostics::{Level, Status};

use crate::Outcome;

node_glue::counters! {
    /// Counters published on /diagnostics.
    pub(crate) struct Counters {
        move_to {
            positions,
            positions_not_finite,
            goals_accepted,
            goals_rejected,
            legacy_targets,
            legacy_repeats,
            legacy_rejected,
            /// Points received on clicked_point.
            clicked_points,
            /// Clicked points refused (outside the workspace, no TF path, ...).
            clicked_refused,
            setpoints_sent,
            reached,
            reversed_to_start,
            aborted_help_needed,
            cancelled,
            preempted,
            publish_errors,
            /// Holds (cancel, shutdown) with no fresh arm position: nothing commanded.
            holds_skipped,
            reached_by_detour,
            /// Goals, legacy targets and clicked points refused while the node was not active.
            inactive_refused,
        }
        detours {
            /// Goals planned around remembered obstructions from the start.
            detours_from_start,
            /// Detours planned after a stop.
            detours_after_stop,
            /// Stops after which no detour was found (the arm went back).
            detours_not_found,
            /// Holds after which the arm turned out late, not blocked (it moved or caught
            /// up): the move went on, nothing remembered.
            late_not_blocked,
            /// Regions learned from stops (new ones).
            obstructions_recorded,
            /// Stops at a region already known (merged into it: hits + 1).
            obstructions_merged,
            /// Stops that taught nothing: the set-points were not moving, a NaN, the arm
            /// outside the workspace.
            contacts_refused,
            /// Regions shrunk by the arm passing through them unhindered.
            obstructions_shrunk,
            /// Regions removed by the arm passing through them unhindered.
            obstructions_cleared_by_pass,
            /// Goals whose target lay inside learned regions, approached from another side.
            approaches,
            /// Goals planned through learned regions (no way around them): probes.
            probes,
            obstructions_expired,
            /// Forgotten by the clear service.
            obstructions_cleared,
            /// Dropped at the cap (max_obstructions), oldest first.
            obstructions_dropped,
            obstructions_not_finite,
        }
        ;
        /// 0 idle, 1 moving, 2 the last move needed help.
        pub(crate) state: AtomicU8,
        /// Obstructions remembered now.
        pub(crate) remembered: AtomicUsize,
    }
}

impl Counters {
    pub(crate) fn status(&self) -> Status {
        let (level, message) = match self.state.load(Ordering::Relaxed) {
            1 => (Level::Ok, "moving"),
            2 => (Level::Warn, "last move aborted: help needed"),
            _ => (Level::Ok, "idle"),
        };
        CounterSet::status(self, "move_to")
            .message(message)
            .level(level)
    }

    /// The `detours` status.
    pub(crate) fn detours_status(&self) -> Status {
        let remembered = self.remembered.load(Ordering::Relaxed);
        CounterSet::status(self, "detours")
            .message(format!("{remembered} obstruction(s) remembered"))
            .with("remembered", remembered.to_string())
    }

    pub(crate) fn count_end(&self, outcome: Outcome) {
        match outcome {
            Outcome::Reached => self.reached.inc(),
            Outcome::ReversedToStart => self.reversed_to_start.inc(),
            Outcome::AbortedHelpNeeded => self.aborted_help_needed.inc(),
            Outcome::Cancelled => self.cancelled.inc(),
            Outcome::Rejected => self.goals_rejected.inc(),
            Outcome::Preempted => self.preempted.inc(),
            Outcome::ReachedByDetour => self.reached_by_detour.inc(),
        }
        let state = if outcome == Outcome::AbortedHelpNeeded {
            2
        } else {
            0
        };
        self.state.store(state, Ordering::Relaxed);
    }
}
