//! Planar poses in the map frame: metres, radians counter-clockwise from +x (REP 103).

/// A pose on the table.
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
            theta: normalize(origin.theta + local.theta),
        }
    }
}

/// `a` folded into (-π, π].
pub fn normalize(a: f64) -> f64 {
    use std::f64::consts::PI;
    let r = (a + PI).rem_euclid(2.0 * PI) - PI;
    if r == -PI {
        PI
    } else {
        r
    }
}

/// Length of the polyline through `points` [m].
pub fn polyline_length(points: &[(f64, f64)]) -> f64 {
    points
        .windows(2)
        .map(|w| (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    #[test]
    fn angles_fold() {
        assert!((normalize(3.0 * PI) - PI).abs() < 1e-12);
        assert!((normalize(-PI) - PI).abs() < 1e-12);
        assert!((normalize(0.5 - 2.0 * PI) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn compose_rotates_then_shifts() {
        let o = Pose2::new(1.0, 2.0, PI / 2.0);
        let p = Pose2::compose(&o, &Pose2::new(1.0, 0.0, 0.0));
        assert!((p.x - 1.0).abs() < 1e-12 && (p.y - 3.0).abs() < 1e-12);
        assert!((p.theta - PI / 2.0).abs() < 1e-12);
        assert_eq!(polyline_length(&[(0.0, 0.0), (3.0, 4.0), (3.0, 5.0)]), 6.0);
    }
}
