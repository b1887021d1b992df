//! The detour planner: a path from the arm's position to a target that keeps a
//! clearance from every remembered obstruction (a sphere, [`KnownObstruction`]) and from
//! fixed axis-aligned boxes ([`FixedBox`]: the table, the simulator's box obstacles),
//! inside the workspace box; reduced to few via-points and turned into one smooth motion.
//!
//! Units: millimetres; frame: `world`. No clock: the budget is a number of expanded
//! grid cells, so a plan is deterministic.
//!
//! # Clearance
//! Each obstacle has a distance function `f` and a clearance `c`: for a sphere `f` is the
//! distance to its centre and `c` its radius; for a box `f` is the signed distance to the
//! box (negative inside) and `c` is [`DetourConfig::box_clearance_mm`]. A point is
//! *inside the clearance* when `f < c` (touching it, `f = c`, is allowed). Both `f` are
//! convex and 1-Lipschitz, which the checks below use.
//!
//! **A start inside a clearance** (the arm was stopped at the obstruction it just
//! recorded) is allowed to leave it. The rule, per obstacle: the path may be inside the
//! clearance only while `f` strictly increases along it, i.e. the arm moves away from
//! the centre (out of the box) all the time it is inside: it never moves towards it,
//! never slides along a face, and once out never comes back in. Because `f` is convex
//! along a segment, a segment from `a` obeys the rule exactly when the one-sided
//! derivative of `f` at `a` along the segment is `> 0`, so the rule is checked exactly,
//! segment by segment. The target must be outside every clearance.
//!
//! # Method
//! 1. Refusals, in order: a non-finite start or target
//!    ([`TrajectoryError::DetourPointNotFinite`]); start or target outside the workspace
//!    ([`TrajectoryError::DetourPointOutsideWorkspace`]); a target inside a clearance or a
//!    box ([`TrajectoryError::TargetBlocked`]).
//! 2. The straight line when it is free: the plan is `[start, target]` (no via-point).
//! 3. Otherwise A* on a grid graph: a lattice of cell size
//!    [`DetourConfig::resolution_mm`] inside the workspace, 26-connected, inset from the
//!    walls by [`DetourConfig::smoothing_margin_mm`] (at most half the workspace's size)
//!    so a smooth motion has room to bulge without leaving the workspace. The start is linked
//!    to the 27 cells around its nearest cell, and the 27 cells around the target's
//!    nearest cell to the target. An edge exists when its straight segment keeps the
//!    clearances (rule above; exact for spheres, for boxes a golden-section search with a
//!    Lipschitz bound that is never optimistic). Costs are Euclidean lengths; the
//!    heuristic is the larger of the Euclidean distance to the target and the obstacle-free
//!    lattice distance (26 directions) to the target's cell less one diagonal step: a
//!    lower bound of the cost to go, consistent on every edge out of a cell.
//!    - Pass 1, with at most half the budget: every edge but those into the target keeps
//!      the clearances grown by [`DetourConfig::smoothing_margin_mm`] (room for the
//!      smooth motion).
//!    - Pass 2, only if pass 1 found nothing, with the rest of the budget: the plain
//!      clearances.
//! 4. Shortcutting: from each kept point, the farthest later path point it sees by a free
//!    segment, checked with the clearances grown by the smoothing margin, is the next
//!    via-point; the grid edge itself when none is seen.
//!
//! # Guarantees
//! - **Safe**: every segment of the returned polyline keeps every clearance (with the
//!   leaving rule for a start inside one) and lies inside the workspace; so do the
//!   set-points of [`plan_motion`] and the straight steps between consecutive ones
//!   (checked after sampling).
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
//!   returns exactly [`minjerk::plan`]`(start, target, factor)`.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};
use std::f64::consts::SQRT_2;
use std::hash::{BuildHasherDefault, Hasher};

use nalgebra::{Point3, Vector3};
use serde::{Deserialize, Serialize};

use crate::config::TrajectoryConfig;
use crate::error::{MotionBlocked, TrajectoryError};
use crate::minjerk;
use crate::obstructions::KnownObstruction;
use crate::spline::SmoothPath;

/// Smallest accepted grid resolution [mm].
pub const MIN_RESOLUTION_MM: f64 = 1.0;
/// Largest accepted grid resolution [mm].
pub const MAX_RESOLUTION_MM: f64 = 1000.0;
/// Largest accepted node-expansion budget.
pub const MAX_EXPANSIONS: usize = 10_000_000;
/// Largest grid (cells in the workspace box) a plan accepts.
pub const MAX_GRID_CELLS: u64 = 1 << 36;
/// Rounds of adding via-points before [`plan_motion`] falls back to stopping at each.
pub const SMOOTHING_ROUNDS: u32 = 4;

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

/// A planned polyline.
#[derive(Debug, Clone, PartialEq)]
pub struct DetourPath {
    /// Start, via-points, target.
    pub points: Vec<Point3<f64>>,
    /// Grid cells expanded by the search (0 when the straight line is free).
    pub expanded: usize,
}

