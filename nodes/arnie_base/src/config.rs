//! [`BaseConfig`]: the follower's and the state machine's settings, checked once
//! ([`BaseConfig::check`]); with feature `ros` the node declares a ROS parameter of the
//! same name for each (`ros::params`: type, default, range, when a change takes effect).

/// Everything the navigator needs to know. Units are in the names.
///
/// The node's ROS parameters of the same names (feature `ros`: `ros::params::BaseParams`,
/// with the glue's own few) take their defaults from [`BaseConfig::default`] and their
/// ranges from [`BaseConfig::check`], which checks the whole set at start and on every
/// `ros2 param set`.
#[derive(Clone, Debug, PartialEq)]
pub struct BaseConfig {
    /// Top linear speed commanded [m/s]
    pub max_speed_mps: f64,
    /// Lowest linear speed while driving [m/s]
    ///
    /// So the robot never creeps.
    pub min_speed_mps: f64,
    /// Top turn rate commanded [rad/s]
    pub max_turn_rps: f64,
    /// Lowest turn rate while turning in place [rad/s]
    pub min_turn_rps: f64,
    /// Deceleration of the speed profile before a stop [m/s^2]
    ///
    /// The profile plans v = sqrt(2 a d) before a stop.
    pub decel_mps2: f64,
    /// Heading gain while driving [1/s]
    ///
    /// w = k · heading error.
    pub heading_gain: f64,
    /// Turn gain in place [1/s]
    ///
    /// w = k · heading error.
    pub turn_gain: f64,
    /// Heading error above which the robot turns in place [rad]
    ///
    /// The robot stops and turns in place.
    pub turn_in_place_above_rad: f64,
    /// Goal reached within this distance [m]
    pub goal_tolerance_m: f64,
    /// Intermediate waypoint passed within this distance [m]
    pub waypoint_tolerance_m: f64,
    /// Final heading reached within this error [rad]
    ///
    /// Goals with `use_heading` only.
    pub heading_tolerance_rad: f64,
    /// No odometry for this long: motors stopped, goal LINK_LOST [s]
    ///
    /// Default 1.0 s, sized for a serial link with 5 % of its bytes corrupted: an
    /// `Odometry` UART frame is 18 bytes, intact with p = 0.95¹⁸ ≈ 0.397; at 50 Hz a
    /// timeout of T seconds spans 50·T frames, all lost with probability
    /// (1 − p)^(50·T) = 0.603^(50·T): 3.2·10⁻⁶ for T = 0.5 s (about 0.006 false LINK_LOST per
    /// 90 s match: 4500 frames × p × 0.603²⁵), 1.0·10⁻¹¹ for T = 1.0 s (about 2·10⁻⁸ per
    /// match), which also leaves room for a loaded host's scheduling hiccups. A dead
    /// board still ends the goal LINK_LOST within 1 s (its own watchdog has stopped the
    /// motors after 300 ms without `DriveSpeed`).
    pub link_timeout_s: f64,
    /// Progress needed along the path ... [m]
    ///
    /// The robot must get this much closer to the goal (along the path) within
    /// `progress_timeout_s` while commanded to move.
    pub progress_min_m: f64,
    /// ... within this long, else blocked [s]
    ///
    /// Without `progress_min_m` of progress in this time the robot counts as blocked.
    pub progress_timeout_s: f64,
    /// Failures tolerated per goal; one more returns BLOCKED
    ///
    /// Failures: obstacle reports, no progress, failed re-plans.
    pub max_failures: u32,
    /// An obstacle report closer than this (from the robot's edge) stops the robot [m]
    pub obstacle_stop_distance_m: f64,
    /// Only obstacles within this angle of the heading count [rad]
    ///
    /// The angle from the direction of travel.
    pub obstacle_cone_rad: f64,
    /// Radius of the disc marked on the planner's map for an obstacle [m]
    pub obstacle_radius_m: f64,
    /// Marks expire after this long, 0 = never [s]
    ///
    /// A passing opponent is forgotten.
    pub mark_ttl_s: f64,
    /// The robot's radius (marks keep this far plus their radius from its centre) [m]
    ///
    /// The planner's inflation: marks are kept at least this far plus their radius from
    /// the robot's centre, so the start cell stays free.
    pub robot_radius_m: f64,
    /// Sensor hits this close to the map's own obstacles are ignored [m]
    ///
    /// Hits near the known map (walls, fixed obstacles) are not obstacles to mark.
    pub known_obstacle_margin_m: f64,
    /// Wait after a failure before planning again [s]
    ///
    /// The opponent may move.
    pub replan_delay_s: f64,
    /// Feedback at most this often [s]
    pub feedback_period_s: f64,
    /// At the goal, wait at most this long for the board to report it is still before REACHED [s]
    ///
    /// Stop is repeated with every odometry sample meanwhile.
    pub settle_timeout_s: f64,
    /// Stop for the opponent seen in the LiDAR's scan; scans are then required
    ///
    /// The gate of [`crate::avoid`]: the zone ahead, marks, re-plans; no scan for
    /// `scan_timeout_s` ends a goal LINK_LOST.
    pub scan_avoidance: bool,
    /// Scan points in the zone ahead that block it (RobotikUTT: 20)
    pub scan_min_points: u32,
    /// The zone must stay clear this long before the robot drives again [s]
    pub scan_clear_hold_s: f64,
    /// The zone's width beyond the robot's on each side [m]
    pub scan_zone_margin_m: f64,
    /// The zone's length beyond the robot's edge when still [m]
    pub scan_zone_base_m: f64,
    /// Added to the zone per m/s of speed: a scan's age and the reaction [s]
    pub scan_reaction_s: f64,
    /// The board's braking, for the zone's stopping distance v^2 / (2 a) [m/s^2]
    pub scan_stop_decel_mps2: f64,
    /// Marks of the opponent seen in the scan expire after this long [s]
    pub scan_mark_ttl_s: f64,
    /// No scan for this long: motors stopped, goal LINK_LOST (with scan_avoidance) [s]
    pub scan_timeout_s: f64,
}

