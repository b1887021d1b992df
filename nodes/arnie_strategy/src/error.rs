//! The one error enum of the crate, and the result codes of the ROS interfaces it maps.
//!
//! Two families share [`Error`]: loading a strategy file (every variant names the field,
//! as a path such as `tasks[2].steps[0].move_m`) and running a step (the robot's
//! failures, timeouts, a failed group). Both end up as the `message` of an event or of
//! the `RunStrategy` result, so one enum keeps the mapping in one place.

use std::fmt;

/// `MoveTo.action` outcomes, 1:1 with its `uint8` constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveOutcome {
    /// `REACHED = 0`
    Reached,
    /// `REVERSED_TO_START = 1`: an obstacle stopped the arm; it went back. A blocked path.
    ReversedToStart,
    /// `ABORTED_HELP_NEEDED = 2`
    AbortedHelpNeeded,
    /// `CANCELLED = 3`
    Cancelled,
    /// `REJECTED = 4`
    Rejected,
    /// `PREEMPTED = 5`
    Preempted,
}

impl MoveOutcome {
    /// The action's constant.
    pub fn code(self) -> u8 {
        match self {
            Self::Reached => 0,
            Self::ReversedToStart => 1,
            Self::AbortedHelpNeeded => 2,
            Self::Cancelled => 3,
            Self::Rejected => 4,
            Self::Preempted => 5,
        }
    }

    /// From the action's constant; `None` for an unknown code.
    pub fn from_code(code: u8) -> Option<Self> {
        Some(match code {
            0 => Self::Reached,
            1 => Self::ReversedToStart,
            2 => Self::AbortedHelpNeeded,
            3 => Self::Cancelled,
            4 => Self::Rejected,
            5 => Self::Preempted,
            _ => return None,
        })
    }
}

/// `PlanPath.srv` error codes other than `OK`, 1:1 with its `uint16` constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanCode {
    /// `NO_MAP = 1`: the planner runs but has no map; treated like "no planner".
    NoMap,
    /// `START_OUTSIDE = 2`
    StartOutside,
    /// `GOAL_OUTSIDE = 3`
    GoalOutside,
    /// `START_BLOCKED = 4`
    StartBlocked,
    /// `GOAL_BLOCKED = 5`
    GoalBlocked,
    /// `NO_PATH = 6`
    NoPath,
    /// `INVALID_REQUEST = 7`
    InvalidRequest,
}

impl PlanCode {
    /// The service's constant.
    pub fn code(self) -> u16 {
        match self {
            Self::NoMap => 1,
            Self::StartOutside => 2,
            Self::GoalOutside => 3,
            Self::StartBlocked => 4,
            Self::GoalBlocked => 5,
            Self::NoPath => 6,
            Self::InvalidRequest => 7,
        }
    }

    /// From the service's constant; `None` for `OK` (0) and unknown codes.
    pub fn from_code(code: u16) -> Option<Self> {
        Some(match code {
            1 => Self::NoMap,
            2 => Self::StartOutside,
            3 => Self::GoalOutside,
            4 => Self::StartBlocked,
            5 => Self::GoalBlocked,
            6 => Self::NoPath,
            7 => Self::InvalidRequest,
            _ => return None,
        })
    }
}

/// Every failure of the crate. Loading variants name the field; running variants name
/// what failed.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    // ---- loading a strategy file ----
    /// The file is not JSON of the expected shape (serde's message has line and column).
    Parse { message: String },
    /// A number that must be finite is NaN or infinite.
    NotFinite { field: String },
    /// A number is outside its allowed range.
    OutOfRange {
        field: String,
        value: f64,
        reason: &'static str,
    },
    /// A position is not `[x, y]` or `[x, y, z]`.
    BadPosition { field: String, len: usize },
    /// A name that must not be empty is empty.
    EmptyName { field: String },
    /// Two tasks share a name.
    DuplicateTask { field: String, name: String },
    /// A packet names neither `name` nor `id`.
    PacketUnnamed { field: String },
    /// A wait condition has no test (`equals`, `at_least`, `at_most` all empty).
    EmptyCondition { field: String },
    /// A step names no kind, or more than one (`move_m`, `follow_m`, `send`,
    /// `wait_for`, `delay_ms`).
    StepKind { field: String, found: usize },
    /// `on_error` is not `"abort"`, `"skip"` or `{"retry": n}`.
    UnknownPolicy { field: String, value: String },
    /// The strategy has no task at all.
    NoTasks,

    // ---- running ----
    /// The MoveTo action ended with an outcome other than `REACHED`.
    Move {
        outcome: MoveOutcome,
        message: String,
    },
    /// The planner answered with an error code.
    Plan { code: PlanCode, message: String },
    /// No planner is running (the service is not available).
    PlannerUnavailable,
    /// The comms bridge did not send the packet (or no reply came).
    Packet { message: String },
    /// Any other failure of the robot interface (server gone, bad answer).
    Robot { message: String },
    /// A step did not finish within its timeout.
    Timeout { step: String, after_ms: u64 },
    /// A nested sequence failed at one of its steps.
    Nested {
        sequence: String,
        step: String,
        message: String,
    },
    /// A parallel group ended with fewer successes than it requires.
    Group {
        group: String,
        succeeded: usize,
        required: usize,
        failed: Vec<String>,
    },
    /// The task's deadline passed while it ran.
    Deadline { task: String, deadline_s: f64 },
}

