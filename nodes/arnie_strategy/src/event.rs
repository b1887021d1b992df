//! Events of a running sequence or strategy, 1:1 with `StrategyEvent.msg`, and the
//! per-task scores of `TaskScore.msg`.

use arnie_constants::msg::strategy_event as k;
use tokio::sync::mpsc;

/// `StrategyEvent.kind`, 1:1 with its constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// `STARTED`: a sequence (task) begins; `done = 0`.
    Started,
    /// `NEXT`: step `step` is over; `done` of `total` steps are behind.
    Next,
    /// `ERROR`: step `step` failed with `message` (each failed attempt).
    Error,
    /// `STOPPED`: the sequence was stopped while `step` ran (empty between steps).
    Stopped,
    /// `FINISHED`: every step is behind.
    Finished,
    /// `TASK_SELECTED`: the runner picked `task`; `scores` says why.
    TaskSelected,
}

impl EventKind {
    /// The message's constant.
    pub fn code(self) -> u8 {
        match self {
            Self::Started => k::STARTED,
            Self::Next => k::NEXT,
            Self::Error => k::ERROR,
            Self::Stopped => k::STOPPED,
            Self::Finished => k::FINISHED,
            Self::TaskSelected => k::TASK_SELECTED,
        }
    }
}

/// `TaskScore.msg`: the selection score of one task.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskScore {
    /// The task's name.
    pub task: String,
    /// Points it scores when done.
    pub points: f64,
    /// Planned path length, or straight-line distance (m); `f64::INFINITY` when unreachable.
    pub cost_m: f64,
    /// `points / max(cost_m, min_cost_m)`; 0 when unreachable.
    pub score: f64,
    /// Failed attempts so far.
    pub failures: u32,
    /// False when no path reaches it (it is never selected).
    pub reachable: bool,
}

/// One event; the glue adds the stamp. `task` is the sequence's name (a task's name,
/// or a nested sequence's own name).
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// What happened.
    pub kind: EventKind,
    /// The sequence's name.
    pub task: String,
    /// The step's name ("" when none).
    pub step: String,
    /// Steps behind.
    pub done: u32,
    /// Steps in the sequence.
    pub total: u32,
    /// Why a step failed (`Error`), or a note.
    pub message: String,
    /// Only for `TaskSelected`: the scores of every candidate (empty when the task came
    /// from the default order). Goes to the `RunStrategy` feedback, not to the message.
    pub scores: Vec<TaskScore>,
}

/// Where events go. Sending never fails: a dropped receiver just loses them.
#[derive(Debug, Clone, Default)]
pub struct EventSink {
    tx: Option<mpsc::UnboundedSender<Event>>,
}

impl EventSink {
    /// A sink and the receiver the glue (or a test) reads.
    pub fn channel() -> (Self, mpsc::UnboundedReceiver<Event>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self { tx: Some(tx) }, rx)
    }

    /// A sink that drops everything.
    pub fn none() -> Self {
        Self { tx: None }
    }

    /// Sends one event.
    pub fn emit(&self, event: Event) {
        if let Some(tx) = &self.tx {
            // A closed receiver means nobody listens any more: not an error.
            let _ = tx.send(event);
        }
    }

    pub(crate) fn simple(
        &self,
        kind: EventKind,
        task: &str,
        step: &str,
        done: u32,
        total: u32,
        message: String,
    ) {
        self.emit(Event {
            kind,
            task: task.to_owned(),
            step: step.to_owned(),
            done,
            total,
            message,
            scores: Vec::new(),
        });
    }
}
