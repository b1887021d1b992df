//! Ours (JPS = default, A*) against the `pathfinding` crate's `astar` and PathFinding.js
//! (`AStarFinder`, `DiagonalMovement.OnlyWhenNoObstacles`, octile), on the Moving AI
//! reference scenarios and on generated, seeded 1024×1024 maps (20 % random obstacles; a
//! maze). Every implementation's lengths must equal ours (and the published optimum for
//! the reference scenarios): fast but wrong fails the bench. Prints a markdown table of
//! per-query mean and p99 and the ratios against ours.
//!
//! Run: `cargo bench -p arnie_grid --bench compare`
//! Env: `PLANNER_BENCH_QUERIES` (queries per generated map, default 30),
//! `PLANNER_BENCH_SIDE` (generated map side, default 1024), `PLANNER_BENCH_NO_JS=1`.
//! PathFinding.js runs when `node` and the npm package are found (`NODE_PATH`, or
//! `npm install --prefix nodes/lib/arnie_grid/bench`); otherwise its rows say "skipped".

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use arnie_grid::{parse_scen, Algorithm, Cell, DiagonalMode, Grid, Planner};

const DIAG: DiagonalMode = DiagonalMode::OnlyWhenNoObstacles;

/// splitmix64: a tiny seeded generator, so the maps are the same on every machine.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

struct Dataset {
    name: String,
    grid: Grid,
    queries: Vec<(Cell, Cell)>,
    /// Published optimal lengths (reference scenarios only).
    published: Option<Vec<f64>>,
}

#[derive(Clone, Copy)]
struct Stats {
    mean_us: f64,
    p99_us: f64,
}

fn stats(times_us: &[f64]) -> Stats {
    let mut sorted = times_us.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len().max(1);
    let p99_rank = ((0.99 * n as f64).ceil() as usize).clamp(1, n) - 1;
    Stats {
        mean_us: sorted.iter().sum::<f64>() / n as f64,
        p99_us: sorted.get(p99_rank).copied().unwrap_or(0.0),
    }
}

fn random_map(side: usize, seed: u64) -> Grid {
    let mut rng = Rng(seed);
    let blocked = (0..side * side).map(|_| rng.below(100) < 20).collect();
    Grid::from_blocked(side, side, blocked).expect("valid size")
}

/// A perfect maze (iterative depth-first backtracker): rooms at odd coordinates,
/// 1-cell corridors.
fn maze_map(side: usize, seed: u64) -> Grid {
    let mut rng = Rng(seed);
    let mut blocked = vec![true; side * side];
    let rooms = (side - 1) / 2;
    let at = |rx: usize, ry: usize| (2 * ry + 1) * side + 2 * rx + 1;
    let mut seen = vec![false; rooms * rooms];
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    blocked[at(0, 0)] = false;
    while let Some(&(x, y)) = stack.last() {
        let mut next = [(0usize, 0usize); 4];
        let mut k = 0;
        for (dx, dy) in [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)] {
            let (nx, ny) = (x as i64 + dx, y as i64 + dy);
            if nx >= 0
                && ny >= 0
                && (nx as usize) < rooms
                && (ny as usize) < rooms
                && !seen[ny as usize * rooms + nx as usize]
            {
                next[k] = (nx as usize, ny as usize);
                k += 1;
            }
        }
        if k == 0 {
            stack.pop();
            continue;
        }
        let (nx, ny) = next[rng.below(k)];
        seen[ny * rooms + nx] = true;
        blocked[at(nx, ny)] = false;
        blocked[(at(x, y) + at(nx, ny)) / 2] = false; // the wall between
        stack.push((nx, ny));
    }
    Grid::from_blocked(side, side, blocked).expect("valid size")
}

