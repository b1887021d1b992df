//! The detour planner: a path from the arm's position to a target that keeps a
//! clearance from the fixed axis-aligned boxes ([`FixedBox`]: the table, from the
//! parameters) and from the regions the arm learned by touching ([`KnownObstruction`]),
//! inside the workspace box; reduced to few via-points and turned into one smooth motion.
//!
//! Units: millimetres; frame: `world`. No clock: the budget is a number of expanded
//! grid cells, so a plan is deterministic.
//!
//! # Clearance
//! Each obstacle has a distance function `f` and a clearance `c`: for a learned region
//! `f` is the distance to its centre and `c` its radius; for a box `f` is the signed
//! distance to the box (negative inside) and `c` is [`DetourConfig::box_clearance_mm`].
//! A point is *inside the clearance* when `f < c` (touching it, `f = c`, is allowed).
//! Both `f` are convex and 1-Lipschitz, which the checks below use.
//!
//! **A start inside a clearance** (the arm was stopped at the region it just learned) is
//! allowed to leave it. The rule, per obstacle: the path may be inside the clearance only
//! while `f` strictly increases along it, i.e. the arm moves away from the centre (out
//! of the box) all the time it is inside: it never moves towards it, never slides along
//! a face, and once out never comes back in. Because `f` is convex along a segment, a
//! segment from `a` obeys the rule exactly when the one-sided derivative of `f` at `a`
//! along the segment is `> 0`, so the rule is checked exactly, segment by segment.
//!
//! # Fixed and learned
//! A **fixed** box is a fact: a target inside its clearance is refused
//! ([`TrajectoryError::TargetBlocked`]) and no path ever enters it. A **learned** region
//! is a guess from one or a few stops: it never refuses a target by itself.
//! - A target inside learned regions is **approached from another side**: from a
//!   staging point just outside them on one of the 26 sides around the target (the faces,
//!   edges and corners of a cube; not within 60° of the way the arm was moving when it
//!   was stopped there, nor outside the workspace, nor in a fixed box's clearance), a
//!   straight move goes in; the way in keeps every other clearance. One search finds the
//!   shortest way through any of the staging points. None: [`TrajectoryError::NoApproach`],
//!   naming the regions and every side with why it failed.
//! - With [`PlanOptions::probe`] (a goal from the start, not a re-plan after a stop), when
//!   there is no way around the learned regions or in, the path goes through them
//!   ([`DetourPath::probe`] names them): fixed boxes and the workspace still hold. The move
//!   tests the guess; a pass clears it, a stop learns it again.
//!
//! # Method
//! 1. Refusals, in order: a non-finite start or target
//!    ([`TrajectoryError::DetourPointNotFinite`]); start or target outside the workspace
//!    ([`TrajectoryError::DetourPointOutsideWorkspace`]); a target inside a fixed box's
//!    clearance ([`TrajectoryError::TargetBlocked`]).
//! 2. The straight line when it is free: the plan is `[start, target]` (no via-point).
//! 3. Otherwise A* on a grid graph: a lattice of cell size
//!    [`DetourConfig::resolution_mm`] inside the workspace, 26-connected, inset from the
//!    walls by [`DetourConfig::smoothing_margin_mm`] (at most half the workspace's size)
//!    so a smooth motion has room to bulge without leaving the workspace. The start is linked
//!    to the 27 cells around its nearest cell, and the 27 cells around the target's
//!    nearest cell to the target (or, with an approach, those around each staging point
//!    to it, and each staging point to the target). An edge exists when its straight
//!    segment keeps the clearances (rule above; exact for spheres, for boxes a
//!    golden-section search with a Lipschitz bound that is never optimistic). Costs are
//!    Euclidean lengths; the heuristic is the larger of the Euclidean distance to the
//!    target and the obstacle-free lattice distance (26 directions) to the target's cell
//!    less one diagonal step (with an approach: the Euclidean distance only): a lower
//!    bound of the cost to go, consistent on every edge out of a cell.
//!    - Pass 1, with at most half the budget: every edge but those into the target (or a
//!      staging point) keeps the clearances grown by
//!      [`DetourConfig::smoothing_margin_mm`] (room for the smooth motion).
//!    - Pass 2, only if pass 1 found nothing, with the rest of the budget: the plain
//!      clearances.
//! 4. Shortcutting: from each kept point, the farthest later path point it sees by a free
//!    segment, checked with the clearances grown by the smoothing margin, is the next
//!    via-point; the grid edge itself when none is seen (up to the staging point).
//!
//! # Guarantees
//! - **Safe**: every segment of the returned polyline keeps every fixed clearance and lies
//!   inside the workspace, and keeps every learned clearance (with the leaving rule for
//!   a start inside one) but the regions an approach enters on its last segment and those
//!   a probe names; so do the set-points of [`plan_motion`] and the straight steps between
//!   consecutive ones (checked after sampling).
//! - **Complete at the resolution**: pass 2 searches the grid graph of step 3 with the
//!   plain clearances; if a path exists in it, it is found, given the budget.
//!   [`TrajectoryError::NoDetour`] means that graph was exhausted: no path at this
//!   resolution (a finer grid might find a gap narrower than a cell).
//!   [`TrajectoryError::DetourBudgetExceeded`] means the budget ran out first: nothing
//!   is known.
//! - **Optimal at the resolution**: the A* path is a shortest path of its pass's graph
//!   (pass 1: among those keeping the margin; otherwise pass 2: among all); the
//!   shortcut polyline is no longer than it (triangle inequality).
//! - **Straight when free**: nothing in the way → `[start, target]`, and [`plan_motion`]
//!   returns exactly [`crate::minjerk::plan`]`(start, target, factor)`.

