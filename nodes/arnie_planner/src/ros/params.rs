//! The node's ROS parameters ([`PlannerParams`]): the library's [`PlannerConfig`] field by
//! field (same names, same units, same defaults), each declared once here with its type,
//! default, range and description (what `ros2 param describe` shows). The whole set is
//! checked by [`PlannerConfig::check`] at start and on every `ros2 param set`
//! ([`rules`]): a refused value gets the reason; a start-only parameter says so.
//!
//! When a change takes effect (also in README.md):
//! - start only: `map_file`, `resolution_m`, `origin_x_m`, `origin_y_m`,
//!   `diagnostics_period_ms` ([`START_ONLY`]);
//! - the next request: `algorithm`, `diagonal_mode`, `start_escape_m`, `frame_id`;
//! - the next map received on `/map`: `occupied_above`, `unknown_is_blocked`,
//!   `robot_radius_m` (a map file is read only at start: with `map_file` set they are
//!   checked but apply after a restart).
use node_glue::params::Rules;
use node_glue::r2r::RosParams;
use node_glue::topics;

use crate::node::{ParamError, PlannerConfig, Settings};

/// Parameters read only at start: `ros2 param set` refuses them, saying so.
pub(crate) const START_ONLY: &[&str] = &[
    "map_file",
    "resolution_m",
    "origin_x_m",
    "origin_y_m",
    "diagnostics_period_ms",
];

/// ROS parameters: flat names with units; defaults = [`PlannerConfig::default`] (the
/// frame from `node_glue::topics`).
#[derive(RosParams, Clone, Debug)]
pub(crate) struct PlannerParams {
    /// Map file read at start: PGM (P2/P5), PNG (map_server thresholds), Moving AI .map or table scenario .json; "" = plan on /map. Start only
    map_file: String,
    /// Cell size of the map file [m], 0.001..=10. Start only
    resolution_m: f64,
    /// World x of the map file's lower-left corner [m], -1e6..=1e6. Start only
    origin_x_m: f64,
    /// World y of the map file's lower-left corner [m], -1e6..=1e6. Start only
    origin_y_m: f64,
    /// /map cells with a value above this are obstacles, 0..=100. Next /map message
    occupied_above: i64,
    /// Unknown cells (/map -1, PGM grey) are obstacles. Next /map message
    unknown_is_blocked: bool,
    /// Obstacles grow by this radius [m], 0..=5, 0 = none. Next /map message (a map file: restart)
    robot_radius_m: f64,
    /// jps | astar | dijkstra. Next request
    algorithm: String,
    /// only_when_no_obstacles | if_at_most_one_obstacle | always | never (jps runs as astar for the last three). Next request
    diagonal_mode: String,
    /// Frame of the published paths (the map's frame), not empty. Next request
    frame_id: String,
    /// A start blocked only by the inflated margin is left through the nearest free cell within this distance [m], 0..=10, 0 = START_BLOCKED. Next request
    start_escape_m: f64,
    /// Period of /diagnostics [ms], 10..=60000. Start only
    diagnostics_period_ms: i64,
}

impl Default for PlannerParams {
    fn default() -> Self {
        let d = PlannerConfig::default();
        PlannerParams {
            map_file: d.map_file,
            resolution_m: d.resolution_m,
            origin_x_m: d.origin_x_m,
            origin_y_m: d.origin_y_m,
            occupied_above: d.occupied_above,
            unknown_is_blocked: d.unknown_is_blocked,
            robot_radius_m: d.robot_radius_m,
            algorithm: d.algorithm,
            diagonal_mode: d.diagonal_mode,
            frame_id: topics::WORLD_FRAME.into(),
            start_escape_m: d.start_escape_m,
            diagnostics_period_ms: d.diagnostics_period_ms,
        }
    }
}

impl PlannerParams {
    /// The map file to load at start ("" = none).
    pub(crate) fn map_file(&self) -> &str {
        &self.map_file
    }

    /// The values as the library's config.
    pub(crate) fn config(&self) -> PlannerConfig {
        PlannerConfig {
            map_file: self.map_file.clone(),
            resolution_m: self.resolution_m,
            origin_x_m: self.origin_x_m,
            origin_y_m: self.origin_y_m,
            occupied_above: self.occupied_above,
            unknown_is_blocked: self.unknown_is_blocked,
            robot_radius_m: self.robot_radius_m,
            algorithm: self.algorithm.clone(),
            diagonal_mode: self.diagonal_mode.clone(),
            frame_id: self.frame_id.clone(),
            start_escape_m: self.start_escape_m,
            diagnostics_period_ms: self.diagnostics_period_ms,
        }
    }

    /// The checked settings; the error names the parameter.
    pub(crate) fn settings(&self) -> Result<Settings, ParamError> {
        self.config().check()
    }
}

/// The check run at start and on every `ros2 param set`, and the start-only list.
pub(crate) fn rules() -> Rules<PlannerParams> {
    Rules {
        check: |p: &PlannerParams| p.settings().map(|_| ()).map_err(|e| e.to_string()),
        start_only: START_ONLY,
    }
}
