//! Parameter values resolved into settings: every string and number is checked once,
//! here ([`PlannerConfig::check`]), at start and on every change (the node refuses a
//! change that does not pass, with this module's reason).
//!
//! JPS supports only [`DiagonalMode::OnlyWhenNoObstacles`]; [`Search::resolve`] runs A*
//! instead for the other modes (same optimal lengths, just slower) and says so in
//! [`Search::fell_back`], which the node logs.

use std::fmt;
use std::time::Duration;

use crate::error::MapError;
use crate::formats::OccupancyOptions;
use crate::grid::{Grid, MapFrame};
use crate::search::{Algorithm, DiagonalMode};

/// A parameter value that cannot be used: `key` names the parameter.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamError {
    /// The parameter's name.
    pub key: &'static str,
    /// What is wrong with its value.
    pub reason: String,
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "parameter {}: {}", self.key, self.reason)
    }
}

impl std::error::Error for ParamError {}

fn param_err(key: &'static str, reason: impl Into<String>) -> ParamError {
    ParamError {
        key,
        reason: reason.into(),
    }
}

/// `"jps" | "astar" | "dijkstra"` (case-insensitive, `a*` and `a_star` accepted).
///
/// # Errors
/// [`ParamError`] naming `algorithm` for any other value.
pub fn parse_algorithm(s: &str) -> Result<Algorithm, ParamError> {
    match s.trim().to_ascii_lowercase().as_str() {
        "jps" => Ok(Algorithm::Jps),
        "astar" | "a*" | "a_star" => Ok(Algorithm::AStar),
        "dijkstra" => Ok(Algorithm::Dijkstra),
        other => Err(param_err(
            "algorithm",
            format!("{other:?} is not one of jps, astar, dijkstra"),
        )),
    }
}

/// `"only_when_no_obstacles" | "if_at_most_one_obstacle" | "always" | "never"`
/// (PathFinding.js names in snake case; case-insensitive).
///
/// # Errors
/// [`ParamError`] naming `diagonal_mode` for any other value.
pub fn parse_diagonal_mode(s: &str) -> Result<DiagonalMode, ParamError> {
    match s.trim().to_ascii_lowercase().as_str() {
        "only_when_no_obstacles" => Ok(DiagonalMode::OnlyWhenNoObstacles),
        "if_at_most_one_obstacle" => Ok(DiagonalMode::IfAtMostOneObstacle),
        "always" => Ok(DiagonalMode::Always),
        "never" => Ok(DiagonalMode::Never),
        other => Err(param_err(
            "diagonal_mode",
            format!("{other:?} is not one of only_when_no_obstacles, if_at_most_one_obstacle, always, never"),
        )),
    }
}

/// The search a query runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Search {
    /// The algorithm that runs (A* when JPS was asked for with another diagonal mode).
    pub algorithm: Algorithm,
    /// The diagonal rule.
    pub diagonal: DiagonalMode,
    /// The algorithm the parameters asked for.
    pub requested: Algorithm,
    /// A start cell blocked only by a little (a robot that drifted into the inflated
    /// margin) is left through the nearest free cell within this distance [m]; 0 = a
    /// blocked start is `START_BLOCKED`.
    pub start_escape_m: f64,
}

impl Search {
    /// From the `algorithm` and `diagonal_mode` parameter values.
    ///
    /// # Errors
    /// [`ParamError`] for an unknown name.
    pub fn resolve(algorithm: &str, diagonal_mode: &str) -> Result<Search, ParamError> {
        let requested = parse_algorithm(algorithm)?;
        let diagonal = parse_diagonal_mode(diagonal_mode)?;
        let algorithm =
            if requested == Algorithm::Jps && diagonal != DiagonalMode::OnlyWhenNoObstacles {
                Algorithm::AStar
            } else {
                requested
            };
        Ok(Search {
            algorithm,
            diagonal,
            requested,
            start_escape_m: 0.0,
        })
    }

    /// The same, leaving a blocked start through the nearest free cell within `m` metres.
    ///
    /// # Errors
    /// [`ParamError`] for a negative or non-finite distance, or one over 10 m.
    pub fn with_start_escape(mut self, m: f64) -> Result<Search, ParamError> {
        if !m.is_finite() || !(0.0..=10.0).contains(&m) {
            return Err(ParamError {
                key: "start_escape_m",
                reason: format!("{m} is not in 0..=10 [m]"),
            });
        }
        self.start_escape_m = m;
        Ok(self)
    }

    /// Whether JPS was asked for with a diagonal mode it does not support, so A* runs.
    pub fn fell_back(&self) -> bool {
        self.algorithm != self.requested
    }
}

/// How any map (file or message) becomes the planner's grid.
#[derive(Clone, Debug, PartialEq)]
pub struct MapOptions {
    /// Thresholds for `OccupancyGrid` values.
    pub occupancy: OccupancyOptions,
    /// Whether PGM pixels between `map_server`'s thresholds are blocked.
    pub unknown_is_blocked: bool,
    /// Obstacles grow by this radius [m] (0 = no inflation).
    pub robot_radius_m: f64,
}

