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
            goals_accepted,
            /// Bad file, bad match time or bad settings.
            goals_rejected,
            /// Of those: a strategy file refused by the file rules (`allowed_dirs`, regular
            /// file, `max_file_bytes`; node_glue::files).
            files_refused,
            runs_succeeded,
            runs_cancelled,
            runs_aborted,
            /// Runs ended by a newer goal (the goal policy: preempt).
            runs_preempted,
            events_published,
            publish_errors,
        }
        robot {
            moves_sent,
            moves_reached,
            moves_failed,
            /// Goals cancelled because their step was stopped (task stop, timeout, cancel).
            moves_cancelled,
            plans_requested,
            planner_unavailable,
            plan_errors,
            packets_sent,
            packets_failed,
        }
        inputs {
            positions,
            /// `/arm/position` messages with a NaN or infinite coordinate (ignored).
            positions_rejected,
            wait_messages,
            /// Messages of a watched topic that could not become JSON (ignored).
            wait_messages_rejected,
        }
        ;
        /// The last run's summary (`Report::message`) or rejection reason.
        pub last: Mutex<String>,
    }
}

impl Counters {
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
        if self.total(&["positions_rejected", "wait_messages_rejected"]) > 0 {
            inputs = inputs
                .level(Level::Warn)
                .message("some messages were rejected");
        }
        vec![run, robot, inputs]
    }
}
