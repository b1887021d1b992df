//! Golden vectors and physics of the minimum-jerk planner.

use arnie_trajectory::minjerk::{self, plan};
use nalgebra::Point3;

fn close(a: Point3<f64>, b: Point3<f64>, tol: f64) -> bool {
    (a - b).abs().max() <= tol
}

#[test]
fn three_four_five_triangle() {
    let pts = plan(Point3::origin(), Point3::new(3.0, 4.0, 0.0), 1);
    assert_eq!(pts.len(), 6, "N = ceil(5) = 5 → 6 points");
    assert_eq!(pts[0], Point3::origin());
    assert!(
        close(pts[1], Point3::new(0.17376, 0.23168, 0.0), 1e-5),
        "{:?}",
        pts[1]
    );
    assert!(
        close(pts[3], Point3::new(2.04768, 2.73024, 0.0), 1e-5),
        "{:?}",
        pts[3]
    );
    assert_eq!(pts[5], Point3::new(3.0, 4.0, 0.0));
}

/// PYT accumulated τ in floating point (τ += 2/N) and stopped when τ > 1, so rounding
/// often dropped the last set-point and the arm stopped short of the goal.
#[test]
fn pyt_emits_end_point() {
    let goal = Point3::new(0.0, 30.0, 0.0);
    let pts = plan(Point3::origin(), goal, 1);
    assert_eq!(pts.len(), 31);
    assert_eq!(*pts.last().unwrap(), goal);
    // And for awkward start/goal pairs where start + Δ·1 ≠ goal in floating point.
    for (s, g) in [
        (Point3::new(0.1, 0.2, 0.3), Point3::new(0.7, -0.3, 100.9)),
        (
            Point3::new(-333.3, 1e-9, 7.77),
            Point3::new(123.456, 654.321, -0.1),
        ),
    ] {
        for factor in [1, 3, 7] {
            let pts = plan(s, g, factor);
            let n = (g - s).norm().ceil() as usize * factor as usize;
            assert_eq!(pts.len(), n + 1);
            assert_eq!(*pts.last().unwrap(), g);
            assert_eq!(pts[0], s);
        }
    }
}

#[test]
fn factor_multiplies_the_samples() {
    let pts = plan(Point3::origin(), Point3::new(0.0, 0.0, 10.5), 4);
    assert_eq!(pts.len(), 11 * 4 + 1);
}

#[test]
fn tau_is_computed_from_k() {
    // Every point equals the closed form at τ_k = −1 + 2k/N exactly (no accumulation).
    let (s, g) = (Point3::new(1.0, 2.0, 3.0), Point3::new(250.0, -40.0, 99.0));
    let pts = plan(s, g, 1);
    let n = pts.len() - 1;
    for (k, p) in pts.iter().enumerate().take(n) {
        let tau = -1.0 + 2.0 / n as f64 * k as f64;
        assert_eq!(*p, s + (g - s) * minjerk::shape(tau));
    }
}

/// Velocity and acceleration, from finite differences of the samples and from the
/// derivative formulas, are zero at both ends.
#[test]
fn velocity_and_acceleration_vanish_at_the_ends() {
    let (s, g) = (Point3::origin(), Point3::new(300.0, 0.0, 0.0));
    let pts = plan(s, g, 10); // N = 3000
    let h = 1.0 / (pts.len() - 1) as f64; // in s-units (T = 1)
    let x: Vec<f64> = pts.iter().map(|p| p.x).collect();
    let n = x.len() - 1;
    let v0 = (x[1] - x[0]) / h;
    let v1 = (x[n] - x[n - 1]) / h;
    let a0 = (x[2] - 2.0 * x[1] + x[0]) / (h * h);
    let a1 = (x[n] - 2.0 * x[n - 1] + x[n - 2]) / (h * h);
    let peak_v = 300.0 * 15.0 / 8.0;
    assert!(
        v0.abs() < 1e-3 * peak_v && v1.abs() < 1e-3 * peak_v,
        "{v0} {v1}"
    );
    // Peak acceleration of the shape is 10/√3 ≈ 5.77 · Δ; the one-sided second difference
    // at the end is O(h) ≈ 60·h·Δ.
    assert!(
        a0.abs() < 0.05 * 300.0 && a1.abs() < 0.05 * 300.0,
        "{a0} {a1}"
    );
    for s in [0.0, 1.0] {
        assert_eq!(minjerk::shape_velocity(s), 0.0);
        assert_eq!(minjerk::shape_acceleration(s), 0.0);
    }
    // In the middle they are not zero: the test can fail.
    assert!(minjerk::shape_velocity(0.5) > 1.8);
}

/// ∫₀ᵀ jerk² dt of the sampled path equals the minimum-jerk optimum 720·Δ²/T⁵ (per axis).
#[test]
fn integrated_squared_jerk_is_the_closed_form_minimum() {
    let delta = Point3::new(120.0, -80.0, 45.0);
    let pts = plan(Point3::origin(), delta, 5);
    let n = pts.len() - 1;
    let t_total = 2.0; // seconds, arbitrary
    let dt = t_total / n as f64;
    for axis in 0..3 {
        let x: Vec<f64> = pts.iter().map(|p| p[axis]).collect();
        // The third difference j_i estimates the jerk at sample i + 1.5: midpoint rule
        // over the interior cells, the two end cells take the nearest estimate.
        let jerk: Vec<f64> = (0..n - 2)
            .map(|i| (x[i + 3] - 3.0 * x[i + 2] + 3.0 * x[i + 1] - x[i]) / dt.powi(3))
            .collect();
        let ends = jerk[0].powi(2) + jerk[n - 3].powi(2);
        let integral = (jerk.iter().map(|j| j * j).sum::<f64>() + ends) * dt;
        let d = delta[axis];
        let optimum = 720.0 * d * d / t_total.powi(5);
        let rel = (integral - optimum).abs() / optimum;
        assert!(rel < 0.01, "axis {axis}: {integral} vs {optimum} ({rel})");
    }
    // And the shape's own jerk formula integrates to 720 exactly (Simpson, exact for
    // polynomials of degree ≤ 3; jerk² is degree 4, so use many cells).
    let m = 1000;
    let h = 1.0 / m as f64;
    let mut simpson = 0.0;
    for i in 0..=m {
        let w = if i == 0 || i == m {
            1.0
        } else if i % 2 == 1 {
            4.0
        } else {
            2.0
        };
        simpson += w * minjerk::shape_jerk(i as f64 * h).powi(2);
    }
    simpson *= h / 3.0;
    assert!((simpson - 720.0).abs() < 1e-6, "{simpson}");
}