impl MapOptions {
    /// From the `occupied_above` (0..=100), `unknown_is_blocked` and `robot_radius_m`
    /// (0..=[`MAX_ROBOT_RADIUS_M`]) parameter values.
    ///
    /// # Errors
    /// [`ParamError`] naming the first bad parameter.
    pub fn new(
        occupied_above: i64,
        unknown_is_blocked: bool,
        robot_radius_m: f64,
    ) -> Result<Self, ParamError> {
        let occupied_above = i8::try_from(occupied_above)
            .ok()
            .filter(|v| (0..=100).contains(v))
            .ok_or_else(|| {
                param_err(
                    "occupied_above",
                    format!("{occupied_above} is not in 0..=100"),
                )
            })?;
        if !(robot_radius_m.is_finite() && (0.0..=MAX_ROBOT_RADIUS_M).contains(&robot_radius_m)) {
            return Err(param_err(
                "robot_radius_m",
                format!("{robot_radius_m} is not in 0..={MAX_ROBOT_RADIUS_M} [m]"),
            ));
        }
        Ok(MapOptions {
            occupancy: OccupancyOptions {
                occupied_above,
                unknown_is_blocked,
            },
            unknown_is_blocked,
            robot_radius_m,
        })
    }

    /// `grid` inflated by the robot radius (unchanged for radius 0).
    ///
    /// # Errors
    /// [`MapError::BadOption`] (cannot happen for options built by [`MapOptions::new`]).
    pub fn inflate(&self, grid: Grid) -> Result<Grid, MapError> {
        if self.robot_radius_m == 0.0 {
            Ok(grid)
        } else {
            grid.inflated_m(self.robot_radius_m)
        }
    }
}

/// Largest `robot_radius_m` [m]: inflation costs the radius squared per blocked cell.
pub const MAX_ROBOT_RADIUS_M: f64 = 5.0;
/// Smallest `resolution_m` of a map file [m]: a table scenario is rasterised at this
/// size, so a tiny cell would ask for billions of cells.
pub const MIN_RESOLUTION_M: f64 = 0.001;
/// Largest `resolution_m` of a map file [m].
pub const MAX_RESOLUTION_M: f64 = 10.0;
/// Largest `|origin_x_m|`, `|origin_y_m|` of a map file [m].
pub const MAX_ORIGIN_M: f64 = 1e6;
/// Largest `start_escape_m` [m].
pub const MAX_START_ESCAPE_M: f64 = 10.0;
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
    /// Obstacles grow by this radius [m], 0..=[`MAX_ROBOT_RADIUS_M`].
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

    #[test]
    fn parameters_parse_and_reject() {
        assert_eq!(parse_algorithm("JPS").unwrap(), Algorithm::Jps);
        assert_eq!(parse_algorithm("astar").unwrap(), Algorithm::AStar);
        assert_eq!(parse_algorithm("dijkstra").unwrap(), Algorithm::Dijkstra);
        assert_eq!(parse_algorithm("bfs").unwrap_err().key, "algorithm");
        assert_eq!(parse_diagonal_mode("never").unwrap(), DiagonalMode::Never);
        assert_eq!(
            parse_diagonal_mode("if_at_most_one_obstacle").unwrap(),
            DiagonalMode::IfAtMostOneObstacle
        );
        assert_eq!(
            parse_diagonal_mode("sometimes").unwrap_err().key,
            "diagonal_mode"
        );
        assert_eq!(
            MapOptions::new(101, true, 0.0).unwrap_err().key,
            "occupied_above"
        );
        assert_eq!(
            MapOptions::new(-1, true, 0.0).unwrap_err().key,
            "occupied_above"
        );
        assert_eq!(
            MapOptions::new(50, true, -0.1).unwrap_err().key,
            "robot_radius_m"
        );
        assert_eq!(
            MapOptions::new(50, true, f64::NAN).unwrap_err().key,
            "robot_radius_m"
        );
        assert!(
            !MapOptions::new(50, false, 0.2)
                .unwrap()
                .occupancy
                .unknown_is_blocked
        );
    }

    #[test]
    fn jps_falls_back_to_astar_for_other_diagonal_modes() {
        let s = Search::resolve("jps", "only_when_no_obstacles").unwrap();
        assert_eq!((s.algorithm, s.fell_back()), (Algorithm::Jps, false));
        let s = Search::resolve("jps", "always").unwrap();
        assert_eq!(
            (s.algorithm, s.requested, s.fell_back()),
            (Algorithm::AStar, Algorithm::Jps, true)
        );
        let s = Search::resolve("dijkstra", "never").unwrap();
        assert_eq!((s.algorithm, s.fell_back()), (Algorithm::Dijkstra, false));
    }

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
