//! Randomised cross-checks: JPS, A* and Dijkstra agree on random grids; for every
//! diagonal mode A* agrees with Dijkstra; paths are legal; simplify/smooth keep the
//! path valid and never longer; errors for blocked, outside and unreachable.

use arnie_grid::{
    has_line_of_sight, path_length, simplify, smooth, Algorithm, Cell, DiagonalMode, Grid,
    PlanError, Planner,
};
use proptest::prelude::*;

const MODES: [DiagonalMode; 4] = [
    DiagonalMode::Always,
    DiagonalMode::IfAtMostOneObstacle,
    DiagonalMode::OnlyWhenNoObstacles,
    DiagonalMode::Never,
];

/// A random grid (1..=24 per side, up to 45 % obstacles) with a start and a goal.
fn grid_and_query() -> impl Strategy<Value = (Grid, Cell, Cell)> {
    (1usize..=24, 1usize..=24, 0u32..=45).prop_flat_map(|(w, h, pct)| {
        let cells = proptest::collection::vec((0u32..100).prop_map(move |r| r < pct), w * h);
        (cells, 0..w as i32, 0..h as i32, 0..w as i32, 0..h as i32).prop_map(
            move |(mut blocked, sx, sy, gx, gy)| {
                // Start and goal free, so most cases search (blocked ones are tested below).
                blocked[sy as usize * w + sx as usize] = false;
                blocked[gy as usize * w + gx as usize] = false;
                (
                    Grid::from_blocked(w, h, blocked).unwrap(),
                    Cell::new(sx, sy),
                    Cell::new(gx, gy),
                )
            },
        )
    })
}

fn legal(grid: &Grid, cells: &[Cell], diag: DiagonalMode) -> bool {
    cells.iter().all(|&c| grid.is_free(c))
        && cells.windows(2).all(|w| {
            let (dx, dy) = (w[1].x - w[0].x, w[1].y - w[0].y);
            match (dx.abs(), dy.abs()) {
                (1, 0) | (0, 1) => true,
                (1, 1) => diag.allows(
                    grid.is_free(Cell::new(w[0].x + dx, w[0].y)),
                    grid.is_free(Cell::new(w[0].x, w[0].y + dy)),
                ),
                _ => false,
            }
        })
}

fn length(p: &mut Planner, s: Cell, g: Cell, algo: Algorithm, diag: DiagonalMode) -> Option<f64> {
    match p.plan(s, g, algo, diag) {
        Ok(r) => {
            assert!(
                legal(p.grid(), &r.cells, diag),
                "{algo:?} {diag:?} illegal path {:?}\n{:?}",
                r.cells,
                p.grid()
            );
            assert_eq!((r.cells.first(), r.cells.last()), (Some(&s), Some(&g)));
            assert!((path_length(&r.cells) - r.length_cells).abs() < 1e-9);
            Some(r.length_cells)
        }
        Err(PlanError::NoPath { .. }) => None,
        Err(e) => panic!("{algo:?} {diag:?}: unexpected {e}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn jps_astar_dijkstra_agree((grid, s, g) in grid_and_query()) {
        let mut p = Planner::new(&grid);
        let d = DiagonalMode::OnlyWhenNoObstacles;
        let dijkstra = length(&mut p, s, g, Algorithm::Dijkstra, d);
        let astar = length(&mut p, s, g, Algorithm::AStar, d);
        let jps = length(&mut p, s, g, Algorithm::Jps, d);
        match (dijkstra, astar, jps) {
            (None, None, None) => {}
            (Some(a), Some(b), Some(c)) => {
                prop_assert!((a - b).abs() < 1e-9 && (a - c).abs() < 1e-9, "dijkstra {a} astar {b} jps {c}\n{grid:?}{s:?} {g:?}");
            }
            other => prop_assert!(false, "disagree on reachability {other:?}\n{grid:?}"),
        }
    }

    #[test]
    fn astar_matches_dijkstra_in_every_mode((grid, s, g) in grid_and_query()) {
        let mut p = Planner::new(&grid);
        for diag in MODES {
            let a = length(&mut p, s, g, Algorithm::AStar, diag);
            let b = length(&mut p, s, g, Algorithm::Dijkstra, diag);
            match (a, b) {
                (None, None) => {}
                (Some(a), Some(b)) => prop_assert!((a - b).abs() < 1e-9, "{diag:?}: astar {a} dijkstra {b}\n{grid:?}"),
                other => prop_assert!(false, "{diag:?}: disagree {other:?}\n{grid:?}"),
            }
        }
    }

    #[test]
    fn simplify_and_smooth_keep_paths_valid((grid, s, g) in grid_and_query()) {
        let mut p = Planner::new(&grid);
        if let Ok(r) = p.plan(s, g, Algorithm::Jps, DiagonalMode::OnlyWhenNoObstacles) {
            let turns = simplify(&r.cells);
            prop_assert!((path_length(&turns) - r.length_cells).abs() < 1e-9);
            prop_assert!(turns.windows(2).all(|w| has_line_of_sight(&grid, w[0], w[1])));
            let smoothed = smooth(&grid, &r.cells);
            prop_assert_eq!(smoothed.first(), Some(&s));
            prop_assert_eq!(smoothed.last(), Some(&g));
            prop_assert!(path_length(&smoothed) <= r.length_cells + 1e-9);
            prop_assert!(smoothed.windows(2).all(|w| has_line_of_sight(&grid, w[0], w[1])), "{smoothed:?}\n{grid:?}");
        }
    }

    #[test]
    fn bad_queries_are_errors_not_panics((grid, s, _g) in grid_and_query(), x in -30i32..30, y in -30i32..30) {
        let mut p = Planner::new(&grid);
        let c = Cell::new(x, y);
        for algo in [Algorithm::Jps, Algorithm::AStar, Algorithm::Dijkstra] {
            let d = DiagonalMode::OnlyWhenNoObstacles;
            if !grid.contains(c) {
                prop_assert_eq!(p.plan(c, s, algo, d), Err(PlanError::StartOutside(c)));
                prop_assert_eq!(p.plan(s, c, algo, d), Err(PlanError::GoalOutside(c)));
            } else if grid.is_blocked(c) {
                prop_assert_eq!(p.plan(c, s, algo, d), Err(PlanError::StartBlocked(c)));
                prop_assert_eq!(p.plan(s, c, algo, d), Err(PlanError::GoalBlocked(c)));
            }
        }
    }
}

#[test]
fn unreachable_goal_is_no_path_for_every_algorithm() {
    let grid = Grid::from_ascii("..#..\n..#..\n###..\n.....").unwrap();
    let mut p = Planner::new(&grid);
    for algo in [Algorithm::Jps, Algorithm::AStar, Algorithm::Dijkstra] {
        match p.plan(
            Cell::new(0, 0),
            Cell::new(4, 3),
            algo,
            DiagonalMode::OnlyWhenNoObstacles,
        ) {
            Err(PlanError::NoPath { expansions }) => {
                assert!(expansions >= 1, "{algo:?} {expansions}")
            }
            other => panic!("{algo:?}: {other:?}"),
        }
    }
    // Even with corner cutting: every diagonal out of the pocket lands on an obstacle.
    assert!(matches!(
        p.plan(
            Cell::new(0, 0),
            Cell::new(4, 3),
            Algorithm::AStar,
            DiagonalMode::Always
        ),
        Err(PlanError::NoPath { .. })
    ));
}
