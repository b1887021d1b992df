//! The node's counters, published on `/diagnostics` (one status per group), declared
//! once with `node_glue::counters!`.

use std::sync::Mutex;

pub use node_glue::counters::CounterSet;
pub use node_glue::diagnostics::Counter;
use node_glue::diagnostics::{Level, Status};

node_glue::counters! {
    /// Every counter of the node. Shared by the robot, the server and the subscriptions.
    pub struct Counters {
        /// The `/strategy/run` goals and runs.
        run {
            /// Goals accepted (their file checked).
            goals_accepted,
            /// Bad file, bad match time or bad settings.
            goals_rejected,
            /// Goals refused while the node was not active.
            inactive_refused,
            /// Of those: a strategy file refused by the file rules (`allowed_dirs`, regular
            /// file, `max_file_bytes`; node_glue::files).
            files_refused,
            /// Runs that ended by themselves (all done or dropped, or the match timer).
            runs_succeeded,
            /// Runs cancelled by their client.
            runs_cancelled,
            /// Runs stopped otherwise (node shutdown, the runner failing).
            runs_aborted,
            /// Runs ended by a newer goal (the goal policy: preempt).
            runs_preempted,
            /// Events published on `/strategy/events`.
            events_published,
            /// Events that could not be published.
            publish_errors,
        }
        /// The robot's clients.
        robot {
            /// Motion goals sent (`MoveTo` or `NavigateTo`; counted at their end).
            moves_sent,
            /// Motion goals that reached their target.
            moves_reached,
            /// Motion goals that failed (no server, rejected, aborted, no answer ...).
            moves_failed,
            /// Goals cancelled because their step was stopped (task stop, timeout, cancel).
            moves_cancelled,
            /// `PlanPath` calls.
            plans_requested,
            /// Of those: no planner within `planner_wait` (straight lines used).
            planner_unavailable,
            /// Of those: the planner answered with an error, or not in time.
            plan_errors,
            /// `SendPacket` calls.
            packets_sent,
            /// Of those: not sent, or no reply.
            packets_failed,
        }
        /// Subscriptions.
        inputs {
            /// Finite positions received (`arm/position` or `base/pose`).
            positions,
            /// Positions (`arm/position` or `base/pose`) with a NaN or infinite coordinate
            /// (ignored).
            positions_rejected,
            /// Messages of the watched topics (`wait_topics`).
            wait_messages,
            /// Messages of a watched topic that could not become JSON (ignored).
            wait_messages_rejected,
            /// Messages of a watched topic pushed out of its backlog (`WAIT_BUFFER`)
            /// before any `wait_for` step looked at them.
            wait_messages_unseen,
            /// `wait_for` steps matched by a message that came in before the step began
            /// (while the move or send step before it ran).
            wait_matched_early,
        }
        /// The match clock and the start cord (`match/state`).
        clock {
            /// Matches armed (RunStrategy goals accepted).
            matches_armed,
            /// Matches started (by the cord, or by the goal with `match_start: goal`).
            matches_started,
            /// Matches ended by the clock.
            matches_ended,
            /// `MatchReady` packets sent to the board (acknowledged).
            match_ready_sent,
            /// `MatchReady` packets that were not acknowledged (the match still waits for the cord).
            match_ready_failed,
            /// `StartCord` reports received.
            cord_reports,
            /// `StartCord` reports whose fields did not read (ignored).
            cord_reports_bad,
            /// Pulls after the match had started (logged, ignored).
            cord_pulled_again,
            /// The cord put back during a match (logged, ignored).
            cord_put_back,
            /// Armings that found the cord already out (logged).
            cord_out_before_arming,
            /// `match/state` messages published.
            match_states_published,
        }
        ;
        /// The last run's summary (`Report::message`) or rejection reason.
        pub last: Mutex<String>,
    }
}

impl Counters {
    /// Remembers the last run's summary (or rejection reason) for `/diagnostics`.
    pub fn set_last(&self, message: String) {
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = message;
    }

    /// The statuses for `/diagnostics`; `running` names the strategy in progress.
    pub fn statuses(&self, running: Option<String>) -> Vec<Status> {
        let last = self.last.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let message = match &running {
            Some(file) => format!("running {file}"),
            None => "idle".to_owned(),
        };
        let run = self.status("run").message(message).with("last", last);
        let robot = self.status("robot");
        let mut inputs = self.status("inputs");
        if self.total(&[
            "positions_rejected",
            "wait_messages_rejected",
            "wait_messages_unseen",
        ]) > 0
        {
            inputs = inputs
                .level(Level::Warn)
                .message("some messages were rejected");
        }
        let mut m = self.status("clock");
        if self.total(&[
            "cord_reports_bad",
            "cord_pulled_again",
            "match_ready_failed",
        ]) > 0
        {
            m = m.level(Level::Warn).message("see the counters");
        }
        vec![run, robot, inputs, m]
    }
}
