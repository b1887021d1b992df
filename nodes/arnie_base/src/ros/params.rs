//! The node's ROS parameters ([`BaseParams`]): the library's [`BaseConfig`] field by
//! field (same names, same units), plus the glue's own.
use node_glue::r2r::RosParams;

use crate::BaseConfig;

/// ROS parameters: flat names with units; defaults = [`BaseConfig::default`].
#[derive(RosParams, Clone, Debug)]
pub(crate) struct BaseParams {
    /// Top linear speed commanded [m/s]
    pub max_speed_mps: f64,
    /// Lowest linear speed while driving [m/s]
    pub min_speed_mps: f64,
    /// Top turn rate commanded [rad/s]
    pub max_turn_rps: f64,
    /// Lowest turn rate while turning in place [rad/s]
    pub min_turn_rps: f64,
    /// Deceleration of the speed profile before a stop [m/s^2]
    pub decel_mps2: f64,
    /// Heading gain while driving [1/s]
    pub heading_gain: f64,
    /// Turn gain in place [1/s]
    pub turn_gain: f64,
    /// Heading error above which the robot turns in place [rad]
    pub turn_in_place_above_rad: f64,
    /// Goal reached within this distance [m]
    pub goal_tolerance_m: f64,
    /// Intermediate waypoint passed within this distance [m]
    pub waypoint_tolerance_m: f64,
    /// Final heading reached within this error [rad]
    pub heading_tolerance_rad: f64,
    /// No odometry for this long: motors stopped, goal LINK_LOST [s]
    pub link_timeout_s: f64,
    /// Progress needed along the path ... [m]
    pub progress_min_m: f64,
    /// ... within this long, else blocked [s]
    pub progress_timeout_s: f64,
    /// Failures tolerated per goal; one more returns BLOCKED
    pub max_failures: i64,
    /// An obstacle report closer than this (from the robot's edge) stops the robot [m]
    pub obstacle_stop_distance_m: f64,
    /// Only obstacles within this angle of the heading count [rad]
    pub obstacle_cone_rad: f64,
    /// Radius of the disc marked on the planner's map for an obstacle [m]
    pub obstacle_radius_m: f64,
    /// Marks expire after this long, 0 = never [s]
    pub mark_ttl_s: f64,
    /// The robot's radius (marks keep this far plus their radius from its centre) [m]
    pub robot_radius_m: f64,
    /// Sensor hits this close to the map's own obstacles are ignored [m]
    pub known_obstacle_margin_m: f64,
    /// Wait after a failure before planning again [s]
    pub replan_delay_s: f64,
    /// Feedback at most this often [s]
    pub feedback_period_s: f64,
    /// At the goal, wait at most this long for the board to report it is still before REACHED [s]
    pub settle_timeout_s: f64,
    /// Frame of odom, base/pose and of goals (the planner's and the map's frame)
    pub frame_id: String,
    /// child_frame_id of odom
    pub child_frame_id: String,
    /// Watchdog asked of the board in each DriveSpeed, 0 = the board's default [ms]
    pub watchdog_ms: i64,
    /// Period of the watchdog / re-plan check [ms]
    pub tick_ms: i64,
    /// Wait this long for the planner's answer (plan_path, update_map) [s]
    pub planner_timeout_s: f64,
    /// Period of /diagnostics [ms]
    pub diagnostics_period_ms: i64,
}

impl Default for BaseParams {
    fn default() -> Self {
        let c = BaseConfig::default();
        BaseParams {
            max_speed_mps: c.max_speed_mps,
            min_speed_mps: c.min_speed_mps,
            max_turn_rps: c.max_turn_rps,
            min_turn_rps: c.min_turn_rps,
            decel_mps2: c.decel_mps2,
            heading_gain: c.heading_gain,
            turn_gain: c.turn_gain,
            turn_in_place_above_rad: c.turn_in_place_above_rad,
            goal_tolerance_m: c.goal_tolerance_m,
            waypoint_tolerance_m: c.waypoint_tolerance_m,
            heading_tolerance_rad: c.heading_tolerance_rad,
            link_timeout_s: c.link_timeout_s,
            progress_min_m: c.progress_min_m,
            progress_timeout_s: c.progress_timeout_s,
            max_failures: i64::from(c.max_failures),
            obstacle_stop_distance_m: c.obstacle_stop_distance_m,
            obstacle_cone_rad: c.obstacle_cone_rad,
            obstacle_radius_m: c.obstacle_radius_m,
            mark_ttl_s: c.mark_ttl_s,
            robot_radius_m: c.robot_radius_m,
            known_obstacle_margin_m: c.known_obstacle_margin_m,
            replan_delay_s: c.replan_delay_s,
            feedback_period_s: c.feedback_period_s,
            settle_timeout_s: c.settle_timeout_s,
            frame_id: "map".into(),
            child_frame_id: "base_link".into(),
            watchdog_ms: 0,
            tick_ms: 20,
            planner_timeout_s: 5.0,
            diagnostics_period_ms: 1000,
        }
    }
}

impl BaseParams {
    /// The library's config, checked, and the glue's own values checked.
    pub(crate) fn config(&self) -> Result<BaseConfig, String> {
        let max_failures = u32::try_from(self.max_failures)
            .map_err(|_| format!("max_failures: {} is not in 0..=1000", self.max_failures))?;
        let c = BaseConfig {
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
        };
        c.check().map_err(|e| e.to_string())?;
        let ranged = |name: &str, v: i64, lo: i64, hi: i64| {
            if (lo..=hi).contains(&v) {
                Ok(())
            } else {
                Err(format!("{name}: {v} is not in {lo}..={hi}"))
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
            return Err(format!(
                "planner_timeout_s: {} is not in (0, 600]",
                self.planner_timeout_s
            ));
        }
        if self.frame_id.is_empty() {
            return Err("frame_id: must not be empty".into());
        }
        Ok(c)
    }
}
