//! The node's ROS-free half: parameter values resolved into settings (every string is
//! checked once, here), map files loaded, `nav_msgs/OccupancyGrid` fields checked and
//! turned into a [`Grid`], and one `PlanPath` query answered in metres. The binary
//! (`src/bin/planner.rs`) only converts ROS messages to and from these types.
//!
//! JPS supports only [`DiagonalMode::OnlyWhenNoObstacles`]; [`Search::resolve`] runs A*
//! instead for the other modes (same optimal lengths, just slower) and says so in
//! [`Search::fell_back`], which the node logs.

use std::fmt;
use std::path::Path;

use crate::error::{MapError, PlanError};
use crate::formats::{OccupancyOptions, PgmOptions};
use crate::grid::{Cell, Grid, MapFrame};
use crate::search::{Algorithm, DiagonalMode, Planner};
use crate::simplify::{path_length, simplify, smooth};

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
    /// (finite, ≥ 0) parameter values.
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
        if !(robot_radius_m.is_finite() && robot_radius_m >= 0.0) {
            return Err(param_err(
                "robot_radius_m",
                format!("{robot_radius_m} is not a finite number >= 0"),
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

/// Why a map was not used. The node keeps the previous map (or none) and counts it.
#[derive(Debug, Clone, PartialEq)]
pub enum MapRejected {
    /// The file could not be read.
    Io {
        /// The file.
        path: String,
        /// The OS error.
        reason: String,
    },
    /// The map's origin is rotated (only yaw 0 maps are supported: the grid is
    /// axis-aligned with the world).
    Rotated {
        /// Yaw of the origin [rad].
        yaw_rad: f64,
        /// Whether the quaternion also has roll or pitch.
        tilted: bool,
    },
    /// The contents are not a valid map.
    Invalid(MapError),
}

impl fmt::Display for MapRejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MapRejected::Io { path, reason } => write!(f, "cannot read map file {path}: {reason}"),
            MapRejected::Rotated { yaw_rad, tilted } => write!(
                f,
                "map origin is rotated (yaw {yaw_rad:.6} rad{}): only axis-aligned maps (yaw 0) are supported",
                if *tilted { ", with roll/pitch" } else { "" }
            ),
            MapRejected::Invalid(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for MapRejected {}

impl From<MapError> for MapRejected {
    fn from(e: MapError) -> Self {
        MapRejected::Invalid(e)
    }
}

/// Largest rotation accepted as "not rotated" [rad] (float noise of a yaw-0 quaternion).
pub const MAX_YAW_RAD: f64 = 1e-6;

/// Checks that the quaternion `(x, y, z, w)` of a map origin is the identity (up to
/// [`MAX_YAW_RAD`]). An all-zero quaternion (an unset message) counts as identity.
///
/// # Errors
/// [`MapRejected::Rotated`] with the yaw.
pub fn check_orientation(x: f64, y: f64, z: f64, w: f64) -> Result<(), MapRejected> {
    let yaw_rad = 2.0 * z.atan2(w);
    // Fold into (-pi, pi]: q and -q are the same rotation.
    let yaw_rad = (yaw_rad + std::f64::consts::PI).rem_euclid(2.0 * std::f64::consts::PI)
        - std::f64::consts::PI;
    let norm = (x * x + y * y + z * z + w * w).sqrt();
    let tilted =
        norm > 0.0 && (x.abs() / norm > MAX_YAW_RAD / 2.0 || y.abs() / norm > MAX_YAW_RAD / 2.0);
    if tilted || yaw_rad.abs() > MAX_YAW_RAD || !(norm.is_finite()) {
        return Err(MapRejected::Rotated { yaw_rad, tilted });
    }
    Ok(())
}

/// The fields of a `nav_msgs/OccupancyGrid` the planner uses, as plain numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct OccupancyMap<'a> {
    /// `info.width` [cells].
    pub width: u32,
    /// `info.height` [cells].
    pub height: u32,
    /// `info.resolution` [m/cell] (see [`f32_as_decimal`]).
    pub resolution_m: f64,
    /// `info.origin.position.x` [m].
    pub origin_x_m: f64,
    /// `info.origin.position.y` [m].
    pub origin_y_m: f64,
    /// `info.origin.orientation` as `(x, y, z, w)`.
    pub orientation: (f64, f64, f64, f64),
    /// `data`: row-major from the origin, 0..=100 or -1.
    pub data: &'a [i8],
}

/// A `float32` message field (`OccupancyGrid.info.resolution`) as the decimal it was
/// written as: `0.1f32` becomes `0.1`, not `0.10000000149011612`, so cell centres in
/// metres come out as the publisher meant them (the shortest decimal that round-trips
/// the `f32`).
pub fn f32_as_decimal(v: f32) -> f64 {
    v.to_string().parse().unwrap_or(f64::from(v))
}

/// The grid (inflated) for an occupancy map message.
///
/// # Errors
/// [`MapRejected::Rotated`], or [`MapRejected::Invalid`] for a bad frame, size or
/// cell count.
pub fn grid_from_occupancy(map: &OccupancyMap<'_>, opts: &MapOptions) -> Result<Grid, MapRejected> {
    let (qx, qy, qz, qw) = map.orientation;
    check_orientation(qx, qy, qz, qw)?;
    let frame = MapFrame::new(map.resolution_m, map.origin_x_m, map.origin_y_m)?;
    let grid = Grid::from_occupancy(
        map.width as usize,
        map.height as usize,
        frame,
        map.data,
        &opts.occupancy,
    )?;
    Ok(opts.inflate(grid)?)
}

/// Loads a PGM (P2/P5) or a PNG (both recognised by their magic number, `map_server`
/// thresholds) or a Moving AI `.map` (anything else), places it by `frame` and inflates it.
///
/// # Errors
/// [`MapRejected::Io`], [`MapRejected::Invalid`].
pub fn load_map_file(path: &Path, frame: MapFrame, opts: &MapOptions) -> Result<Grid, MapRejected> {
    Ok(opts.inflate(load_map_file_raw(path, frame, opts)?)?)
}

/// As [`load_map_file`], without the inflation (the map as drawn). A `.json` file is a
/// Eurobot table scenario (`arnie_table`, e.g. `params/eurobot/table.json`): rasterised
/// at `frame.resolution_m` with the table's edge ring blocked, origin at the table's
/// lower-left corner (the scenario's frame; `frame`'s origin is not used), so the
/// planner and the simulated board read the same obstacles.
///
/// # Errors
/// [`MapRejected::Io`], [`MapRejected::Invalid`].
pub fn load_map_file_raw(
    path: &Path,
    frame: MapFrame,
    opts: &MapOptions,
) -> Result<Grid, MapRejected> {
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
    {
        let scenario = arnie_table::Scenario::load(path).map_err(|e| MapRejected::Io {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        let r = scenario
            .rasterise(frame.resolution_m, true)
            .map_err(|e| MapError::BadHeader { what: e })?;
        let table = MapFrame::new(r.resolution_m, r.origin_x_m, r.origin_y_m)?;
        return Ok(Grid::from_blocked(r.width, r.height, r.blocked)?.with_frame(table));
    }
    let bytes = std::fs::read(path).map_err(|e| MapRejected::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    let grid = if bytes.starts_with(b"P2") || bytes.starts_with(b"P5") {
        let pgm = PgmOptions {
            unknown_is_blocked: opts.unknown_is_blocked,
            ..PgmOptions::default()
        };
        Grid::from_pgm(&bytes, &pgm)?
    } else if bytes.starts_with(b"\x89PNG") {
        let png = PgmOptions {
            unknown_is_blocked: opts.unknown_is_blocked,
            ..PgmOptions::default()
        };
        Grid::from_png(&bytes, &png)?
    } else {
        let text = std::str::from_utf8(&bytes).map_err(|_| MapError::BadHeader {
            what: "neither a PGM (P2/P5), a PNG nor a Moving AI text map".into(),
        })?;
        Grid::from_movingai(text)?
    };
    Ok(grid.with_frame(frame))
}

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
/// [`PlanError::NoMap`], [`PlanError::InvalidRequest`] (non-finite point), and the
/// search's own errors.
pub fn answer(
    planner: Option<&mut Planner>,
    search: &Search,
    q: &Query,
) -> Result<Answer, PlanError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simplify::has_line_of_sight;

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

    fn opts() -> MapOptions {
        MapOptions::new(50, true, 0.0).unwrap()
    }

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
    fn f32_resolution_keeps_its_decimal() {
        assert_eq!(f32_as_decimal(0.1), 0.1);
        assert_eq!(f32_as_decimal(0.05), 0.05);
        assert_eq!(f32_as_decimal(1.0), 1.0);
        assert!(f32_as_decimal(f32::NAN).is_nan());
        assert_eq!(f32_as_decimal(f32::INFINITY), f64::INFINITY);
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
    fn orientation_must_be_identity() {
        assert!(check_orientation(0.0, 0.0, 0.0, 1.0).is_ok());
        assert!(check_orientation(0.0, 0.0, 0.0, -1.0).is_ok(), "-q is q");
        assert!(check_orientation(0.0, 0.0, 0.0, 0.0).is_ok(), "unset");
        let half = std::f64::consts::FRAC_PI_4;
        match check_orientation(0.0, 0.0, half.sin(), half.cos()) {
            Err(MapRejected::Rotated {
                yaw_rad,
                tilted: false,
            }) => assert!((yaw_rad - 2.0 * half).abs() < 1e-12),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            check_orientation(0.1, 0.0, 0.0, 0.995),
            Err(MapRejected::Rotated { tilted: true, .. })
        ));
        assert!(check_orientation(0.0, 0.0, f64::NAN, 1.0).is_err());
        let msg = check_orientation(0.0, 0.0, 1.0, 0.0)
            .unwrap_err()
            .to_string();
        assert!(msg.contains("rotated"), "{msg}");
    }

    /// A 6x4 map: a wall in column 3 with a gap in the top row (data bottom row first).
    fn wall_map() -> Vec<i8> {
        let rows_top_down = ["...#..", "...#..", "...#..", "......"];
        let mut data = Vec::new();
        for row in rows_top_down.iter().rev() {
            data.extend(row.chars().map(|c| if c == '#' { 100 } else { 0 }));
        }
        data
    }

    #[test]
    fn occupancy_map_answers_in_metres() {
        let data = wall_map();
        let msg = OccupancyMap {
            width: 6,
            height: 4,
            resolution_m: 0.5,
            origin_x_m: -1.0,
            origin_y_m: 2.0,
            orientation: (0.0, 0.0, 0.0, 1.0),
            data: &data,
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
        let msg = OccupancyMap {
            width: 6,
            height: 4,
            resolution_m: 1.0,
            origin_x_m: 0.0,
            origin_y_m: 0.0,
            orientation: (0.0, 0.0, 0.0, 1.0),
            data: &data,
        };
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
    }

    #[test]
    fn rotated_or_bad_maps_are_rejected() {
        let data = wall_map();
        let good = OccupancyMap {
            width: 6,
            height: 4,
            resolution_m: 1.0,
            origin_x_m: 0.0,
            origin_y_m: 0.0,
            orientation: (0.0, 0.0, 0.0, 1.0),
            data: &data,
        };
        let rotated = OccupancyMap {
            orientation: (0.0, 0.0, 0.5f64.sin(), 0.5f64.cos()),
            ..good.clone()
        };
        assert!(matches!(
            grid_from_occupancy(&rotated, &opts()),
            Err(MapRejected::Rotated { .. })
        ));
        let short = OccupancyMap {
            data: &data[..5],
            ..good.clone()
        };
        assert!(matches!(
            grid_from_occupancy(&short, &opts()),
            Err(MapRejected::Invalid(MapError::WrongCellCount { .. }))
        ));
        let zero_res = OccupancyMap {
            resolution_m: 0.0,
            ..good.clone()
        };
        assert!(matches!(
            grid_from_occupancy(&zero_res, &opts()),
            Err(MapRejected::Invalid(MapError::BadFrame { .. }))
        ));
        let inflated =
            grid_from_occupancy(&good, &MapOptions::new(50, true, 1.0).unwrap()).unwrap();
        assert!(
            inflated.blocked_count() > grid_from_occupancy(&good, &opts()).unwrap().blocked_count()
        );
    }

    #[test]
    fn map_files_load_by_content() {
        let dir = std::env::temp_dir().join(format!("planner-node-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let frame = MapFrame::new(0.05, 1.0, 2.0).unwrap();
        let pgm = dir.join("m.pgm");
        std::fs::write(&pgm, "P2\n3 1\n255\n255 0 255\n").unwrap();
        let g = load_map_file(&pgm, frame, &opts()).unwrap();
        assert_eq!((g.width(), g.height(), g.blocked_count()), (3, 1, 1));
        assert_eq!(g.frame(), frame);
        let mai = dir.join("m.map");
        std::fs::write(&mai, "type octile\nheight 1\nwidth 3\nmap\n.@.\n").unwrap();
        assert_eq!(
            load_map_file(&mai, frame, &opts()).unwrap().blocked_count(),
            1
        );
        let bad = dir.join("bad.map");
        std::fs::write(&bad, "nonsense").unwrap();
        assert!(matches!(
            load_map_file(&bad, frame, &opts()),
            Err(MapRejected::Invalid(_))
        ));
        assert!(matches!(
            load_map_file(&dir.join("missing"), frame, &opts()),
            Err(MapRejected::Io { .. })
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_table_scenario_is_a_map_file() {
        let table = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../params/eurobot/table.json");
        let frame = MapFrame::new(0.02, 5.0, 5.0).unwrap();
        let g = load_map_file_raw(&table, frame, &opts()).unwrap();
        assert_eq!((g.width(), g.height()), (150, 100));
        assert_eq!(
            (g.frame().origin_x_m, g.frame().origin_y_m),
            (0.0, 0.0),
            "the table's own frame"
        );
        // The table's edge ring is blocked, its centre free, the alcove wall (x 2.0-2.1, y 1.2-1.55) blocked.
        assert!(g.is_blocked(g.world_to_cell(0.01, 1.0).unwrap()));
        assert!(g.is_free(g.world_to_cell(0.3, 1.0).unwrap()));
        assert!(g.is_blocked(g.world_to_cell(2.05, 1.4).unwrap()));
        let inflated =
            load_map_file(&table, frame, &MapOptions::new(50, true, 0.15).unwrap()).unwrap();
        assert!(inflated.blocked_count() > g.blocked_count());
        let bad =
            std::env::temp_dir().join(format!("planner-bad-table-{}.json", std::process::id()));
        std::fs::write(&bad, "{}").unwrap();
        assert!(load_map_file_raw(&bad, frame, &opts())
            .unwrap_err()
            .to_string()
            .contains("planner-bad-table"));
        std::fs::remove_file(&bad).unwrap();
    }
}
