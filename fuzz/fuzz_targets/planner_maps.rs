//! The planner's map formats (nodes/arnie_planner `formats`, `grid`): the same bytes go
//! through every loader (Moving AI `.map` and `.scen`, PGM P2/P5, PNG, ASCII rows), so
//! any seed exercises all of them. Asserts: never a panic; a grid that loads has
//! `width * height` cells within the size limit; it writes back as a P5 PGM and as a
//! Moving AI map that load to the same cells (decode∘encode); and on small grids JPS
//! and A* agree on whether a path exists and on its length.
#![no_main]
use arnie_grid::{Algorithm, Cell, DiagonalMode, Grid, PgmOptions, Planner};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let opts = PgmOptions::default();
    let mut grids = Vec::new();
    grids.extend(Grid::from_pgm(data, &opts).ok());
    grids.extend(Grid::from_png(data, &opts).ok());
    if let Ok(text) = std::str::from_utf8(data) {
        grids.extend(Grid::from_movingai(text).ok());
        grids.extend(Grid::from_ascii(text).ok());
        let _ = arnie_grid::parse_scen(text);
    }
    for g in grids {
        check(&g);
    }
});

fn check(g: &Grid) {
    let (w, h) = (g.width(), g.height());
    assert!(
        w > 0 && h > 0 && w <= Grid::MAX_SIDE && h <= Grid::MAX_SIDE,
        "{w}x{h}"
    );
    assert_eq!(g.blocked_cells().len(), w * h);

    let mut pgm = format!("P5\n{w} {h}\n255\n").into_bytes();
    pgm.extend(g.blocked_cells().iter().map(|&b| if b { 0u8 } else { 255 }));
    let back = Grid::from_pgm(&pgm, &PgmOptions::default()).expect("our PGM loads");
    assert_eq!(back.blocked_cells(), g.blocked_cells(), "PGM round trip");

    let mut map = format!("type octile\nheight {h}\nwidth {w}\nmap\n");
    for row in g.blocked_cells().chunks(w) {
        map.extend(row.iter().map(|&b| if b { '@' } else { '.' }));
        map.push('\n');
    }
    let back = Grid::from_movingai(&map).expect("our Moving AI map loads");
    assert_eq!(
        back.blocked_cells(),
        g.blocked_cells(),
        "Moving AI round trip"
    );

    if w * h > 4096 {
        return;
    }
    let free: Vec<Cell> = (0..h)
        .flat_map(|y| (0..w).map(move |x| Cell::new(x as i32, y as i32)))
        .filter(|&c| g.is_free(c))
        .collect();
    let (Some(&start), Some(&goal)) = (free.first(), free.last()) else {
        return;
    };
    let mut planner = Planner::new(g);
    let diag = DiagonalMode::OnlyWhenNoObstacles;
    let jps = planner.plan(start, goal, Algorithm::Jps, diag);
    let astar = planner.plan(start, goal, Algorithm::AStar, diag);
    match (jps, astar) {
        (Ok(a), Ok(b)) => assert!(
            (a.length_cells - b.length_cells).abs() < 1e-6,
            "JPS {} vs A* {} from {start:?} to {goal:?}\n{g:?}",
            a.length_cells,
            b.length_cells
        ),
        (Err(_), Err(_)) => {}
        (a, b) => panic!("JPS {a:?} vs A* {b:?} from {start:?} to {goal:?}\n{g:?}"),
    }
}