use nalgebra::Point3;
use serde::{Deserialize, Serialize};

use crate::config::TrajectoryConfig;
use crate::error::TrajectoryError;
use crate::obstructions::KnownObstruction;

mod approach;
mod geometry;
mod plan;
mod search;
#[cfg(test)]
mod tests;

pub use approach::MAX_APPROACH_MM;
use geometry::Shape;
pub use plan::SMOOTHING_ROUNDS;

/// Smallest accepted grid resolution [mm].
pub const MIN_RESOLUTION_MM: f64 = 1.0;
/// Largest accepted grid resolution [mm].
pub const MAX_RESOLUTION_MM: f64 = 1000.0;
/// Largest accepted node-expansion budget.
pub const MAX_EXPANSIONS: usize = 10_000_000;
/// Largest grid (cells in the workspace box) a plan accepts.
pub const MAX_GRID_CELLS: u64 = 1 << 36;

const AXES: [char; 3] = ['x', 'y', 'z'];

/// Planner parameters as written. Every field has a default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RawDetourConfig {
    /// Grid cell size [mm]. Default 20.
    pub resolution_mm: f64,
    /// Largest number of grid cells the search may expand, both passes together (the
    /// first, with the smoothing margin, gets at most half). Default 20 000.
    pub max_expansions: usize,
    /// Clearance kept from every fixed box [mm] (≥ 0). Default 10.
    pub box_clearance_mm: f64,
    /// Room for the smooth motion to bulge off the polyline [mm] (≥ 0): extra clearance
    /// asked of the first search and of shortcut segments, and the grid's inset from the
    /// workspace walls. 0 turns the first search off. Default 10.
    pub smoothing_margin_mm: f64,
}

impl Default for RawDetourConfig {
    fn default() -> Self {
        Self {
            resolution_mm: 20.0,
            max_expansions: 20_000,
            box_clearance_mm: 10.0,
            smoothing_margin_mm: 10.0,
        }
    }
}

/// Checked planner parameters: built by [`TryFrom<RawDetourConfig>`] or [`Default`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DetourConfig {
    raw: RawDetourConfig,
}

fn invalid(field: &'static str, reason: String) -> TrajectoryError {
    TrajectoryError::InvalidConfig { field, reason }
}

fn check_range(field: &'static str, v: f64, lo: f64, hi: f64) -> Result<(), TrajectoryError> {
    if v.is_finite() && (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(invalid(
            field,
            format!("{v} is not a number in [{lo}, {hi}]"),
        ))
    }
}

impl TryFrom<RawDetourConfig> for DetourConfig {
    type Error = TrajectoryError;

    /// # Errors
    /// [`TrajectoryError::InvalidConfig`] naming the first bad field (`detour_` + the
    /// field name).
    fn try_from(raw: RawDetourConfig) -> Result<Self, Self::Error> {
        check_range(
            "detour_resolution_mm",
            raw.resolution_mm,
            MIN_RESOLUTION_MM,
            MAX_RESOLUTION_MM,
        )?;
        if raw.max_expansions == 0 || raw.max_expansions > MAX_EXPANSIONS {
            return Err(invalid(
                "detour_max_expansions",
                format!("{} is not in 1..={MAX_EXPANSIONS}", raw.max_expansions),
            ));
        }
        check_range(
            "detour_box_clearance_mm",
            raw.box_clearance_mm,
            0.0,
            10_000.0,
        )?;
        check_range(
            "detour_smoothing_margin_mm",
            raw.smoothing_margin_mm,
            0.0,
            1000.0,
        )?;
        Ok(Self { raw })
    }
}

impl DetourConfig {
    /// Grid cell size [mm].
    pub fn resolution_mm(&self) -> f64 {
        self.raw.resolution_mm
    }
    /// Node-expansion budget.
    pub fn max_expansions(&self) -> usize {
        self.raw.max_expansions
    }
    /// Clearance from fixed boxes [mm].
    pub fn box_clearance_mm(&self) -> f64 {
        self.raw.box_clearance_mm
    }
    /// Extra clearance of shortcut segments [mm].
    pub fn smoothing_margin_mm(&self) -> f64 {
        self.raw.smoothing_margin_mm
    }
}

