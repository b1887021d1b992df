//! Planar poses: metres, radians counter-clockwise from +x (REP 103), and the one angle
//! wrap.
use std::f64::consts::{PI, TAU};

/// A pose on a plane (the table's `map` frame, or any other).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pose2 {
    /// [m]
    pub x: f64,
    /// [m]
    pub y: f64,
    /// Heading [rad], counter-clockwise from +x.
    pub theta: f64,
}

impl Pose2 {
    /// The pose at `(x, y)` facing `theta`.
    pub const fn new(x: f64, y: f64, theta: f64) -> Self {
        Pose2 { x, y, theta }
    }

    /// Whether every field is finite.
    pub fn is_finite(&self) -> bool {
        self.x.is_finite() && self.y.is_finite() && self.theta.is_finite()
    }

    /// Distance to the point `(x, y)` [m].
    pub fn distance_to(&self, p: (f64, f64)) -> f64 {
        (p.0 - self.x).hypot(p.1 - self.y)
    }

    /// Direction from this pose's position to `p` [rad, world].
    pub fn bearing_to(&self, p: (f64, f64)) -> f64 {
        (p.1 - self.y).atan2(p.0 - self.x)
    }

    /// The world point `distance` ahead along `theta + bearing`.
    pub fn ahead(&self, distance: f64, bearing: f64) -> (f64, f64) {
        let a = self.theta + bearing;
        (self.x + distance * a.cos(), self.y + distance * a.sin())
    }

    /// This pose (given in a frame whose origin is `origin` in the map) in the map frame.
    pub fn compose(origin: &Pose2, local: &Pose2) -> Pose2 {
        let (s, c) = origin.theta.sin_cos();
        Pose2 {
            x: origin.x + c * local.x - s * local.y,
            y: origin.y + s * local.x + c * local.y,
            theta: wrap_angle(origin.theta + local.theta),
        }
    }
}

/// `a` wrapped to (−π, π]: an angle already there is returned unchanged (bit for bit),
/// −π becomes π, NaN stays NaN and ±∞ give NaN.
pub fn wrap_angle(a: f64) -> f64 {
    if a > -PI && a <= PI {
        return a;
    }
    let w = a.rem_euclid(TAU);
    if w > PI {
        w - TAU
    } else {
        w
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn angles_wrap_into_minus_pi_to_pi() {
        assert_eq!(wrap_angle(PI), PI);
        assert_eq!(wrap_angle(-PI), PI);
        assert!((wrap_angle(3.0 * PI) - PI).abs() < 1e-12);
        assert!((wrap_angle(-3.0 * PI) - PI).abs() < 1e-12);
        assert!((wrap_angle(0.5 - 2.0 * PI) - 0.5).abs() < 1e-12);
        assert_eq!(wrap_angle(-0.5), -0.5);
        assert_eq!(wrap_angle(0.0), 0.0);
        // Just past ±π: to the other side, inside the interval.
        let past = wrap_angle(PI + 1e-9);
        assert!(past > -PI && (past + PI - 1e-9).abs() < 1e-12, "{past}");
        let before = wrap_angle(-PI - 1e-9);
        assert!(
            before <= PI && (before - PI + 1e-9).abs() < 1e-12,
            "{before}"
        );
        // Large angles stay in the interval.
        for a in [1e6, -1e6, 1e12, -1e12, 12_345.678, f64::MAX, f64::MIN] {
            let w = wrap_angle(a);
            assert!(w > -PI && w <= PI, "{a} -> {w}");
        }
        assert!((wrap_angle(1000.0 * TAU + 1.0) - 1.0).abs() < 1e-9);
        // Not a number in, not a number out (callers check finiteness).
        assert!(wrap_angle(f64::NAN).is_nan());
        assert!(wrap_angle(f64::INFINITY).is_nan());
        assert!(wrap_angle(f64::NEG_INFINITY).is_nan());
    }

    #[test]
    fn compose_rotates_then_shifts() {
        let o = Pose2::new(1.0, 2.0, PI / 2.0);
        let p = Pose2::compose(&o, &Pose2::new(1.0, 0.0, 0.0));
        assert!((p.x - 1.0).abs() < 1e-12 && (p.y - 3.0).abs() < 1e-12);
        assert!((p.theta - PI / 2.0).abs() < 1e-12);
        let q = Pose2::compose(&Pose2::new(0.0, 0.0, PI), &Pose2::new(0.0, 0.0, PI));
        assert!(q.theta.abs() < 1e-12);
        assert_eq!(Pose2::new(0.0, 0.0, 0.0).distance_to((3.0, 4.0)), 5.0);
        assert!(!Pose2::new(f64::NAN, 0.0, 0.0).is_finite());
    }
}
