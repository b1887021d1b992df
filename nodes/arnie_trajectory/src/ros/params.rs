//! The node's ROS parameters ([`TrajectoryParams`]) and their conversion to the library's
//! checked [`TrajectoryConfig`].

use nalgebra::Point3;

use crate::config::{MAX_PERIOD_MS, MAX_SAMPLE_FACTOR};
use crate::detour::{MAX_EXPANSIONS, MAX_RESOLUTION_MM, MIN_RESOLUTION_MM};
use crate::obstructions::{MAX_OBSTRUCTIONS, MAX_SIZE_MM};
use crate::{
    ContactModel, DetourConfig, FixedBox, ObstructionConfig, RawDetourConfig, RawTrajectoryConfig,
    TrajectoryConfig, TrajectoryError,
};

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
        /// Plan around remembered obstructions and fixed obstacles: a detour after a stop, and later goals planned around them from the start (false: only the reverse to the start)
        detour_enabled: bool = true, any(), "next goal";
        /// Detours planned after stops in one move, at most; then the arm goes back to its start
        detour_max_replans: i64 = 8, int(0, 100), "next goal";
        /// Cell size of the detour search's grid [mm]
        detour_resolution_mm: f64 = RawDetourConfig::default().resolution_mm, float(MIN_RESOLUTION_MM, MAX_RESOLUTION_MM), "next goal";
        /// Planning budget: grid cells the detour search may expand (both passes)
        detour_max_expansions: i64 = RawDetourConfig::default().max_expansions as i64, int(1, MAX_EXPANSIONS as i64), "next goal";
        /// Clearance kept from every fixed obstacle [mm]
        detour_box_clearance_mm: f64 = RawDetourConfig::default().box_clearance_mm, float(0.0, 10_000.0), "next goal";
        /// Room for the smooth motion to bulge off the planned polyline [mm]
        detour_smoothing_margin_mm: f64 = RawDetourConfig::default().smoothing_margin_mm, float(0.0, 1000.0), "next goal";
        /// Fixed obstacles (the table): axis-aligned boxes, six numbers each (min x, y, z, then max x, y, z), world frame [mm]
        fixed_obstacles_mm: node_glue::params::Doubles = Default::default(), any(), "next goal";
        /// Radius of the taper on the arm's tip: a region learned from a stop begins this far beyond the arm, and the arm's point keeps this far from it [mm]
        tool_radius_mm: f64 = ContactModel::default().tool_radius_mm(), float(0.0, MAX_SIZE_MM), "next obstruction";
        /// Margin kept around a learned region beyond the taper's radius [mm]
        contact_margin_mm: f64 = ContactModel::default().margin_mm(), float(0.0, MAX_SIZE_MM), "next obstruction";
        /// Smallest size (radius of what is believed solid) of a region learned from a stop; a pass that shrinks it below this clears it [mm]
        obstruction_min_size_mm: f64 = ContactModel::default().min_size_mm(), float(0.1, MAX_SIZE_MM), "next obstruction";
        /// Largest size of a region learned from a stop (half the tracking error at the stop plus one period at the approach speed, at most this) [mm]
        obstruction_max_size_mm: f64 = ContactModel::default().max_size_mm(), float(0.1, MAX_SIZE_MM), "next obstruction";
        /// How long a remembered obstruction is kept [s]
        obstruction_ttl_s: f64 = ObstructionConfig::default().ttl_ms() as f64 / 1000.0, float(0.001, 31_536_000.0), "next obstruction";
        /// Obstructions remembered at once; beyond, the oldest is dropped (and counted)
        max_obstructions: i64 = ObstructionConfig::default().max_obstructions() as i64, int(1, MAX_OBSTRUCTIONS as i64), "at once";
    }
}

/// The detour half of the parameters, checked.
#[derive(Debug, Clone)]
pub(crate) struct DetourSettings {
    pub(crate) config: DetourConfig,
    pub(crate) boxes: Vec<FixedBox>,
    pub(crate) max_replans: u32,
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

