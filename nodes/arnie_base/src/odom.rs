//! The base's frames by REP 105 and its odometry's uncertainty, without ROS.
//!
//! - The motor board integrates its wheels into a pose: that pose lives in the `odom`
//!   frame (continuous, drifting). [`MapOdom`] is `map` → `odom`: identity at start (the
//!   board starts at its start pose in table coordinates, so both frames coincide), moved
//!   by a later pose estimate ([`MapOdom::relocate`]) so that the robot's pose in `map` is
//!   the estimate while odometry goes on unchanged.
//! - [`OdomCovariance`] turns the board's noise model into the covariances of
//!   `nav_msgs/Odometry`: after driving a distance `d` the position error's standard
//!   deviation is `linear`·√d (per axis), after turning `|Δθ|` the heading's is
//!   `angular`·√|Δθ| (the simulated board's model, `arnie_table::board`; a real board's
//!   figures are parameters). Variances add up along the way; a floor keeps them above
//!   zero at the start (a zero covariance claims a perfect pose, which filters refuse).
//!   Axes a planar base does not measure (z, roll, pitch) get [`UNMEASURED`].
use crate::geom::{wrap_angle, Pose2};

/// The variance given to axes a planar base does not measure (z, roll, pitch), as
/// diff_drive_controller's configurations do: "unknown" rather than "exactly zero".
pub const UNMEASURED: f64 = 1.0e6;

/// `map` → `odom`: where the odometry frame lies in the map.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MapOdom {
    /// The `odom` frame's origin and heading in `map`.
    pub origin: Pose2,
}

impl MapOdom {
    /// A pose in `odom` → the same pose in `map`.
    pub fn to_map(&self, odom: &Pose2) -> Pose2 {
        Pose2::compose(&self.origin, odom)
    }

    /// A point in `odom` → the same point in `map`.
    pub fn point_to_map(&self, p: (f64, f64)) -> (f64, f64) {
        let q = self.to_map(&Pose2::new(p.0, p.1, 0.0));
        (q.x, q.y)
    }

    /// Moves `odom` in `map` so that the robot, at `odom_pose` by odometry, is at
    /// `map_pose`. Returns `false` (and changes nothing) when either pose is not finite.
    pub fn relocate(&mut self, map_pose: &Pose2, odom_pose: &Pose2) -> bool {
        if !(map_pose.is_finite() && odom_pose.is_finite()) {
            return false;
        }
        let theta = wrap_angle(map_pose.theta - odom_pose.theta);
        let (s, c) = theta.sin_cos();
        self.origin = Pose2 {
            x: map_pose.x - (c * odom_pose.x - s * odom_pose.y),
            y: map_pose.y - (s * odom_pose.x + c * odom_pose.y),
            theta,
        };
        true
    }
}

/// The board's odometry noise model (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OdomNoise {
    /// Position error's standard deviation per √metre driven [m/√m].
    pub linear: f64,
    /// Heading error's standard deviation per √radian turned [rad/√rad].
    pub angular: f64,
    /// The smallest position standard deviation reported [m].
    pub min_position_m: f64,
    /// The smallest heading standard deviation reported [rad].
    pub min_heading_rad: f64,
    /// The board's speed resolution (1 mm/s, 1 mrad/s): the floor of the twist's
    /// standard deviation [m/s, rad/s].
    pub speed_resolution: f64,
}

impl Default for OdomNoise {
    /// The shipped simulated board's (`params/eurobot/table.json`: 0.01 and 0.005), 1 mm
    /// and 1 mrad floors, the packet's 1 mm/s resolution.
    fn default() -> Self {
        OdomNoise {
            linear: 0.01,
            angular: 0.005,
            min_position_m: 0.001,
            min_heading_rad: 0.001,
            speed_resolution: 0.001,
        }
    }
}

/// A figure of the odometry noise model refused ([`OdomNoise::check`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error(
    "{name}: {value} must be finite and {}",
    if *.positive { "above 0" } else { "at least 0" }
)]
pub struct OdomNoiseError {
    /// The figure's parameter name.
    pub name: &'static str,
    /// Its value.
    pub value: f64,
    /// Whether it must be above zero (a floor), else at least zero.
    pub positive: bool,
}

