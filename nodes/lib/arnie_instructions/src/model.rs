//! Checked instructions: what the loader produces and the core runs.
//!
//! Everything here is already resolved: action names are indices ([`ActionId`]), variables
//! are parsed and known to point at an existing decision and object check, integers are in
//! range. No code past the loader handles a raw string or a JSON value.
//! Units: millimetres, the legacy frame of instructions.json.

use std::fmt;

use crate::vars::VarRef;

/// Index of an action in [`Instructions::actions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ActionId(pub usize);

/// The three axes, in the order of every `[f64; 3]` and `Point3` in this crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    /// `x`
    X,
    /// `y`
    Y,
    /// `z`
    Z,
}

impl Axis {
    /// All axes, in index order.
    pub const ALL: [Axis; 3] = [Axis::X, Axis::Y, Axis::Z];

    /// Index into a point (0, 1, 2).
    pub fn index(self) -> usize {
        match self {
            Axis::X => 0,
            Axis::Y => 1,
            Axis::Z => 2,
        }
    }

    /// The key used in instructions.json.
    pub fn name(self) -> char {
        match self {
            Axis::X => 'x',
            Axis::Y => 'y',
            Axis::Z => 'z',
        }
    }
}

impl fmt::Display for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.name())
    }
}

/// A coordinate as written: a number, or a variable whose point gives the value of the
/// same axis (a variable in the `y` slot means that point's `y`).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A literal, in mm.
    Num(f64),
    /// A captured point, read at the time of use (every tick).
    Var(VarRef),
}

/// A condition on one axis (or on a confidence).
#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    /// `-1`: anything passes.
    Any,
    /// `[value, tolerance]`: passes when `value − tolerance ≤ actual ≤ value + tolerance`.
    Within {
        /// Centre (mm, or a variable).
        value: Value,
        /// Half-width, ≥ 0.
        tolerance: f64,
    },
}

/// One trajectory step: a target per axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// `x`, `y`, `z`.
    pub axes: [Value; 3],
}

/// An expected object: per-axis checks, and an optional confidence window.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectCheck {
    /// `x`, `y`, `z` checks.
    pub axes: [Check; 3],
    /// `certainty: [v, t]`; applied only to observations that carry a confidence.
    pub certainty: Option<(f64, f64)>,
}

/// Where a decision (or a reset) leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Next {
    /// The action to start.
    pub action: ActionId,
    /// `−1`: start in this same tick; `d ≥ 0`: start `d + 1` ticks later.
    pub delay: i64,
}

/// A decision of an action.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// Evaluated one tick after this step (0-based) was sent and verified.
    pub execute_after: usize,
    /// Checks on the arm position.
    pub arm: [Check; 3],
    /// Expected objects, matched in order against the observations.
    pub objects: Vec<ObjectCheck>,
    /// Where to go when every check passes.
    pub success: Next,
    /// Where to go otherwise.
    pub fail: Next,
}

/// The retry cap of an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reset {
    /// Consecutive verification retries, and consecutive self-repeats, allowed before the
    /// reset fires. `None` = unlimited (`timeout: -1`).
    pub max_retries: Option<u32>,
    /// What runs when the cap is exceeded.
    pub next: Next,
}

/// One action.
#[derive(Debug, Clone, PartialEq)]
pub struct Action {
    /// Its key in `actions`.
    pub name: String,
    /// At least one step.
    pub trajectory: Vec<Step>,
    /// `trajectoryVerification`.
    pub verify: bool,
    /// In file order; variables refer to them by index.
    pub decisions: Vec<Decision>,
    /// `None` when the file has no `reset` (retries are then unlimited).
    pub reset: Option<Reset>,
}

static EMPTY_ACTION: Action = Action {
    name: String::new(),
    trajectory: Vec::new(),
    verify: false,
    decisions: Vec::new(),
    reset: None,
};

/// A whole, checked instructions file. Only the loader builds one, so its invariants hold:
/// at least one action, every id and variable in range.
#[derive(Debug, Clone, PartialEq)]
pub struct Instructions {
    /// `initialAction`.
    pub(crate) initial_action: ActionId,
    /// Sorted by name (the order of a JSON object carries no meaning); never empty.
    pub(crate) actions: Vec<Action>,
}

impl Instructions {
    /// `initialAction`.
    pub fn initial_action(&self) -> ActionId {
        self.initial_action
    }

    /// All actions, sorted by name.
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    /// The action called `name`.
    pub fn find(&self, name: &str) -> Option<ActionId> {
        self.actions
            .binary_search_by(|a| a.name.as_str().cmp(name))
            .ok()
            .map(ActionId)
    }

    /// The action behind an id, `None` for an id that did not come from this value.
    pub fn get(&self, id: ActionId) -> Option<&Action> {
        self.actions.get(id.0)
    }

    /// The action behind an id. Ids come from this value, so they are in range; a foreign
    /// id falls back to the initial action rather than panicking.
    pub fn action(&self, id: ActionId) -> &Action {
        match (
            self.actions.get(id.0),
            self.actions.get(self.initial_action.0),
        ) {
            (Some(a), _) | (None, Some(a)) => a,
            // Unreachable: the loader never builds an empty action set.
            (None, None) => &EMPTY_ACTION,
        }
    }

    /// Name of an action, for events and logs.
    pub fn name(&self, id: ActionId) -> &str {
        &self.action(id).name
    }
}
