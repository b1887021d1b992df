//! Parameter values resolved into settings: every string and number is checked once,
//! here ([`PlannerConfig::check`]), at start and on every change (the node refuses a
//! change that does not pass, with this module's reason).
//!
//! JPS supports only [`DiagonalMode::OnlyWhenNoObstacles`]; [`Search::resolve`] runs A*
//! instead for the other modes (same optimal lengths, just slower) and says so in
//! [`Search::fell_back`], which the node logs.

use crate::error::MapError;
use crate::formats::OccupancyOptions;
use crate::grid::Grid;
use crate::search::{Algorithm, DiagonalMode};

/// A parameter value that cannot be used: `key` names the parameter.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("parameter {key}: {reason}")]
pub struct ParamError {
    /// The parameter's name.
    pub key: &'static str,
    /// What is wrong with its value.
    pub reason: String,
}

pub(crate) fn param_err(key: &'static str, reason: impl Into<String>) -> ParamError {
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
        if !m.is_finite() || !(0.0..=MAX_START_ESCAPE_M).contains(&m) {
            return Err(ParamError {
                key: "start_escape_m",
                reason: format!("{m} is not in 0..={MAX_START_ESCAPE_M} [m]"),
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
/// Largest `start_escape_m` [m].
pub const MAX_START_ESCAPE_M: f64 = 10.0;

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
}
