//! One smooth motion through via-points: a C² curve with the minimum-jerk time law.
//!
//! # Construction (the choice made here)
//! - **Geometry**: a cubic spline `C(u)` through the points (start, via-points, target),
//!   per axis, parametrised by the cumulative chord length `u ∈ [0, U]` (`U` = the
//!   length of the polyline through the points [mm]), with its end tangents clamped to
//!   the first and the last chord's unit direction: the curve leaves the start along the
//!   first polyline segment and arrives along the last. `C`, `C'` and `C''` are
//!   continuous in `u` (C²); among such interpolants it has the least bending
//!   `∫|C''|² du`, so it turns smoothly instead of stopping at corners.
//! - **Timing**: the minimum-jerk law of [`minjerk`] applied to the curve parameter:
//!   `u(s) = U · σ(s)`, `σ(s) = 10s³ − 15s⁴ + 6s⁵`, normalised time `s = t / T ∈ [0, 1]`.
//! - **Motion**: `P(s) = C(u(s))`, `P' = C'(u)·u'`, `P'' = C''(u)·u'² + C'(u)·u''`
//!   (derivatives in `s`; divide by `T` and `T²` for mm/time and mm/time²). Position,
//!   velocity and acceleration are continuous at every via-point (C², not stop-and-go:
//!   the arm passes a via-point at speed); both are zero at the start and at the end,
//!   where `σ' = σ'' = 0`. The jerk jumps at via-points (a cubic's third derivative is
//!   piecewise constant), as for any C² spline.
//! - **Samples**: as [`minjerk::plan`]: `N = ceil(U) · factor` intervals, `τ_k = −1 + 2k/N`
//!   from `k`, `N + 1` points, the first exactly the start, the last exactly the target.
//!   With `|C'| ≈ 1` (chord parametrisation) the peak speed is about `15/8 · U / N` per
//!   period, the straight move's peak for a move of length `U`.
//! - **Golden**: with no via-point (two points) [`SmoothPath::sample`] *is*
//!   [`minjerk::plan`]; the curve is then the straight line itself.
//!
//! The spline may bulge off the polyline near sharp corners; callers that need a
//! clearance (the detour planner) check the samples and add via-points where needed.

use nalgebra::{Point3, Vector3};

use crate::error::TrajectoryError;
use crate::minjerk;

/// Consecutive points closer than this are merged [mm].
pub const MERGE_MM: f64 = 1e-9;

/// Position and its derivatives with respect to normalised time `s = t / T`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MotionState {
    /// Position [mm].
    pub position: Point3<f64>,
    /// `dP/ds` [mm per whole move]; divide by `T` for mm per time unit.
    pub velocity: Vector3<f64>,
    /// `d²P/ds²` [mm per whole move²]; divide by `T²`.
    pub acceleration: Vector3<f64>,
}

/// A C² path through points with the minimum-jerk time law (see the module doc).
#[derive(Debug, Clone, PartialEq)]
pub struct SmoothPath {
    /// The points, consecutive duplicates merged.
    points: Vec<Point3<f64>>,
    /// Cumulative chord length at each point: `knots[0] = 0`, last = `U`.
    knots: Vec<f64>,
    /// `C''` at each point.
    second: Vec<Vector3<f64>>,
}

impl SmoothPath {
    /// The spline through `points` (start first, target last). Consecutive points closer
    /// than [`MERGE_MM`] count once; one (distinct) point is a path of length 0.
    ///
    /// # Errors
    /// [`TrajectoryError::DetourPointNotFinite`] if there is no point or a point is not
    /// finite (`which` = `"via-point"`).
    pub fn through(points: &[Point3<f64>]) -> Result<Self, TrajectoryError> {
        let Some(&first) = points.first() else {
            return Err(TrajectoryError::DetourPointNotFinite {
                which: "via-point",
                point_mm: Point3::new(f64::NAN, f64::NAN, f64::NAN),
            });
        };
        if let Some(&p) = points.iter().find(|p| !p.iter().all(|v| v.is_finite())) {
            return Err(TrajectoryError::DetourPointNotFinite {
                which: "via-point",
                point_mm: p,
            });
        }
        let mut pts = vec![first];
        let mut knots = vec![0.0];
        for &p in &points[1..] {
            let last = pts[pts.len() - 1];
            let h = (p - last).norm();
            if h < MERGE_MM {
                // Keep the exact final target.
                let n = pts.len();
                if n > 1 {
                    pts[n - 1] = p;
                }
                continue;
            }
            knots.push(knots[knots.len() - 1] + h);
            pts.push(p);
        }
        if pts.len() == 1 {
            // Everything merged into the start; the target (the last point) wins.
            pts[0] = points[points.len() - 1];
        }
        let second = clamped_second_derivatives(&pts, &knots);
        Ok(Self {
            points: pts,
            knots,
            second,
        })
    }