/// `n` seeded queries between free cells at least `min_dist` apart (Chebyshev), kept
/// only when connected.
fn queries(grid: &Grid, n: usize, min_dist: i32, seed: u64) -> Vec<(Cell, Cell)> {
    let mut rng = Rng(seed);
    let mut planner = Planner::new(grid);
    let mut out = Vec::new();
    let free_cell = |rng: &mut Rng| loop {
        let c = Cell::new(
            rng.below(grid.width()) as i32,
            rng.below(grid.height()) as i32,
        );
        if grid.is_free(c) {
            return c;
        }
    };
    while out.len() < n {
        let (s, g) = (free_cell(&mut rng), free_cell(&mut rng));
        if (s.x - g.x).abs().max((s.y - g.y).abs()) >= min_dist
            && planner.plan(s, g, Algorithm::Jps, DIAG).is_ok()
        {
            out.push((s, g));
        }
    }
    out
}

fn reference_datasets() -> Vec<Dataset> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../../shared/reference/movingai");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "scen"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let Ok(scens) = std::fs::read_to_string(&f)
            .map_err(|e| e.to_string())
            .and_then(|t| parse_scen(&t).map_err(|e| e.to_string()))
        else {
            eprintln!("skipping unreadable {}", f.display());
            continue;
        };
        let Some(name) = scens
            .first()
            .and_then(|s| Path::new(&s.map).file_name().map(|n| n.to_owned()))
        else {
            continue;
        };
        let grid =
            Grid::from_movingai(&std::fs::read_to_string(dir.join(&name)).expect("reference map"))
                .expect("map parses");
        out.push(Dataset {
            name: name.to_string_lossy().into_owned(),
            grid,
            queries: scens.iter().map(|s| (s.start, s.goal)).collect(),
            published: Some(scens.iter().map(|s| s.optimal_length).collect()),
        });
    }
    out
}

fn run_ours(ds: &Dataset, algo: Algorithm) -> (Vec<f64>, Vec<f64>) {
    let mut planner = Planner::new(&ds.grid);
    let (s, g) = ds.queries[0];
    let _ = planner.plan(s, g, algo, DIAG); // warm-up
    let mut times = Vec::with_capacity(ds.queries.len());
    let mut lengths = Vec::with_capacity(ds.queries.len());
    for &(s, g) in &ds.queries {
        let t = Instant::now();
        let r = planner.plan(s, g, algo, DIAG);
        times.push(t.elapsed().as_secs_f64() * 1e6);
        lengths.push(r.map_or(-1.0, |r| r.length_cells));
    }
    (times, lengths)
}

/// The `pathfinding` crate's `astar` on the same padded free-array, integer costs
/// (1e6 per step, √2 rounded), octile heuristic; no allocation per expansion.
fn run_crate(ds: &Dataset) -> (Vec<f64>, Vec<f64>) {
    const STRAIGHT: u64 = 1_000_000;
    const DIAGONAL: u64 = 1_414_214;
    let (w, h) = (ds.grid.width(), ds.grid.height());
    let pw = w + 2;
    let mut free = vec![false; pw * (h + 2)];
    for y in 0..h {
        for x in 0..w {
            free[(y + 1) * pw + x + 1] = ds.grid.is_free(Cell::new(x as i32, y as i32));
        }
    }
    let free = &free[..];
    let pwi = pw as isize;
    let dirs: [(isize, isize, u64); 8] = [
        (1, 0, STRAIGHT),
        (-1, 0, STRAIGHT),
        (0, 1, STRAIGHT),
        (0, -1, STRAIGHT),
        (1, 1, DIAGONAL),
        (-1, 1, DIAGONAL),
        (1, -1, DIAGONAL),
        (-1, -1, DIAGONAL),
    ];
    let one = |s: Cell, g: Cell| -> f64 {
        let (si, gi) = (
            (s.y as usize + 1) * pw + s.x as usize + 1,
            (g.y as usize + 1) * pw + g.x as usize + 1,
        );
        let (gx, gy) = ((gi % pw) as i64, (gi / pw) as i64);
        let found = pathfinding::directed::astar::astar(
            &si,
            |&i: &usize| {
                dirs.iter().filter_map(move |&(dx, dy, c)| {
                    let n = i.wrapping_add_signed(dx + dy * pwi);
                    let ok = free[n]
                        && (dx == 0
                            || dy == 0
                            || (free[i.wrapping_add_signed(dx)]
                                && free[i.wrapping_add_signed(dy * pwi)]));
                    ok.then_some((n, c))
                })
            },
            |&i: &usize| {
                let (dx, dy) = (
                    ((i % pw) as i64 - gx).unsigned_abs(),
                    ((i / pw) as i64 - gy).unsigned_abs(),
                );
                STRAIGHT * dx.max(dy) + (DIAGONAL - STRAIGHT) * dx.min(dy)
            },
            |&i: &usize| i == gi,
        );
        found.map_or(-1.0, |(path, _)| {
            path.windows(2)
                .map(|p| {
                    if (p[1] as isize - p[0] as isize).abs() == 1
                        || (p[1] as isize - p[0] as isize).abs() == pwi
                    {
                        1.0
                    } else {
                        std::f64::consts::SQRT_2
                    }
                })
                .sum()
        })
    };
    let _ = one(ds.queries[0].0, ds.queries[0].1); // warm-up
    let mut times = Vec::with_capacity(ds.queries.len());
    let mut lengths = Vec::with_capacity(ds.queries.len());
    for &(s, g) in &ds.queries {
        let t = Instant::now();
        let len = one(s, g);
        times.push(t.elapsed().as_secs_f64() * 1e6);
        lengths.push(len);
    }
    (times, lengths)
}