impl From<&DetourConfig> for RawDetourConfig {
    fn from(c: &DetourConfig) -> Self {
        c.raw.clone()
    }
}

/// The box the arm must stay in (bounds inclusive), world frame [mm].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Workspace {
    min_mm: Point3<f64>,
    max_mm: Point3<f64>,
}

impl Workspace {
    /// A checked workspace.
    ///
    /// # Errors
    /// [`TrajectoryError::InvalidConfig`] (`workspace_min_mm` / `workspace_max_mm`) for a
    /// non-finite corner or `max < min` on some axis.
    pub fn new(min_mm: Point3<f64>, max_mm: Point3<f64>) -> Result<Self, TrajectoryError> {
        for i in 0..3 {
            let (lo, hi) = (min_mm[i], max_mm[i]);
            if !lo.is_finite() {
                return Err(invalid(
                    "workspace_min_mm",
                    format!("axis {i}: {lo} is not finite"),
                ));
            }
            if !hi.is_finite() || hi < lo {
                return Err(invalid(
                    "workspace_max_mm",
                    format!("axis {i}: {hi} is not a finite number ≥ workspace_min_mm {lo}"),
                ));
            }
        }
        Ok(Self { min_mm, max_mm })
    }
    /// Lower corner [mm].
    pub fn min_mm(&self) -> Point3<f64> {
        self.min_mm
    }
    /// Upper corner [mm].
    pub fn max_mm(&self) -> Point3<f64> {
        self.max_mm
    }
    /// `p` is inside (bounds inclusive).
    pub fn contains(&self, p: Point3<f64>) -> bool {
        (0..3).all(|i| self.min_mm[i] <= p[i] && p[i] <= self.max_mm[i])
    }
}

impl From<&TrajectoryConfig> for Workspace {
    /// The trajectory server's workspace (already checked).
    fn from(c: &TrajectoryConfig) -> Self {
        Self {
            min_mm: Point3::from(c.workspace_min_mm()),
            max_mm: Point3::from(c.workspace_max_mm()),
        }
    }
}

/// A fixed axis-aligned box obstacle, world frame [mm].
#[derive(Debug, Clone, PartialEq)]
pub struct FixedBox {
    /// Its name, for messages (e.g. `"table"`).
    pub name: String,
    /// Lower corner [mm].
    pub min_mm: Point3<f64>,
    /// Upper corner [mm] (≥ `min_mm` on every axis).
    pub max_mm: Point3<f64>,
}

impl FixedBox {
    /// A checked box.
    ///
    /// # Errors
    /// As [`check`](Self::check).
    pub fn new(
        name: impl Into<String>,
        min_mm: Point3<f64>,
        max_mm: Point3<f64>,
    ) -> Result<Self, TrajectoryError> {
        let b = Self {
            name: name.into(),
            min_mm,
            max_mm,
        };
        b.check()?;
        Ok(b)
    }

    /// The corners are finite and `min ≤ max` on every axis.
    ///
    /// # Errors
    /// [`TrajectoryError::InvalidConfig`] with field `fixed_obstacles`.
    pub fn check(&self) -> Result<(), TrajectoryError> {
        for (i, axis) in AXES.iter().enumerate() {
            let (lo, hi) = (self.min_mm[i], self.max_mm[i]);
            if !lo.is_finite() || !hi.is_finite() || hi < lo {
                return Err(invalid(
                    "fixed_obstacles",
                    format!(
                        "box {:?}, axis {axis}: [{lo}, {hi}] is not a finite interval",
                        self.name
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Signed distance from `p` to the box [mm]: negative inside.
    pub fn signed_distance(&self, p: Point3<f64>) -> f64 {
        Shape::Box {
            min: self.min_mm,
            max: self.max_mm,
        }
        .f(p)
    }
}

/// What a detour is planned in: the workspace, the fixed boxes and the remembered
/// obstructions.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    /// The box the arm stays in.
    pub workspace: Workspace,
    /// Fixed obstacles (kept at [`DetourConfig::box_clearance_mm`]).
    pub boxes: Vec<FixedBox>,
    /// Remembered obstructions (kept at their own radius).
    pub obstructions: Vec<KnownObstruction>,
}

impl Scene {
    /// A scene with nothing in it but the workspace.
    pub fn new(workspace: Workspace) -> Self {
        Self {
            workspace,
            boxes: Vec::new(),
            obstructions: Vec::new(),
        }
    }
}

pub use plan::{
    plan_motion, plan_motion_with, plan_path, plan_path_with, side_name, Approach, DetourMotion,
    DetourPath, PlanOptions, Smoothing,
};
