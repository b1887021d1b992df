//! The node's ROS parameters ([`TrajectoryParams`]) and their conversion to the library's
//! checked [`TrajectoryConfig`].

use crate::config::{MAX_PERIOD_MS, MAX_SAMPLE_FACTOR};
use crate::{RawTrajectoryConfig, TrajectoryConfig, TrajectoryError};

node_glue::declare_parameters! {
    /// ROS parameters: flat names with units, each declared once (type, default, range,
    /// when a change takes effect). Defaults are the library's
    /// [`RawTrajectoryConfig::default`] (the original values). Every parameter is read at
    /// each goal: a change applies to the next goal, checked as a whole first.
    pub(crate) struct TrajectoryParams(d = RawTrajectoryConfig::default()) {
        /// Time between two set-points on /arm/command [ms] (original: 35)
        period_ms: i64 = d.period_ms as i64, int(1, MAX_PERIOD_MS as i64), "next goal";
        /// Set-points per millimetre of path length (original: 1)
        sample_factor: i64 = i64::from(d.sample_factor), int(1, i64::from(MAX_SAMPLE_FACTOR)), "next goal";
        /// Allowed error on every axis against the previous set-point before it is an obstacle [mm] (original: 25)
        tracking_tolerance_mm: f64 = d.tracking_tolerance_mm, float(0.001, 1e6), "next goal";
        /// Periods to hold still after an obstacle before reversing to the start (original: 10)
        reverse_wait_periods: i64 = i64::from(d.reverse_wait_periods), int(0, i64::from(u32::MAX)), "next goal";
        /// Extra periods after the last set-point for the arm to arrive [periods]
        settle_periods: i64 = i64::from(d.settle_periods), int(0, i64::from(u32::MAX)), "next goal";
        /// Workspace box, lower x bound for targets, world frame [mm]
        workspace_min_x_mm: f64 = d.workspace_min_mm[0], float(-1e6, 1e6), "next goal";
        /// Workspace box, lower y bound for targets, world frame [mm]
        workspace_min_y_mm: f64 = d.workspace_min_mm[1], float(-1e6, 1e6), "next goal";
        /// Workspace box, lower z bound for targets, world frame [mm]
        workspace_min_z_mm: f64 = d.workspace_min_mm[2], float(-1e6, 1e6), "next goal";
        /// Workspace box, upper x bound for targets, world frame [mm]
        workspace_max_x_mm: f64 = d.workspace_max_mm[0], float(-1e6, 1e6), "next goal";
        /// Workspace box, upper y bound for targets, world frame [mm]
        workspace_max_y_mm: f64 = d.workspace_max_mm[1], float(-1e6, 1e6), "next goal";
        /// Workspace box, upper z bound for targets, world frame [mm]
        workspace_max_z_mm: f64 = d.workspace_max_mm[2], float(-1e6, 1e6), "next goal";
        /// An arm position older than this is stale: goals are rejected, a move waits [ms]
        position_timeout_ms: i64 = d.position_timeout_ms as i64, int(1, 3_600_000), "next goal";
        /// Consecutive periods without a fresh arm position before a move aborts (help needed)
        stale_abort_periods: i64 = i64::from(d.stale_abort_periods), int(1, i64::from(u32::MAX)), "next goal";
    }
}

fn invalid(field: &'static str, value: i64) -> TrajectoryError {
    TrajectoryError::InvalidConfig {
        field,
        reason: format!("{value} is negative or too large"),
    }
}

impl TrajectoryParams {
    /// The checked library config; the error names the parameter.
    pub(crate) fn config(&self) -> Result<TrajectoryConfig, TrajectoryError> {
        let u64_of = |field, v: i64| u64::try_from(v).map_err(|_| invalid(field, v));
        let u32_of = |field, v: i64| u32::try_from(v).map_err(|_| invalid(field, v));
        let raw = RawTrajectoryConfig {
            period_ms: u64_of("period_ms", self.period_ms)?,
            sample_factor: u32_of("sample_factor", self.sample_factor)?,
            tracking_tolerance_mm: self.tracking_tolerance_mm,
            reverse_wait_periods: u32_of("reverse_wait_periods", self.reverse_wait_periods)?,
            settle_periods: u32_of("settle_periods", self.settle_periods)?,
            workspace_min_mm: [
                self.workspace_min_x_mm,
                self.workspace_min_y_mm,
                self.workspace_min_z_mm,
            ],
            workspace_max_mm: [
                self.workspace_max_x_mm,
                self.workspace_max_y_mm,
                self.workspace_max_z_mm,
            ],
            position_timeout_ms: u64_of("position_timeout_ms", self.position_timeout_ms)?,
            stale_abort_periods: u32_of("stale_abort_periods", self.stale_abort_periods)?,
        };
        TrajectoryConfig::try_from(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readme_table_is_the_declarations() {
        node_glue::params::check_readme::<TrajectoryParams>(include_str!("../../README.md"))
            .unwrap();
    }

    #[test]
    fn the_defaults_pass_their_own_checks() {
        let p = TrajectoryParams::default();
        p.config().unwrap();
    }
}