impl DetourPath {
    /// The via-points (without start and target).
    pub fn via_points(&self) -> &[Point3<f64>] {
        let n = self.points.len();
        if n <= 2 {
            &[]
        } else {
            &self.points[1..n - 1]
        }
    }
    /// No via-point: the straight line.
    pub fn is_straight(&self) -> bool {
        self.points.len() <= 2
    }
    /// Length of the polyline [mm].
    pub fn length_mm(&self) -> f64 {
        self.points.windows(2).map(|w| (w[1] - w[0]).norm()).sum()
    }
    /// Distance from start to target [mm].
    pub fn straight_length_mm(&self) -> f64 {
        match (self.points.first(), self.points.last()) {
            (Some(a), Some(b)) => (b - a).norm(),
            _ => 0.0,
        }
    }
}

/// How [`plan_motion`] turned the polyline into set-points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Smoothing {
    /// No via-point: exactly [`minjerk::plan`].
    Straight,
    /// One [`SmoothPath`] through the via-points; `extra_rounds` rounds of midpoints were
    /// added to the polyline to keep it clear (0: none).
    Spline {
        /// Rounds of added midpoints.
        extra_rounds: u32,
    },
    /// Fallback: a straight min-jerk move per polyline segment, stopping at each
    /// via-point (still continuous in velocity and acceleration: both are zero there).
    StopAndGo,
}

/// A detour ready to run: the polyline and its set-points.
#[derive(Debug, Clone, PartialEq)]
pub struct DetourMotion {
    /// The polyline (start, via-points, target).
    pub path: DetourPath,
    /// How the set-points were made.
    pub smoothing: Smoothing,
    /// The sampled spline with [`Smoothing::Spline`] (its points are the polyline's plus
    /// any added midpoints); `None` otherwise.
    pub spline: Option<SmoothPath>,
    /// The set-points, first the start, last exactly the target, one per period.
    pub samples: Vec<Point3<f64>>,
}

// ---------------------------------------------------------------------------------------
// Geometry

#[derive(Debug, Clone, Copy)]
enum Shape {
    Sphere { centre: Point3<f64> },
    Box { min: Point3<f64>, max: Point3<f64> },
}

impl Shape {
    /// The (signed) distance function: convex and 1-Lipschitz.
    fn f(&self, p: Point3<f64>) -> f64 {
        match *self {
            Shape::Sphere { centre } => (p - centre).norm(),
            Shape::Box { min, max } => {
                let q = Vector3::from_fn(|i, _| (min[i] - p[i]).max(p[i] - max[i]));
                let outside = q.map(|v| v.max(0.0)).norm();
                let inside = q.max().min(0.0);
                outside + inside
            }
        }
    }

    /// Sign-correct one-sided derivative of `f` at `p` along `d` (only its sign is used).
    fn derivative(&self, p: Point3<f64>, d: Vector3<f64>) -> f64 {
        match *self {
            Shape::Sphere { centre } => {
                let r = p - centre;
                if r == Vector3::zeros() {
                    d.norm()
                } else {
                    r.dot(&d)
                }
            }
            Shape::Box { min, max } => {
                let inside = (0..3).all(|i| min[i] <= p[i] && p[i] <= max[i]);
                if inside {
                    // f = max over the six faces of a linear function: the derivative is
                    // the largest slope among the active (maximal) faces.
                    let m = (0..3)
                        .map(|i| (min[i] - p[i]).max(p[i] - max[i]))
                        .fold(f64::NEG_INFINITY, f64::max);
                    let mut best = f64::NEG_INFINITY;
                    for i in 0..3 {
                        if min[i] - p[i] == m {
                            best = best.max(-d[i]);
                        }
                        if p[i] - max[i] == m {
                            best = best.max(d[i]);
                        }
                    }
                    best
                } else {
                    // Outside, f is the distance to the box: gradient (p − proj) / f.
                    let proj = Vector3::from_fn(|i, _| p[i].clamp(min[i], max[i]));
                    (p.coords - proj).dot(&d)
                }
            }
        }
    }

