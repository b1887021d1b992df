//! `cargo xtask bench`: every benchmark of the project, one after the other on this
//! machine, each printing its own table (criterion's, or a markdown table). Speed is
//! only ever measured here, never asserted in tests; compare ratios within one run.
//!
//! One rule for where a benchmark lives: it is a `[[bench]]` target (`harness = false`)
//! in the `benches/` folder of the crate it measures, run here as `cargo bench -p CRATE
//! --bench NAME`. A library benchmark builds without ROS (`--no-default-features` for a
//! node's library); a live one, on a real graph, is named `live`, declares
//! `required-features = ["ros"]` and starts its crate's release binaries (cargo builds
//! them with the bench: `CARGO_BIN_EXE_<name>`). What a bench needs that is not Rust
//! lives beside it in the same `benches/` (the planner's PathFinding.js baseline, the
//! two-host script). `xtask/tests/node_shape.rs` checks the rule, and that every
//! `[[bench]]` of the workspace is in [`BENCHES`].
//!
//! `cargo xtask bench [name ...]` runs only the named ones.
use crate::env::{Layout, Ros};
use crate::run::{self, Failure};

/// The base's live bench (planner + comms_bridge + base, the board played by the bench).
mod live;

/// How a bench is built.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Build {
    /// A library bench: `--no-default-features` (no ROS) where the crate has a `ros` feature.
    NoRos,
    /// The crate's default features (a library crate without ROS, or a live bench).
    Default,
}

/// One benchmark: its `cargo xtask bench` name, what it measures, its crate and `[[bench]]`
/// (or script in that crate's `benches/`), and the packages whose release binaries it
/// starts beside its own crate's (built first).
struct Bench {
    name: &'static str,
    what: &'static str,
    krate: &'static str,
    bench: &'static str,
    build: Build,
    needs: &'static [&'static str],
}

const fn bench(
    name: &'static str,
    what: &'static str,
    krate: &'static str,
    bench: &'static str,
    build: Build,
    needs: &'static [&'static str],
) -> Bench {
    Bench {
        name,
        what,
        krate,
        bench,
        build,
        needs,
    }
}

/// Every benchmark, in the order they run; one line each (`xtask/tests/node_shape.rs`
/// reads them). A name may select several (`base`: the library's, then the live one).
#[rustfmt::skip]
const BENCHES: &[Bench] = &[
    bench("trajectory", "minimum-jerk planning (target: 300 mm under 20 µs)", "arnie_trajectory", "minjerk", Build::NoRos, &[]),
    bench("detour", "the trajectory server's detour planning on two scenes (target: p50 under 5 ms)", "arnie_trajectory", "detour", Build::NoRos, &[]),
    bench("detour-scenes", "the flame task on generated box scenes, library: 100 scenes with simulated contacts (success, contacts, detour length, planning p50/p99)", "arnie_trajectory", "detour_scenes", Build::NoRos, &[]),
    bench("detour-scenes", "the flame task on generated box scenes, graph: 20 through sim + spine + trajectory_server + brain (success, task time against no box)", "arnie_trajectory", "detour_scenes.py", Build::Default, &["arnie_sim", "arnie_spine", "arnie_trajectory", "arnie_brain", "arnie_scenes"]),
    bench("spine-wire", "spine: decode + route one datagram (library, no sockets)", "arnie_spine", "wire", Build::NoRos, &[]),
    bench("spine", "spine on a real graph: UDP -> topic latency vs r2r baseline, max rate, UDP -> UDP route", "arnie_spine", "live", Build::Default, &[]),
    bench("planner", "planner: JPS and A* vs the pathfinding crate and PathFinding.js", "arnie_grid", "compare", Build::Default, &[]),
    bench("ld06", "the LiDAR driver's decoding: 10 Hz of LD06 bytes decoded and assembled into scans (library)", "ld06", "decode", Build::Default, &[]),
    bench("comms", "comms: frames encoded / decoded per second", "arnie_packets", "codec", Build::Default, &[]),
    bench("brain", "brain: instructions loading and ticks", "arnie_brain", "tick", Build::NoRos, &[]),
    bench("foxglove", "foxglove_bridge on a real graph: added latency publish -> WebSocket client at 1 kHz (ws and wss + token), messages/s to 1 and 4 clients", "arnie_foxglove", "live", Build::Default, &["arnie_secure"]),
    bench("base", "base: control step (odometry packet in -> DriveSpeed out) and the planner's re-plan after a mark on the table map (library calls)", "arnie_base", "base", Build::NoRos, &[]),
    bench("base", "base, live: odometry packet in -> motion packet out and the re-plan, through planner + comms_bridge + base with the bench as the motor board", "arnie_base", "live", Build::Default, &[]),
    bench("nav2", "Nav2's actions on the simulated board as BasicNavigator uses them (goal -> first feedback, -> result), and compute_path_to_pose against the PlanPath service (p50/p99)", "arnie_base", "nav2.py", Build::Default, &["arnie_base", "arnie_planner", "arnie_comms", "arnie_table"]),
    bench("state", "state_publisher on a real graph: /arm/position -> /joint_states + /tf at the demo's 50 Hz, 1 kHz and 2 kHz (kept up, CPU, latency)", "arnie_state", "live", Build::Default, &[]),
    bench("two-hosts", "the spine's /arm/position to the trajectory server's host across a virtual LAN (two network namespaces, root only) beside the same path on one host, and throughput; plain UDP DDS and TLS (docs/SECURITY.md) in the same run", "arnie_spine", "two_hosts.py", Build::Default, &["arnie_sim", "arnie_spine", "arnie_secure"]),
    bench("lifecycle", "managed nodes: the lifecycle check per message on the spine's message (goal: under 1 µs), and launch to all active for both stacks (the launches run the dev tree's nodes, as cargo xtask launch does)", "arnie_lifecycle_manager", "live", Build::Default, &[]),
    bench("bag", "arnie_bag on a real graph: recording 1 kHz + the demo's topics without loss (60 s), recorder CPU, playback timing error at -r 1 / -r 4", "arnie_bag", "live", Build::Default, &[]),
];