    /// The points the path passes through (start, via-points, target).
    pub fn points(&self) -> &[Point3<f64>] {
        &self.points
    }

    /// Via-points strictly between start and target.
    pub fn via_count(&self) -> usize {
        self.points.len().saturating_sub(2)
    }

    /// `U`: the length of the polyline through the points [mm].
    pub fn polyline_length_mm(&self) -> f64 {
        self.knots[self.knots.len() - 1]
    }

    /// `N = ceil(U) · factor`, as [`minjerk::sample_count`] for a straight move.
    ///
    /// # Errors
    /// [`TrajectoryError::TooManySamples`] above [`MAX_SAMPLES`](crate::minjerk::MAX_SAMPLES).
    pub fn sample_count(&self, factor: u32) -> Result<usize, TrajectoryError> {
        minjerk::count_for(self.polyline_length_mm(), factor)
    }

    /// The `N + 1` set-points (see the module doc); with no via-point exactly
    /// [`minjerk::plan`]`(start, target, factor)`.
    ///
    /// # Errors
    /// [`TrajectoryError::TooManySamples`], as [`sample_count`](Self::sample_count).
    pub fn sample(&self, factor: u32) -> Result<Vec<Point3<f64>>, TrajectoryError> {
        if self.points.len() <= 2 {
            let start = self.points[0];
            let target = self.points[self.points.len() - 1];
            return minjerk::try_plan(start, target, factor);
        }
        let n = self.sample_count(factor)?;
        let mut out = Vec::with_capacity(n + 1);
        self.sample_n_into(n, &mut out);
        Ok(out)
    }

    /// Writes the `n + 1` points of the motion with exactly `n` intervals into `out`
    /// (cleared first). The first is exactly the start, the last exactly the target.
    pub fn sample_n_into(&self, n: usize, out: &mut Vec<Point3<f64>>) {
        out.clear();
        out.reserve(n + 1);
        let target = self.points[self.points.len() - 1];
        if self.points.len() == 1 || n == 0 {
            out.push(target);
            return;
        }
        let total = self.polyline_length_mm();
        let step = 2.0 / n as f64;
        let mut seg = 0;
        for k in 0..n {
            let u = total * minjerk::shape(-1.0 + step * k as f64);
            while seg + 2 < self.knots.len() && u >= self.knots[seg + 1] {
                seg += 1;
            }
            out.push(self.curve(seg, u).0);
        }
        out.push(target);
    }

    /// Index of the segment (between point `i` and `i + 1`) that holds parameter `u`;
    /// right-continuous, the last segment at the end.
    fn segment_of(&self, u: f64) -> usize {
        let segments = self.knots.len() - 1;
        // knots[1..] are the segment ends; the first end above u.
        self.knots[1..segments].partition_point(|&k| k <= u)
    }

    /// `C`, `C'`, `C''` of segment `seg`'s cubic at `u` (any `u`: the polynomial).
    fn curve(&self, seg: usize, u: f64) -> (Point3<f64>, Vector3<f64>, Vector3<f64>) {
        let (u0, u1) = (self.knots[seg], self.knots[seg + 1]);
        let h = u1 - u0;
        let (y0, y1) = (self.points[seg], self.points[seg + 1]);
        let (m0, m1) = (self.second[seg], self.second[seg + 1]);
        let a = (u1 - u) / h;
        let b = (u - u0) / h;
        let p = y0.coords * a
            + y1.coords * b
            + (m0 * (a * a * a - a) + m1 * (b * b * b - b)) * (h * h / 6.0);
        let d1 = (y1 - y0) / h - m0 * ((3.0 * a * a - 1.0) * h / 6.0)
            + m1 * ((3.0 * b * b - 1.0) * h / 6.0);
        let d2 = m0 * a + m1 * b;
        (Point3::from(p), d1, d2)
    }