impl OdomNoise {
    /// Every figure finite, not negative, floors above zero.
    ///
    /// # Errors
    /// The first figure that is not, named.
    pub fn check(&self) -> Result<(), OdomNoiseError> {
        for (name, v, positive) in [
            ("odom_linear_noise", self.linear, false),
            ("odom_angular_noise", self.angular, false),
            ("odom_min_position_stddev_m", self.min_position_m, true),
            ("odom_min_heading_stddev_rad", self.min_heading_rad, true),
        ] {
            if !v.is_finite() || v < 0.0 || (positive && v == 0.0) {
                return Err(OdomNoiseError {
                    name,
                    value: v,
                    positive,
                });
            }
        }
        Ok(())
    }
}

/// Accumulates distance driven and angle turned along the odometry and gives the
/// covariances of each sample (row-major 6×6: x, y, z, roll, pitch, yaw).
#[derive(Clone, Debug, Default)]
pub struct OdomCovariance {
    noise: Option<OdomNoise>,
    last: Option<Pose2>,
    driven_m: f64,
    turned_rad: f64,
}

impl OdomCovariance {
    /// A tracker for a board with this noise model.
    pub fn new(noise: OdomNoise) -> Self {
        OdomCovariance {
            noise: Some(noise),
            ..Default::default()
        }
    }

    /// Takes one odometry pose (a non-finite one is ignored: the caller drops it).
    pub fn on_pose(&mut self, p: &Pose2) {
        if !p.is_finite() {
            return;
        }
        if let Some(l) = self.last {
            self.driven_m += (p.x - l.x).hypot(p.y - l.y);
            self.turned_rad += wrap_angle(p.theta - l.theta).abs();
        }
        self.last = Some(*p);
    }

    /// Distance driven and angle turned so far [m, rad].
    pub fn travelled(&self) -> (f64, f64) {
        (self.driven_m, self.turned_rad)
    }

    /// The pose covariance now.
    pub fn pose(&self) -> [f64; 36] {
        let n = self.noise.unwrap_or_default();
        let xy = (n.linear * n.linear * self.driven_m).max(n.min_position_m.powi(2));
        let yaw = (n.angular * n.angular * self.turned_rad).max(n.min_heading_rad.powi(2));
        diagonal([xy, xy, UNMEASURED, UNMEASURED, UNMEASURED, yaw])
    }

    /// The twist covariance of a sample measured at `v` [m/s], `w` [rad/s] (the noise
    /// model's fractions of the speeds, never below the packet's resolution).
    pub fn twist(&self, v: f64, w: f64) -> [f64; 36] {
        let n = self.noise.unwrap_or_default();
        let floor = n.speed_resolution.powi(2);
        let vx = (n.linear * v).powi(2).max(floor);
        let wz = (n.angular * w).powi(2).max(floor);
        diagonal([vx, floor, UNMEASURED, UNMEASURED, UNMEASURED, wz])
    }
}

/// A planar pose covariance (6×6, row-major, x y z roll pitch yaw) seen from a frame
/// rotated by `theta` (the `odom` covariance in `map`, `map` → `odom` turning by
/// `theta`): the x/y block becomes `R·C·Rᵀ` and the x/y-yaw terms `R·c`; the rest is
/// unchanged.
pub fn rotate_covariance(cov: &[f64; 36], theta: f64) -> [f64; 36] {
    let (s, c) = theta.sin_cos();
    let mut out = *cov;
    let (xx, xy, yx, yy) = (cov[0], cov[1], cov[6], cov[7]);
    out[0] = c * c * xx - c * s * (xy + yx) + s * s * yy;
    out[7] = s * s * xx + c * s * (xy + yx) + c * c * yy;
    out[1] = c * s * (xx - yy) + c * c * xy - s * s * yx;
    out[6] = c * s * (xx - yy) + c * c * yx - s * s * xy;
    let (xw, yw) = (cov[5], cov[11]);
    out[5] = c * xw - s * yw;
    out[11] = s * xw + c * yw;
    let (wx, wy) = (cov[30], cov[31]);
    out[30] = c * wx - s * wy;
    out[31] = s * wx + c * wy;
    out
}

