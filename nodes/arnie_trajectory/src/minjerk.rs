//! Minimum-jerk paths (the original PYT's planner, with its end-point bug fixed).
//!
//! Per axis, with τ ∈ [−1, 1]:
//! `x(τ) = start + Δ·(1/2 + 15/16·τ − 5/8·τ³ + 3/16·τ⁵)`, which is
//! `start + Δ·(10s³ − 15s⁴ + 6s⁵)` with `s = (τ + 1)/2`.
//! Samples: `N = ceil(distance_mm) · factor`, `τ_k = −1 + 2k/N` computed from `k`
//! (PYT accumulated τ and often lost the end point), `k = 0..=N`, so `N + 1` points; the
//! last is always exactly `goal`. `N = 0` gives one point, the goal.
//! Units: millimetres in and out. One point is sent every period.

use nalgebra::{Point3, Vector3};

use crate::error::TrajectoryError;

/// Largest `N` [`try_plan`] accepts (10⁷ set-points ≈ 4 days at 35 ms).
pub const MAX_SAMPLES: usize = 10_000_000;

/// Position shape in τ ∈ [−1, 1]: 0 at τ = −1, 1 at τ = 1 (both exact in f64).
#[inline]
pub fn shape(tau: f64) -> f64 {
    let t2 = tau * tau;
    0.5 + tau * (15.0 / 16.0 + t2 * (-5.0 / 8.0 + t2 * (3.0 / 16.0)))
}

/// Velocity shape `d shape / ds` for `s = (τ+1)/2 ∈ [0, 1]`: `30s² − 60s³ + 30s⁴`.
/// The axis velocity is `Δ / T · shape_velocity(s)` for a move of duration `T`.
#[inline]
pub fn shape_velocity(s: f64) -> f64 {
    30.0 * s * s * (1.0 - s) * (1.0 - s)
}

/// Acceleration shape `d² shape / ds²`: `60s − 180s² + 120s³`; axis value `Δ / T² ·` this.
#[inline]
pub fn shape_acceleration(s: f64) -> f64 {
    60.0 * s - 180.0 * s * s + 120.0 * s * s * s
}

/// Jerk shape `d³ shape / ds³`: `60 − 360s + 360s²`; axis value `Δ / T³ ·` this.
#[inline]
pub fn shape_jerk(s: f64) -> f64 {
    60.0 - 360.0 * s + 360.0 * s * s
}

/// `N` for a move: `ceil(distance_mm) · factor`.
///
/// # Errors
/// [`TrajectoryError::TooManySamples`] when the distance is not finite or `N` would
/// exceed [`MAX_SAMPLES`].
pub fn sample_count(
    start: Point3<f64>,
    goal: Point3<f64>,
    factor: u32,
) -> Result<usize, TrajectoryError> {
    count_for((goal - start).norm(), factor)
}

/// `N` for a path `distance_mm` long: `ceil(distance_mm) · factor` (straight moves and
/// splines alike).
///
/// # Errors
/// As [`sample_count`].
pub(crate) fn count_for(distance_mm: f64, factor: u32) -> Result<usize, TrajectoryError> {
    let n = distance_mm.ceil() * f64::from(factor);
    if !n.is_finite() || n > MAX_SAMPLES as f64 {
        return Err(TrajectoryError::TooManySamples {
            distance_mm,
            factor,
        });
    }
    // n is a whole, non-negative number no larger than MAX_SAMPLES: the cast is exact.
    Ok(n as usize)
}

/// The `N + 1` set-points from `start` to `goal` [mm]; see the module doc.
///
/// For validated input (finite, inside the workspace). If the count cannot be computed
/// (see [`try_plan`]) this returns the single point `goal`, never panics.
pub fn plan(start: Point3<f64>, goal: Point3<f64>, factor: u32) -> Vec<Point3<f64>> {
    try_plan(start, goal, factor).unwrap_or_else(|_| vec![goal])
}

/// [`plan`], telling an impossible sample count apart.
///
/// # Errors
/// [`TrajectoryError::TooManySamples`], as [`sample_count`].
pub fn try_plan(
    start: Point3<f64>,
    goal: Point3<f64>,
    factor: u32,
) -> Result<Vec<Point3<f64>>, TrajectoryError> {
    let n = sample_count(start, goal, factor)?;
    let mut out = Vec::with_capacity(n + 1);
    plan_n_into(start, goal, n, &mut out);
    Ok(out)
}

