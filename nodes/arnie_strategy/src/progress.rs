//! Where a run stands, from its events: the current task, the step in flight, and the
//! last score table. The node publishes this as `RunStrategy` feedback.
//!
//! Events name a step only once it is over (`Next(done, step)`), so [`Progress`] knows
//! each task's step names in order (`"approach"` first, as [`crate::Driver::sequence`]
//! builds it) and reports the step at index `done`: the one now running.

use std::collections::HashMap;

use crate::event::{Event, EventKind, TaskScore};
use crate::task::Strategy;

/// The name [`crate::Driver::sequence`] gives a task's first step.
pub const APPROACH_STEP: &str = "approach";

/// Current task and step of a run, and the scores of its last scored pick.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Progress {
    steps: HashMap<String, Vec<String>>,
    /// The task running (or just selected); empty between tasks and after the end.
    pub task: String,
    /// The step running; empty before the first step and between tasks.
    pub step: String,
    /// The scores of the last scored pick (empty while picks follow the default order
    /// and nothing went wrong yet). Kept until the next scored pick.
    pub scores: Vec<TaskScore>,
}

impl Progress {
    /// Learns the step names of every task and of the end-of-match task.
    pub fn new(strategy: &Strategy) -> Self {
        let mut steps = HashMap::new();
        for t in &strategy.tasks {
            let names = std::iter::once(APPROACH_STEP.to_owned())
                .chain(t.steps.iter().map(|s| s.name.clone()));
            steps.insert(t.name.clone(), names.collect());
        }
        if let Some(e) = &strategy.end_of_match {
            steps.insert(
                e.name.clone(),
                e.steps.iter().map(|s| s.name.clone()).collect(),
            );
        }
        Self {
            steps,
            ..Self::default()
        }
    }

    /// Updates from one event (see [`crate::runner`] for their order).
    pub fn apply(&mut self, ev: &Event) {
        match ev.kind {
            EventKind::TaskSelected => {
                self.task = ev.task.clone();
                self.step.clear();
                if !ev.scores.is_empty() {
                    self.scores = ev.scores.clone();
                }
            }
            EventKind::Started | EventKind::Next => {
                if let Some(names) = self.steps.get(&ev.task) {
                    self.task = ev.task.clone();
                    self.step = names.get(ev.done as usize).cloned().unwrap_or_default();
                }
            }
            EventKind::Finished | EventKind::Stopped => {
                if ev.task.is_empty() || ev.task == self.task {
                    self.task.clear();
                    self.step.clear();
                }
            }
            // A retried step goes on; a failed task is followed by the next selection.
            EventKind::Error => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(kind: EventKind, task: &str, step: &str, done: u32) -> Event {
        Event {
            kind,
            task: task.into(),
            step: step.into(),
            done,
            total: 3,
            message: String::new(),
            scores: Vec::new(),
        }
    }

    fn strategy() -> Strategy {
        Strategy::from_json(
            r#"{"tasks": [{"name": "a", "points": 1, "approach_m": [1, 0],
                           "steps": [{"name": "grab", "delay_ms": 1}, {"move_m": [1, 1]}]}],
                "end_of_match": {"name": "end", "steps": [{"name": "wave", "delay_ms": 1}]}}"#,
        )
        .unwrap()
    }

    #[test]
    fn the_step_in_flight_is_the_one_after_the_last_done() {
        let mut p = Progress::new(&strategy());
        p.apply(&ev(EventKind::Started, "", "", 0));
        assert_eq!((p.task.as_str(), p.step.as_str()), ("", ""));
        p.apply(&ev(EventKind::TaskSelected, "a", "", 0));
        assert_eq!((p.task.as_str(), p.step.as_str()), ("a", ""));
        p.apply(&ev(EventKind::Started, "a", "", 0));
        assert_eq!(p.step, "approach");
        p.apply(&ev(EventKind::Next, "a", "approach", 1));
        assert_eq!(p.step, "grab");
        p.apply(&ev(EventKind::Error, "a", "grab", 1));
        assert_eq!(p.step, "grab", "a retry keeps the step");
        p.apply(&ev(EventKind::Next, "a", "grab", 2));
        assert_eq!(p.step, "1 move");
        p.apply(&ev(EventKind::Finished, "a", "", 3));
        assert_eq!((p.task.as_str(), p.step.as_str()), ("", ""));
        p.apply(&ev(EventKind::Started, "end", "", 0));
        assert_eq!((p.task.as_str(), p.step.as_str()), ("end", "wave"));
    }

    #[test]
    fn scores_are_kept_until_the_next_scored_pick() {
        let mut p = Progress::new(&strategy());
        let mut sel = ev(EventKind::TaskSelected, "a", "", 0);
        sel.scores = vec![crate::select::score("a", 1.0, Some(2.0), 0, 0.01)];
        p.apply(&sel);
        assert_eq!(p.scores.len(), 1);
        p.apply(&ev(EventKind::TaskSelected, "a", "", 0));
        assert_eq!(p.scores.len(), 1, "a default pick keeps the last table");
    }

    #[test]
    fn unknown_tasks_do_not_move_the_step() {
        let mut p = Progress::new(&strategy());
        p.apply(&ev(EventKind::Started, "a", "", 0));
        p.apply(&ev(EventKind::Next, "nested", "x", 1));
        assert_eq!((p.task.as_str(), p.step.as_str()), ("a", "approach"));
    }
}
