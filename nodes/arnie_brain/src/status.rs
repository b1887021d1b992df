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

/// `RunTask` result outcomes, one per constant of `RunTask.action` (same names). The
/// numbers are the generated constants', mapped in the node's glue
/// (`ros::state::outcome_code`), never copied here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// `FINISHED`: the task ended, or ran its `max_ticks`.
    Finished,
    /// `ABORTED`: decided by the glue (the node shutting down).
    Aborted,
    /// `PREEMPTED`: decided by the glue (a newer goal replaced the run).
    Preempted,
    /// `CANCELLED`.
    Cancelled,
    /// `REJECTED`: the instructions did not load ([`crate::BrainError`]).
    Rejected,
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
    fn statuses_map_to_outcomes() {
        assert_eq!(Status::Running.outcome(), None);
        assert_eq!(Status::Finished.outcome(), Some(Outcome::Finished));
        assert_eq!(Status::TickLimit.outcome(), Some(Outcome::Finished));
        assert_eq!(Status::Cancelled.outcome(), Some(Outcome::Cancelled));
    }
}
