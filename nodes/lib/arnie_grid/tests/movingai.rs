//! Every scenario of every Moving AI `.scen` in `shared/reference/movingai` is solved by
//! both JPS and A* with exactly the published optimal length (1e-3), and the paths are
//! legal (free cells, legal steps, no corner cutting).

use std::path::{Path, PathBuf};

use arnie_grid::{parse_scen, Algorithm, Cell, DiagonalMode, Grid, Planner};

fn reference_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../../shared/reference/movingai")
}

fn check_path(grid: &Grid, cells: &[Cell], start: Cell, goal: Cell) {
    assert_eq!(cells.first(), Some(&start));
    assert_eq!(cells.last(), Some(&goal));
    for w in cells.windows(2) {
        let (a, b) = (w[0], w[1]);
        assert!(grid.is_free(b), "blocked cell {b:?}");
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        assert!(
            dx.abs() <= 1 && dy.abs() <= 1 && (dx, dy) != (0, 0),
            "bad step {a:?} -> {b:?}"
        );
        if dx != 0 && dy != 0 {
            assert!(
                grid.is_free(Cell::new(a.x + dx, a.y)) && grid.is_free(Cell::new(a.x, a.y + dy)),
                "corner cut {a:?} -> {b:?}"
            );
        }
    }
}

#[test]
fn every_reference_scenario_has_the_published_length() {
    let dir = reference_dir();
    let mut scen_files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "scen"))
        .collect();
    scen_files.sort();
    assert!(
        scen_files.len() >= 4,
        "expected the reference .scen files in {}",
        dir.display()
    );
    let mut solved = 0;
    for scen_path in &scen_files {
        let scens = parse_scen(&std::fs::read_to_string(scen_path).unwrap()).unwrap();
        assert!(!scens.is_empty(), "{}", scen_path.display());
        // `maps/dao/arena.map` -> the file of that name in the reference folder.
        let map_name = Path::new(&scens[0].map).file_name().unwrap().to_owned();
        let grid =
            Grid::from_movingai(&std::fs::read_to_string(dir.join(&map_name)).unwrap()).unwrap();
        let mut planner = Planner::new(&grid);
        for s in &scens {
            assert_eq!(Path::new(&s.map).file_name(), Some(map_name.as_os_str()));
            assert_eq!((s.width, s.height), (grid.width(), grid.height()));
            for algo in [Algorithm::Jps, Algorithm::AStar] {
                let r = planner
                    .plan(s.start, s.goal, algo, DiagonalMode::OnlyWhenNoObstacles)
                    .unwrap_or_else(|e| {
                        panic!("{}: {s:?} with {algo:?}: {e}", scen_path.display())
                    });
                assert!(
                    (r.length_cells - s.optimal_length).abs() < 1e-3,
                    "{}: {s:?} with {algo:?}: got {}",
                    scen_path.display(),
                    r.length_cells
                );
                check_path(&grid, &r.cells, s.start, s.goal);
            }
            solved += 1;
        }
    }
    assert!(solved >= 800, "only {solved} scenarios");
}
