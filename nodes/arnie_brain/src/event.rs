//! What a tick reports: the target to command and the events of that tick.
//!
//! Events carry names and millimetres (the instructions' units) and have a one-line
//! `Display` for logs and for `BrainState.events`.

use std::fmt;

use nalgebra::Point3;

use crate::model::Axis;

/// Why a decision failed.
#[derive(Debug, Clone, PartialEq)]
pub enum Mismatch {
    /// The arm was outside a check's window on one axis.
    Arm {
        /// Axis checked.
        axis: Axis,
        /// Measured value, mm.
        actual_mm: f64,
        /// Window, mm, inclusive.
        lo_mm: f64,
        /// Window, mm, inclusive.
        hi_mm: f64,
    },
    /// No unused observation satisfied object check `index`.
    NoObject {
        /// Index into `state.objects`.
        index: usize,
        /// Observations offered this tick.
        seen: usize,
    },
    /// A check uses a variable that was never captured.
    MissingVariable {
        /// The variable's name.
        name: String,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::Arm {
                axis,
                actual_mm,
                lo_mm,
                hi_mm,
            } => {
                write!(f, "arm {axis} = {actual_mm} outside [{lo_mm}, {hi_mm}]")
            }
            Mismatch::NoObject { index, seen } => {
                write!(f, "no observation matches object {index} ({seen} seen)")
            }
            Mismatch::MissingVariable { name } => write!(f, "variable {name} not captured yet"),
        }
    }
}

/// Why an action was abandoned for its `reset.action`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResetCause {
    /// Trajectory verification failed more than `reset.timeout` times in a row.
    Verification,
    /// The action re-selected itself more than `reset.timeout` times in a row.
    Repeats,
    /// A step's variable stayed uncaptured more than `reset.timeout` ticks in a row.
    MissingVariable,
}

impl fmt::Display for ResetCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ResetCause::Verification => "verification retries exhausted",
            ResetCause::Repeats => "repeat limit exceeded",
            ResetCause::MissingVariable => "variable still missing",
        })
    }
}

/// Something that happened during a tick.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// An action became active (its step 0 is sent in the same tick).
    ActionStarted {
        /// Action name.
        action: String,
        /// Consecutive self-repeats so far (0 for a fresh start).
        repeats: u32,
    },
    /// An action contributed a step to this tick's target.
    StepSent {
        /// Action name.
        action: String,
        /// 0-based step index.
        step: usize,
        /// The step's resolved target, mm.
        target_mm: Point3<f64>,
        /// True when this re-sends a step after a failed verification.
        retry: bool,
    },
    /// The arm was not within tolerance of the previous step's target.
    VerificationFailed {
        /// Action name.
        action: String,
        /// Step that was not reached.
        step: usize,
        /// Arm position, mm.
        arm_mm: Point3<f64>,
        /// Target, mm.
        target_mm: Point3<f64>,
        /// Consecutive failures, this one included.
        retries: u32,
    },
    /// A decision passed; its variables were (re)captured.
    DecisionPassed {
        /// Action name.
        action: String,
        /// Decision index.
        decision: usize,
        /// Action started next.
        next: String,
        /// Its delay.
        delay: i64,
    },
    /// A decision failed.
    DecisionFailed {
        /// Action name.
        action: String,
        /// Decision index.
        decision: usize,
        /// The first check that failed.
        why: Mismatch,
        /// Action started next.
        next: String,
        /// Its delay.
        delay: i64,
    },
    /// The retry cap of an action was exceeded; its `reset.action` was scheduled instead.
    Reset {
        /// Action abandoned.
        action: String,
        /// Why.
        cause: ResetCause,
        /// `reset.action`.
        next: String,
        /// `reset.delay`.
        delay: i64,
    },
    /// A step could not be sent because a variable was not captured yet; the action holds.
    MissingVariable {
        /// Action name.
        action: String,
        /// Step index.
        step: usize,
        /// Variable name.
        variable: String,
    },
    /// The arm is not at the step's target yet, but the move there is still working around
    /// an obstacle (the trajectory server holds, plans or drives a detour or an approach):
    /// the verification waits for its result; nothing decided, nothing counted.
    WaitingForMove {
        /// Action name.
        action: String,
        /// Step waited for.
        step: usize,
        /// Arm position, mm.
        arm_mm: Point3<f64>,
        /// Target, mm.
        target_mm: Point3<f64>,
        /// Consecutive ticks waited, this one included.
        ticks: u32,
    },
    /// An action held its step because the arm position is stale: nothing verified, no
    /// decision taken, nothing counted.
    Paused {
        /// Action name.
        action: String,
    },
    /// An action sent its last step (and took its decisions) and left.
    ActionFinished {
        /// Action name.
        action: String,
    },
    /// No action produced a step: no target this tick.
    Idle,
    /// A start was refused: [`crate::MAX_ACTIONS`] actions are already active or scheduled.
    TooManyActions {
        /// Action that was not started.
        action: String,
    },
    /// No action is active or scheduled any more.
    TaskFinished,
    /// The tick limit given with [`crate::Brain::with_max_ticks`] was reached.
    TickLimitReached {
        /// Ticks run.
        ticks: u64,
    },
    /// [`crate::Brain::cancel`] was called.
    Cancelled,
}

