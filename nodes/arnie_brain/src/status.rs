//! Where a run stands, and the `RunTask` outcome it maps to.

/// Where a run stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Ticking.
    Running,
    /// Nothing left active or scheduled.
    Finished,
    /// The tick limit was reached.
    TickLimit,
    /// Cancelled by the caller.
    Cancelled,
}

/// `RunTask` result outcomes, with the action's constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Outcome {
    /// `FINISHED = 0`: the task ended, or ran its `max_ticks`.
    Finished = 0,
    /// `ABORTED = 1`: decided by the glue (e.g. the arm stayed stale too long).
    Aborted = 1,
    /// `CANCELLED = 2`.
    Cancelled = 2,
    /// `REJECTED = 3`: the instructions did not load ([`crate::BrainError`]).
    Rejected = 3,
}

impl Outcome {
    /// The constant of `RunTask.action`.
    pub fn code(self) -> u8 {
        self as u8
    }
}

impl Status {
    /// The outcome to report, `None` while running.
    pub fn outcome(self) -> Option<Outcome> {
        match self {
            Status::Running => None,
            Status::Finished | Status::TickLimit => Some(Outcome::Finished),
            Status::Cancelled => Some(Outcome::Cancelled),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_match_run_task_constants() {
        assert_eq!(Status::Running.outcome(), None);
        assert_eq!(Status::Finished.outcome().map(Outcome::code), Some(0));
        assert_eq!(Status::TickLimit.outcome().map(Outcome::code), Some(0));
        assert_eq!(Outcome::Aborted.code(), 1);
        assert_eq!(Status::Cancelled.outcome().map(Outcome::code), Some(2));
        assert_eq!(Outcome::Rejected.code(), 3);
    }
}
