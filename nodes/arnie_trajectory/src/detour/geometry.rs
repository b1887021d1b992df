//! The clearance geometry of a plan: each obstacle's distance function and the checks
//! of points, segments and set-points against the clearances (module doc of
//! [`super`], "Clearance").

use nalgebra::{Point3, Vector3};

use super::{invalid, DetourConfig, Scene, Workspace};
use crate::error::{MotionBlocked, TrajectoryError};
use crate::obstructions::KnownObstruction;

#[derive(Debug, Clone, Copy)]
pub(super) enum Shape {
    Sphere { centre: Point3<f64> },
    Box { min: Point3<f64>, max: Point3<f64> },
}

impl Shape {
    /// The (signed) distance function: convex and 1-Lipschitz.
    pub(super) fn f(&self, p: Point3<f64>) -> f64 {
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
    pub(super) fn derivative(&self, p: Point3<f64>, d: Vector3<f64>) -> f64 {
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
    pub(super) fn segment_keeps(&self, a: Point3<f64>, b: Point3<f64>, c: f64) -> bool {
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

/// Where an obstacle of a [`Checker`] comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Source {
    /// `scene.boxes[i]`: a fixed obstacle.
    Box(usize),
    /// `scene.obstructions[i]`: a learned region.
    Learned(usize),
}

#[derive(Debug, Clone, Copy)]
struct Obstacle {
    shape: Shape,
    clearance: f64,
    source: Source,
}

/// Which learned regions a [`Checker`] keeps out of.
#[derive(Debug, Clone, Copy)]
pub(super) enum Learned<'a> {
    /// All of them.
    All,
    /// All but these (indices into `scene.obstructions`).
    Except(&'a [usize]),
    /// None: only the fixed boxes and the workspace (a probe).
    Ignored,
}

/// The clearance checks of one plan.
pub(super) struct Checker {
    obstacles: Vec<Obstacle>,
    workspace: Workspace,
}

impl Checker {
    pub(super) fn new(
        scene: &Scene,
        config: &DetourConfig,
        learned: Learned<'_>,
    ) -> Result<Self, TrajectoryError> {
        let mut obstacles = Vec::with_capacity(scene.boxes.len() + scene.obstructions.len());
        for (i, b) in scene.boxes.iter().enumerate() {
            b.check()?;
            obstacles.push(Obstacle {
                shape: Shape::Box {
                    min: b.min_mm,
                    max: b.max_mm,
                },
                clearance: config.box_clearance_mm(),
                source: Source::Box(i),
            });
        }
        for (i, o) in scene.obstructions.iter().enumerate() {
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
            let kept = match learned {
                Learned::All => true,
                Learned::Except(skip) => !skip.contains(&i),
                Learned::Ignored => false,
            };
            if kept {
                obstacles.push(Obstacle {
                    shape: Shape::Sphere {
                        centre: o.centre_mm,
                    },
                    clearance: o.radius_mm,
                    source: Source::Learned(i),
                });
            }
        }
        Ok(Self {
            obstacles,
            workspace: scene.workspace,
        })
    }

    /// `min_i (f_i(p) − c_i)`: how far `p` may move before any clearance is reached
    /// (negative inside one); +∞ with no obstacle.
    pub(super) fn slack(&self, p: Point3<f64>) -> f64 {
        self.obstacles
            .iter()
            .map(|o| o.shape.f(p) - o.clearance)
            .fold(f64::INFINITY, f64::min)
    }

    /// The first obstacle whose clearance holds `p`.
    pub(super) fn blocking(&self, p: Point3<f64>) -> Option<Source> {
        self.obstacles
            .iter()
            .find(|o| o.shape.f(p) < o.clearance)
            .map(|o| o.source)
    }

    /// Every obstacle whose clearance the segment `a → b` enters (ignoring the leaving
    /// rule: for naming what a probe passes through).
    pub(super) fn entered(&self, a: Point3<f64>, b: Point3<f64>) -> Vec<Source> {
        self.obstacles
            .iter()
            .filter(|o| !o.shape.segment_keeps(a, b, o.clearance))
            .map(|o| o.source)
            .collect()
    }

    /// The segment `a → b` keeps every clearance grown by `extra`, with the leaving rule
    /// for obstacles whose (grown) clearance holds `a`. `slack_a` = `self.slack(a)`.
    pub(super) fn segment_ok(
        &self,
        a: Point3<f64>,
        b: Point3<f64>,
        extra: f64,
        slack_a: f64,
    ) -> bool {
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
    pub(super) fn verify(&self, samples: &[Point3<f64>]) -> Result<(), MotionBlocked> {
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

pub(super) fn describe_obstacle(scene: &Scene, config: &DetourConfig, source: Source) -> String {
    match source {
        Source::Box(i) => format!(
            "box {:?} (clearance {} mm)",
            scene.boxes[i].name,
            config.box_clearance_mm()
        ),
        Source::Learned(i) => describe_learned(&scene.obstructions[i]),
    }
}

/// A learned region for messages: id, centre, radius and how it was touched.
pub(super) fn describe_learned(o: &KnownObstruction) -> String {
    let mut s = format!(
        "learned obstruction {} at ({:.1}, {:.1}, {:.1}) mm (radius {:.1} mm",
        o.id, o.centre_mm.x, o.centre_mm.y, o.centre_mm.z, o.radius_mm
    );
    if o.direction != Vector3::zeros() {
        s += &format!(
            ", touched moving ({:.2}, {:.2}, {:.2})",
            o.direction.x, o.direction.y, o.direction.z
        );
    }
    s + ")"
}

/// A short name: `box "table"`, `learned obstruction 3`.
pub(super) fn describe_obstacle_short(scene: &Scene, source: Source) -> String {
    match source {
        Source::Box(i) => format!("box {:?}", scene.boxes[i].name),
        Source::Learned(i) => format!("learned obstruction {}", scene.obstructions[i].id),
    }
}
