//! The node's parameter values as plain data ([`PlannerConfig`], one field per ROS
//! parameter) and their check as a whole into [`Settings`]: run at start and on every
//! change (the node refuses a change that does not pass, with the reason).

use std::time::Duration;

use crate::grid::MapFrame;

use super::settings::param_err;
use super::{MapOptions, ParamError, Search};

/// Smallest `resolution_m` of a map file [m]: a table scenario is rasterised at this
/// size, so a tiny cell would ask for billions of cells.
pub const MIN_RESOLUTION_M: f64 = 0.001;
/// Largest `resolution_m` of a map file [m].
pub const MAX_RESOLUTION_M: f64 = 10.0;
/// Largest `|origin_x_m|`, `|origin_y_m|` of a map file [m].
pub const MAX_ORIGIN_M: f64 = 1e6;
/// Bounds of `diagnostics_period_ms` [ms].
pub const DIAGNOSTICS_PERIOD_MS: (i64, i64) = (10, 60_000);

/// The node's parameter values as plain data, one field per ROS parameter (same name,
/// same unit); [`PlannerConfig::check`] turns them into [`Settings`] or names the first
/// bad one. The defaults are the node's.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannerConfig {
    /// Map file read at start; "" = plan on `/map`.
    pub map_file: String,
    /// Cell size of the map file [m], [`MIN_RESOLUTION_M`]..=[`MAX_RESOLUTION_M`].
    pub resolution_m: f64,
    /// World x of the map file's lower-left corner [m].
    pub origin_x_m: f64,
    /// World y of the map file's lower-left corner [m].
    pub origin_y_m: f64,
    /// `/map` values above this (0..=100) are obstacles.
    pub occupied_above: i64,
    /// Unknown cells are obstacles.
    pub unknown_is_blocked: bool,
    /// Obstacles grow by this radius [m], 0..=[`super::settings::MAX_ROBOT_RADIUS_M`].
    pub robot_radius_m: f64,
    /// `jps` | `astar` | `dijkstra`.
    pub algorithm: String,
    /// PathFinding.js diagonal mode name.
    pub diagonal_mode: String,
    /// Frame of the paths (not empty).
    pub frame_id: String,
    /// A blocked start is left through the nearest free cell within this distance [m].
    pub start_escape_m: f64,
    /// Period of `/diagnostics` [ms], within [`DIAGNOSTICS_PERIOD_MS`].
    pub diagnostics_period_ms: i64,
}

impl Default for PlannerConfig {
    fn default() -> Self {
        PlannerConfig {
            map_file: String::new(),
            resolution_m: 0.05,
            origin_x_m: 0.0,
            origin_y_m: 0.0,
            occupied_above: 50,
            unknown_is_blocked: true,
            robot_radius_m: 0.0,
            algorithm: "jps".into(),
            diagonal_mode: "only_when_no_obstacles".into(),
            frame_id: "world".into(),
            start_escape_m: 0.0,
            diagnostics_period_ms: 1000,
        }
    }
}

/// Checked [`PlannerConfig`] values, ready to use.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// Where a map file lies in the world.
    pub file_frame: MapFrame,
    /// How a map becomes the searched grid.
    pub map: MapOptions,
    /// The search a query runs.
    pub search: Search,
    /// Frame of the paths.
    pub frame_id: String,
    /// Period of `/diagnostics`.
    pub diagnostics_period: Duration,
}

impl PlannerConfig {
    /// Every value checked (ranges, names, finiteness).
    ///
    /// # Errors
    /// [`ParamError`] naming the first bad parameter and why.
    pub fn check(&self) -> Result<Settings, ParamError> {
        let r = self.resolution_m;
        if !(r.is_finite() && (MIN_RESOLUTION_M..=MAX_RESOLUTION_M).contains(&r)) {
            return Err(param_err(
                "resolution_m",
                format!("{r} is not in {MIN_RESOLUTION_M}..={MAX_RESOLUTION_M} [m]"),
            ));
        }
        for (key, v) in [
            ("origin_x_m", self.origin_x_m),
            ("origin_y_m", self.origin_y_m),
        ] {
            if !(v.is_finite() && v.abs() <= MAX_ORIGIN_M) {
                return Err(param_err(
                    key,
                    format!("{v} is not in -{MAX_ORIGIN_M}..={MAX_ORIGIN_M} [m]"),
                ));
            }
        }
        let file_frame = MapFrame::new(r, self.origin_x_m, self.origin_y_m)
            .map_err(|e| param_err("resolution_m", e.to_string()))?;
        let map = MapOptions::new(
            self.occupied_above,
            self.unknown_is_blocked,
            self.robot_radius_m,
        )?;
        let search = Search::resolve(&self.algorithm, &self.diagonal_mode)?
            .with_start_escape(self.start_escape_m)?;
        if self.frame_id.trim().is_empty() {
            return Err(param_err("frame_id", "must not be empty"));
        }
        let (lo, hi) = DIAGNOSTICS_PERIOD_MS;
        let ms = self.diagnostics_period_ms;
        if !(lo..=hi).contains(&ms) {
            return Err(param_err(
                "diagnostics_period_ms",
                format!("{ms} is not in {lo}..={hi} [ms]"),
            ));
        }
        Ok(Settings {
            file_frame,
            map,
            search,
            frame_id: self.frame_id.clone(),
            diagnostics_period: Duration::from_millis(ms as u64),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Algorithm;

    #[test]
    fn the_config_is_checked_as_a_whole() {
        let good = PlannerConfig::default();
        let s = good.check().unwrap();
        assert_eq!(s.search.algorithm, Algorithm::Jps);
        assert_eq!(s.diagnostics_period, Duration::from_secs(1));
        assert_eq!(s.frame_id, "world");
        let bad = |f: fn(&mut PlannerConfig)| {
            let mut c = PlannerConfig::default();
            f(&mut c);
            c.check().unwrap_err()
        };
        assert_eq!(bad(|c| c.resolution_m = 1e-12).key, "resolution_m");
        assert_eq!(bad(|c| c.resolution_m = f64::NAN).key, "resolution_m");
        assert_eq!(bad(|c| c.resolution_m = 100.0).key, "resolution_m");
        assert_eq!(bad(|c| c.origin_x_m = f64::INFINITY).key, "origin_x_m");
        assert_eq!(bad(|c| c.origin_y_m = -1e9).key, "origin_y_m");
        assert_eq!(bad(|c| c.occupied_above = 101).key, "occupied_above");
        assert_eq!(bad(|c| c.robot_radius_m = -0.1).key, "robot_radius_m");
        assert_eq!(bad(|c| c.robot_radius_m = 50.0).key, "robot_radius_m");
        assert_eq!(bad(|c| c.algorithm = "bfs".into()).key, "algorithm");
        assert_eq!(bad(|c| c.diagonal_mode = "x".into()).key, "diagonal_mode");
        assert_eq!(bad(|c| c.start_escape_m = 11.0).key, "start_escape_m");
        assert_eq!(bad(|c| c.frame_id = " ".into()).key, "frame_id");
        assert_eq!(
            bad(|c| c.diagnostics_period_ms = 0).key,
            "diagnostics_period_ms"
        );
        let e = bad(|c| c.diagnostics_period_ms = 1_000_000);
        assert_eq!(
            e.to_string(),
            "parameter diagnostics_period_ms: 1000000 is not in 10..=60000 [ms]"
        );
    }
}