fn diagonal(d: [f64; 6]) -> [f64; 36] {
    let mut m = [0.0; 36];
    for (i, v) in d.into_iter().enumerate() {
        m[i * 7] = v;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_covariance_rotates_with_its_frame() {
        let mut cov = [0.0; 36];
        cov[0] = 4.0; // x
        cov[7] = 1.0; // y
        cov[35] = 0.5;
        let r = rotate_covariance(&cov, std::f64::consts::FRAC_PI_2);
        assert!((r[0] - 1.0).abs() < 1e-12 && (r[7] - 4.0).abs() < 1e-12);
        assert!(r[1].abs() < 1e-12 && r[6].abs() < 1e-12);
        assert_eq!(r[35], 0.5);
        let r = rotate_covariance(&cov, std::f64::consts::FRAC_PI_4);
        assert!((r[0] - 2.5).abs() < 1e-12 && (r[1] - 1.5).abs() < 1e-12 && r[1] == r[6]);
    }
    use std::f64::consts::FRAC_PI_2;

    fn close(a: &Pose2, b: &Pose2) -> bool {
        (a.x - b.x).abs() < 1e-12
            && (a.y - b.y).abs() < 1e-12
            && wrap_angle(a.theta - b.theta).abs() < 1e-12
    }

    #[test]
    fn map_and_odom_coincide_until_relocated() {
        let mut m = MapOdom::default();
        let p = Pose2::new(0.3, 1.0, 0.2);
        assert!(close(&m.to_map(&p), &p));
        let estimate = Pose2::new(1.0, 0.5, FRAC_PI_2);
        assert!(m.relocate(&estimate, &p));
        assert!(close(&m.to_map(&p), &estimate));
        // Driving 1 m straight ahead in odom is 1 m along the estimate's heading in map.
        let ahead = Pose2::new(p.x + p.theta.cos(), p.y + p.theta.sin(), p.theta);
        assert!(close(&m.to_map(&ahead), &Pose2::new(1.0, 1.5, FRAC_PI_2)));
        let before = m;
        assert!(!m.relocate(&Pose2::new(f64::NAN, 0.0, 0.0), &p));
        assert_eq!(m, before);
    }

    #[test]
    fn variances_grow_with_distance_and_turn_and_never_are_zero() {
        let noise = OdomNoise::default();
        let mut c = OdomCovariance::new(noise);
        c.on_pose(&Pose2::new(0.0, 0.0, 0.0));
        let start = c.pose();
        assert_eq!(start[0], 1e-6, "the 1 mm floor");
        assert_eq!(start[35], 1e-6, "the 1 mrad floor");
        assert_eq!(start[14], UNMEASURED);
        c.on_pose(&Pose2::new(4.0, 0.0, 0.0));
        c.on_pose(&Pose2::new(4.0, 0.0, 2.0));
        c.on_pose(&Pose2::new(4.0, 0.0, 0.0));
        assert_eq!(c.travelled(), (4.0, 4.0));
        let p = c.pose();
        assert!(
            (p[0] - 0.01 * 0.01 * 4.0).abs() < 1e-15,
            "σ = 0.01·√4 = 2 cm"
        );
        assert_eq!(p[0], p[7]);
        assert!((p[35] - 0.005 * 0.005 * 4.0).abs() < 1e-15);
        assert!(c.pose().iter().all(|v| v.is_finite() && *v >= 0.0));
        c.on_pose(&Pose2::new(f64::NAN, 0.0, 0.0));
        assert_eq!(c.travelled(), (4.0, 4.0), "a NaN pose adds nothing");
        let t = c.twist(0.5, 0.0);
        assert!((t[0] - 0.005f64.powi(2)).abs() < 1e-15);
        assert_eq!(t[35], 1e-6);
    }

    #[test]
    fn a_noise_model_is_checked() {
        assert!(OdomNoise::default().check().is_ok());
        let bad = OdomNoise {
            min_position_m: 0.0,
            ..OdomNoise::default()
        };
        assert!(bad
            .check()
            .unwrap_err()
            .to_string()
            .contains("odom_min_position_stddev_m"));
        let nan = OdomNoise {
            linear: f64::NAN,
            ..OdomNoise::default()
        };
        assert!(nan
            .check()
            .unwrap_err()
            .to_string()
            .contains("odom_linear_noise"));
    }
}
