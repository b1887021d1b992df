//! Nav2's planner server in terms of this planner, without ROS: `compute_path_to_pose`
//! and `compute_path_through_poses` (`planner_id`, their error codes, paths through
//! poses), and the global costmap (`global_costmap/costmap`) from the inflated grid.
//!
//! - **`planner_id`**: `""` or [`DEFAULT_PLANNER_ID`] (`GridBased`, the name of Nav2's
//!   planner in its shipped configuration) run the node's `algorithm`; `jps`, `astar`,
//!   `dijkstra` run that one (with the node's `diagonal_mode`); anything else is
//!   `INVALID_PLANNER` with Nav2's message ([`resolve_planner_id`]).
//! - **Codes** ([`to_pose_code`], [`through_poses_code`]): the `PlanPath` failures as
//!   `ComputePathToPose`'s 200..=208 and `ComputePathThroughPoses`' 300..=309.
//! - **Paths**: the planner's smoothed path (the turning points the base drives, as
//!   `PlanPath` with `simplify` and `smooth` answers), its first point moved to the exact
//!   start and its last to the exact goal, each pose heading toward the next, the last
//!   one with the goal's heading ([`oriented`]). Through poses: one leg per pose, joined
//!   ([`join_legs`]).
use arnie_constants::nav2::action::{
    compute_path_through_poses::result as through, compute_path_to_pose::result as to_pose,
};

use super::Search;
use crate::error::PlanError;
use crate::search::Algorithm;

/// The planner id of the node's own `algorithm` (Nav2's default plugin name).
pub const DEFAULT_PLANNER_ID: &str = "GridBased";
/// Every planner id the node answers to.
pub const PLANNER_IDS: [&str; 4] = [DEFAULT_PLANNER_ID, "jps", "astar", "dijkstra"];

/// The search for `planner_id`, from the node's `search`.
///
/// # Errors
/// An unknown id: `INVALID_PLANNER` (201) and Nav2's message, naming the ids there are.
pub fn resolve_planner_id(planner_id: &str, search: &Search) -> Result<Search, (u16, String)> {
    let algorithm = match planner_id {
        "" | DEFAULT_PLANNER_ID => return Ok(*search),
        "jps" => Algorithm::Jps,
        "astar" => Algorithm::AStar,
        "dijkstra" => Algorithm::Dijkstra,
        other => {
            return Err((
                to_pose::INVALID_PLANNER,
                format!(
                    "Planner id {other} is invalid (planner names are: {})",
                    PLANNER_IDS.join(" ")
                ),
            ))
        }
    };
    let mut s = *search;
    s.requested = algorithm;
    // JPS runs only with its diagonal mode; A* finds the same lengths otherwise.
    s.algorithm = if algorithm == Algorithm::Jps
        && s.diagonal != crate::search::DiagonalMode::OnlyWhenNoObstacles
    {
        Algorithm::AStar
    } else {
        algorithm
    };
    Ok(s)
}

/// A `PlanPath` failure as `ComputePathToPose`'s code.
pub fn to_pose_code(e: &PlanError) -> u16 {
    match e {
        PlanError::NoMap => to_pose::INVALID_PLANNER,
        PlanError::StartOutside(_) => to_pose::START_OUTSIDE_MAP,
        PlanError::GoalOutside(_) => to_pose::GOAL_OUTSIDE_MAP,
        PlanError::StartBlocked(_) => to_pose::START_OCCUPIED,
        PlanError::GoalBlocked(_) => to_pose::GOAL_OCCUPIED,
        PlanError::NoPath { .. } => to_pose::NO_VALID_PATH,
        PlanError::InvalidRequest(_) => to_pose::UNKNOWN,
    }
}

/// A `ComputePathToPose` code as `ComputePathThroughPoses`' (same order, 300..=308).
pub fn through_poses_code(to_pose_code: u16) -> u16 {
    if (to_pose::UNKNOWN..=to_pose::NO_VALID_PATH).contains(&to_pose_code) {
        to_pose_code - to_pose::UNKNOWN + through::UNKNOWN
    } else {
        to_pose_code
    }
}

/// The legs' paths as one: each leg after the first without its first point (the end of
/// the leg before).
pub fn join_legs(legs: Vec<Vec<(f64, f64)>>) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::new();
    for leg in legs {
        let skip = usize::from(!out.is_empty() && !leg.is_empty());
        out.extend(leg.into_iter().skip(skip));
    }
    out
}

