//! The planner node's ROS-free half (in this library so that the base and its tests
//! answer the same queries); the node's ROS glue (`arnie_planner::ros`) only converts
//! messages to and from these types.
//!
//! - [`config`]: the parameter values ([`PlannerConfig`]) checked as a whole into
//!   [`Settings`]: the [`Search`], the [`MapOptions`], the map file's frame.
//! - [`settings`]: each setting parsed and checked: [`Search`], [`MapOptions`].
//! - [`nav2`]: Nav2's planner server in this planner's terms (planner ids, codes,
//!   paths through poses, the costmap).
//! - [`maps`]: map files loaded, `nav_msgs/OccupancyGrid` fields checked and turned into
//!   a [`Grid`].
//! - here: one `PlanPath` [`Query`] checked ([`Query::check`]) and answered in metres
//!   ([`answer`]).

pub mod config;
pub mod maps;
pub mod nav2;
pub mod settings;

pub use config::{PlannerConfig, Settings};
pub use maps::{
    check_orientation, f32_as_decimal, grid_from_occupancy, load_map_file, load_map_file_raw,
    MapRejected, OccupancyMap, MAX_YAW_RAD,
};
pub use settings::{parse_algorithm, parse_diagonal_mode, MapOptions, ParamError, Search};

use crate::error::PlanError;
use crate::grid::{Cell, Grid};
use crate::search::Planner;
use crate::simplify::{path_length, simplify, smooth};

/// One `PlanPath` request, world metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Query {
    /// Start `(x, y)` [m].
    pub start_m: (f64, f64),
    /// Goal `(x, y)` [m].
    pub goal_m: (f64, f64),
    /// Keep only turning points.
    pub simplify: bool,
    /// Any-angle smoothing (implies `simplify`).
    pub smooth: bool,
}

impl Query {
    /// Refuses a non-finite start or goal (NaN, ±inf), naming which.
    ///
    /// # Errors
    /// [`PlanError::InvalidRequest`] with the reason.
    pub fn check(&self) -> Result<(), PlanError> {
        for (what, (x, y)) in [("start", self.start_m), ("goal", self.goal_m)] {
            if !(x.is_finite() && y.is_finite()) {
                return Err(PlanError::InvalidRequest(format!(
                    "{what} ({x}, {y}) is not finite"
                )));
            }
        }
        Ok(())
    }
}

/// A found path, ready for the response.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// The path's cells (every step cell for a raw path, else the kept points).
    pub cells: Vec<Cell>,
    /// World positions of the cells' centres [m].
    pub points_m: Vec<(f64, f64)>,
    /// Length of the polyline through `cells` [cells].
    pub length_cells: f64,
    /// The same in metres.
    pub length_m: f64,
    /// Cells the search expanded.
    pub expansions: u64,
}

/// Answers `q` on the planner's map (`None`: no map yet).
///
/// # Errors
/// [`PlanError::InvalidRequest`] (non-finite point, checked first: [`Query::check`]),
/// [`PlanError::NoMap`], and the search's own errors.
pub fn answer(
    planner: Option<&mut Planner>,
    search: &Search,
    q: &Query,
) -> Result<Answer, PlanError> {
    q.check()?;
    let planner = planner.ok_or(PlanError::NoMap)?;
    let grid = planner.grid();
    let start = grid.world_to_cell(q.start_m.0, q.start_m.1)?;
    let goal = grid.world_to_cell(q.goal_m.0, q.goal_m.1)?;
    let escape = if grid.contains(start) && grid.is_blocked(start) && search.start_escape_m > 0.0 {
        nearest_free(
            grid,
            start,
            search.start_escape_m / grid.frame().resolution_m,
        )
    } else {
        None
    };
    let found = match escape {
        // Drive out of the margin first: the path starts at the real start cell.
        Some(free) => {
            let mut found = planner.plan(free, goal, search.algorithm, search.diagonal)?;
            found.length_cells += crate::simplify::path_length(&[start, free]);
            found.cells.insert(0, start);
            found
        }
        None => planner.plan(start, goal, search.algorithm, search.diagonal)?,
    };
    let grid = planner.grid();
    let cells = if q.smooth {
        smooth(grid, &simplify(&found.cells))
    } else if q.simplify {
        simplify(&found.cells)
    } else {
        found.cells
    };
    let length_cells = if q.smooth {
        path_length(&cells)
    } else {
        found.length_cells
    };
    let points_m = cells.iter().map(|&c| grid.cell_to_world(c)).collect();
    Ok(Answer {
        length_m: length_cells * grid.frame().resolution_m,
        cells,
        points_m,
        length_cells,
        expansions: found.expansions,
    })
}

