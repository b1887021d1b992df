//! The node's ROS parameters ([`PlannerParams`]): the library's [`PlannerConfig`] field by
//! field (same names, same units, same defaults), each declared once here with its type,
//! default, range, description and when a change takes effect (what `ros2 param describe`
//! shows, and the README's table). The ranges are the library's; the whole set is
//! checked by [`PlannerConfig::check`] at start and on every `ros2 param set`
//! ([`rules`]): a refused value gets the reason; a start-only parameter says so.
//!
//! When a change takes effect:
//! - start only: `map_file`, `resolution_m`, `origin_x_m`, `origin_y_m`,
//!   `diagnostics_period_ms`;
//! - the next request: `algorithm`, `diagonal_mode`, `start_escape_m`, `frame_id`;
//! - the next map received on `/map`: `occupied_above`, `unknown_is_blocked`,
//!   `robot_radius_m` (a map file is read only at start: with `map_file` set they are
//!   checked but apply after a restart).
use node_glue::params::Rules;
use node_glue::topics;

use crate::node::config::{
    DIAGNOSTICS_PERIOD_MS, MAX_ORIGIN_M, MAX_RESOLUTION_M, MIN_RESOLUTION_M,
};
use crate::node::settings::{MAX_ROBOT_RADIUS_M, MAX_START_ESCAPE_M};
use crate::node::{ParamError, PlannerConfig, Settings};

node_glue::declare_parameters! {
    /// ROS parameters: flat names with units; defaults = [`PlannerConfig::default`] (the
    /// frame from `node_glue::topics`).
    pub(crate) struct PlannerParams(d = PlannerConfig::default()) {
        /// Map file read at start: PGM (P2/P5), PNG (map_server thresholds), Moving AI .map or table scenario .json; "" = plan on /map
        map_file: String = d.map_file, any(), "start only";
        /// Cell size of the map file [m]
        resolution_m: f64 = d.resolution_m, float(MIN_RESOLUTION_M, MAX_RESOLUTION_M), "start only";
        /// World x of the map file's lower-left corner [m]
        origin_x_m: f64 = d.origin_x_m, float(-MAX_ORIGIN_M, MAX_ORIGIN_M), "start only";
        /// World y of the map file's lower-left corner [m]
        origin_y_m: f64 = d.origin_y_m, float(-MAX_ORIGIN_M, MAX_ORIGIN_M), "start only";
        /// /map cells with a value above this are obstacles
        occupied_above: i64 = d.occupied_above, int(0, 100), "next /map message";
        /// Unknown cells (/map -1, PGM grey) are obstacles
        unknown_is_blocked: bool = d.unknown_is_blocked, any(), "next /map message";
        /// Obstacles grow by this disc radius; 0 = none [m]
        robot_radius_m: f64 = d.robot_radius_m, float(0.0, MAX_ROBOT_RADIUS_M), "next /map message (a map file: restart)";
        /// The search
        algorithm: String = d.algorithm, one_of(&["jps", "astar", "dijkstra"]), "next request";
        /// Diagonal moves (PathFinding.js's modes; jps runs as astar for all but only_when_no_obstacles, logged)
        diagonal_mode: String = d.diagonal_mode, one_of(&["only_when_no_obstacles", "if_at_most_one_obstacle", "always", "never"]), "next request";
        /// Frame of the returned and published paths (the map's frame), not empty
        frame_id: String = topics::WORLD_FRAME.into(), any(), "next request";
        /// A start blocked only by the inflated margin is left through the nearest free cell within this distance; 0 = START_BLOCKED [m]
        start_escape_m: f64 = d.start_escape_m, float(0.0, MAX_START_ESCAPE_M), "next request";
        /// The robot's frame: compute_path_to_pose / _through_poses without use_start start where TF puts it in frame_id (Nav2's robot_base_frame)
        robot_base_frame: String = "base_link".into(), any(), "next request";
        /// Period of /diagnostics [ms]
        diagnostics_period_ms: i64 = d.diagnostics_period_ms, int(DIAGNOSTICS_PERIOD_MS.0, DIAGNOSTICS_PERIOD_MS.1), "start only";
        /// Team colour: map_file is drawn for blue; yellow mirrors it about its middle (x -> width - x; the table's length when the map spans it). A /map from elsewhere is taken as is
        colour: String = "blue".into(), one_of(&arnie_math::Colour::NAMES), "start only";
    }
}

impl PlannerParams {
    /// The team colour (checked by the declaration's range).
    pub(crate) fn colour(&self) -> arnie_math::Colour {
        arnie_math::Colour::parse(&self.colour).unwrap_or_default()
    }
}

impl PlannerParams {
    /// The map file to load at start ("" = none).
    pub(crate) fn map_file(&self) -> &str {
        &self.map_file
    }

    /// The robot's frame (Nav2's `robot_base_frame`).
    pub(crate) fn robot_base_frame(&self) -> &str {
        &self.robot_base_frame
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

/// The check run at start and on every `ros2 param set` (after the declarations').
pub(crate) fn rules() -> Rules<PlannerParams> {
    Rules {
        check: |p: &PlannerParams| p.settings().map(|_| ()).map_err(Into::into),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readme_table_is_the_declarations() {
        node_glue::params::check_readme::<PlannerParams>(include_str!("../../README.md")).unwrap();
    }

    #[test]
    fn the_defaults_and_every_declared_choice_pass_the_librarys_check() {
        use node_glue::params::{Declared, Range};
        use node_glue::r2r::{ParameterValue, RosParams};
        assert!((rules().check)(&PlannerParams::default()).is_ok());
        for d in PlannerParams::declarations() {
            let values: Vec<ParameterValue> = match d.range {
                Range::OneOf(v) => v
                    .iter()
                    .map(|s| ParameterValue::String(s.to_string()))
                    .collect(),
                Range::Float { from, to, .. } => {
                    vec![ParameterValue::Double(from), ParameterValue::Double(to)]
                }
                Range::Integer { from, to, .. } => {
                    vec![ParameterValue::Integer(from), ParameterValue::Integer(to)]
                }
                Range::Any => vec![],
            };
            for v in values {
                let mut p = PlannerParams::default();
                p.set_parameter(d.name, &v).unwrap();
                assert!((rules().check)(&p).is_ok(), "{} = {v:?}", d.name);
            }
        }
    }
}
