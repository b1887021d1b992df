//! The one error enum of the crate, and the result codes of the ROS interfaces it maps.
//!
//! Two families share [`Error`]: loading a strategy file (every variant names the field,
//! as a path such as `tasks[2].steps[0].move_m`) and running a step (the robot's
//! failures, timeouts, a failed group). Both end up as the `message` of an event or of
//! the `RunStrategy` result, so one enum keeps the mapping in one place.

use std::fmt;

/// `MoveTo.action` outcomes, 1:1 with its `uint8` constants (the trajectory server's
/// own type).
pub use arnie_constants::outcome::MoveOutcome;
/// `PlanPath.srv` error codes other than `OK`, 1:1 with its `uint16` constants.
pub use arnie_constants::outcome::PlanCode;

/// Every failure of the crate. Loading variants name the field; running variants name
/// what failed.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    // ---- loading a strategy file ----
    /// The file is not JSON of the expected shape (serde's message has line and column).
    Parse {
        /// serde's message.
        message: String,
    },
    /// A number that must be finite is NaN or infinite.
    NotFinite {
        /// The field (`tasks[1].points`).
        field: String,
    },
    /// A number is outside its allowed range.
    OutOfRange {
        /// The field.
        field: String,
        /// Its value.
        value: f64,
        /// The range it must be in (`"must be >= 0"`).
        reason: &'static str,
    },
    /// A position is not `[x, y]` or `[x, y, z]`.
    BadPosition {
        /// The field.
        field: String,
        /// How many numbers it has.
        len: usize,
    },
    /// A name that must not be empty is empty.
    EmptyName {
        /// The field.
        field: String,
    },
    /// Two tasks share a name.
    DuplicateTask {
        /// The second task's field.
        field: String,
        /// The shared name.
        name: String,
    },
    /// A packet names neither `name` nor `id`.
    PacketUnnamed {
        /// The packet's field.
        field: String,
    },
    /// A wait condition has no test (`equals`, `at_least`, `at_most` all empty).
    EmptyCondition {
        /// The condition's field.
        field: String,
    },
    /// A step names no kind, or more than one (`move_m`, `follow_m`, `send`,
    /// `wait_for`, `delay_ms`).
    StepKind {
        /// The step's field.
        field: String,
        /// How many kinds it names.
        found: usize,
    },
    /// `on_error` is not `"abort"`, `"skip"` or `{"retry": n}`.
    UnknownPolicy {
        /// The field.
        field: String,
        /// What it says.
        value: String,
    },
    /// The strategy has no task at all.
    NoTasks,

    // ---- running ----
    /// The MoveTo action ended with an outcome other than `REACHED`.
    Move {
        /// Its outcome.
        outcome: MoveOutcome,
        /// The server's message.
        message: String,
    },
    /// The planner answered with an error code.
    Plan {
        /// Its code.
        code: PlanCode,
        /// The planner's message.
        message: String,
    },
    /// No planner is running (the service is not available).
    PlannerUnavailable,
    /// The comms bridge did not send the packet (or no reply came).
    Packet {
        /// Why (the bridge's message).
        message: String,
    },
    /// Any other failure of the robot interface (server gone, bad answer).
    Robot {
        /// What failed.
        message: String,
    },
    /// A step did not finish within its timeout.
    Timeout {
        /// The step's name.
        step: String,
        /// Its timeout, ms.
        after_ms: u64,
    },
    /// A nested sequence failed at one of its steps.
    Nested {
        /// The nested sequence's name.
        sequence: String,
        /// The step that failed.
        step: String,
        /// Its error.
        message: String,
    },
    /// A parallel group ended with fewer successes than it requires.
    Group {
        /// The group's name.
        group: String,
        /// Members that succeeded.
        succeeded: usize,
        /// Successes it needs.
        required: usize,
        /// The members that failed, with their errors.
        failed: Vec<String>,
    },
    /// The task's deadline passed while it ran.
    Deadline {
        /// The task.
        task: String,
        /// Its deadline, match time, s.
        deadline_s: f64,
    },
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
    use arnie_constants::action::move_to::result as move_to;
    use arnie_constants::srv::plan_path::response as plan_path;

    #[test]
    fn codes_round_trip() {
        // Every constant of the interface files has its variant (PlanPath: all but OK).
        for (name, c) in move_to::ALL {
            assert_eq!(
                MoveOutcome::from_code(*c).map(MoveOutcome::code),
                Some(*c),
                "{name}"
            );
        }
        assert_eq!(MoveOutcome::from_code(200), None);
        for (name, c) in plan_path::ALL.iter().filter(|(_, c)| *c != plan_path::OK) {
            assert_eq!(
                PlanCode::from_code(*c).map(PlanCode::code),
                Some(*c),
                "{name}"
            );
        }
        assert_eq!(PlanCode::from_code(plan_path::OK), None);
        assert_eq!(PlanCode::from_code(200), None);
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