/// Where `require('pathfinding')` will resolve, or why PathFinding.js is skipped.
fn js_setup() -> Result<(PathBuf, Option<String>), String> {
    if std::env::var_os("PLANNER_BENCH_NO_JS").is_some() {
        return Err("PLANNER_BENCH_NO_JS is set".into());
    }
    let bench_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench");
    let script = bench_dir.join("pathfinding_js.js");
    match Command::new("node").arg("--version").output() {
        Ok(o) if o.status.success() => {}
        _ => return Err("`node` not found".into()),
    }
    if bench_dir.join("node_modules/pathfinding").is_dir() {
        return Ok((script, None));
    }
    match std::env::var("NODE_PATH") {
        Ok(p) if std::env::split_paths(&p).any(|d| d.join("pathfinding").is_dir()) => {
            Ok((script, Some(p)))
        }
        _ => Err(
            "npm package `pathfinding` not found (npm install --prefix nodes/lib/arnie_grid/bench)"
                .into(),
        ),
    }
}

fn run_js(
    ds: &Dataset,
    script: &Path,
    node_path: Option<&str>,
    tmp: &Path,
) -> Result<(Stats, Vec<f64>), String> {
    let mut text = format!("{} {}\n", ds.grid.width(), ds.grid.height());
    for y in 0..ds.grid.height() as i32 {
        text.extend((0..ds.grid.width() as i32).map(|x| {
            if ds.grid.is_free(Cell::new(x, y)) {
                '.'
            } else {
                '@'
            }
        }));
        text.push('\n');
    }
    text.push_str(&format!("{}\n", ds.queries.len()));
    for (s, g) in &ds.queries {
        text.push_str(&format!("{} {} {} {}\n", s.x, s.y, g.x, g.y));
    }
    let file = tmp.join(format!("{}.txt", ds.name));
    std::fs::write(&file, text).map_err(|e| format!("writing {}: {e}", file.display()))?;
    let mut cmd = Command::new("node");
    cmd.arg("--max-old-space-size=8192").arg(script).arg(&file);
    if let Some(p) = node_path {
        cmd.env("NODE_PATH", p);
    }
    let out = cmd.output().map_err(|e| format!("running node: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "node failed: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ));
    }
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("bad JSON from node: {e}"))?;
    let num = |k: &str| {
        v.get(k)
            .and_then(serde_json::Value::as_f64)
            .ok_or(format!("missing {k}"))
    };
    let lengths = v
        .get("lengths")
        .and_then(serde_json::Value::as_array)
        .map(|a| a.iter().filter_map(serde_json::Value::as_f64).collect())
        .ok_or("missing lengths")?;
    Ok((
        Stats {
            mean_us: num("mean_us")?,
            p99_us: num("p99_us")?,
        },
        lengths,
    ))
}