/// Writes the `n + 1` points of a path with exactly `n` intervals into `out` (cleared
/// first; its allocation is reused). The last point is exactly `goal`.
pub fn plan_n_into(start: Point3<f64>, goal: Point3<f64>, n: usize, out: &mut Vec<Point3<f64>>) {
    out.clear();
    out.reserve(n + 1);
    let delta: Vector3<f64> = goal - start;
    let step = if n == 0 { 0.0 } else { 2.0 / n as f64 };
    for k in 0..n {
        let tau = -1.0 + step * k as f64;
        out.push(start + delta * shape(tau));
    }
    out.push(goal);
}

/// Time of set-point `k` after the first one [ms]: `k · period_ms` (saturating).
pub fn sample_time_ms(k: usize, period_ms: u64) -> u64 {
    u64::try_from(k)
        .unwrap_or(u64::MAX)
        .saturating_mul(period_ms)
}

/// The send time of every point of a path of `points` points [ms], the first at 0.
pub fn sample_times_ms(points: usize, period_ms: u64) -> Vec<u64> {
    (0..points).map(|k| sample_time_ms(k, period_ms)).collect()
}

/// Time from the first to the last set-point of a path of `points` points [ms]:
/// `(points − 1) · period_ms`, i.e. `N · period_ms`; 0 for one point or none.
pub fn duration_ms(points: usize, period_ms: u64) -> u64 {
    sample_time_ms(points.saturating_sub(1), period_ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn shape_is_exact_at_both_ends() {
        assert_eq!(shape(-1.0), 0.0);
        assert_eq!(shape(1.0), 1.0);
        assert_eq!(shape(0.0), 0.5);
    }

    #[test]
    fn shape_matches_the_s_form() {
        for i in 0..=100 {
            let s = f64::from(i) / 100.0;
            let p = 10.0 * s.powi(3) - 15.0 * s.powi(4) + 6.0 * s.powi(5);
            assert!((shape(2.0 * s - 1.0) - p).abs() < 1e-12);
        }
    }

    #[test]
    fn zero_distance_is_one_point() {
        let p = Point3::new(1.0, 2.0, 3.0);
        assert_eq!(plan(p, p, 1), vec![p]);
        assert_eq!(plan(p, p + Vector3::new(5.0, 0.0, 0.0), 0).len(), 1);
    }

    #[test]
    fn non_finite_or_huge_input_is_a_value_not_a_panic() {
        let o = Point3::origin();
        let nan = Point3::new(f64::NAN, 0.0, 0.0);
        assert!(matches!(
            try_plan(o, nan, 1),
            Err(TrajectoryError::TooManySamples { .. })
        ));
        let far = Point3::new(1e12, 0.0, 0.0);
        assert!(try_plan(o, far, 1).is_err());
        assert_eq!(plan(o, far, 1), vec![far]);
    }

    #[test]
    fn timing_helpers() {
        assert_eq!(sample_times_ms(4, 35), vec![0, 35, 70, 105]);
        assert_eq!(duration_ms(301, 35), 10_500);
        assert_eq!(duration_ms(1, 35), 0);
        assert_eq!(duration_ms(0, 35), 0);
    }

    fn coord() -> impl Strategy<Value = f64> {
        -1000.0f64..1000.0
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn count_ends_and_monotonic_progress(
            (sx, sy, sz, gx, gy, gz) in (coord(), coord(), coord(), coord(), coord(), coord()),
            factor in 1u32..4,
        ) {
            let (s, g) = (Point3::new(sx, sy, sz), Point3::new(gx, gy, gz));
            let pts = plan(s, g, factor);
            let n = ((g - s).norm().ceil() as usize) * factor as usize;
            prop_assert_eq!(pts.len(), n + 1);
            prop_assert_eq!(pts[0], s);
            prop_assert_eq!(*pts.last().unwrap(), g);
            // Distance to the goal never grows along the path.
            let d: Vec<f64> = pts.iter().map(|p| (g - p).norm()).collect();
            for w in d.windows(2) {
                prop_assert!(w[1] <= w[0] + 1e-9);
            }
            // No step is longer than the peak speed allows (15/8 · distance / N).
            if n > 0 {
                let max_step = 15.0 / 8.0 * (g - s).norm() / n as f64 + 1e-9;
                for w in pts.windows(2) {
                    prop_assert!((w[1] - w[0]).norm() <= max_step);
                }
            }
        }
    }
}