/// The path's poses with headings: the first point at `start`, the last at `goal`, each
/// pose heading toward the next, the last with `goal_yaw` [rad].
pub fn oriented(
    mut points: Vec<(f64, f64)>,
    start: (f64, f64),
    goal: (f64, f64),
    goal_yaw: f64,
) -> Vec<(f64, f64, f64)> {
    match points.len() {
        0 => points = vec![start, goal],
        1 => points = vec![start, goal],
        n => {
            points[0] = start;
            points[n - 1] = goal;
        }
    }
    if points.len() == 2 && points[0] == points[1] {
        points.pop();
    }
    let n = points.len();
    (0..n)
        .map(|i| {
            let (x, y) = points[i];
            let yaw = match points.get(i + 1) {
                Some(&(nx, ny)) if (nx, ny) != (x, y) => (ny - y).atan2(nx - x),
                _ => goal_yaw,
            };
            (x, y, yaw)
        })
        .collect()
}

/// The map as a Nav2 costmap on `nav_msgs/OccupancyGrid` (what Nav2's costmap publisher
/// sends on `<costmap>/costmap`): 100 lethal (the map's obstacles and the marks as drawn:
/// `occupancy`, the `map` topic's data, non-zero), 99 inscribed (blocked only by the
/// inflation: the robot's centre cannot go there), 0 free. `occupancy` is bottom row
/// first (OccupancyGrid's order); `inflated` the planner's grid, row 0 at the TOP,
/// `width` wide.
pub fn costmap_data(occupancy: &[i8], inflated: &[bool], width: usize) -> Vec<i8> {
    if width == 0 {
        return Vec::new();
    }
    let bottom_first = inflated.chunks(width).rev().flatten();
    occupancy
        .iter()
        .zip(bottom_first)
        .map(|(&occ, &blocked)| match (occ != 0, blocked) {
            (true, _) => 100,
            (false, true) => 99,
            (false, false) => 0,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search() -> Search {
        Search::resolve("jps", "only_when_no_obstacles").unwrap()
    }

    #[test]
    fn planner_ids_select_the_search_or_are_refused_as_nav2_does() {
        assert_eq!(resolve_planner_id("", &search()).unwrap(), search());
        assert_eq!(
            resolve_planner_id("GridBased", &search()).unwrap(),
            search()
        );
        assert_eq!(
            resolve_planner_id("astar", &search()).unwrap().algorithm,
            Algorithm::AStar
        );
        let (code, msg) = resolve_planner_id("NavFn", &search()).unwrap_err();
        assert_eq!(code, 201);
        assert_eq!(
            msg,
            "Planner id NavFn is invalid (planner names are: GridBased jps astar dijkstra)"
        );
        let a_star_mode = Search::resolve("astar", "always").unwrap();
        assert_eq!(
            resolve_planner_id("jps", &a_star_mode).unwrap().algorithm,
            Algorithm::AStar
        );
    }

    #[test]
    fn failures_take_the_nav2_codes() {
        assert_eq!(to_pose_code(&PlanError::NoPath { expansions: 1 }), 208);
        assert_eq!(
            to_pose_code(&PlanError::GoalBlocked(crate::grid::Cell { x: 1, y: 1 })),
            206
        );
        assert_eq!(through_poses_code(206), 306);
        assert_eq!(through_poses_code(0), 0);
    }

    #[test]
    fn legs_join_and_poses_face_the_next_one() {
        let p = join_legs(vec![
            vec![(0.0, 0.0), (1.0, 0.0)],
            vec![(1.0, 0.0), (1.0, 1.0)],
        ]);
        assert_eq!(p, [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0)]);
        let o = oriented(p, (0.01, 0.0), (1.0, 1.02), 3.0);
        assert_eq!(o.len(), 3);
        assert_eq!((o[0].0, o[2].1), (0.01, 1.02));
        assert!((o[0].2 - 0.0).abs() < 1e-12);
        assert!((o[1].2 - std::f64::consts::FRAC_PI_2).abs() < 0.03);
        assert_eq!(o[2].2, 3.0);
        assert_eq!(
            oriented(vec![], (1.0, 1.0), (1.0, 1.0), 0.5),
            [(1.0, 1.0, 0.5)]
        );
    }

    #[test]
    fn the_costmap_is_lethal_inscribed_free_bottom_row_first() {
        // 2 x 2: the top-left cell lethal (a map obstacle), the top-right blocked only by
        // the inflation; occupancy bottom row first, the grid top row first.
        let occupancy = [0, 0, 100, 0];
        let inflated = [true, true, false, false];
        assert_eq!(costmap_data(&occupancy, &inflated, 2), [0, 0, 100, 99]);
    }
}