/// The arguments of `cargo bench` for a bench.
fn cargo_bench_args(b: &Bench) -> Vec<&str> {
    let mut args = vec!["bench", "-p", b.krate];
    if b.build == Build::NoRos {
        args.push("--no-default-features");
    }
    args.extend(["--bench", b.bench]);
    args
}

/// The release binaries of the packages a bench starts beside its own crate's.
fn needs(layout: &Layout, ros: &Ros, b: &Bench) -> Result<(), Failure> {
    if b.needs.is_empty() {
        return Ok(());
    }
    let mut args = vec!["build", "--release"];
    for p in b.needs {
        args.extend(["-p", p]);
    }
    args.push("--bins");
    run::cargo(layout, ros, &args)
}

pub fn cmd(layout: &Layout, ros: &Ros, rest: &[String]) -> Result<(), Failure> {
    for name in rest {
        if !BENCHES.iter().any(|b| b.name == name) {
            let names: Vec<&str> = BENCHES.iter().map(|b| b.name).collect();
            return Err(Failure::new(format!(
                "unknown bench `{name}` (benches: {})",
                names.join(", ")
            )));
        }
    }
    let chosen: Vec<&Bench> = BENCHES
        .iter()
        .filter(|b| rest.is_empty() || rest.iter().any(|r| r == b.name))
        .collect();
    if chosen.iter().any(|b| b.name == "planner") {
        prepare_pathfinding_js(layout);
    }
    let mut failed = Vec::new();
    for b in chosen {
        println!("\n## bench `{}`: {}\n", b.name, b.what);
        let result = needs(layout, ros, b).and_then(|()| match (b.krate, b.bench) {
            // The nodes it measures run beside it (live.rs).
            ("arnie_base", "live") => live::base(layout, ros),
            // A script (rclpy, network namespaces) in the crate's benches/: it starts the
            // release binaries built above.
            (_, script) if script.ends_with(".py") => {
                let path = ["nodes", "nodes/lib", "nodes/tools"]
                    .iter()
                    .map(|d| {
                        layout
                            .root
                            .join(d)
                            .join(b.krate)
                            .join("benches")
                            .join(script)
                    })
                    .find(|p| p.is_file())
                    .ok_or_else(|| {
                        Failure::new(format!("{}'s benches/{script} is missing", b.krate))
                    })?;
                let bins = layout.target.join("release");
                run::python(
                    layout,
                    ros,
                    &[
                        &path.to_string_lossy(),
                        "--bin-dir",
                        &bins.to_string_lossy(),
                    ],
                )
            }
            _ => run::cargo(layout, ros, &cargo_bench_args(b)),
        });
        if let Err(f) = result {
            eprintln!("xtask: bench {}: {}", b.name, f.message);
            failed.push(b.name);
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Failure::new(format!(
            "benches failed: {}",
            failed.join(", ")
        )))
    }
}

/// PathFinding.js (npm `pathfinding`, pinned in
/// nodes/lib/arnie_grid/benches/pathfinding_js/package.json) for the planner comparison;
/// without node/npm that column says "skipped".
fn prepare_pathfinding_js(layout: &Layout) {
    crate::setup::npm_deps(
        &layout
            .root
            .join("nodes/lib/arnie_grid/benches/pathfinding_js"),
        "pathfinding",
        "bench: PathFinding.js for the planner comparison; without it that column is skipped",
    );
}
