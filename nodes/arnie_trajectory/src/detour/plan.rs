//! Planning a path (module doc of [`super`], "Method"): around everything; into a target
//! inside learned regions from another side; a probe through learned regions; then the
//! shortcut and the set-points.

use nalgebra::{Point3, Vector3};

use super::approach::{stagings, Stagings};
use super::geometry::{describe_learned, describe_obstacle, Checker, Learned, Source};
use super::search::{Grid, Search, Searched};
use super::{DetourConfig, Scene, Workspace, AXES};
use crate::error::TrajectoryError;
use crate::minjerk;
use crate::spline::SmoothPath;

/// Rounds of adding via-points before [`plan_motion`] falls back to stopping at each.
pub const SMOOTHING_ROUNDS: u32 = 4;

/// What a plan may do besides keeping out of everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PlanOptions {
    /// When no way around the learned regions (or into the target from another side)
    /// exists, plan through them as if they were not there (fixed obstacles and the
    /// workspace still hold): a learned region is a guess, and a guess must not block a
    /// goal for its whole TTL. The move then tests it: stopped again, it is learned
    /// again; not stopped, the pass clears it. Off for the re-plans after a stop (the
    /// evidence is fresh).
    pub probe: bool,
}

/// How a target inside learned regions is reached: from a staging point outside them, on
/// another side than the one the arm was stopped from, straight in.
#[derive(Debug, Clone, PartialEq)]
pub struct Approach {
    /// The staging point (the last via-point) [mm].
    pub from_mm: Point3<f64>,
    /// The side it lies on, seen from the target (unit; e.g. (0, 0, 1): from above).
    pub side: Vector3<f64>,
    /// The learned regions the way in enters (their ids).
    pub into: Vec<u64>,
}