    /// The motion at normalised time `s ∈ [0, 1]` (clamped), on the segment that holds
    /// `u(s)`.
    pub fn state(&self, s: f64) -> MotionState {
        let s = s.clamp(0.0, 1.0);
        if self.points.len() == 1 {
            return MotionState {
                position: self.points[0],
                velocity: Vector3::zeros(),
                acceleration: Vector3::zeros(),
            };
        }
        let u = self.polyline_length_mm() * minjerk::shape(2.0 * s - 1.0);
        self.state_on_segment(self.segment_of(u), s)
    }

    /// The motion at normalised time `s` evaluated with segment `segment`'s polynomial
    /// (`segment < points().len() − 1`), also outside that segment: at a via-point's time
    /// ([`via_time`](Self::via_time)) segments `i − 1` and `i` give its left and right
    /// limits, which are equal (C²).
    ///
    /// # Panics
    /// If `segment` is out of range.
    pub fn state_on_segment(&self, segment: usize, s: f64) -> MotionState {
        assert!(
            segment + 1 < self.points.len(),
            "segment {segment} out of range"
        );
        let total = self.polyline_length_mm();
        let u = total * minjerk::shape(2.0 * s - 1.0);
        let du = total * minjerk::shape_velocity(s);
        let ddu = total * minjerk::shape_acceleration(s);
        let (p, d1, d2) = self.curve(segment, u);
        MotionState {
            position: p,
            velocity: d1 * du,
            acceleration: d2 * (du * du) + d1 * ddu,
        }
    }