impl Default for BaseConfig {
    fn default() -> Self {
        BaseConfig {
            max_speed_mps: 0.5,
            min_speed_mps: 0.05,
            max_turn_rps: 2.0,
            min_turn_rps: 0.3,
            decel_mps2: 0.8,
            heading_gain: 3.0,
            turn_gain: 4.0,
            turn_in_place_above_rad: 0.35,
            goal_tolerance_m: 0.03,
            waypoint_tolerance_m: 0.05,
            heading_tolerance_rad: 0.05,
            link_timeout_s: 1.0,
            progress_min_m: 0.02,
            progress_timeout_s: 2.0,
            max_failures: 3,
            obstacle_stop_distance_m: 0.2,
            obstacle_cone_rad: 0.6,
            obstacle_radius_m: 0.2,
            mark_ttl_s: 5.0,
            robot_radius_m: 0.15,
            known_obstacle_margin_m: 0.06,
            replan_delay_s: 0.5,
            feedback_period_s: 0.1,
            settle_timeout_s: 1.0,
            scan_avoidance: false,
            scan_min_points: 20,
            scan_clear_hold_s: 1.0,
            scan_zone_margin_m: 0.05,
            scan_zone_base_m: 0.15,
            scan_reaction_s: 0.25,
            scan_stop_decel_mps2: 2.0,
            scan_mark_ttl_s: 2.0,
            scan_timeout_s: 0.5,
        }
    }
}

/// A setting that cannot be used: `name` names it (the ROS parameter of the same name);
/// the workspace's one shape, `glue_core`'s, shown `name: reason`.
pub use glue_core::ConfigError;

fn range(field: &'static str, v: f64, lo: f64, hi: f64) -> Result<(), ConfigError> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(ConfigError::new(
            field,
            format!("{v} is not in {lo}..={hi}"),
        ))
    }
}