impl Event {
    /// The action the event is about; `None` for the task-wide events (`Idle`,
    /// `TaskFinished`, `TickLimitReached`, `Cancelled`).
    pub fn action(&self) -> Option<&str> {
        match self {
            Event::ActionStarted { action, .. }
            | Event::StepSent { action, .. }
            | Event::VerificationFailed { action, .. }
            | Event::WaitingForMove { action, .. }
            | Event::DecisionPassed { action, .. }
            | Event::DecisionFailed { action, .. }
            | Event::Reset { action, .. }
            | Event::MissingVariable { action, .. }
            | Event::Paused { action }
            | Event::ActionFinished { action }
            | Event::TooManyActions { action } => Some(action),
            Event::Idle
            | Event::TaskFinished
            | Event::TickLimitReached { .. }
            | Event::Cancelled => None,
        }
    }

    /// The 0-based index the event names: the step (`StepSent`, `VerificationFailed`,
    /// `MissingVariable`) or the decision (`DecisionPassed`, `DecisionFailed`).
    pub fn index(&self) -> Option<usize> {
        match self {
            Event::StepSent { step, .. }
            | Event::VerificationFailed { step, .. }
            | Event::WaitingForMove { step, .. }
            | Event::MissingVariable { step, .. } => Some(*step),
            Event::DecisionPassed { decision, .. } | Event::DecisionFailed { decision, .. } => {
                Some(*decision)
            }
            _ => None,
        }
    }

    /// The action scheduled next and its delay (ticks; the instructions' `delay`):
    /// `DecisionPassed`, `DecisionFailed`, `Reset`.
    pub fn next(&self) -> Option<(&str, i64)> {
        match self {
            Event::DecisionPassed { next, delay, .. }
            | Event::DecisionFailed { next, delay, .. }
            | Event::Reset { next, delay, .. } => Some((next, *delay)),
            _ => None,
        }
    }
}

fn fmt_point(f: &mut fmt::Formatter<'_>, p: &Point3<f64>) -> fmt::Result {
    write!(f, "({}, {}, {})", p.x, p.y, p.z)
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::ActionStarted { action, repeats: 0 } => write!(f, "{action}: started"),
            Event::ActionStarted { action, repeats } => {
                write!(f, "{action}: started (repeat {repeats})")
            }
            Event::StepSent {
                action,
                step,
                target_mm,
                retry,
            } => {
                write!(f, "{action}: step {step} -> ")?;
                fmt_point(f, target_mm)?;
                if *retry {
                    f.write_str(" (retry)")?;
                }
                Ok(())
            }
            Event::VerificationFailed {
                action,
                step,
                arm_mm,
                target_mm,
                retries,
            } => {
                write!(f, "{action}: step {step} not reached, arm ")?;
                fmt_point(f, arm_mm)?;
                f.write_str(" target ")?;
                fmt_point(f, target_mm)?;
                write!(f, " (failure {retries})")
            }
            Event::WaitingForMove {
                action,
                step,
                arm_mm,
                target_mm,
                ticks,
            } => {
                write!(
                    f,
                    "{action}: step {step} waits for its move around an obstacle, arm "
                )?;
                fmt_point(f, arm_mm)?;
                f.write_str(" target ")?;
                fmt_point(f, target_mm)?;
                write!(f, " (tick {ticks})")
            }
            Event::DecisionPassed {
                action,
                decision,
                next,
                delay,
            } => {
                write!(
                    f,
                    "{action}.decisions[{decision}]: success -> {next} (delay {delay})"
                )
            }
            Event::DecisionFailed {
                action,
                decision,
                why,
                next,
                delay,
            } => write!(
                f,
                "{action}.decisions[{decision}]: fail ({why}) -> {next} (delay {delay})"
            ),
            Event::Reset {
                action,
                cause,
                next,
                delay,
            } => {
                write!(f, "{action}: reset ({cause}) -> {next} (delay {delay})")
            }
            Event::MissingVariable {
                action,
                step,
                variable,
            } => {
                write!(
                    f,
                    "{action}: step {step} holds, variable {variable} not captured yet"
                )
            }
            Event::Paused { action } => write!(f, "{action}: paused, arm position stale"),
            Event::ActionFinished { action } => write!(f, "{action}: finished"),
            Event::Idle => f.write_str("idle: no target"),
            Event::TooManyActions { action } => {
                write!(
                    f,
                    "{action}: not started, too many actions active or scheduled"
                )
            }
            Event::TaskFinished => f.write_str("task finished: nothing active or scheduled"),
            Event::TickLimitReached { ticks } => write!(f, "tick limit reached after {ticks}"),
            Event::Cancelled => f.write_str("cancelled"),
        }
    }
}

/// The result of one tick.
#[derive(Debug, Clone, PartialEq)]
pub struct TickOutput {
    /// Index of this tick (0 for the first).
    pub tick: u64,
    /// Sum, per axis, of the steps sent by the active actions; `None` when none sent one.
    pub target_mm: Option<Point3<f64>>,
    /// What happened, in order.
    pub events: Vec<Event>,
}