    /// The detour planner's settings; `None` when detours are off.
    pub(crate) fn detour(&self) -> Result<Option<DetourSettings>, TrajectoryError> {
        let boxes = self.fixed_obstacles()?;
        let raw = RawDetourConfig {
            resolution_mm: self.detour_resolution_mm,
            max_expansions: usize::try_from(self.detour_max_expansions)
                .map_err(|_| invalid("detour_max_expansions", self.detour_max_expansions))?,
            box_clearance_mm: self.detour_box_clearance_mm,
            smoothing_margin_mm: self.detour_smoothing_margin_mm,
        };
        let config = DetourConfig::try_from(raw)?;
        let max_replans = u32::try_from(self.detour_max_replans)
            .map_err(|_| invalid("detour_max_replans", self.detour_max_replans))?;
        Ok(self.detour_enabled.then_some(DetourSettings {
            config,
            boxes,
            max_replans,
        }))
    }

    /// `fixed_obstacles_mm` as boxes (also checked when detours are off: a typo is
    /// reported at once, not when detours are turned on).
    fn fixed_obstacles(&self) -> Result<Vec<FixedBox>, TrajectoryError> {
        let v = &self.fixed_obstacles_mm;
        if !v.len().is_multiple_of(6) {
            return Err(TrajectoryError::InvalidConfig {
                field: "fixed_obstacles_mm",
                reason: format!(
                    "{} numbers is not six per box (min x, y, z, max x, y, z)",
                    v.len()
                ),
            });
        }
        v.chunks_exact(6)
            .enumerate()
            .map(|(k, c)| {
                FixedBox::new(
                    format!("fixed_obstacles_mm box {k}"),
                    Point3::new(c[0], c[1], c[2]),
                    Point3::new(c[3], c[4], c[5]),
                )
                .map_err(|e| match e {
                    TrajectoryError::InvalidConfig { reason, .. } => {
                        TrajectoryError::InvalidConfig {
                            field: "fixed_obstacles_mm",
                            reason,
                        }
                    }
                    e => e,
                })
            })
            .collect()
    }

    /// The obstruction memory's parameters.
    pub(crate) fn obstructions(&self) -> Result<ObstructionConfig, TrajectoryError> {
        let ttl_ms = (self.obstruction_ttl_s * 1000.0).round();
        if !ttl_ms.is_finite() || ttl_ms < 1.0 {
            return Err(TrajectoryError::InvalidConfig {
                field: "obstruction_ttl_s",
                reason: format!("{} s is not at least 1 ms", self.obstruction_ttl_s),
            });
        }
        let max = usize::try_from(self.max_obstructions)
            .map_err(|_| invalid("max_obstructions", self.max_obstructions))?;
        let contact = ContactModel::new(
            self.tool_radius_mm,
            self.contact_margin_mm,
            self.obstruction_min_size_mm,
            self.obstruction_max_size_mm,
        )?;
        ObstructionConfig::new(ttl_ms as u64, max, contact)
    }

    /// Every check of the parameter set (at start and on each set).
    pub(crate) fn check(&self) -> Result<(), TrajectoryError> {
        self.config()?;
        self.detour()?;
        self.obstructions()?;
        Ok(())
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
        p.check().unwrap();
        assert!(p.detour().unwrap().is_some());
    }

    #[test]
    fn fixed_obstacles_come_in_sixes_and_are_boxes() {
        let mut p = TrajectoryParams {
            fixed_obstacles_mm: vec![-500.0, -500.0, -100.0, 500.0, 500.0, -20.0].into(),
            ..Default::default()
        };
        let d = p.detour().unwrap().unwrap();
        assert_eq!(d.boxes.len(), 1);
        p.fixed_obstacles_mm.0.push(1.0);
        let e = p.check().unwrap_err().to_string();
        assert!(e.contains("fixed_obstacles_mm") && e.contains("six"), "{e}");
        p.fixed_obstacles_mm = vec![0.0, 0.0, 0.0, -1.0, 1.0, 1.0].into();
        let e = p.check().unwrap_err().to_string();
        assert!(e.contains("fixed_obstacles_mm"), "{e}");
        p.fixed_obstacles_mm.0.clear();
        p.detour_enabled = false;
        assert!(p.detour().unwrap().is_none());
    }
}