/// The free cell nearest to `c` (Euclidean, in cells) within `radius` cells, if any.
fn nearest_free(grid: &Grid, c: Cell, radius: f64) -> Option<Cell> {
    let r = radius.ceil().min(64.0) as i32;
    let mut best: Option<(f64, Cell)> = None;
    for dy in -r..=r {
        for dx in -r..=r {
            let d = f64::from(dx).hypot(f64::from(dy));
            if d > radius || best.is_some_and(|(b, _)| d >= b) {
                continue;
            }
            let n = Cell::new(c.x + dx, c.y + dy);
            if grid.contains(n) && !grid.is_blocked(n) {
                best = Some((d, n));
            }
        }
    }
    best.map(|(_, n)| n)
}

/// Test fixtures shared by the node modules' tests (`maps` and this one).
#[cfg(test)]
mod fixtures {
    use super::{MapOptions, OccupancyMap};

    /// Threshold 50, unknown blocked, no inflation.
    pub fn opts() -> MapOptions {
        MapOptions::new(50, true, 0.0).unwrap()
    }

    /// A 6x4 map: a wall in column 3 with a gap in the top row (data bottom row first).
    pub fn wall_map() -> Vec<i8> {
        let rows_top_down = ["...#..", "...#..", "...#..", "......"];
        let mut data = Vec::new();
        for row in rows_top_down.iter().rev() {
            data.extend(row.chars().map(|c| if c == '#' { 100 } else { 0 }));
        }
        data
    }

