//! The node's counters, published on `/diagnostics` (one status per group).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

pub use node_glue::diagnostics::Counter;
use node_glue::diagnostics::{Level, Status};

/// Every counter of the node, shared by the server, the mover and the subscriptions.
#[derive(Debug, Default)]
pub struct Counters {
    // ---- /brain/run_task ----
    /// Runs started (goals that loaded, and the autostart run).
    pub runs_started: Counter,
    /// Goals whose task did not load (outcome REJECTED).
    pub runs_rejected: Counter,
    /// Of those: a task file refused by the file rules (`allowed_dirs`, regular file,
    /// `max_file_bytes`) or an inline task over `max_file_bytes`.
    pub tasks_refused: Counter,
    /// Runs that ended by themselves or by their tick limit (FINISHED).
    pub runs_finished: Counter,
    pub runs_cancelled: Counter,
    /// Runs stopped by a newer goal or by shutdown (ABORTED).
    pub runs_aborted: Counter,
    pub ticks: Counter,
    /// Ticks on which an action held because the arm position was stale.
    pub paused_ticks: Counter,
    pub publish_errors: Counter,
    /// The last result message.
    pub last: Mutex<String>,
    /// Task and tick of the run in progress ("" when idle).
    pub running: Mutex<String>,
    /// The last tick paused.
    pub paused: AtomicBool,
    // ---- arm commands ----
    /// Ticks that produced a target.
    pub targets: Counter,
    pub goals_sent: Counter,
    /// Targets not re-sent: equal to the goal still running (or to the last published).
    pub targets_unchanged: Counter,
    pub goals_reached: Counter,
    /// Goals replaced on the server by a newer target.
    pub goals_preempted: Counter,
    /// Goals cancelled by the brain (task cancelled or stopped).
    pub goals_cancelled: Counter,
    /// Goals rejected, aborted, reversed, unanswered, or no server.
    pub goals_failed: Counter,
    // ---- inputs ----
    pub positions: Counter,
    /// `/arm/position` messages with a NaN or infinite coordinate (ignored).
    pub positions_rejected: Counter,
    pub observation_messages: Counter,
    /// Observation items with fewer than 3 values or a non-finite value (dropped).
    pub observations_rejected: Counter,
}

impl Counters {
    /// Remembers the last result message.
    pub fn set_last(&self, message: String) {
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = message;
    }

    /// Sets the "running" text ("" = idle).
    pub fn set_running(&self, text: String) {
        *self.running.lock().unwrap_or_else(|e| e.into_inner()) = text;
    }

    /// The statuses for `/diagnostics`.
    pub fn statuses(&self) -> Vec<Status> {
        let last = self.last.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let running = self
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let mut run = Status::ok(
            "run",
            if running.is_empty() {
                "idle".to_owned()
            } else {
                format!("running {running}")
            },
        )
        .with("runs_started", self.runs_started.get())
        .with("runs_rejected", self.runs_rejected.get())
        .with("tasks_refused", self.tasks_refused.get())
        .with("runs_finished", self.runs_finished.get())
        .with("runs_cancelled", self.runs_cancelled.get())
        .with("runs_aborted", self.runs_aborted.get())
        .with("ticks", self.ticks.get())
        .with("paused_ticks", self.paused_ticks.get())
        .with("publish_errors", self.publish_errors.get())
        .with("last", last);
        if !running.is_empty() && self.paused.load(Ordering::Relaxed) {
            run.level = Level::Warn;
            run.message = format!("running {running}: paused, arm position stale");
        }
        let arm = Status::ok("arm", "")
            .with("targets", self.targets.get())
            .with("goals_sent", self.goals_sent.get())
            .with("targets_unchanged", self.targets_unchanged.get())
            .with("goals_reached", self.goals_reached.get())
            .with("goals_preempted", self.goals_preempted.get())
            .with("goals_cancelled", self.goals_cancelled.get())
            .with("goals_failed", self.goals_failed.get());
        let mut inputs = Status::ok("inputs", "")
            .with("positions", self.positions.get())
            .with("positions_rejected", self.positions_rejected.get())
            .with("observation_messages", self.observation_messages.get())
            .with("observations_rejected", self.observations_rejected.get());
        if self.positions_rejected.get() + self.observations_rejected.get() > 0 {
            inputs.level = Level::Warn;
            inputs.message = "some inputs were rejected".into();
        }
        vec![run, arm, inputs]
    }
}
