//! The ways into a target that lies inside learned regions (module doc of [`super`],
//! "Learned regions"): staging points on the 26 sides around the target (the faces,
//! edges and corners of a cube), each just outside the regions, from which a straight
//! move reaches the target; never along the way the arm was stopped in.

use nalgebra::{Point3, Vector3};

use super::geometry::{describe_obstacle_short, Checker, Source};
use super::plan::side_name;
use super::Scene;

/// Farthest a staging point may lie from the target [mm].
pub const MAX_APPROACH_MM: f64 = 250.0;
/// Slack beyond a region's clearance at the staging point [mm].
const STAGING_SLACK_MM: f64 = 1.0;
/// A way in within this angle of the way the arm was stopped (cos 60°) is not another
/// side.
const SAME_WAY_COS: f64 = 0.5;

/// The staging points found, and why each other side was not one.
pub(super) struct Stagings {
    pub(super) points: Vec<Point3<f64>>,
    /// `"sides: why"`, one entry per reason.
    pub(super) tried: Vec<String>,
}

/// How far from `t` along the unit `s` the ball (`c`, `r`) is left (0 when `t` is out).
fn exit_distance(t: Point3<f64>, s: Vector3<f64>, c: Point3<f64>, r: f64) -> f64 {
    let w = t - c;
    let b = w.dot(&s);
    let cc = w.norm_squared() - r * r;
    if cc >= 0.0 {
        return 0.0;
    }
    -b + (b * b - cc).max(0.0).sqrt()
}

/// The 26 unit directions of the lattice neighbours.
fn sides() -> impl Iterator<Item = Vector3<f64>> {
    (-1i32..=1).flat_map(|x| {
        (-1i32..=1).flat_map(move |y| {
            (-1i32..=1).filter_map(move |z| {
                let v = Vector3::new(f64::from(x), f64::from(y), f64::from(z));
                (v != Vector3::zeros()).then(|| v.normalize())
            })
        })
    })
}

/// Every staging point for `target` inside the learned regions `inside`: `full` keeps
/// out of everything, `hard` of the fixed boxes, `except` of everything but `inside`.
pub(super) fn stagings(
    scene: &Scene,
    full: &Checker,
    hard: &Checker,
    except: &Checker,
    target: Point3<f64>,
    inside: &[usize],
) -> Stagings {
    let mut points = Vec::new();
    let mut why: Vec<(String, Vec<String>)> = Vec::new();
    let mut note =
        |side: &Vector3<f64>, reason: String| match why.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, s)) => s.push(side_name(*side)),
            None => why.push((reason, vec![side_name(*side)])),
        };
    for side in sides() {
        let way_in = -side;
        if inside.iter().any(|&i| {
            let d = scene.obstructions[i].direction;
            d != Vector3::zeros() && way_in.dot(&d) >= SAME_WAY_COS
        }) {
            note(&side, "the way the arm was stopped".into());
            continue;
        }
        let mut k = inside
            .iter()
            .map(|&i| {
                let o = &scene.obstructions[i];
                exit_distance(target, side, o.centre_mm, o.radius_mm)
            })
            .fold(0.0, f64::max)
            + STAGING_SLACK_MM;
        // Out of any other learned region met on the way out, too (a few at most).
        let mut q = target + side * k;
        for _ in 0..4 {
            match full.blocking(q) {
                Some(Source::Learned(j)) => {
                    let o = &scene.obstructions[j];
                    k = k.max(
                        exit_distance(target, side, o.centre_mm, o.radius_mm) + STAGING_SLACK_MM,
                    );
                    q = target + side * k;
                }
                _ => break,
            }
        }
        if k > MAX_APPROACH_MM {
            note(
                &side,
                format!("the regions reach farther than {MAX_APPROACH_MM} mm"),
            );
        } else if !scene.workspace.contains(q) {
            note(&side, "the staging point is outside the workspace".into());
        } else if let Some(by) = hard.blocking(q) {
            note(
                &side,
                format!(
                    "the staging point is at {}",
                    describe_obstacle_short(scene, by)
                ),
            );
        } else if let Some(by) = full.blocking(q) {
            note(
                &side,
                format!(
                    "the staging point is in {}",
                    describe_obstacle_short(scene, by)
                ),
            );
        } else if !except.segment_ok(q, target, 0.0, except.slack(q)) {
            let by = except.entered(q, target).first().map_or_else(
                || "a clearance".to_owned(),
                |s| describe_obstacle_short(scene, *s),
            );
            note(&side, format!("the way in crosses {by}"));
        } else {
            points.push(q);
        }
    }
    let tried = why
        .into_iter()
        .map(|(reason, sides)| format!("{}: {reason}", sides.join(", ")))
        .collect();
    Stagings { points, tried }
}