    /// [`wall_map`]'s data as an `OccupancyGrid`: 1 m cells, origin (0, 0), not rotated.
    pub fn wall_occupancy(data: &[i8]) -> OccupancyMap<'_> {
        OccupancyMap {
            width: 6,
            height: 4,
            resolution_m: 1.0,
            origin_x_m: 0.0,
            origin_y_m: 0.0,
            orientation: (0.0, 0.0, 0.0, 1.0),
            data,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simplify::has_line_of_sight;
    use fixtures::{opts, wall_map, wall_occupancy};

    #[test]
    fn a_start_in_the_margin_is_left_through_the_nearest_free_cell() {
        // 5 x 3, a wall on the left column; the start is on the wall.
        let grid =
            Grid::from_movingai("type octile\nheight 3\nwidth 5\nmap\n@....\n@....\n@....\n")
                .unwrap();
        let frame = grid.frame();
        let mut planner = Planner::new(&grid);
        let start = grid.cell_to_world(Cell::new(0, 1));
        let goal = grid.cell_to_world(Cell::new(4, 1));
        let q = Query {
            start_m: start,
            goal_m: goal,
            simplify: false,
            smooth: false,
        };
        let strict = Search::resolve("astar", "always").unwrap();
        assert_eq!(
            answer(Some(&mut planner), &strict, &q).unwrap_err(),
            PlanError::StartBlocked(Cell::new(0, 1))
        );
        let lenient = strict.with_start_escape(frame.resolution_m * 1.5).unwrap();
        let a = answer(Some(&mut planner), &lenient, &q).unwrap();
        assert_eq!(a.cells.first(), Some(&Cell::new(0, 1)));
        assert_eq!(a.cells.get(1), Some(&Cell::new(1, 1)));
        assert_eq!(a.cells.last(), Some(&Cell::new(4, 1)));
        assert!((a.length_cells - 4.0).abs() < 1e-9, "{}", a.length_cells);
        // Too far from any free cell: still START_BLOCKED.
        let short = strict.with_start_escape(frame.resolution_m * 0.5).unwrap();
        assert!(matches!(
            answer(Some(&mut planner), &short, &q),
            Err(PlanError::StartBlocked(_))
        ));
        assert!(strict.with_start_escape(f64::NAN).is_err());
        assert!(strict.with_start_escape(-1.0).is_err());
    }

    #[test]
    fn occupancy_map_answers_in_metres() {
        let data = wall_map();
        let msg = OccupancyMap {
            resolution_m: 0.5,
            origin_x_m: -1.0,
            origin_y_m: 2.0,
            ..wall_occupancy(&data)
        };
        let grid = grid_from_occupancy(&msg, &opts()).unwrap();
        let mut planner = Planner::new(&grid);
        let search = Search::resolve("jps", "only_when_no_obstacles").unwrap();
        // Start: cell (0, 0) (top-left) = world (-0.75, 3.75); goal cell (5, 0).
        let q = Query {
            start_m: (-0.75, 3.75),
            goal_m: (1.75, 3.75),
            simplify: false,
            smooth: false,
        };
        let a = answer(Some(&mut planner), &search, &q).unwrap();
        assert_eq!(a.cells.first(), Some(&Cell::new(0, 0)));
        assert_eq!(a.cells.last(), Some(&Cell::new(5, 0)));
        assert!(a.cells.iter().all(|&c| grid.is_free(c)));
        assert!(
            a.cells.contains(&Cell::new(3, 3)),
            "through the gap: {:?}",
            a.cells
        );
        assert_eq!(a.points_m[0], (-0.75, 3.75));
        assert!((a.length_m - a.length_cells * 0.5).abs() < 1e-12);
        let simple = answer(
            Some(&mut planner),
            &search,
            &Query {
                simplify: true,
                ..q
            },
        )
        .unwrap();
        assert!(simple.cells.len() < a.cells.len());
        assert_eq!(simple.length_cells, a.length_cells);
        let smoothed = answer(Some(&mut planner), &search, &Query { smooth: true, ..q }).unwrap();
        assert!(smoothed.length_cells <= a.length_cells);
        assert!(smoothed
            .cells
            .windows(2)
            .all(|w| has_line_of_sight(&grid, w[0], w[1])));
    }

    #[test]
    fn errors_have_their_codes() {
        let data = wall_map();
        let msg = wall_occupancy(&data);
        let grid = grid_from_occupancy(&msg, &opts()).unwrap();
        let mut planner = Planner::new(&grid);
        let search = Search::resolve("jps", "only_when_no_obstacles").unwrap();
        let q = |s: (f64, f64), g: (f64, f64)| Query {
            start_m: s,
            goal_m: g,
            simplify: false,
            smooth: false,
        };
        assert_eq!(
            answer(None, &search, &q((0.5, 0.5), (1.5, 0.5))).unwrap_err(),
            PlanError::NoMap
        );
        assert_eq!(
            answer(Some(&mut planner), &search, &q((-0.5, 0.5), (1.5, 0.5)))
                .unwrap_err()
                .code(),
            2
        );
        assert_eq!(
            answer(Some(&mut planner), &search, &q((0.5, 0.5), (6.5, 0.5)))
                .unwrap_err()
                .code(),
            3
        );
        assert_eq!(
            answer(Some(&mut planner), &search, &q((3.5, 1.5), (0.5, 0.5)))
                .unwrap_err()
                .code(),
            4
        );
        assert_eq!(
            answer(Some(&mut planner), &search, &q((0.5, 0.5), (3.5, 1.5)))
                .unwrap_err()
                .code(),
            5
        );
        assert_eq!(
            answer(Some(&mut planner), &search, &q((f64::NAN, 0.5), (3.5, 1.5)))
                .unwrap_err()
                .code(),
            7
        );
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let e = answer(None, &search, &q((0.5, 0.5), (bad, 0.5))).unwrap_err();
            assert_eq!(e.code(), 7, "before NO_MAP");
            assert!(
                e.to_string().contains("goal") && e.to_string().contains("not finite"),
                "{e}"
            );
        }
    }
}
