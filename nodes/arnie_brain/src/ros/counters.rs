//! The node's counters, declared once with `node_glue::counters!` (a counter's name is
//! written once), and the `/diagnostics` statuses built from them (one status per
//! group: `run`, `arm`, `inputs`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

pub use node_glue::counters::CounterSet;
pub use node_glue::diagnostics::Counter;
use node_glue::diagnostics::{Level, Status};

node_glue::counters! {
    /// Every counter of the node, shared by the server, the mover and the subscriptions.
    pub struct Counters {
        /// `/brain/run_task` goals and runs.
        run {
            /// Runs started (goals that loaded, and the autostart run).
            runs_started,
            /// Goals refused while the node was not active (REJECTED, with the reason).
            inactive_refused,
            /// Goals whose task did not load (outcome REJECTED).
            runs_rejected,
            /// Of those: a task file refused by the file rules (`allowed_dirs`, regular
            /// file, `max_file_bytes`) or an inline task over `max_file_bytes`.
            tasks_refused,
            /// Runs that ended by themselves or by their tick limit (FINISHED).
            runs_finished,
            /// Runs cancelled by their client (CANCELLED).
            runs_cancelled,
            /// Runs replaced by a newer goal (PREEMPTED).
            runs_preempted,
            /// Runs stopped by the node shutting down (ABORTED).
            runs_aborted,
            /// Ticks run, all runs together.
            ticks,
            /// Ticks on which an action held because the arm position was stale.
            paused_ticks,
            /// Verifications that waited for a move still working around an obstacle
            /// (`WAITING_FOR_MOVE`).
            verification_waits,
            /// `/brain/state` messages that could not be published.
            publish_errors,
        }
        /// Arm commands (`MoveTo` goals, or the legacy `/arm/target`).
        arm {
            /// Ticks that produced a target.
            targets,
            /// Goals sent to the server (or targets published on the legacy topic).
            goals_sent,
            /// Targets not re-sent: equal to the goal still running (or to the last
            /// published).
            targets_unchanged,
            /// Goals that ended `REACHED` or `REACHED_BY_DETOUR`.
            goals_reached,
            /// Of those, goals the server reached by a detour (`REACHED_BY_DETOUR`).
            goals_reached_by_detour,
            /// Goals replaced on the server by a newer target (`PREEMPTED`).
            goals_preempted,
            /// Goals cancelled by the brain (task cancelled or stopped).
            goals_cancelled,
            /// Goals rejected, aborted, reversed, unanswered, or no server.
            goals_failed,
        }
        /// `/arm/position` and `/eyes/observations`.
        inputs {
            /// Finite arm positions received.
            positions,
            /// `/arm/position` messages with a NaN or infinite coordinate (ignored).
            positions_rejected,
            /// Observation messages received.
            observation_messages,
            /// Observation items with fewer than 3 values or a non-finite value (dropped).
            observations_rejected,
        }
        ;
        /// The last result message.
        pub last: Mutex<String>,
        /// `DETOUR` events from the MoveTo goal thread, for the next `/brain/state`.
        pub detours: Mutex<Vec<r2r::arnie_interfaces::msg::BrainEvent>>,
        /// Task and tick of the run in progress ("" when idle).
        pub running: Mutex<String>,
        /// The last tick paused.
        pub paused: AtomicBool,
    }
}

impl Counters {
    /// A goal reached by a detour: logged, and a `DETOUR` event queued for the next
    /// `/brain/state` ([`take_detours`](Self::take_detours)).
    pub fn detour_taken(&self, target: r2r::geometry_msgs::msg::Point, message: &str) {
        use r2r::arnie_interfaces::msg::BrainEvent;
        let text = format!(
            "detour: the arm reached ({:.3}, {:.3}, {:.3}) m around an obstruction ({message})",
            target.x, target.y, target.z
        );
        node_glue::log_info!("{text}");
        let event = BrainEvent {
            kind: BrainEvent::DETOUR as u8,
            has_target: true,
            target,
            detail: message.to_owned(),
            text,
            ..BrainEvent::default()
        };
        self.detours
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(event);
    }

    /// The `DETOUR` events queued since the last call.
    pub fn take_detours(&self) -> Vec<r2r::arnie_interfaces::msg::BrainEvent> {
        std::mem::take(&mut *self.detours.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Remembers the last result message.
    pub fn set_last(&self, message: String) {
        *self.last.lock().unwrap_or_else(|e| e.into_inner()) = message;
    }

    /// Sets the "running" text ("" = idle).
    pub fn set_running(&self, text: String) {
        *self.running.lock().unwrap_or_else(|e| e.into_inner()) = text;
    }

    /// The statuses for `/diagnostics`: `run` (message `idle` or `running <task>`, WARN
    /// while paused on a stale arm position, plus the `last` result), `arm`, and `inputs`
    /// (WARN once an input was rejected).
    pub fn statuses(&self) -> Vec<Status> {
        let last = self.last.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let running = self
            .running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let mut run = self.status("run").with("last", last);
        run = if running.is_empty() {
            run.message("idle")
        } else if self.paused.load(Ordering::Relaxed) {
            run.level(Level::Warn)
                .message(format!("running {running}: paused, arm position stale"))
        } else {
            run.message(format!("running {running}"))
        };
        let mut inputs = self.status("inputs");
        if self.total(&["positions_rejected", "observations_rejected"]) > 0 {
            inputs = inputs
                .level(Level::Warn)
                .message("some inputs were rejected");
        }
        vec![run, self.status("arm"), inputs]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_say_idle_running_and_paused() {
        let c = Counters::default();
        c.ticks.add(3);
        let s = c.statuses();
        let names: Vec<&str> = s.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["run", "arm", "inputs"]);
        assert_eq!(s[0].message, "idle");
        assert!(s[0]
            .values
            .contains(&("ticks".to_string(), "3".to_string())));
        assert_eq!(s[0].values.last().unwrap().0, "last");
        c.set_running("t.json (tick 4)".into());
        c.paused.store(true, Ordering::Relaxed);
        let run = &c.statuses()[0];
        assert_eq!(run.level, Level::Warn);
        assert!(run.message.contains("paused"), "{}", run.message);
        assert_eq!(c.statuses()[2].level, Level::Ok);
        c.positions_rejected.inc();
        assert_eq!(c.statuses()[2].level, Level::Warn);
    }
}