    /// Normalised time `s ∈ [0, 1]` at which point `i` is passed: `σ(s) = knots[i] / U`
    /// (bisection to machine precision). 0 for the start, 1 for the target.
    ///
    /// # Panics
    /// If `i` is out of range.
    pub fn via_time(&self, i: usize) -> f64 {
        let total = self.polyline_length_mm();
        if i == 0 || total == 0.0 {
            return 0.0;
        }
        if i + 1 == self.points.len() {
            return 1.0;
        }
        let goal = self.knots[i] / total;
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if minjerk::shape(2.0 * mid - 1.0) < goal {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    }
}

/// `C''` at every knot of the cubic spline whose end tangents are the unit directions of
/// the first and the last chord (so it leaves the start along the first polyline segment
/// and arrives along the last); Thomas algorithm on the (diagonally dominant)
/// tridiagonal system.
fn clamped_second_derivatives(points: &[Point3<f64>], knots: &[f64]) -> Vec<Vector3<f64>> {
    let n = points.len();
    if n < 3 {
        return vec![Vector3::zeros(); n];
    }
    let h: Vec<f64> = knots.windows(2).map(|w| w[1] - w[0]).collect();
    let slope: Vec<Vector3<f64>> = (0..n - 1)
        .map(|i| (points[i + 1] - points[i]) / h[i])
        .collect();
    // Row i: sub[i] m[i-1] + diag[i] m[i] + sup[i] m[i+1] = rhs[i]. The end rows
    // `2h m0 + h m1 = 6 (slope0 − C'(0))` have a zero right side: C'(0) = slope0.
    let mut sub = vec![0.0; n];
    let mut diag = vec![0.0; n];
    let mut sup = vec![0.0; n];
    let mut rhs = vec![Vector3::zeros(); n];
    diag[0] = 2.0 * h[0];
    sup[0] = h[0];
    for i in 1..n - 1 {
        sub[i] = h[i - 1];
        diag[i] = 2.0 * (h[i - 1] + h[i]);
        sup[i] = h[i];
        rhs[i] = (slope[i] - slope[i - 1]) * 6.0;
    }
    sub[n - 1] = h[n - 2];
    diag[n - 1] = 2.0 * h[n - 2];
    for i in 1..n {
        let w = sub[i] / diag[i - 1];
        diag[i] -= w * sup[i - 1];
        let prev = rhs[i - 1];
        rhs[i] -= prev * w;
    }
    let mut m = vec![Vector3::zeros(); n];
    m[n - 1] = rhs[n - 1] / diag[n - 1];
    for i in (0..n - 1).rev() {
        m[i] = (rhs[i] - m[i + 1] * sup[i]) / diag[i];
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn close(a: Vector3<f64>, b: Vector3<f64>, tol: f64) -> bool {
        (a - b).abs().max() <= tol
    }

    #[test]
    fn two_points_are_exactly_minjerk() {
        let (s, g) = (Point3::new(0.1, -3.0, 7.0), Point3::new(250.3, 40.0, -99.9));
        for factor in [1, 2, 5] {
            let p = SmoothPath::through(&[s, g]).unwrap();
            assert_eq!(p.sample(factor).unwrap(), minjerk::plan(s, g, factor));
            assert_eq!(p.via_count(), 0);
        }
    }

    #[test]
    fn one_point_and_duplicates() {
        let p = Point3::new(1.0, 2.0, 3.0);
        let path = SmoothPath::through(&[p, p, p]).unwrap();
        assert_eq!(path.sample(1).unwrap(), vec![p]);
        assert_eq!(path.polyline_length_mm(), 0.0);
        let q = Point3::new(11.0, 2.0, 3.0);
        let path = SmoothPath::through(&[p, p, q, q]).unwrap();
        assert_eq!(path.points(), &[p, q]);
        assert!(SmoothPath::through(&[]).is_err());
        assert!(SmoothPath::through(&[p, Point3::new(f64::NAN, 0.0, 0.0)]).is_err());
    }

    #[test]
    fn interpolates_every_point_and_ends_exactly() {
        let pts = [
            Point3::new(0.0, 0.0, 0.0),
            Point3::new(50.0, 80.0, 10.0),
            Point3::new(120.0, 60.0, 40.0),
            Point3::new(150.0, -20.0, 30.0),
        ];
        let path = SmoothPath::through(&pts).unwrap();
        for (i, p) in pts.iter().enumerate() {
            let at = path.state(path.via_time(i)).position;
            assert!(close(at - p, Vector3::zeros(), 1e-6), "{i}: {at} vs {p}");
        }
        let samples = path.sample(1).unwrap();
        let n = path.sample_count(1).unwrap();
        assert_eq!(samples.len(), n + 1);
        assert_eq!(n, path.polyline_length_mm().ceil() as usize);
        assert_eq!(samples[0], pts[0]);
        assert_eq!(samples[n], pts[3]);
    }

    #[test]
    fn a_straight_polyline_is_the_straight_move() {
        // Via-points on the line: the spline is the line itself.
        let (s, g) = (Point3::new(0.0, 0.0, 0.0), Point3::new(300.0, 0.0, 0.0));
        let path = SmoothPath::through(&[s, Point3::new(100.0, 0.0, 0.0), g]).unwrap();
        let a = path.sample(1).unwrap();
        let b = minjerk::plan(s, g, 1);
        assert_eq!(a.len(), b.len());
        for (p, q) in a.iter().zip(&b) {
            assert!((p - q).norm() < 1e-9);
        }
    }

    fn point() -> impl Strategy<Value = Point3<f64>> {
        (-500.0f64..500.0, -500.0f64..500.0, -500.0f64..500.0)
            .prop_map(|(x, y, z)| Point3::new(x, y, z))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// At every via-point, position, velocity and acceleration from the left and the
        /// right segment's polynomial agree; all derivatives vanish at both ends.
        #[test]
        fn c2_at_every_via_point_and_rest_at_the_ends(
            pts in proptest::collection::vec(point(), 2..8),
        ) {
            let path = SmoothPath::through(&pts).unwrap();
            let n = path.points().len();
            prop_assume!(n >= 2);
            let scale = path.polyline_length_mm().max(1.0);
            for i in 1..n - 1 {
                let s = path.via_time(i);
                let (l, r) = (path.state_on_segment(i - 1, s), path.state_on_segment(i, s));
                prop_assert!((l.position - r.position).norm() <= 1e-9 * scale);
                prop_assert!((l.position - path.points()[i]).norm() <= 1e-6 * scale);
                prop_assert!((l.velocity - r.velocity).norm() <= 1e-8 * scale);
                prop_assert!((l.acceleration - r.acceleration).norm() <= 1e-7 * scale);
            }
            for s in [0.0, 1.0] {
                let st = path.state(s);
                prop_assert_eq!(st.velocity, Vector3::zeros());
                prop_assert_eq!(st.acceleration, Vector3::zeros());
            }
            prop_assert_eq!(path.state(0.0).position, pts[0]);
        }

        /// The samples follow the analytic motion and the count rule.
        #[test]
        fn samples_follow_the_motion(pts in proptest::collection::vec(point(), 3..6)) {
            let path = SmoothPath::through(&pts).unwrap();
            let samples = path.sample(1).unwrap();
            let n = samples.len() - 1;
            prop_assert_eq!(n, path.polyline_length_mm().ceil() as usize);
            prop_assert_eq!(samples[n], *pts.last().unwrap());
            for k in (0..n).step_by(7) {
                let st = path.state(k as f64 / n as f64);
                prop_assert!((st.position - samples[k]).norm() < 1e-6);
            }
        }
    }
}
