//! `cargo xtask bench`: every benchmark of the project, one after the other on this
//! machine, each printing its own table (criterion's, or a markdown table). Speed is
//! only ever measured here, never asserted in tests; compare ratios within one run.
//!
//! `cargo xtask bench [name ...]` runs only the named ones (see `BENCHES`).
use crate::env::{Layout, Ros};
use crate::run::{self, Failure};

/// The base's live bench (planner + comms_bridge + arnie_base, the board played by the bench).
mod live;

/// (name, what it measures, cargo arguments).
const BENCHES: &[(&str, &str, &[&str])] = &[
    ("trajectory", "minimum-jerk planning (target: 300 mm under 20 µs)", &["bench", "-p", "arnie_trajectory", "--no-default-features", "--bench", "minjerk"]),
    ("detour-scenes", "the flame task on generated box scenes: 100 in the library with simulated contacts (success, contacts, detour length, planning p50/p99), then 20 on the real graph (success, task time vs no box)", &["bench", "-p", "arnie_trajectory", "--no-default-features", "--bench", "detour_scenes"]),
    ("spine-wire", "spine: decode + route one datagram (library, no sockets)", &["bench", "-p", "arnie_spine", "--no-default-features", "--bench", "wire"]),
    ("spine", "spine on a real graph: UDP -> topic latency vs r2r baseline, max rate, UDP -> UDP route", &["build", "--release", "-p", "arnie_spine", "--bins"]),
    ("planner", "planner: JPS and A* vs the pathfinding crate and PathFinding.js", &["bench", "-p", "arnie_grid", "--bench", "compare"]),
    ("comms", "comms: frames encoded / decoded per second", &["bench", "-p", "arnie_packets", "--bench", "codec"]),
    ("brain", "brain: instructions loading and ticks", &["bench", "-p", "arnie_brain", "--no-default-features", "--bench", "tick"]),
    ("foxglove", "foxglove_bridge on a real graph: added latency publish -> WebSocket client at 1 kHz (ws and wss + token), messages/s to 1 and 4 clients", &["build", "--release", "-p", "arnie_foxglove", "-p", "arnie_secure", "--bins"]),
    ("base", "base: control step (odometry packet in -> DriveSpeed out) and the planner's re-plan after a mark on the table map: library calls, then live through planner + comms_bridge + base with the bench as the motor board", &["bench", "-p", "arnie_base", "--no-default-features", "--bench", "base"]),
    ("nav2", "Nav2's actions on the simulated board as BasicNavigator uses them (goal -> first feedback, -> result), and compute_path_to_pose against the PlanPath service (p50/p99)", &["build", "--release", "-p", "arnie_base", "-p", "arnie_planner", "-p", "arnie_comms", "-p", "arnie_table", "--bins"]),
    ("state", "state_publisher on a real graph: /arm/position -> /joint_states + /tf at the demo's 50 Hz, 1 kHz and 2 kHz (kept up, CPU, latency)", &["build", "--release", "-p", "arnie_state", "--bins"]),
    ("two-hosts", "the spine's /arm/position to the trajectory server's host across a virtual LAN (two network namespaces, root only) beside the same path on one host, and throughput; plain UDP DDS and TLS (docs/SECURITY.md) in the same run", &["build", "--release", "-p", "arnie_sim", "-p", "arnie_spine", "-p", "arnie_secure", "--bins"]),
    ("lifecycle", "managed nodes: the lifecycle check per message on the spine's message (goal: under 1 µs), and launch to all active for both stacks", &["build", "--release", "-p", "arnie_lifecycle_manager", "--bins"]),
    ("bag", "arnie_bag on a real graph: recording 1 kHz + the demo's topics without loss (60 s), recorder CPU, playback timing error at -r 1 / -r 4", &["build", "--release", "-p", "arnie_bag", "--bins"]),
];

