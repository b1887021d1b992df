//! A copy of the brain's state, shaped like `arnie_interfaces/BrainState` (mm, not metres:
//! the glue scales the target and the variables' x, y, z to metres, `ros::state`).

use nalgebra::Point3;

use crate::status::Status;

/// One active action (`ActiveAction.msg`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActiveSnapshot {
    /// Action name.
    pub name: String,
    /// Index of the step sent last (0-based).
    pub step: u32,
    /// Steps in its trajectory.
    pub steps: u32,
    /// Consecutive failures of the current step (verification or missing variable).
    pub retries: u32,
    /// Consecutive self-repeats that led to this run.
    pub repeats: u32,
}

impl ActiveSnapshot {
    /// The value for `ActiveAction.retries`: the larger of the two counters, each capped
    /// by `reset.timeout`.
    pub fn counted(&self) -> u32 {
        self.retries.max(self.repeats)
    }
}

/// An action waiting for its start tick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduledSnapshot {
    /// Action name.
    pub name: String,
    /// Tick on which it starts.
    pub start_tick: u64,
}

/// A captured variable (`Variable.msg`).
#[derive(Debug, Clone, PartialEq)]
pub struct VariableSnapshot {
    /// `start,0,0`.
    pub name: String,
    /// `x, y, z` in mm, then the confidence when the observation had one.
    pub values: Vec<f64>,
}

/// The brain's state after the last tick (`BrainState.msg`).
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// Ticks run so far (index of the next tick).
    pub tick: u64,
    /// Running, finished, …
    pub status: Status,
    /// Active actions, in activation order.
    pub active: Vec<ActiveSnapshot>,
    /// Actions scheduled for a later tick.
    pub scheduled: Vec<ScheduledSnapshot>,
    /// Captured variables, in a stable order.
    pub variables: Vec<VariableSnapshot>,
    /// Text of the last decision taken, e.g.
    /// `lightSelf.decisions[0]: success -> lightOther (delay -1)`.
    pub last_decision: String,
    /// True if an action held during the last tick because the arm position was stale.
    pub paused: bool,
    /// Target commanded by the last tick, mm.
    pub target_mm: Option<Point3<f64>>,
}