fn assert_lengths(ds: &Dataset, who: &str, got: &[f64], want: &[f64]) {
    assert_eq!(
        got.len(),
        want.len(),
        "{}: {who} answered {} of {} queries",
        ds.name,
        got.len(),
        want.len()
    );
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() < 1e-3,
            "{}: {who} query {i} {:?}: length {g}, expected {w}",
            ds.name,
            ds.queries[i]
        );
    }
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is accepted.
    let env_usize = |k: &str, d: usize| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let n_queries = env_usize("PLANNER_BENCH_QUERIES", 30);
    let side = env_usize("PLANNER_BENCH_SIDE", 1024).max(16);
    let mut datasets = reference_datasets();
    eprintln!("generating {side}x{side} maps ...");
    let random = random_map(side, 0x5eed_0001);
    let maze = maze_map(side, 0x5eed_0002);
    let min_dist = (side / 4) as i32;
    datasets.push(Dataset {
        name: format!("random20-{side}"),
        queries: queries(&random, n_queries, min_dist, 11),
        grid: random,
        published: None,
    });
    datasets.push(Dataset {
        name: format!("maze-{side}"),
        queries: queries(&maze, n_queries, min_dist, 12),
        grid: maze,
        published: None,
    });

    let js = js_setup();
    let tmp = std::env::temp_dir().join(format!("planner-bench-{}", std::process::id()));
    if js.is_ok() {
        let _ = std::fs::create_dir_all(&tmp);
    }
    println!("| dataset | queries | implementation | mean µs | p99 µs | mean ÷ ours JPS | mean ÷ ours A* |");
    println!("|---|---:|---|---:|---:|---:|---:|");
    let mut summary = Vec::new();
    for ds in &datasets {
        eprintln!("{} ({} queries) ...", ds.name, ds.queries.len());
        let (jps_t, jps_len) = run_ours(ds, Algorithm::Jps);
        let (astar_t, astar_len) = run_ours(ds, Algorithm::AStar);
        assert_lengths(ds, "ours A*", &astar_len, &jps_len);
        if let Some(published) = &ds.published {
            assert_lengths(ds, "ours JPS", &jps_len, published);
        }
        let (crate_t, crate_len) = run_crate(ds);
        assert_lengths(ds, "pathfinding crate", &crate_len, &jps_len);
        let (jps, astar, krate) = (stats(&jps_t), stats(&astar_t), stats(&crate_t));
        let row = |who: &str, s: Stats| {
            println!(
                "| {} | {} | {who} | {:.1} | {:.1} | {:.2} | {:.2} |",
                ds.name,
                ds.queries.len(),
                s.mean_us,
                s.p99_us,
                s.mean_us / jps.mean_us,
                s.mean_us / astar.mean_us
            )
        };
        row("ours JPS (default)", jps);
        row("ours A*", astar);
        row("`pathfinding` crate astar", krate);
        let skipped = |e: String| {
            println!(
                "| {} | {} | PathFinding.js | skipped: {e} | | | |",
                ds.name,
                ds.queries.len()
            );
            None
        };
        let js_stats = match &js {
            Ok((script, node_path)) => match run_js(ds, script, node_path.as_deref(), &tmp) {
                Ok((s, lengths)) => {
                    assert_lengths(ds, "PathFinding.js", &lengths, &jps_len);
                    row("PathFinding.js AStarFinder", s);
                    Some(s)
                }
                Err(e) => skipped(e),
            },
            Err(e) => skipped(e.clone()),
        };
        summary.push((ds.name.clone(), jps, astar, krate, js_stats));
    }
    let _ = std::fs::remove_dir_all(&tmp);
    println!();
    println!("Speed-ups of ours (mean per query; targets on the generated maps: JPS ≥ 20× PathFinding.js, ≥ 3× `pathfinding`):");
    for (name, jps, astar, krate, js) in summary {
        let js_part = js.map_or("PathFinding.js skipped".to_string(), |s| {
            format!(
                "vs PathFinding.js: JPS {:.1}×, A* {:.1}×",
                s.mean_us / jps.mean_us,
                s.mean_us / astar.mean_us
            )
        });
        println!(
            "- {name}: vs `pathfinding`: JPS {:.1}×, A* {:.1}×; {js_part}",
            krate.mean_us / jps.mean_us,
            krate.mean_us / astar.mean_us
        );
    }
}