pub fn cmd(layout: &Layout, ros: &Ros, rest: &[String]) -> Result<(), Failure> {
    for name in rest {
        if !BENCHES.iter().any(|(n, _, _)| n == name) {
            let names: Vec<&str> = BENCHES.iter().map(|b| b.0).collect();
            return Err(Failure::new(format!(
                "unknown bench `{name}` (benches: {})",
                names.join(", ")
            )));
        }
    }
    let chosen: Vec<_> = BENCHES
        .iter()
        .filter(|(n, _, _)| rest.is_empty() || rest.iter().any(|r| r == n))
        .collect();
    if chosen.iter().any(|(n, _, _)| *n == "planner") {
        prepare_pathfinding_js(layout);
    }
    let mut failed = Vec::new();
    for (name, what, args) in chosen {
        println!("\n## bench `{name}`: {what}\n");
        let mut result = run::cargo(layout, ros, args);
        if result.is_ok() && *name == "spine" {
            // spine_bench starts the release spine_bridge itself, so both are built first.
            let bench = layout.target.join("release/spine_bench");
            result = run::status(
                run::command(layout, ros, &bench.to_string_lossy()),
                "spine_bench",
            );
        }
        if result.is_ok() && *name == "lifecycle" {
            // The launches run the dev tree's nodes (what `cargo xtask launch` runs).
            let bench = layout.target.join("release/lifecycle_bench");
            result = run::status(
                run::command(layout, ros, &bench.to_string_lossy()),
                "lifecycle_bench",
            );
        }
        if result.is_ok() && *name == "bag" {
            // bag_bench starts the release arnie_bag itself (record, then play); options:
            // target/release/bag_bench --duration S --demo-duration S --rate HZ.
            let bench = layout.target.join("release/bag_bench");
            result = run::status(
                run::command(layout, ros, &bench.to_string_lossy()),
                "bag_bench",
            );
        }
        if result.is_ok() && *name == "foxglove" {
            // foxglove_bench starts the release foxglove_bridge itself (own domain, free port).
            let bench = layout.target.join("release/foxglove_bench");
            result = run::status(
                run::command(layout, ros, &bench.to_string_lossy()),
                "foxglove_bench",
            );
        }
        if result.is_ok() && *name == "state" {
            // state_bench starts the release state_publisher itself (own domain).
            let bench = layout.target.join("release/state_bench");
            result = run::status(
                run::command(layout, ros, &bench.to_string_lossy()),
                "state_bench",
            );
        }
        if result.is_ok() && *name == "detour-scenes" {
            // The graph part: release nodes, 20 scenes and runs without a box.
            result = run::cargo(
                layout,
                ros,
                &[
                    "build",
                    "--release",
                    "-p",
                    "arnie_sim",
                    "-p",
                    "arnie_spine",
                    "-p",
                    "arnie_trajectory",
                    "-p",
                    "arnie_brain",
                    "-p",
                    "arnie_scenes",
                    "--bins",
                ],
            );
            if result.is_ok() {
                let script = layout.root.join("xtask/scripts/detour_bench.py");
                let mut c = run::command(layout, ros, &ros.python.to_string_lossy());
                c.arg(&script)
                    .env("ARNIE_BIN_DIR", layout.target.join("release"));
                result = run::status(c, "detour_bench.py");
            }
        }
        if result.is_ok() && *name == "two-hosts" {
            // The script makes the namespaces and starts the release sim and spine there.
            let script = layout.root.join("xtask/scripts/two_hosts_bench.py");
            result = run::python(layout, ros, &[&script.to_string_lossy()]);
        }
        if result.is_ok() && *name == "nav2" {
            let script = layout.root.join("xtask/scripts/nav2_bench.py");
            let bins = layout.target.join("release");
            result = run::python(
                layout,
                ros,
                &[
                    &script.to_string_lossy(),
                    "--bin-dir",
                    &bins.to_string_lossy(),
                ],
            );
        }
        if result.is_ok() && *name == "base" {
            // The library figures above; now the same loop through the real stack.
            println!("\n### live: odometry packet in -> motion packet out, and the re-plan\n");
            result = live::base(layout, ros);
        }
        if let Err(f) = result {
            eprintln!("xtask: bench {name}: {}", f.message);
            failed.push(*name);
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

/// PathFinding.js (npm `pathfinding`, pinned in nodes/lib/arnie_grid/bench/package.json) for
/// the planner comparison; without node/npm that column says "skipped".
fn prepare_pathfinding_js(layout: &Layout) {
    crate::setup::npm_deps(
        &layout.root.join("nodes/lib/arnie_grid/bench"),
        "pathfinding",
        "bench: PathFinding.js for the planner comparison; without it that column is skipped",
    );
}
