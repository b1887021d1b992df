//! The library's errors: [`PlanError`] for a query (one variant per `PlanPath.srv` error
//! code) and [`MapError`] for loading a map (the node stays in `NO_MAP` on those).

use arnie_constants::srv::plan_path::response as plan_path;

use crate::grid::Cell;

/// Why a path query failed. Each variant is one `error_code` constant of
/// `arnie_interfaces/srv/PlanPath` (see [`PlanError::code`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PlanError {
    /// `NO_MAP`: the planner has no map, or the map has no cells.
    #[error("no map loaded")]
    NoMap,
    /// `START_OUTSIDE`: the start cell is not on the map.
    #[error("start cell ({}, {}) is outside the map", .0.x, .0.y)]
    StartOutside(Cell),
    /// `GOAL_OUTSIDE`: the goal cell is not on the map.
    #[error("goal cell ({}, {}) is outside the map", .0.x, .0.y)]
    GoalOutside(Cell),
    /// `START_BLOCKED`: the start cell is an obstacle (after inflation).
    #[error("start cell ({}, {}) is blocked", .0.x, .0.y)]
    StartBlocked(Cell),
    /// `GOAL_BLOCKED`: the goal cell is an obstacle (after inflation).
    #[error("goal cell ({}, {}) is blocked", .0.x, .0.y)]
    GoalBlocked(Cell),
    /// `NO_PATH`: start and goal are free but not connected.
    #[error("no path between start and goal ({expansions} cells expanded)")]
    NoPath {
        /// Cells expanded before the search gave up.
        expansions: u64,
    },
    /// `INVALID_REQUEST`: the request itself is malformed (non-finite coordinates, an
    /// algorithm that does not support the diagonal mode, ...).
    #[error("invalid request: {0}")]
    InvalidRequest(String),
}

impl PlanError {
    /// `PlanPath.srv` `OK`.
    pub const OK: u16 = plan_path::OK;

    /// The `PlanPath.srv` `error_code` of this error.
    pub fn code(&self) -> u16 {
        match self {
            PlanError::NoMap => plan_path::NO_MAP,
            PlanError::StartOutside(_) => plan_path::START_OUTSIDE,
            PlanError::GoalOutside(_) => plan_path::GOAL_OUTSIDE,
            PlanError::StartBlocked(_) => plan_path::START_BLOCKED,
            PlanError::GoalBlocked(_) => plan_path::GOAL_BLOCKED,
            PlanError::NoPath { .. } => plan_path::NO_PATH,
            PlanError::InvalidRequest(_) => plan_path::INVALID_REQUEST,
        }
    }
}

/// Why a map could not be built from a file or message.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MapError {
    /// The header is missing or malformed (`what` names the field).
    #[error("bad map header: {what}")]
    BadHeader {
        /// The header field or token that is wrong.
        what: String,
    },
    /// Width or height is zero, or width × height overflows.
    #[error("bad map size {width}x{height}")]
    BadSize {
        /// Declared width in cells.
        width: u64,
        /// Declared height in cells.
        height: u64,
    },
    /// There are fewer (or more) cells than width × height.
    #[error("map holds {got} cells, expected {expected}")]
    WrongCellCount {
        /// width × height.
        expected: usize,
        /// What the data holds.
        got: usize,
    },
    /// A character or value that is not a known cell kind.
    #[error("unknown cell {value:?} at row {row}, column {col}")]
    BadCell {
        /// Row (0 = first row of the data).
        row: usize,
        /// Column.
        col: usize,
        /// The offending character or value, as text.
        value: String,
    },
    /// A resolution that is not finite and positive, or a non-finite origin.
    #[error("bad map frame: {field} must be finite (resolution > 0)")]
    BadFrame {
        /// The field that is wrong (`resolution_m`, `origin_x_m`, ...).
        field: &'static str,
    },
    /// An option value out of range (`field` names it).
    #[error("bad map option: {field} out of range")]
    BadOption {
        /// The option that is wrong.
        field: &'static str,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_match_plan_path_srv() {
        let srv = include_str!("../../../../msg/arnie_interfaces/srv/PlanPath.srv");
        let c = Cell::new(1, 2);
        let all = [
            ("NO_MAP", PlanError::NoMap),
            ("START_OUTSIDE", PlanError::StartOutside(c)),
            ("GOAL_OUTSIDE", PlanError::GoalOutside(c)),
            ("START_BLOCKED", PlanError::StartBlocked(c)),
            ("GOAL_BLOCKED", PlanError::GoalBlocked(c)),
            ("NO_PATH", PlanError::NoPath { expansions: 0 }),
            ("INVALID_REQUEST", PlanError::InvalidRequest("x".into())),
        ];
        for (name, err) in all {
            let line = format!("uint16 {name}={}", err.code());
            assert!(
                srv.lines().any(|l| l.trim() == line),
                "{line} not in PlanPath.srv"
            );
            assert!(!err.to_string().is_empty());
        }
        assert!(srv
            .lines()
            .any(|l| l.trim() == format!("uint16 OK={}", PlanError::OK)));
    }
}
