//! The node's counters, published on `/diagnostics` (one status per group).

use std::sync::Mutex;

pub use node_glue::diagnostics::Counter;
use node_glue::diagnostics::{Level, Status};

/// Every counter of the node. Shared by the robot, the server and the subscriptions.
#[derive(Debug, Default)]
pub struct Counters {
    // ---- /strategy/run ----
    pub goals_accepted: Counter,
    /// Bad file, bad match time, bad settings, or a run already in progress.
    pub goals_rejected: Counter,
    pub runs_succeeded: Counter,
    pub runs_cancelled: Counter,
    pub runs_aborted: Counter,
    pub events_published: Counter,
    pub publish_errors: Counter,
    /// The last run's summary (`Report::message`) or rejection reason.
    pub last: Mutex<String>,
    // ---- robot ----
    pub moves_sent: Counter,
    pub moves_reached: Counter,
    pub moves_failed: Counter,
    /// Goals cancelled because their step was stopped (task stop, timeout, cancel).
    pub moves_cancelled: Counter,
    pub plans_requested: Counter,
    pub planner_unavailable: Counter,
    pub plan_errors: Counter,
    pub packets_sent: Counter,
    pub packets_failed: Counter,
    // ---- inputs ----
    pub positions: Counter,
    /// `/arm/position` messages with a NaN or infinite coordinate (ignored).
    pub positions_rejected: Counter,
    pub wait_messages: Counter,
    /// Messages of a watched topic that could not become JSON (ignored).
    pub wait_messages_rejected: Counter,
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
        let run = Status::ok("run", message)
            .with("goals_accepted", self.goals_accepted.get())
            .with("goals_rejected", self.goals_rejected.get())
            .with("runs_succeeded", self.runs_succeeded.get())
            .with("runs_cancelled", self.runs_cancelled.get())
            .with("runs_aborted", self.runs_aborted.get())
            .with("events_published", self.events_published.get())
            .with("publish_errors", self.publish_errors.get())
            .with("last", last);
        let robot = Status::ok("robot", "")
            .with("moves_sent", self.moves_sent.get())
            .with("moves_reached", self.moves_reached.get())
            .with("moves_failed", self.moves_failed.get())
            .with("moves_cancelled", self.moves_cancelled.get())
            .with("plans_requested", self.plans_requested.get())
            .with("planner_unavailable", self.planner_unavailable.get())
            .with("plan_errors", self.plan_errors.get())
            .with("packets_sent", self.packets_sent.get())
            .with("packets_failed", self.packets_failed.get());
        let mut inputs = Status::ok("inputs", "")
            .with("positions", self.positions.get())
            .with("positions_rejected", self.positions_rejected.get())
            .with("wait_messages", self.wait_messages.get())
            .with("wait_messages_rejected", self.wait_messages_rejected.get());
        if self.positions_rejected.get() + self.wait_messages_rejected.get() > 0 {
            inputs.level = Level::Warn;
            inputs.message = "some messages were rejected".into();
        }
        vec![run, robot, inputs]
    }
}
