//! The node's ROS parameters ([`BaseParams`]): the library's [`BaseConfig`] fields (the
//! navigator's settings, same names, units and defaults) and the glue's own few (frames,
//! periods, timeouts), flat at the top level, each declared once (type, default, range,
//! when a change takes effect).
//!
//! Checked at start and on every `ros2 param set` (node_glue's checked parameters: the
//! declared range first, then [`BaseParams::config`] over the whole set, e.g.
//! `min_speed_mps <= max_speed_mps`; a refused value gets the reason and changes nothing).
//! The navigator's parameters, `watchdog_ms` and `planner_timeout_s` are read at each
//! goal; `frame_id`, `child_frame_id`, `tick_ms` and `diagnostics_period_ms` are read only
//! at start.
use std::f64::consts::PI;

use crate::BaseConfig;

node_glue::declare_parameters! {
    /// ROS parameters: [`BaseConfig`]'s fields and the glue's own, flat names with units;
    /// defaults = [`BaseConfig::default`] and the glue's.
    pub(crate) struct BaseParams(d = BaseConfig::default()) {
        /// Top linear speed commanded [m/s]
        pub max_speed_mps: f64 = d.max_speed_mps, float(0.01, 5.0), "next goal";
        /// Lowest linear speed while driving, so the robot never creeps; at most max_speed_mps [m/s]
        pub min_speed_mps: f64 = d.min_speed_mps, float(0.0, 5.0), "next goal";
        /// Top turn rate commanded [rad/s]
        pub max_turn_rps: f64 = d.max_turn_rps, float(0.05, 20.0), "next goal";
        /// Lowest turn rate while turning in place; at most max_turn_rps [rad/s]
        pub min_turn_rps: f64 = d.min_turn_rps, float(0.0, 20.0), "next goal";
        /// Deceleration of the speed profile before a stop (v = sqrt(2 a d)) [m/s^2]
        pub decel_mps2: f64 = d.decel_mps2, float(0.01, 20.0), "next goal";
        /// Heading gain while driving (w = k · heading error) [1/s]
        pub heading_gain: f64 = d.heading_gain, float(0.0, 100.0), "next goal";
        /// Turn gain in place (w = k · heading error) [1/s]
        pub turn_gain: f64 = d.turn_gain, float(0.01, 100.0), "next goal";
        /// Heading error above which the robot stops and turns in place [rad]
        pub turn_in_place_above_rad: f64 = d.turn_in_place_above_rad, float(0.01, 3.2), "next goal";
        /// Goal reached within this distance [m]
        pub goal_tolerance_m: f64 = d.goal_tolerance_m, float(0.001, 1.0), "next goal";
        /// Intermediate waypoint passed within this distance [m]
        pub waypoint_tolerance_m: f64 = d.waypoint_tolerance_m, float(0.001, 1.0), "next goal";
        /// Final heading reached within this error (goals with use_heading) [rad]
        pub heading_tolerance_rad: f64 = d.heading_tolerance_rad, float(0.001, 1.0), "next goal";
        /// No odometry for this long: motors stopped, goal LINK_LOST [s]
        pub link_timeout_s: f64 = d.link_timeout_s, float(0.02, 60.0), "next goal";
        /// Progress needed along the path within progress_timeout_s while commanded to move [m]
        pub progress_min_m: f64 = d.progress_min_m, float(0.0, 10.0), "next goal";
        /// Without progress_min_m of progress for this long the robot counts as blocked [s]
        pub progress_timeout_s: f64 = d.progress_timeout_s, float(0.05, 600.0), "next goal";
        /// Failures tolerated per goal (obstacle reports, no progress, failed re-plans); one more returns BLOCKED
        pub max_failures: i64 = i64::from(d.max_failures), int(0, 1000), "next goal";
        /// An obstacle report closer than this (from the robot's edge) stops the robot [m]
        pub obstacle_stop_distance_m: f64 = d.obstacle_stop_distance_m, float(0.0, 10.0), "next goal";
        /// Only obstacles within this angle of the direction of travel count [rad]
        pub obstacle_cone_rad: f64 = d.obstacle_cone_rad, float(0.0, PI), "next goal";
        /// Radius of the disc marked on the planner's map for an obstacle [m]
        pub obstacle_radius_m: f64 = d.obstacle_radius_m, float(0.001, 5.0), "next goal";
        /// Marks expire after this long (a passing opponent is forgotten), 0 = never [s]
        pub mark_ttl_s: f64 = d.mark_ttl_s, float(0.0, 3600.0), "next goal";
        /// The robot's radius (marks keep this far plus their radius from its centre) [m]
        pub robot_radius_m: f64 = d.robot_radius_m, float(0.0, 5.0), "next goal";
        /// Sensor hits this close to the map's own obstacles are ignored [m]
        pub known_obstacle_margin_m: f64 = d.known_obstacle_margin_m, float(0.0, 1.0), "next goal";
        /// Wait after a failure before planning again (the opponent may move) [s]
        pub replan_delay_s: f64 = d.replan_delay_s, float(0.0, 60.0), "next goal";
        /// Feedback at most this often [s]
        pub feedback_period_s: f64 = d.feedback_period_s, float(0.0, 60.0), "next goal";
        /// At the goal, wait at most this long for the board to report it is still before REACHED (Stop repeated meanwhile) [s]
        pub settle_timeout_s: f64 = d.settle_timeout_s, float(0.0, 10.0), "next goal";
        /// Stop for the opponent seen in the LiDAR's scan (the zone ahead, marks, re-plans); scans are then required: none for scan_timeout_s ends a goal LINK_LOST
        pub scan_avoidance: bool = d.scan_avoidance, any(), "next goal";
        /// Scan points in the zone ahead that block it (RobotikUTT's rule: 20)
        pub scan_min_points: i64 = i64::from(d.scan_min_points), int(1, 10_000), "next goal";
        /// The zone must stay clear this long before the robot drives again (RobotikUTT's rule: 1 s) [s]
        pub scan_clear_hold_s: f64 = d.scan_clear_hold_s, float(0.0, 60.0), "next goal";
        /// The zone's width beyond the robot's on each side [m]
        pub scan_zone_margin_m: f64 = d.scan_zone_margin_m, float(0.0, 1.0), "next goal";
        /// The zone's length beyond the robot's edge when still [m]
        pub scan_zone_base_m: f64 = d.scan_zone_base_m, float(0.0, 5.0), "next goal";
        /// Added to the zone's length per m/s: a scan's age and the reaction (length = base + |v| reaction + v^2 / (2 decel)) [s]
        pub scan_reaction_s: f64 = d.scan_reaction_s, float(0.0, 5.0), "next goal";
        /// The board's braking, for the zone's stopping distance [m/s^2]
        pub scan_stop_decel_mps2: f64 = d.scan_stop_decel_mps2, float(0.1, 50.0), "next goal";
        /// The opponent's marks from the scan expire after this long [s]
        pub scan_mark_ttl_s: f64 = d.scan_mark_ttl_s, float(0.0, 3600.0), "next goal";
        /// No scan for this long (with scan_avoidance): motors stopped, goal LINK_LOST, goals refused [s]
        pub scan_timeout_s: f64 = d.scan_timeout_s, float(0.05, 60.0), "next goal";
        /// The map frame (REP 105): base/pose, goals, the planner's paths and map; not empty
        pub frame_id: String = "map".into(), any(), "start only";
        /// The robot's frame (REP 105 base_link): odom's child_frame_id, the URDF's root; not empty
        pub child_frame_id: String = "base_link".into(), any(), "start only";
        /// The odometry frame (REP 105): odom's frame_id, parent of child_frame_id on /tf; not empty
        pub odom_frame_id: String = "odom".into(), any(), "start only";
        /// Publish odom -> base_link (each odometry packet) and map -> odom (same stamp) on /tf
        pub publish_tf: bool = true, any(), "start only";
        /// Board odometry: position error's standard deviation per square root of metre driven [m/sqrt(m)]
        pub odom_linear_noise: f64 = crate::OdomNoise::default().linear, float(0.0, 1.0), "start only";
        /// Board odometry: heading error's standard deviation per square root of radian turned [rad/sqrt(rad)]
        pub odom_angular_noise: f64 = crate::OdomNoise::default().angular, float(0.0, 1.0), "start only";
        /// Smallest position standard deviation in odom's covariance [m]
        pub odom_min_position_stddev_m: f64 = crate::OdomNoise::default().min_position_m, float(0.000001, 1.0), "start only";
        /// Smallest heading standard deviation in odom's covariance [rad]
        pub odom_min_heading_stddev_rad: f64 = crate::OdomNoise::default().min_heading_rad, float(0.000001, 1.0), "start only";
        /// Frame of each proximity sensor, by the board's sensor index (sensor_msgs/Range on base/range); a sensor beyond the list is dropped and counted
        pub range_frames: node_glue::params::Strings = default_range_frames(), any(), "start only";
        /// Each sensor's reach beyond the robot's edge, by index (Range max_range; the scenario's range_m) [m]
        pub range_max_m: node_glue::params::Doubles = vec![0.35, 0.3, 0.3, 0.25].into(), any(), "start only";
        /// Field of view of every proximity sensor (Range field_of_view) [rad]
        pub range_field_of_view_rad: f64 = 0.05, float(0.0, 3.15), "start only";
        /// cmd_vel is geometry_msgs/TwistStamped; false: plain geometry_msgs/Twist (Jazzy's teleop and Nav2 default); a publisher of the other type is logged once and counted
        pub cmd_vel_stamped: bool = false, any(), "start only";
        /// No cmd_vel for this long stops the base (one Stop; manual driving ends) [s]
        pub cmd_vel_timeout_s: f64 = crate::TeleopLimits::default().timeout_s, float(0.01, 10.0), "next command";
        /// Top linear speed from cmd_vel (faster commands are clamped and counted) [m/s]
        pub cmd_vel_max_linear_mps: f64 = crate::TeleopLimits::default().max_linear_mps, float(0.01, 5.0), "next command";
        /// Top turn rate from cmd_vel (faster commands are clamped and counted) [rad/s]
        pub cmd_vel_max_angular_rps: f64 = crate::TeleopLimits::default().max_angular_rps, float(0.05, 20.0), "next command";
        /// Linear acceleration limit of manual driving [m/s^2]
        pub cmd_vel_max_linear_accel_mps2: f64 = crate::TeleopLimits::default().max_linear_accel_mps2, float(0.01, 20.0), "next command";
        /// Angular acceleration limit of manual driving [rad/s^2]
        pub cmd_vel_max_angular_accel_rps2: f64 = crate::TeleopLimits::default().max_angular_accel_rps2, float(0.01, 100.0), "next command";
        /// Watchdog asked of the board in each DriveSpeed, 0 = the board's default [ms]
        pub watchdog_ms: i64 = 0, int(0, 65_535), "next goal";
        /// Period of the watchdog / re-plan check [ms]
        pub tick_ms: i64 = 20, int(1, 1000), "start only";
        /// Wait this long for the planner's answer (plan_path, update_map); more than 0 [s]
        pub planner_timeout_s: f64 = 5.0, float(0.0, 600.0), "next goal";
        /// Period of /diagnostics [ms]
        pub diagnostics_period_ms: i64 = 1000, int(1, 60_000), "start only";
        /// follow_waypoints ends ABORTED at the first missed waypoint; false: goes on and lists it in missed_waypoints (Nav2's bringup setting)
        pub stop_on_failure: bool = false, any(), "next goal";
        /// amcl_pose (the localizer's pose, AMCL's topic and QoS) at most this often; 0 = with every odometry packet [s]
        pub localizer_pose_period_s: f64 = 0.1, float(0.0, 60.0), "start only";
        /// Set the robot's pose in the map frame at start from initial_pose_x/y/yaw (AMCL's set_initial_pose; applied with the first odometry)
        pub set_initial_pose: bool = false, any(), "start only";
        /// The initial pose's x in the map frame (set_initial_pose) [m]
        pub initial_pose_x: f64 = 0.0, float(-1000.0, 1000.0), "start only";
        /// The initial pose's y in the map frame (set_initial_pose) [m]
        pub initial_pose_y: f64 = 0.0, float(-1000.0, 1000.0), "start only";
        /// The initial pose's heading in the map frame (set_initial_pose) [rad]
        pub initial_pose_yaw: f64 = 0.0, float(-7.0, 7.0), "start only";
    }
}