/// A planned polyline.
#[derive(Debug, Clone, PartialEq)]
pub struct DetourPath {
    /// Start, via-points, target.
    pub points: Vec<Point3<f64>>,
    /// Grid cells expanded by the searches (0 when the straight line is free).
    pub expanded: usize,
    /// The target lies inside learned regions: how it is approached.
    pub approach: Option<Approach>,
    /// A probe ([`PlanOptions::probe`]): the learned regions the path passes through
    /// (empty for every other plan).
    pub probe: Vec<u64>,
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
    /// How the set-points were made (up to the staging point when there is an approach:
    /// the way in is one more straight min-jerk move from there).
    pub smoothing: Smoothing,
    /// The sampled spline with [`Smoothing::Spline`] (its points are the polyline's plus
    /// any added midpoints); `None` otherwise.
    pub spline: Option<SmoothPath>,
    /// The set-points, first the start, last exactly the target, one per period.
    pub samples: Vec<Point3<f64>>,
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
        let (lo, hi) = (workspace.min_mm()[i], workspace.max_mm()[i]);
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

/// The clearance checks of one plan, built once.
struct Checkers {
    /// Fixed boxes and every learned region.
    full: Checker,
    /// Fixed boxes only.
    hard: Checker,
}

/// A grid path found by the two passes (module doc, step 3): the points and the cells
/// expanded.
fn search(
    checker: &Checker,
    scene: &Scene,
    config: &DetourConfig,
    start: Point3<f64>,
    target: Point3<f64>,
    approaches: &[Point3<f64>],
) -> Result<(Vec<Point3<f64>>, usize), TrajectoryError> {
    let grid = Grid::new(
        &scene.workspace,
        config.resolution_mm(),
        config.smoothing_margin_mm(),
    )?;
    let target_cell = grid.nearest(target);
    let margin = config.smoothing_margin_mm();
    let budget = config.max_expansions();
    let run = |extra: f64, budget: usize| {
        let mut s = Search::new(checker, extra, &grid, target, target_cell, approaches);
        let r = s.run(start, budget);
        (r, s)
    };
    // Pass 1: room for the smooth motion, with half the budget.
    let mut used = 0;
    if margin > 0.0 {
        let half = (budget / 2).max(1);
        match run(margin, half) {
            (Searched::Found(t, n), s) => return Ok((s.path_to(t), n)),
            (Searched::Exhausted(n), _) => used = n,
            (Searched::OutOfBudget, _) => used = half,
        }
    }
    // Pass 2: the plain clearances, with the rest.
    match run(0.0, budget - used) {
        (Searched::Found(t, n), s) => Ok((s.path_to(t), used + n)),
        (Searched::Exhausted(n), _) => Err(TrajectoryError::NoDetour {
            resolution_mm: grid.resolution,
            expanded: used + n,
        }),
        (Searched::OutOfBudget, _) => Err(TrajectoryError::DetourBudgetExceeded { budget }),
    }
}

/// Around everything `checker` keeps out of: the straight line when free, else the grid
/// search, shortcut.
fn around(
    checker: &Checker,
    scene: &Scene,
    config: &DetourConfig,
    start: Point3<f64>,
    target: Point3<f64>,
) -> Result<DetourPath, TrajectoryError> {
    if checker.segment_ok(start, target, 0.0, checker.slack(start)) {
        return Ok(DetourPath {
            points: vec![start, target],
            expanded: 0,
            approach: None,
            probe: Vec::new(),
        });
    }
    let (points, expanded) = search(checker, scene, config, start, target, &[])?;
    Ok(DetourPath {
        points: shortcut(checker, &points, config.smoothing_margin_mm()),
        expanded,
        approach: None,
        probe: Vec::new(),
    })
}

/// Into a target inside the learned regions `inside` from another side (module doc,
/// "Learned regions").
fn approach(
    checkers: &Checkers,
    scene: &Scene,
    config: &DetourConfig,
    start: Point3<f64>,
    target: Point3<f64>,
    inside: &[usize],
) -> Result<DetourPath, TrajectoryError> {
    let except = Checker::new(scene, config, Learned::Except(inside))?;
    let Stagings { points, tried } = stagings(
        scene,
        &checkers.full,
        &checkers.hard,
        &except,
        target,
        inside,
    );
    let no_approach = |more: Option<String>| {
        let mut tried = tried.clone();
        tried.extend(more);
        TrajectoryError::NoApproach {
            target_mm: target,
            inside: inside
                .iter()
                .map(|&i| describe_learned(&scene.obstructions[i]))
                .collect::<Vec<_>>()
                .join(" and "),
            tried: tried.join("; "),
        }
    };
    if points.is_empty() {
        return Err(no_approach(None));
    }
    let (path, expanded) =
        search(&checkers.full, scene, config, start, target, &points).map_err(|e| {
            let sides: Vec<String> = points.iter().map(|q| side_name(*q - target)).collect();
            no_approach(Some(format!("from {}: {e}", sides.join(", "))))
        })?;
    // [start, …, staging, target]: the way to the staging point shortcut, then the way in.
    let n = path.len();
    let Some(&from) = n.checked_sub(2).and_then(|i| path.get(i)) else {
        return Err(no_approach(None));
    };
    let mut points = shortcut(&checkers.full, &path[..n - 1], config.smoothing_margin_mm());
    points.push(target);
    Ok(DetourPath {
        points,
        expanded,
        approach: Some(Approach {
            from_mm: from,
            side: (from - target).normalize(),
            into: inside.iter().map(|&i| scene.obstructions[i].id).collect(),
        }),
        probe: Vec::new(),
    })
}

/// A readable name of the side `v` points to, e.g. `+z`, `-x+y`.
pub fn side_name(v: Vector3<f64>) -> String {
    let n = v.norm().max(1e-12);
    let mut s = String::new();
    for (i, axis) in AXES.iter().enumerate() {
        let c = v[i] / n;
        if c > 0.3 {
            s.push('+');
            s.push(*axis);
        } else if c < -0.3 {
            s.push('-');
            s.push(*axis);
        }
    }
    s
}

fn not_found(e: &TrajectoryError) -> bool {
    matches!(
        e,
        TrajectoryError::NoDetour { .. }
            | TrajectoryError::DetourBudgetExceeded { .. }
            | TrajectoryError::NoApproach { .. }
    )
}

/// Plans the polyline from `start` to `target` with the default options (no probe; see
/// the module doc for the method and the guarantees).
///
/// # Errors
/// As [`plan_path_with`].
pub fn plan_path(
    scene: &Scene,
    config: &DetourConfig,
    start: Point3<f64>,
    target: Point3<f64>,
) -> Result<DetourPath, TrajectoryError> {
    plan_path_with(scene, config, start, target, PlanOptions::default())
}

/// Plans the polyline from `start` to `target` (module doc: method, guarantees).
///
/// # Errors
/// Refusals: [`TrajectoryError::DetourPointNotFinite`],
/// [`TrajectoryError::DetourPointOutsideWorkspace`], [`TrajectoryError::TargetBlocked`]
/// (a target inside a fixed box's clearance; never for a learned region);
/// a bad scene: [`TrajectoryError::InvalidConfig`] (a box, an obstruction radius, a grid
/// too large), [`TrajectoryError::ObstructionNotFinite`]; no path:
/// [`TrajectoryError::NoDetour`], [`TrajectoryError::NoApproach`] (the target inside
/// learned regions, no way in from another side: names them and the sides tried);
/// budget: [`TrajectoryError::DetourBudgetExceeded`].
pub fn plan_path_with(
    scene: &Scene,
    config: &DetourConfig,
    start: Point3<f64>,
    target: Point3<f64>,
    options: PlanOptions,
) -> Result<DetourPath, TrajectoryError> {
    check_point("start", start, &scene.workspace)?;
    check_point("target", target, &scene.workspace)?;
    let checkers = Checkers {
        full: Checker::new(scene, config, Learned::All)?,
        hard: Checker::new(scene, config, Learned::Ignored)?,
    };
    if let Some(by) = checkers.hard.blocking(target) {
        return Err(TrajectoryError::TargetBlocked {
            target_mm: target,
            by: describe_obstacle(scene, config, by),
        });
    }
    let inside: Vec<usize> = scene
        .obstructions
        .iter()
        .enumerate()
        .filter(|(_, o)| o.contains(target))
        .map(|(i, _)| i)
        .collect();
    let first = if inside.is_empty() {
        around(&checkers.full, scene, config, start, target)
    } else {
        approach(&checkers, scene, config, start, target, &inside)
    };
    match first {
        Err(e) if options.probe && not_found(&e) && !scene.obstructions.is_empty() => {
            let Ok(mut path) = around(&checkers.hard, scene, config, start, target) else {
                return Err(e);
            };
            let mut probe: Vec<u64> = Vec::new();
            for w in path.points.windows(2) {
                for s in checkers.full.entered(w[0], w[1]) {
                    if let Source::Learned(i) = s {
                        let id = scene.obstructions[i].id;
                        if !probe.contains(&id) {
                            probe.push(id);
                        }
                    }
                }
            }
            path.probe = probe;
            Ok(path)
        }
        other => other,
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

/// Set-points and how they were made.
type Smoothed = (Smoothing, Option<SmoothPath>, Vec<Point3<f64>>);

/// The set-points along `points` (start … end), checked by `checker`.
fn smooth(
    checker: &Checker,
    points: &[Point3<f64>],
    factor: u32,
) -> Result<Smoothed, TrajectoryError> {
    let blocked = |reason| TrajectoryError::DetourMotionBlocked { reason };
    let (start, end) = (points[0], points[points.len() - 1]);
    if points.len() <= 2 {
        let samples = minjerk::try_plan(start, end, factor)?;
        checker.verify(&samples).map_err(blocked)?;
        return Ok((Smoothing::Straight, None, samples));
    }
    let mut dense = points.to_vec();
    for round in 0..=SMOOTHING_ROUNDS {
        let spline = SmoothPath::through(&dense)?;
        let samples = spline.sample(factor)?;
        if checker.verify(&samples).is_ok() {
            let smoothing = Smoothing::Spline {
                extra_rounds: round,
            };
            return Ok((smoothing, Some(spline), samples));
        }
        dense = densify(&dense);
    }
    let mut samples = vec![start];
    for w in points.windows(2) {
        let leg = minjerk::try_plan(w[0], w[1], factor)?;
        samples.extend_from_slice(&leg[1..]);
    }
    checker.verify(&samples).map_err(blocked)?;
    Ok((Smoothing::StopAndGo, None, samples))
}

/// [`plan_motion_with`] with the default options (no probe).
///
/// # Errors
/// As [`plan_motion_with`].
pub fn plan_motion(
    scene: &Scene,
    config: &DetourConfig,
    start: Point3<f64>,
    target: Point3<f64>,
    factor: u32,
) -> Result<DetourMotion, TrajectoryError> {
    plan_motion_with(scene, config, start, target, factor, PlanOptions::default())
}

/// Plans the detour ([`plan_path_with`]) and its set-points, `factor` samples per mm.
///
/// - No via-point: exactly [`minjerk::plan`]`(start, target, factor)` ([`Smoothing::Straight`]).
/// - Otherwise one [`SmoothPath`] through the polyline ([`Smoothing::Spline`]),
///   `N = ceil(polyline length) · factor`. Its set-points are checked (each in the
///   workspace, each step between consecutive ones clear); if the spline bulges into a
///   clearance, midpoints are added to every segment (the spline then hugs the polyline
///   more tightly), up to [`SMOOTHING_ROUNDS`] rounds; then the fallback
///   [`Smoothing::StopAndGo`], one straight min-jerk move per segment.
/// - An approach: the above up to the staging point, then one straight min-jerk move in
///   (checked against everything but the learned regions it enters).
/// - A probe: checked against the fixed boxes and the workspace only.
///
/// Every returned set-point sequence has passed its check.
///
/// # Errors
/// As [`plan_path_with`]; [`TrajectoryError::TooManySamples`]; and
/// [`TrajectoryError::DetourMotionBlocked`] if not even the fallback passed the check.
pub fn plan_motion_with(
    scene: &Scene,
    config: &DetourConfig,
    start: Point3<f64>,
    target: Point3<f64>,
    factor: u32,
    options: PlanOptions,
) -> Result<DetourMotion, TrajectoryError> {
    let path = plan_path_with(scene, config, start, target, options)?;
    let learned = if path.probe.is_empty() {
        Learned::All
    } else {
        Learned::Ignored
    };
    let checker = Checker::new(scene, config, learned)?;
    let Some(approach) = &path.approach else {
        let (smoothing, spline, samples) = smooth(&checker, &path.points, factor)?;
        return Ok(DetourMotion {
            path,
            smoothing,
            spline,
            samples,
        });
    };
    let n = path.points.len();
    let (smoothing, spline, mut samples) = smooth(&checker, &path.points[..n - 1], factor)?;
    let inside: Vec<usize> = scene
        .obstructions
        .iter()
        .enumerate()
        .filter(|(_, o)| approach.into.contains(&o.id))
        .map(|(i, _)| i)
        .collect();
    let except = Checker::new(scene, config, Learned::Except(&inside))?;
    let way_in = minjerk::try_plan(approach.from_mm, target, factor)?;
    except
        .verify(&way_in)
        .map_err(|reason| TrajectoryError::DetourMotionBlocked { reason })?;
    samples.extend_from_slice(&way_in[1..]);
    Ok(DetourMotion {
        path,
        smoothing,
        spline,
        samples,
    })
}