impl Error {
    /// True for a failure that means "the way is blocked": a move that had to reverse or
    /// give up, or a planner that found no way. The runner re-scores after any failure;
    /// this only tells the glue what to log.
    pub fn is_blocked_path(&self) -> bool {
        matches!(
            self,
            Error::Move {
                outcome: MoveOutcome::ReversedToStart | MoveOutcome::AbortedHelpNeeded,
                ..
            } | Error::Plan {
                code: PlanCode::NoPath | PlanCode::GoalBlocked,
                ..
            }
        )
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Parse { message } => write!(f, "strategy file: {message}"),
            Error::NotFinite { field } => write!(f, "{field}: must be a finite number"),
            Error::OutOfRange { field, value, reason } => write!(f, "{field}: {value} {reason}"),
            Error::BadPosition { field, len } => {
                write!(f, "{field}: a position is [x, y] or [x, y, z] in metres, got {len} values")
            }
            Error::EmptyName { field } => write!(f, "{field}: must not be empty"),
            Error::DuplicateTask { field, name } => write!(f, "{field}: task name {name:?} is used twice"),
            Error::PacketUnnamed { field } => write!(f, "{field}: a packet needs a name or an id"),
            Error::EmptyCondition { field } => {
                write!(f, "{field}: a condition needs at least one of equals, at_least, at_most")
            }
            Error::StepKind { field, found } => write!(
                f,
                "{field}: a step has exactly one of move_m, follow_m, send, wait_for, delay_ms; found {found}"
            ),
            Error::UnknownPolicy { field, value } => {
                write!(f, "{field}: {value:?} is not \"abort\", \"skip\" or {{\"retry\": n}}")
            }
            Error::NoTasks => write!(f, "tasks: the strategy has no task"),
            Error::Move { outcome, message } => write!(f, "move ended {outcome:?}: {message}"),
            Error::Plan { code, message } => write!(f, "planner said {code:?}: {message}"),
            Error::PlannerUnavailable => write!(f, "no planner is running"),
            Error::Packet { message } => write!(f, "packet not sent: {message}"),
            Error::Robot { message } => write!(f, "robot: {message}"),
            Error::Timeout { step, after_ms } => write!(f, "step {step:?} timed out after {after_ms} ms"),
            Error::Nested { sequence, step, message } => {
                write!(f, "sequence {sequence:?} failed at {step:?}: {message}")
            }
            Error::Group { group, succeeded, required, failed } => write!(
                f,
                "group {group:?}: {succeeded} succeeded, {required} required; failed: {}",
                failed.join(", ")
            ),
            Error::Deadline { task, deadline_s } => write!(f, "task {task:?} missed its deadline at {deadline_s} s"),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for c in 0..=5u8 {
            assert_eq!(MoveOutcome::from_code(c).map(MoveOutcome::code), Some(c));
        }
        assert_eq!(MoveOutcome::from_code(6), None);
        for c in 1..=7u16 {
            assert_eq!(PlanCode::from_code(c).map(PlanCode::code), Some(c));
        }
        assert_eq!(PlanCode::from_code(0), None);
        assert_eq!(PlanCode::from_code(8), None);
    }

    #[test]
    fn blocked_path_is_recognised() {
        let m = |outcome| Error::Move {
            outcome,
            message: String::new(),
        };
        assert!(m(MoveOutcome::ReversedToStart).is_blocked_path());
        assert!(!m(MoveOutcome::Rejected).is_blocked_path());
        assert!(Error::Plan {
            code: PlanCode::NoPath,
            message: String::new()
        }
        .is_blocked_path());
        assert!(!Error::PlannerUnavailable.is_blocked_path());
    }
}