fn default_range_frames() -> node_glue::params::Strings {
    [
        "range_front",
        "range_front_left",
        "range_front_right",
        "range_rear",
    ]
    .map(String::from)
    .to_vec()
    .into()
}

/// Why the parameters do not make the node's config (its `Display` is the reason the
/// node exits with, or `ros2 param set` prints).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum ParamsError {
    /// `max_failures` is not a count.
    #[error("max_failures: {0} is not in 0..=1000")]
    MaxFailures(i64),
    /// The navigator's config refused a value.
    #[error("{0}")]
    Config(#[from] glue_core::ConfigError),
    /// An integer parameter outside its range.
    #[error("{name}: {value} is not in {lo}..={hi}")]
    Outside {
        /// The parameter.
        name: &'static str,
        /// Its value.
        value: i64,
        /// The lowest allowed.
        lo: i64,
        /// The highest allowed.
        hi: i64,
    },
    /// `planner_timeout_s` outside (0, 600].
    #[error("planner_timeout_s: {0} is not in (0, 600]")]
    PlannerTimeout(f64),
    /// A frame parameter left empty.
    #[error("{0}: must not be empty")]
    EmptyFrame(&'static str),
    /// `odom_frame_id` equal to `frame_id` or `child_frame_id`.
    #[error("odom_frame_id: '{0}' must differ from frame_id and child_frame_id (REP 105: map -> odom -> base_link)")]
    OdomFrame(String),
    /// The odometry noise model refused a figure.
    #[error("{0}")]
    Noise(#[from] crate::OdomNoiseError),
    /// A manual-driving limit refused.
    #[error("{0}")]
    Teleop(#[from] crate::TeleopLimitsError),
    /// A range sensor's reach not above 0.
    #[error("range_max_m: {0} is not a reach above 0")]
    RangeMax(f64),
    /// A range sensor's frame left empty.
    #[error("range_frames: {0:?}: a frame must not be empty")]
    RangeFrame(String),
    /// The parameter struct's lock was poisoned (a thread panicked holding it).
    #[error("poisoned")]
    Poisoned,
}

impl BaseParams {
    /// The library's config, checked, and the glue's own values checked (the whole set:
    /// the declared ranges are checked before it).
    pub(crate) fn config(&self) -> Result<BaseConfig, ParamsError> {
        let max_failures = u32::try_from(self.max_failures)
            .map_err(|_| ParamsError::MaxFailures(self.max_failures))?;
        let nav = BaseConfig {
            max_speed_mps: self.max_speed_mps,
            min_speed_mps: self.min_speed_mps,
            max_turn_rps: self.max_turn_rps,
            min_turn_rps: self.min_turn_rps,
            decel_mps2: self.decel_mps2,
            heading_gain: self.heading_gain,
            turn_gain: self.turn_gain,
            turn_in_place_above_rad: self.turn_in_place_above_rad,
            goal_tolerance_m: self.goal_tolerance_m,
            waypoint_tolerance_m: self.waypoint_tolerance_m,
            heading_tolerance_rad: self.heading_tolerance_rad,
            link_timeout_s: self.link_timeout_s,
            progress_min_m: self.progress_min_m,
            progress_timeout_s: self.progress_timeout_s,
            max_failures,
            obstacle_stop_distance_m: self.obstacle_stop_distance_m,
            obstacle_cone_rad: self.obstacle_cone_rad,
            obstacle_radius_m: self.obstacle_radius_m,
            mark_ttl_s: self.mark_ttl_s,
            robot_radius_m: self.robot_radius_m,
            known_obstacle_margin_m: self.known_obstacle_margin_m,
            replan_delay_s: self.replan_delay_s,
            feedback_period_s: self.feedback_period_s,
            settle_timeout_s: self.settle_timeout_s,
            scan_avoidance: self.scan_avoidance,
            scan_min_points: u32::try_from(self.scan_min_points).unwrap_or(0),
            scan_clear_hold_s: self.scan_clear_hold_s,
            scan_zone_margin_m: self.scan_zone_margin_m,
            scan_zone_base_m: self.scan_zone_base_m,
            scan_reaction_s: self.scan_reaction_s,
            scan_stop_decel_mps2: self.scan_stop_decel_mps2,
            scan_mark_ttl_s: self.scan_mark_ttl_s,
            scan_timeout_s: self.scan_timeout_s,
        };
        nav.check()?;
        let ranged = |name: &'static str, value: i64, lo: i64, hi: i64| {
            if (lo..=hi).contains(&value) {
                Ok(())
            } else {
                Err(ParamsError::Outside {
                    name,
                    value,
                    lo,
                    hi,
                })
            }
        };
        ranged("watchdog_ms", self.watchdog_ms, 0, 65_535)?;
        ranged("tick_ms", self.tick_ms, 1, 1000)?;
        ranged(
            "diagnostics_period_ms",
            self.diagnostics_period_ms,
            1,
            60_000,
        )?;
        if !(self.planner_timeout_s.is_finite()
            && self.planner_timeout_s > 0.0
            && self.planner_timeout_s <= 600.0)
        {
            return Err(ParamsError::PlannerTimeout(self.planner_timeout_s));
        }
        for (name, frame) in [
            ("frame_id", &self.frame_id),
            ("child_frame_id", &self.child_frame_id),
            ("odom_frame_id", &self.odom_frame_id),
        ] {
            if frame.is_empty() {
                return Err(ParamsError::EmptyFrame(name));
            }
        }
        if self.odom_frame_id == self.frame_id || self.odom_frame_id == self.child_frame_id {
            return Err(ParamsError::OdomFrame(self.odom_frame_id.clone()));
        }
        self.noise().check()?;
        self.teleop_limits().check()?;
        if let Some(bad) = self
            .range_max_m
            .iter()
            .find(|m| !(m.is_finite() && **m > 0.0))
        {
            return Err(ParamsError::RangeMax(*bad));
        }
        if let Some(bad) = self.range_frames.iter().find(|f| f.is_empty()) {
            return Err(ParamsError::RangeFrame(bad.clone()));
        }
        Ok(nav)
    }

    /// The board's odometry noise model (checked by [`BaseParams::config`]).
    pub(crate) fn noise(&self) -> crate::OdomNoise {
        crate::OdomNoise {
            linear: self.odom_linear_noise,
            angular: self.odom_angular_noise,
            min_position_m: self.odom_min_position_stddev_m,
            min_heading_rad: self.odom_min_heading_stddev_rad,
            ..crate::OdomNoise::default()
        }
    }

    /// Manual driving's limits (checked by [`BaseParams::config`]).
    pub(crate) fn teleop_limits(&self) -> crate::TeleopLimits {
        crate::TeleopLimits {
            max_linear_mps: self.cmd_vel_max_linear_mps,
            max_angular_rps: self.cmd_vel_max_angular_rps,
            max_linear_accel_mps2: self.cmd_vel_max_linear_accel_mps2,
            max_angular_accel_rps2: self.cmd_vel_max_angular_accel_rps2,
            timeout_s: self.cmd_vel_timeout_s,
        }
    }

    /// The board's watchdog for each DriveSpeed (checked to fit by [`BaseParams::config`]).
    pub(crate) fn watchdog_ms(&self) -> u16 {
        u16::try_from(self.watchdog_ms).unwrap_or(0)
    }

    /// How long to wait for the planner (checked by [`BaseParams::config`]).
    pub(crate) fn planner_timeout(&self) -> std::time::Duration {
        std::time::Duration::try_from_secs_f64(self.planner_timeout_s)
            .unwrap_or(std::time::Duration::from_secs(5))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use node_glue::params::Declared;
    use node_glue::r2r::{indexmap::IndexMap, Parameter, ParameterValue, RosParams};

    #[test]
    fn the_readme_table_is_the_declarations() {
        node_glue::params::check_readme::<BaseParams>(include_str!("../../README.md")).unwrap();
    }

    fn registered() -> IndexMap<String, Parameter> {
        let mut params = IndexMap::new();
        BaseParams::default()
            .register_parameters("", None, &mut params)
            .unwrap();
        params
    }

    #[test]
    fn every_parameter_is_at_the_top_level_with_its_description() {
        let params = registered();
        assert_eq!(params.len(), 60);
        assert_eq!(BaseParams::declarations().len(), 60);
        for d in BaseParams::declarations() {
            assert!(params.contains_key(d.name), "{}", d.name);
            assert!(!d.text().is_empty(), "{}", d.name);
        }
        let link = BaseParams::declarations()
            .into_iter()
            .find(|d| d.name == "link_timeout_s")
            .unwrap();
        assert_eq!(
            link.text(),
            "No odometry for this long: motors stopped, goal LINK_LOST [s]"
        );
        assert!(matches!(
            params["max_failures"].value,
            ParameterValue::Integer(3)
        ));
    }

    #[test]
    fn the_start_only_parameters_are_the_frames_and_periods() {
        let mut ro: Vec<&str> = BaseParams::declarations()
            .iter()
            .filter(|d| d.read_only())
            .map(|d| d.name)
            .collect();
        ro.sort_unstable();
        assert_eq!(
            ro,
            [
                "child_frame_id",
                "cmd_vel_stamped",
                "diagnostics_period_ms",
                "frame_id",
                "initial_pose_x",
                "initial_pose_y",
                "initial_pose_yaw",
                "localizer_pose_period_s",
                "odom_angular_noise",
                "odom_frame_id",
                "odom_linear_noise",
                "odom_min_heading_stddev_rad",
                "odom_min_position_stddev_m",
                "publish_tf",
                "range_field_of_view_rad",
                "range_frames",
                "range_max_m",
                "set_initial_pose",
                "tick_ms"
            ]
        );
    }

    #[test]
    fn the_defaults_are_the_library_s_and_pass_their_own_ranges() {
        let p = BaseParams::default();
        assert_eq!(p.config().unwrap(), BaseConfig::default());
        let mut table = registered();
        for d in BaseParams::declarations() {
            let v = table.swap_remove(d.name).unwrap().value;
            d.check(&v).unwrap();
        }
    }

    #[test]
    fn config_checks_the_whole_set() {
        let p = BaseParams {
            link_timeout_s: f64::NAN,
            ..BaseParams::default()
        };
        assert!(p
            .config()
            .unwrap_err()
            .to_string()
            .starts_with("link_timeout_s"));
        let p = BaseParams {
            min_speed_mps: 1.0,
            ..BaseParams::default()
        };
        assert!(p
            .config()
            .unwrap_err()
            .to_string()
            .starts_with("min_speed_mps"));
        let p = BaseParams {
            tick_ms: 0,
            ..BaseParams::default()
        };
        assert_eq!(
            p.config().unwrap_err().to_string(),
            "tick_ms: 0 is not in 1..=1000"
        );
        let p = BaseParams {
            planner_timeout_s: 0.0,
            ..BaseParams::default()
        };
        assert_eq!(
            p.config().unwrap_err().to_string(),
            "planner_timeout_s: 0 is not in (0, 600]"
        );
        let p = BaseParams {
            max_failures: -1,
            ..BaseParams::default()
        };
        assert!(p
            .config()
            .unwrap_err()
            .to_string()
            .starts_with("max_failures"));
    }
}