    /// `f ≥ c` on the whole segment `a → b`: exact for a sphere; for a box a golden
    /// section on the convex `f(a + t·d)` that stops as soon as a point below `c` is
    /// found (false) or the Lipschitz bound proves the minimum is at least `c` (true):
    /// the minimiser stays in the bracket `[lo, hi]` and `f` is `|d|`-Lipschitz in `t`,
    /// so `f(x) − |d|·(hi − lo)` bounds it from below. Undecided after 80 steps (a
    /// segment touching the clearance within ~1e-15 of `|d|`): false, conservatively.
    fn segment_keeps(&self, a: Point3<f64>, b: Point3<f64>, c: f64) -> bool {
        let d = b - a;
        match *self {
            Shape::Sphere { centre } => {
                let len2 = d.norm_squared();
                let t = if len2 > 0.0 {
                    ((centre - a).dot(&d) / len2).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                (a + d * t - centre).norm() >= c
            }
            Shape::Box { .. } => {
                let (fa, fb) = (self.f(a), self.f(b));
                if fa < c || fb < c {
                    return false;
                }
                let len = d.norm();
                // Lipschitz from both ends: f(t) ≥ max(fa − t·len, fb − (1 − t)·len).
                if (fa + fb - len) / 2.0 >= c {
                    return true;
                }
                const INV_PHI: f64 = 0.618_033_988_749_894_9;
                let (mut lo, mut hi) = (0.0f64, 1.0f64);
                let mut x1 = hi - INV_PHI * (hi - lo);
                let mut x2 = lo + INV_PHI * (hi - lo);
                let mut f1 = self.f(a + d * x1);
                let mut f2 = self.f(a + d * x2);
                for _ in 0..80 {
                    let best = f1.min(f2);
                    if best < c {
                        return false;
                    }
                    if best - len * (hi - lo) >= c {
                        return true;
                    }
                    if f1 < f2 {
                        hi = x2;
                        x2 = x1;
                        f2 = f1;
                        x1 = hi - INV_PHI * (hi - lo);
                        f1 = self.f(a + d * x1);
                    } else {
                        lo = x1;
                        x1 = x2;
                        f1 = f2;
                        x2 = lo + INV_PHI * (hi - lo);
                        f2 = self.f(a + d * x2);
                    }
                }
                false
            }
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Obstacle {
    shape: Shape,
    clearance: f64,
}

/// The clearance checks of one plan.
struct Checker {
    obstacles: Vec<Obstacle>,
    workspace: Workspace,
}

impl Checker {
    fn new(scene: &Scene, config: &DetourConfig) -> Result<Self, TrajectoryError> {
        let mut obstacles = Vec::with_capacity(scene.boxes.len() + scene.obstructions.len());
        for b in &scene.boxes {
            b.check()?;
            obstacles.push(Obstacle {
                shape: Shape::Box {
                    min: b.min_mm,
                    max: b.max_mm,
                },
                clearance: config.box_clearance_mm(),
            });
        }
        for o in &scene.obstructions {
            if !o.centre_mm.iter().all(|v| v.is_finite()) {
                return Err(TrajectoryError::ObstructionNotFinite {
                    centre_mm: o.centre_mm,
                });
            }
            if !o.radius_mm.is_finite() || o.radius_mm < 0.0 {
                return Err(invalid(
                    "obstruction_radius_mm",
                    format!("obstruction {}: {} is not a number ≥ 0", o.id, o.radius_mm),
                ));
            }
            obstacles.push(Obstacle {
                shape: Shape::Sphere {
                    centre: o.centre_mm,
                },
                clearance: o.radius_mm,
            });
        }
        Ok(Self {
            obstacles,
            workspace: scene.workspace,
        })
    }

    /// `min_i (f_i(p) − c_i)`: how far `p` may move before any clearance is reached
    /// (negative inside one); +∞ with no obstacle.
    fn slack(&self, p: Point3<f64>) -> f64 {
        self.obstacles
            .iter()
            .map(|o| o.shape.f(p) - o.clearance)
            .fold(f64::INFINITY, f64::min)
    }

    /// The first obstacle whose clearance holds `p`.
    fn blocking(&self, p: Point3<f64>) -> Option<usize> {
        self.obstacles
            .iter()
            .position(|o| o.shape.f(p) < o.clearance)
    }

    /// The segment `a → b` keeps every clearance grown by `extra`, with the leaving rule
    /// for obstacles whose (grown) clearance holds `a`. `slack_a` = `self.slack(a)`.
    fn segment_ok(&self, a: Point3<f64>, b: Point3<f64>, extra: f64, slack_a: f64) -> bool {
        let d = b - a;
        let len = d.norm();
        if slack_a - extra >= len {
            return true; // 1-Lipschitz: no f can fall below its clearance on the way.
        }
        self.obstacles.iter().all(|o| {
            let c = o.clearance + extra;
            let fa = o.shape.f(a);
            if fa < c {
                o.shape.derivative(a, d) > 0.0
            } else {
                fa - c >= len || o.shape.segment_keeps(a, b, c)
            }
        })
    }

    /// Checks set-points: each inside the workspace, each step between two a free
    /// segment (plain clearances, leaving rule).
    fn verify(&self, samples: &[Point3<f64>]) -> Result<(), MotionBlocked> {
        if let Some((k, p)) = samples
            .iter()
            .enumerate()
            .find(|(_, p)| !self.workspace.contains(**p))
        {
            return Err(MotionBlocked::OutsideWorkspace {
                index: k,
                point_mm: *p,
            });
        }
        for (k, w) in samples.windows(2).enumerate() {
            if !self.segment_ok(w[0], w[1], 0.0, self.slack(w[0])) {
                return Err(MotionBlocked::EntersClearance { index: k });
            }
        }
        Ok(())
    }
}

fn describe_obstacle(scene: &Scene, config: &DetourConfig, index: usize) -> String {
    if let Some(b) = scene.boxes.get(index) {
        format!(
            "box {:?} (clearance {} mm)",
            b.name,
            config.box_clearance_mm()
        )
    } else {
        let o = &scene.obstructions[index - scene.boxes.len()];
        format!(
            "obstruction {} at ({:.1}, {:.1}, {:.1}) mm (radius {} mm)",
            o.id, o.centre_mm.x, o.centre_mm.y, o.centre_mm.z, o.radius_mm
        )
    }
}

// ---------------------------------------------------------------------------------------
// Search

/// A multiplicative hash for the packed cell keys (no new dependency for FxHash).
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (v ^ (v >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type KeyMap = HashMap<u64, u32, BuildHasherDefault<KeyHasher>>;

const SQRT_3: f64 = 1.732_050_807_568_877_2;
const NO_PARENT: u32 = u32::MAX;
const NO_NODE: u32 = u32::MAX;
/// Grids up to this many cells index their nodes in a dense array, larger ones in a map.
const DENSE_CELLS: u64 = 1 << 18;

/// Cell key → node.
enum NodeIndex {
    Dense(Vec<u32>),
    Sparse(KeyMap),
}

impl NodeIndex {
    fn new(cells: u64) -> Self {
        if cells <= DENSE_CELLS {
            Self::Dense(vec![NO_NODE; cells as usize])
        } else {
            Self::Sparse(KeyMap::default())
        }
    }
    fn get(&self, key: u64) -> Option<u32> {
        match self {
            Self::Dense(v) => Some(v[key as usize]).filter(|&i| i != NO_NODE),
            Self::Sparse(m) => m.get(&key).copied(),
        }
    }
    fn insert(&mut self, key: u64, node: u32) {
        match self {
            Self::Dense(v) => v[key as usize] = node,
            Self::Sparse(m) => {
                m.insert(key, node);
            }
        }
    }
}

struct Node {
    point: Point3<f64>,
    cell: Option<[i64; 3]>,
    g: f64,
    parent: u32,
    closed: bool,
    /// `Checker::slack` of `point`, computed when the node is expanded.
    slack: f64,
}

#[derive(PartialEq)]
struct Open {
    f: f64,
    g: f64,
    node: u32,
}

impl Eq for Open {}

impl Ord for Open {
    fn cmp(&self, other: &Self) -> Ordering {
        // Smallest f first; among equal f, the deeper (larger g) first.
        other
            .f
            .total_cmp(&self.f)
            .then(self.g.total_cmp(&other.g))
            .then(other.node.cmp(&self.node))
    }
}

impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

struct Grid {
    origin: Point3<f64>,
    resolution: f64,
    dims: [i64; 3],
    cells: u64,
}

impl Grid {
    /// The lattice `min + inset + resolution · (i, j, k)` inside the workspace, where
    /// `inset = min(inset_mm, half the workspace's size)` per axis.
    fn new(workspace: &Workspace, resolution: f64, inset_mm: f64) -> Result<Self, TrajectoryError> {
        let mut dims = [0i64; 3];
        let mut cells = 1u64;
        let mut origin = workspace.min_mm;
        for (i, dim) in dims.iter_mut().enumerate() {
            let size = workspace.max_mm[i] - workspace.min_mm[i];
            let inset = inset_mm.min(size / 2.0);
            origin[i] += inset;
            let n = ((size - 2.0 * inset) / resolution).floor() + 1.0;
            if !n.is_finite() || n > MAX_GRID_CELLS as f64 {
                cells = u64::MAX;
                break;
            }
            *dim = n as i64;
            cells = cells.saturating_mul(n as u64);
        }
        if cells > MAX_GRID_CELLS {
            return Err(invalid(
                "detour_resolution_mm",
                format!("{resolution} mm makes more than {MAX_GRID_CELLS} cells in the workspace"),
            ));
        }
        Ok(Self {
            origin,
            resolution,
            dims,
            cells,
        })
    }

    fn point(&self, c: [i64; 3]) -> Point3<f64> {
        Point3::new(
            self.origin.x + self.resolution * c[0] as f64,
            self.origin.y + self.resolution * c[1] as f64,
            self.origin.z + self.resolution * c[2] as f64,
        )
    }

    fn nearest(&self, p: Point3<f64>) -> [i64; 3] {
        let mut c = [0i64; 3];
        for (i, v) in c.iter_mut().enumerate() {
            let k = ((p[i] - self.origin[i]) / self.resolution).round();
            *v = (k.max(0.0) as i64).min(self.dims[i] - 1);
        }
        c
    }

    fn inside(&self, c: [i64; 3]) -> bool {
        (0..3).all(|i| c[i] >= 0 && c[i] < self.dims[i])
    }

    fn key(&self, c: [i64; 3]) -> u64 {
        (c[0] + self.dims[0] * (c[1] + self.dims[1] * c[2])) as u64
    }
}

const OFFSETS: [[i64; 3]; 27] = {
    let mut o = [[0i64; 3]; 27];
    let mut n = 0;
    let mut z = -1;
    while z <= 1 {
        let mut y = -1;
        while y <= 1 {
            let mut x = -1;
            while x <= 1 {
                o[n] = [x, y, z];
                n += 1;
                x += 1;
            }
            y += 1;
        }
        z += 1;
    }
    o
};

fn near(a: [i64; 3], b: [i64; 3]) -> bool {
    (0..3).all(|i| (a[i] - b[i]).abs() <= 1)
}

/// How one search ended.
enum Searched {
    /// The target's node, and the cells expanded.
    Found(u32, usize),
    /// Every reachable cell was expanded (this many): no path in this graph.
    Exhausted(usize),
    /// The budget ran out.
    OutOfBudget,
}

struct Search<'a> {
    checker: &'a Checker,
    /// Extra clearance asked of every edge but those into the target.
    extra: f64,
    grid: &'a Grid,
    target: Point3<f64>,
    target_cell: [i64; 3],
    nodes: Vec<Node>,
    index: NodeIndex,
    open: BinaryHeap<Open>,
}

impl Search<'_> {
    fn add_node(&mut self, point: Point3<f64>, cell: Option<[i64; 3]>) -> u32 {
        let i = self.nodes.len() as u32;
        self.nodes.push(Node {
            point,
            cell,
            g: f64::INFINITY,
            parent: NO_PARENT,
            closed: false,
            slack: f64::NAN,
        });
        i
    }

    fn cell_node(&mut self, cell: [i64; 3]) -> u32 {
        let key = self.grid.key(cell);
        if let Some(i) = self.index.get(key) {
            return i;
        }
        let i = self.add_node(self.grid.point(cell), Some(cell));
        self.index.insert(key, i);
        i
    }

    /// A lower bound of the cost to the target: the larger of the Euclidean distance
    /// and the lattice distance (26 directions) to the target's cell less one diagonal
    /// step (the last edge, from a cell around it to the target, is a straight segment).
    /// Consistent on every edge but those out of the start, which is expanded first.
    fn heuristic(&self, p: Point3<f64>) -> f64 {
        let euclid = (self.target - p).norm();
        let tc = self.grid.point(self.target_cell);
        let (x, y, z) = ((p.x - tc.x).abs(), (p.y - tc.y).abs(), (p.z - tc.z).abs());
        let hi = x.max(y).max(z);
        let lo = x.min(y).min(z);
        let mid = x + y + z - hi - lo;
        let lattice = (hi - mid) + SQRT_2 * (mid - lo) + SQRT_3 * lo;
        euclid.max(lattice - SQRT_3 * self.grid.resolution)
    }

    fn relax(&mut self, from: u32, to: u32, extra: f64) {
        let (a, b) = (&self.nodes[from as usize], &self.nodes[to as usize]);
        if b.closed {
            return;
        }
        let cost = (b.point - a.point).norm();
        let g = a.g + cost;
        if g >= b.g {
            return;
        }
        if !self.checker.segment_ok(a.point, b.point, extra, a.slack) {
            return;
        }
        let h = self.heuristic(b.point);
        let b = &mut self.nodes[to as usize];
        b.g = g;
        b.parent = from;
        self.open.push(Open {
            f: g + h,
            g,
            node: to,
        });
    }

    /// Expands until the target is closed, the graph is exhausted or `budget` cells are
    /// expanded.
    fn run(&mut self, start: Point3<f64>, budget: usize) -> Searched {
        let s = self.add_node(start, None);
        let t = self.add_node(self.target, None);
        self.nodes[s as usize].g = 0.0;
        self.open.push(Open {
            f: self.heuristic(start),
            g: 0.0,
            node: s,
        });
        let mut expanded = 0usize;
        while let Some(Open { node, .. }) = self.open.pop() {
            if self.nodes[node as usize].closed {
                continue;
            }
            if node == t {
                return Searched::Found(t, expanded);
            }
            if expanded == budget {
                return Searched::OutOfBudget;
            }
            let here = &mut self.nodes[node as usize];
            here.closed = true;
            here.slack = self.checker.slack(here.point);
            expanded += 1;
            let (centre, is_start) = match self.nodes[node as usize].cell {
                Some(c) => (c, false),
                None => (self.grid.nearest(start), true),
            };
            for off in OFFSETS {
                if off == [0, 0, 0] && !is_start {
                    continue;
                }
                let c = [centre[0] + off[0], centre[1] + off[1], centre[2] + off[2]];
                if !self.grid.inside(c) {
                    continue;
                }
                let next = self.cell_node(c);
                self.relax(node, next, self.extra);
            }
            if !is_start && near(centre, self.target_cell) {
                self.relax(node, t, 0.0);
            }
        }
        Searched::Exhausted(expanded)
    }

    fn path_to(&self, t: u32) -> Vec<Point3<f64>> {
        let mut out = Vec::new();
        let mut i = t;
        while i != NO_PARENT {
            out.push(self.nodes[i as usize].point);
            i = self.nodes[i as usize].parent;
        }
        out.reverse();
        out
    }
}

/// Greedy line-of-sight shortcutting (module doc, step 4).
fn shortcut(checker: &Checker, path: &[Point3<f64>], margin: f64) -> Vec<Point3<f64>> {
    let last = path.len() - 1;
    let mut out = vec![path[0]];
    let mut i = 0;
    while i < last {
        let a = path[i];
        let slack = checker.slack(a);
        let next = (i + 2..=last)
            .rev()
            .find(|&j| checker.segment_ok(a, path[j], margin, slack))
            .unwrap_or(i + 1);
        out.push(path[next]);
        i = next;
    }
    out
}

fn check_point(
    which: &'static str,
    p: Point3<f64>,
    workspace: &Workspace,
) -> Result<(), TrajectoryError> {
    if !p.iter().all(|v| v.is_finite()) {
        return Err(TrajectoryError::DetourPointNotFinite { which, point_mm: p });
    }
    for (i, axis) in AXES.iter().enumerate() {
        let (lo, hi) = (workspace.min_mm[i], workspace.max_mm[i]);
        if p[i] < lo || p[i] > hi {
            return Err(TrajectoryError::DetourPointOutsideWorkspace {
                which,
                axis: *axis,
                value_mm: p[i],
                min_mm: lo,
                max_mm: hi,
            });
        }
    }
    Ok(())
}

/// Plans the polyline from `start` to `target` (see the module doc for the method and
/// the guarantees).
///
/// # Errors
/// Refusals: [`TrajectoryError::DetourPointNotFinite`],
/// [`TrajectoryError::DetourPointOutsideWorkspace`], [`TrajectoryError::TargetBlocked`];
/// a bad scene: [`TrajectoryError::InvalidConfig`] (a box, an obstruction radius, a grid
/// too large), [`TrajectoryError::ObstructionNotFinite`]; no path:
/// [`TrajectoryError::NoDetour`]; budget: [`TrajectoryError::DetourBudgetExceeded`].
pub fn plan_path(
    scene: &Scene,
    config: &DetourConfig,
    start: Point3<f64>,
    target: Point3<f64>,
) -> Result<DetourPath, TrajectoryError> {
    let checker = Checker::new(scene, config)?;
    plan_path_with(&checker, scene, config, start, target)
}

fn plan_path_with(
    checker: &Checker,
    scene: &Scene,
    config: &DetourConfig,
    start: Point3<f64>,
    target: Point3<f64>,
) -> Result<DetourPath, TrajectoryError> {
    check_point("start", start, &scene.workspace)?;
    check_point("target", target, &scene.workspace)?;
    if let Some(i) = checker.blocking(target) {
        return Err(TrajectoryError::TargetBlocked {
            target_mm: target,
            by: describe_obstacle(scene, config, i),
        });
    }
    if checker.segment_ok(start, target, 0.0, checker.slack(start)) {
        return Ok(DetourPath {
            points: vec![start, target],
            expanded: 0,
        });
    }
    let grid = Grid::new(
        &scene.workspace,
        config.resolution_mm(),
        config.smoothing_margin_mm(),
    )?;
    let target_cell = grid.nearest(target);
    let margin = config.smoothing_margin_mm();
    let budget = config.max_expansions();
    let search = |extra: f64| Search {
        checker,
        extra,
        grid: &grid,
        target,
        target_cell,
        nodes: Vec::new(),
        index: NodeIndex::new(grid.cells),
        open: BinaryHeap::new(),
    };
    let found = |s: &Search, t: u32, expanded: usize| DetourPath {
        points: shortcut(checker, &s.path_to(t), margin),
        expanded,
    };
    // Pass 1: room for the smooth motion, with half the budget.
    let mut used = 0;
    if margin > 0.0 {
        let half = (budget / 2).max(1);
        let mut s = search(margin);
        match s.run(start, half) {
            Searched::Found(t, n) => return Ok(found(&s, t, n)),
            Searched::Exhausted(n) => used = n,
            Searched::OutOfBudget => used = half,
        }
    }
    // Pass 2: the plain clearances, with the rest.
    let mut s = search(0.0);
    match s.run(start, budget - used) {
        Searched::Found(t, n) => Ok(found(&s, t, used + n)),
        Searched::Exhausted(n) => Err(TrajectoryError::NoDetour {
            resolution_mm: grid.resolution,
            expanded: used + n,
        }),
        Searched::OutOfBudget => Err(TrajectoryError::DetourBudgetExceeded { budget }),
    }
}

/// Midpoints added to every segment.
fn densify(points: &[Point3<f64>]) -> Vec<Point3<f64>> {
    let mut out = Vec::with_capacity(points.len() * 2);
    for w in points.windows(2) {
        out.push(w[0]);
        out.push(nalgebra::center(&w[0], &w[1]));
    }
    out.push(points[points.len() - 1]);
    out
}

/// Plans the detour ([`plan_path`]) and its set-points, `factor` samples per mm.
///
/// - No via-point: exactly [`minjerk::plan`]`(start, target, factor)` ([`Smoothing::Straight`]).
/// - Otherwise one [`SmoothPath`] through the polyline ([`Smoothing::Spline`]),
///   `N = ceil(polyline length) · factor`. Its set-points are checked (each in the
///   workspace, each step between consecutive ones clear); if the spline bulges into a
///   clearance, midpoints are added to every segment (the spline then hugs the polyline
///   more tightly), up to [`SMOOTHING_ROUNDS`] rounds; then the fallback
///   [`Smoothing::StopAndGo`], one straight min-jerk move per segment.
///
/// Every returned set-point sequence has passed that check.
///
/// # Errors
/// As [`plan_path`]; [`TrajectoryError::TooManySamples`]; and
/// [`TrajectoryError::DetourMotionBlocked`] if not even the fallback passed the check.
pub fn plan_motion(
    scene: &Scene,
    config: &DetourConfig,
    start: Point3<f64>,
    target: Point3<f64>,
    factor: u32,
) -> Result<DetourMotion, TrajectoryError> {
    let checker = Checker::new(scene, config)?;
    let path = plan_path_with(&checker, scene, config, start, target)?;
    let blocked = |reason| TrajectoryError::DetourMotionBlocked { reason };
    if path.is_straight() {
        let samples = minjerk::try_plan(start, target, factor)?;
        checker.verify(&samples).map_err(blocked)?;
        return Ok(DetourMotion {
            path,
            smoothing: Smoothing::Straight,
            spline: None,
            samples,
        });
    }
    let mut points = path.points.clone();
    for round in 0..=SMOOTHING_ROUNDS {
        let spline = SmoothPath::through(&points)?;
        let samples = spline.sample(factor)?;
        if checker.verify(&samples).is_ok() {
            return Ok(DetourMotion {
                path,
                smoothing: Smoothing::Spline {
                    extra_rounds: round,
                },
                spline: Some(spline),
                samples,
            });
        }
        points = densify(&points);
    }
    let mut samples = vec![start];
    for w in path.points.windows(2) {
        let leg = minjerk::try_plan(w[0], w[1], factor)?;
        samples.extend_from_slice(&leg[1..]);
    }
    checker.verify(&samples).map_err(blocked)?;
    Ok(DetourMotion {
        path,
        smoothing: Smoothing::StopAndGo,
        spline: None,
        samples,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws() -> Workspace {
        Workspace::new(
            Point3::new(-400.0, -400.0, 0.0),
            Point3::new(400.0, 400.0, 600.0),
        )
        .unwrap()
    }

    fn sphere(id: u64, c: Point3<f64>, r: f64) -> KnownObstruction {
        KnownObstruction::permanent(id, c, r)
    }

    #[test]
    fn box_signed_distance() {
        let b = FixedBox::new(
            "b",
            Point3::new(0.0, 0.0, 0.0),
            Point3::new(10.0, 10.0, 10.0),
        )
        .unwrap();
        assert_eq!(b.signed_distance(Point3::new(5.0, 5.0, 5.0)), -5.0);
        assert_eq!(b.signed_distance(Point3::new(5.0, 5.0, 13.0)), 3.0);
        assert_eq!(b.signed_distance(Point3::new(13.0, 14.0, 5.0)), 5.0);
        assert_eq!(b.signed_distance(Point3::new(10.0, 5.0, 5.0)), 0.0);
        assert!(FixedBox::new("bad", Point3::new(1.0, 0.0, 0.0), Point3::origin()).is_err());
    }

    #[test]
    fn box_segment_check_is_tight_and_never_optimistic() {
        let s = Shape::Box {
            min: Point3::new(0.0, 0.0, 0.0),
            max: Point3::new(10.0, 10.0, 10.0),
        };
        // Passes 3 mm above the top face.
        let (a, b) = (Point3::new(-50.0, 5.0, 13.0), Point3::new(60.0, 5.0, 13.0));
        assert!(s.segment_keeps(a, b, 3.0 - 1e-9));
        assert!(!s.segment_keeps(a, b, 3.0 + 1e-9));
        // Diagonal past an edge, against a fine sampling of the exact minimum.
        let (a, b) = (Point3::new(-10.0, 20.0, 5.0), Point3::new(20.0, -10.0, 5.0));
        let exact = (0..=100_000)
            .map(|k| s.f(a + (b - a) * (f64::from(k) / 100_000.0)))
            .fold(f64::INFINITY, f64::min);
        assert!(s.segment_keeps(a, b, exact - 1e-6));
        assert!(!s.segment_keeps(a, b, exact + 1e-9));
        // Through the box.
        let (a, b) = (Point3::new(-5.0, 5.0, 5.0), Point3::new(15.0, 5.0, 5.0));
        assert!(!s.segment_keeps(a, b, 0.0));
    }

    #[test]
    fn derivative_signs() {
        let s = Shape::Sphere {
            centre: Point3::origin(),
        };
        let p = Point3::new(10.0, 0.0, 0.0);
        assert!(s.derivative(p, Vector3::new(1.0, 0.0, 0.0)) > 0.0);
        assert!(s.derivative(p, Vector3::new(-1.0, 0.0, 0.0)) < 0.0);
        assert_eq!(s.derivative(p, Vector3::new(0.0, 1.0, 0.0)), 0.0);
        assert!(s.derivative(Point3::origin(), Vector3::new(0.0, 1.0, 0.0)) > 0.0);
        let b = Shape::Box {
            min: Point3::new(0.0, 0.0, 0.0),
            max: Point3::new(10.0, 10.0, 10.0),
        };
        // Inside, nearest the top face: up is out, down is in.
        let p = Point3::new(5.0, 5.0, 9.0);
        assert!(b.derivative(p, Vector3::new(0.0, 0.0, 1.0)) > 0.0);
        assert!(b.derivative(p, Vector3::new(0.0, 0.0, -1.0)) < 0.0);
        // Outside above: up is away.
        let p = Point3::new(5.0, 5.0, 12.0);
        assert!(b.derivative(p, Vector3::new(0.0, 0.0, 1.0)) > 0.0);
        assert!(b.derivative(p, Vector3::new(1.0, 0.0, -1.0)) < 0.0);
    }

    #[test]
    fn config_checks() {
        let d = RawDetourConfig::default;
        let field = |raw| match DetourConfig::try_from(raw) {
            Err(TrajectoryError::InvalidConfig { field, .. }) => field,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            field(RawDetourConfig {
                resolution_mm: f64::NAN,
                ..d()
            }),
            "detour_resolution_mm"
        );
        assert_eq!(
            field(RawDetourConfig {
                resolution_mm: 0.0,
                ..d()
            }),
            "detour_resolution_mm"
        );
        assert_eq!(
            field(RawDetourConfig {
                max_expansions: 0,
                ..d()
            }),
            "detour_max_expansions"
        );
        assert_eq!(
            field(RawDetourConfig {
                box_clearance_mm: -1.0,
                ..d()
            }),
            "detour_box_clearance_mm"
        );
        assert_eq!(
            field(RawDetourConfig {
                smoothing_margin_mm: f64::INFINITY,
                ..d()
            }),
            "detour_smoothing_margin_mm"
        );
        assert!(DetourConfig::try_from(d()).is_ok());
        let raw: RawDetourConfig = serde_json::from_str(r#"{"resolution_mm": 10.0}"#).unwrap();
        assert_eq!(raw.max_expansions, 20_000);
        assert!(serde_json::from_str::<RawDetourConfig>(r#"{"resolution": 1}"#).is_err());
    }

    #[test]
    fn free_line_is_straight_and_golden() {
        let mut scene = Scene::new(ws());
        scene
            .obstructions
            .push(sphere(1, Point3::new(0.0, 200.0, 300.0), 50.0));
        let (s, t) = (
            Point3::new(-200.0, 0.0, 300.0),
            Point3::new(200.0, 0.0, 300.0),
        );
        let m = plan_motion(&scene, &DetourConfig::default(), s, t, 2).unwrap();
        assert_eq!(m.path.points, vec![s, t]);
        assert_eq!(m.smoothing, Smoothing::Straight);
        assert_eq!(m.samples, minjerk::plan(s, t, 2));
    }

    #[test]
    fn refusals() {
        let mut scene = Scene::new(ws());
        scene.obstructions.push(sphere(
            7,
            Point3::origin() + Vector3::new(0.0, 0.0, 300.0),
            50.0,
        ));
        scene.boxes.push(
            FixedBox::new(
                "crate",
                Point3::new(100.0, 100.0, 0.0),
                Point3::new(200.0, 200.0, 100.0),
            )
            .unwrap(),
        );
        let c = DetourConfig::default();
        let s = Point3::new(-300.0, 0.0, 300.0);
        let e = plan_path(&scene, &c, s, Point3::new(10.0, 0.0, 300.0)).unwrap_err();
        assert!(matches!(e, TrajectoryError::TargetBlocked { .. }), "{e}");
        assert!(e.to_string().contains("obstruction 7"), "{e}");
        let e = plan_path(&scene, &c, s, Point3::new(150.0, 150.0, 105.0)).unwrap_err();
        assert!(e.to_string().contains("box \"crate\""), "{e}");
        let e = plan_path(&scene, &c, s, Point3::new(0.0, 500.0, 300.0)).unwrap_err();
        assert!(
            matches!(
                e,
                TrajectoryError::DetourPointOutsideWorkspace {
                    which: "target",
                    axis: 'y',
                    ..
                }
            ),
            "{e}"
        );
        let e = plan_path(&scene, &c, Point3::new(0.0, 0.0, -1.0), s).unwrap_err();
        assert!(
            matches!(
                e,
                TrajectoryError::DetourPointOutsideWorkspace {
                    which: "start",
                    axis: 'z',
                    ..
                }
            ),
            "{e}"
        );
        let e = plan_path(&scene, &c, Point3::new(f64::NAN, 0.0, 0.0), s).unwrap_err();
        assert!(matches!(
            e,
            TrajectoryError::DetourPointNotFinite { which: "start", .. }
        ));
    }
}