impl BaseConfig {
    /// Checks every setting's range (and `min_* <= max_*`).
    ///
    /// # Errors
    /// The first bad setting.
    pub fn check(&self) -> Result<(), ConfigError> {
        range("max_speed_mps", self.max_speed_mps, 0.01, 5.0)?;
        range("min_speed_mps", self.min_speed_mps, 0.0, self.max_speed_mps)?;
        range("max_turn_rps", self.max_turn_rps, 0.05, 20.0)?;
        range("min_turn_rps", self.min_turn_rps, 0.0, self.max_turn_rps)?;
        range("decel_mps2", self.decel_mps2, 0.01, 20.0)?;
        range("heading_gain", self.heading_gain, 0.0, 100.0)?;
        range("turn_gain", self.turn_gain, 0.01, 100.0)?;
        range(
            "turn_in_place_above_rad",
            self.turn_in_place_above_rad,
            0.01,
            3.2,
        )?;
        range("goal_tolerance_m", self.goal_tolerance_m, 0.001, 1.0)?;
        range(
            "waypoint_tolerance_m",
            self.waypoint_tolerance_m,
            0.001,
            1.0,
        )?;
        range(
            "heading_tolerance_rad",
            self.heading_tolerance_rad,
            0.001,
            1.0,
        )?;
        range("link_timeout_s", self.link_timeout_s, 0.02, 60.0)?;
        range("progress_min_m", self.progress_min_m, 0.0, 10.0)?;
        range("progress_timeout_s", self.progress_timeout_s, 0.05, 600.0)?;
        if self.max_failures > 1000 {
            return Err(ConfigError::new(
                "max_failures",
                format!("{} is not in 0..=1000", self.max_failures),
            ));
        }
        range(
            "obstacle_stop_distance_m",
            self.obstacle_stop_distance_m,
            0.0,
            10.0,
        )?;
        range(
            "obstacle_cone_rad",
            self.obstacle_cone_rad,
            0.0,
            std::f64::consts::PI,
        )?;
        range("obstacle_radius_m", self.obstacle_radius_m, 0.001, 5.0)?;
        range("mark_ttl_s", self.mark_ttl_s, 0.0, 3600.0)?;
        range("robot_radius_m", self.robot_radius_m, 0.0, 5.0)?;
        range(
            "known_obstacle_margin_m",
            self.known_obstacle_margin_m,
            0.0,
            1.0,
        )?;
        range("replan_delay_s", self.replan_delay_s, 0.0, 60.0)?;
        range("feedback_period_s", self.feedback_period_s, 0.0, 60.0)?;
        range("settle_timeout_s", self.settle_timeout_s, 0.0, 10.0)?;
        if !(1..=10_000).contains(&self.scan_min_points) {
            return Err(ConfigError::new(
                "scan_min_points",
                format!("{} is not in 1..=10000", self.scan_min_points),
            ));
        }
        range("scan_clear_hold_s", self.scan_clear_hold_s, 0.0, 60.0)?;
        range("scan_zone_margin_m", self.scan_zone_margin_m, 0.0, 1.0)?;
        range("scan_zone_base_m", self.scan_zone_base_m, 0.0, 5.0)?;
        range("scan_reaction_s", self.scan_reaction_s, 0.0, 5.0)?;
        range("scan_stop_decel_mps2", self.scan_stop_decel_mps2, 0.1, 50.0)?;
        range("scan_mark_ttl_s", self.scan_mark_ttl_s, 0.0, 3600.0)?;
        range("scan_timeout_s", self.scan_timeout_s, 0.05, 60.0)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_pass_and_bad_values_name_their_field() {
        BaseConfig::default().check().unwrap();
        // The documented sizing of link_timeout_s: 5 % byte loss, 18-byte frames, 50 Hz.
        let lost = 1.0 - 0.95_f64.powi(18);
        let t = BaseConfig::default().link_timeout_s;
        let p_silent = lost.powf(50.0 * t);
        assert!(p_silent < 1e-10, "{p_silent}");
        let bad = BaseConfig {
            min_speed_mps: 1.0,
            ..BaseConfig::default()
        };
        assert_eq!(bad.check().unwrap_err().name, "min_speed_mps");
        let bad = BaseConfig {
            link_timeout_s: f64::NAN,
            ..BaseConfig::default()
        };
        assert_eq!(bad.check().unwrap_err().name, "link_timeout_s");
        let bad = BaseConfig {
            max_failures: 5000,
            ..BaseConfig::default()
        };
        assert!(bad
            .check()
            .unwrap_err()
            .to_string()
            .contains("max_failures"));
    }
}
