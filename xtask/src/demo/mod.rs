//! `cargo xtask demo`: the full stack (sim + spine + trajectory + brain, from
//! `launch/arnie.launch.xml`: by `ros2 launch arnie_bringup arnie.launch.xml` where the
//! ROS 2 tools are installed, else by the project's launcher; `ARNIE_LAUNCHER=xtask`
//! forces the latter) runs the flame-passing task against the simulated xPC
//! Targets, with the brain's tick and the trajectory period shortened so it ends within
//! two minutes (`task:=english`: the same task from `params/tasks/flame_passing.txt`, in
//! plain English). `xtask/scripts/demo_monitor.py` (an rclpy client) starts the task, prints
//! progress, decides success (the simulated second candle is lit) and records the run
//! (`out/demo_run.json`); [`crate::picture`] draws it (`out/demo.svg`, `out/demo.png`).
//! Exit 0 on success, non-zero with a reason otherwise.
mod bag;
mod common;
pub mod eurobot;

use crate::env::{Layout, Ros};
use crate::launch;
use crate::run::{self, Failure};
use common::Graph;
use std::time::Instant;

/// Launch arguments that make the demo fast; `name:=value` on the command line wins.
const FAST: &[(&str, &str)] = &[("tick_period_s", "2.0"), ("period_ms", "10")];

/// `cargo xtask demo detour`: the same task with a box between the source flame and the
/// candle that the eyes do not see (`params/scenario_detour.json`): the arm is stopped
/// by it, learns where, and reaches the candle by detours. `seed:=N`: scene N of the
/// generated family instead (`arnie_scenes`: one box on the table across one of the task's
/// straight moves), written to `out/scene_N.json`. Other arguments as `demo`.
pub fn detour(layout: &Layout, ros: &Ros, rest: &[String]) -> Result<(), Failure> {
    let mut seed = None;
    let mut args = Vec::new();
    for a in rest {
        match a.strip_prefix("seed:=") {
            Some(n) => {
                seed = Some(n.parse::<u64>().map_err(|_| {
                    Failure::new(format!("seed:={n}: expected an unsigned whole number"))
                })?)
            }
            None => args.push(a.clone()),
        }
    }
    let scenario = match seed {
        None => layout.root.join("params/scenario_detour.json"),
        Some(n) => scene_file(layout, n)?,
    };
    args.insert(0, format!("scenario:={}", scenario.display()));
    cmd(layout, ros, &args)
}

/// Scene `seed` of the family as a scenario file (`out/scene_<seed>.json`).
fn scene_file(layout: &Layout, seed: u64) -> Result<std::path::PathBuf, Failure> {
    let base_path = layout.root.join("params/scenario_flame.json");
    let base: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&base_path)?)
        .map_err(|e| Failure::new(format!("{}: {e}", base_path.display())))?;
    let scene = arnie_scenes::generate(seed);
    let b = scene.obstacle_rounded();
    eprintln!(
        "xtask: demo: scene {seed}: a box x {:.0}..{:.0}, y {:.0}..{:.0}, z {:.0}..{:.0} mm across \
         the move ({:.0}, {:.0}, {:.0}) -> ({:.0}, {:.0}, {:.0}) mm, unseen by the eyes",
        b.min_mm[0],
        b.max_mm[0],
        b.min_mm[1],
        b.max_mm[1],
        b.min_mm[2],
        b.max_mm[2],
        scene.across.0[0],
        scene.across.0[1],
        scene.across.0[2],
        scene.across.1[0],
        scene.across.1[1],
        scene.across.1[2]
    );
    let out = layout.root.join("out");
    std::fs::create_dir_all(&out)?;
    let path = out.join(format!("scene_{seed}.json"));
    let text = serde_json::to_string_pretty(&scene.scenario(&base))
        .map_err(|e| Failure::new(e.to_string()))?;
    std::fs::write(&path, text + "\n")?;
    Ok(path)
}

pub fn cmd(layout: &Layout, ros: &Ros, rest: &[String]) -> Result<(), Failure> {
    let started = Instant::now();
    run::cargo(layout, ros, &["build", "--workspace", "--bins"])?;
    let mut args: std::collections::HashMap<String, String> = FAST
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    args.extend(launch::launch_args(rest)?);
    // `task:=json` (the default) or `task:=english`: the flame task as instructions JSON
    // or in plain English (compiled by the brain); `task_file:=PATH` runs any task file.
    // Not a launch argument.
    let choice = args.remove("task");
    let task = match (choice.as_deref(), args.get("task_file")) {
        (Some(_), Some(_)) => return Err(Failure::new("give task:= or task_file:=, not both")),
        (_, Some(file)) => file.clone(),
        (None | Some("json"), None) => layout
            .root
            .join("params/tasks/flame_passing.json")
            .to_string_lossy()
            .into_owned(),
        (Some("english"), None) => layout
            .root
            .join("params/tasks/flame_passing.txt")
            .to_string_lossy()
            .into_owned(),
        (Some(other), None) => {
            return Err(Failure::new(format!(
                "task:={other}: expected task:=json or task:=english"
            )))
        }
    };
    launch::use_ros_env(layout, ros);
    let out_dir = layout.root.join("out");
    std::fs::create_dir_all(&out_dir)?;
    let svg = out_dir.join("demo.svg");
    let png = out_dir.join("demo.png");
    let record = out_dir.join("demo_run.json");
    // The simulator's scenario (where the flames are) for the picture.
    let scenario = match (args.get("scenario"), args.get("params")) {
        (Some(s), _) => std::path::PathBuf::from(s),
        (None, Some(p)) => std::path::Path::new(p).join("scenario_flame.json"),
        (None, None) => layout.root.join("params/scenario_flame.json"),
    };
    let graph = Graph::local();
    let env = &graph.env;
    let running = common::launch_stack(layout, ros, "demo", "arnie.launch.xml", &args, &graph)?;
    // The run is recorded to out/demo_bag (arnie_bag record --all, replacing an old bag).
    let recorder = bag::start(layout, ros, &out_dir, env)?;
    let stop = running.stop_flag();
    foxglove_hint(args.get("foxglove").map(String::as_str));
    launch::stop_on_signals(stop.clone());
    // A record left by an earlier run must not be drawn as this one's.
    let _ = std::fs::remove_file(&record);
    let mut monitor = run::command(layout, ros, &ros.python.to_string_lossy());
    monitor
        .arg(layout.root.join("xtask/scripts/demo_monitor.py"))
        .args(["--task-file", &task, "--record"])
        .arg(&record)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    let status = common::run_monitor(&mut monitor, &stop)
        .map_err(|e| Failure::new(format!("cannot start the demo monitor: {e}")))?;
    common::shutdown("demo", running);
    recorder.finish(layout, ros, &task);
    let wall = started.elapsed().as_secs_f64();
    // The picture of the run, also (especially) when it failed; a picture that cannot be
    // drawn fails a successful run and is only reported after a failed one.
    if let Some(st) = &status {
        if let Err(e) = crate::picture::draw(&record, Some(&scenario), &svg, &png) {
            if st.success() {
                return Err(e);
            }
            eprintln!("xtask: demo: no picture: {}", e.message);
        }
    }
    match status {
        Some(st) if st.success() => {
            eprintln!(
                "xtask: demo: done in {wall:.0} s (build included); picture: {} and {}",
                png.display(),
                svg.display()
            );
            Ok(())
        }
        Some(st) => Err(Failure::new(format!(
            "the flame-passing task did not succeed ({st}); see the demo lines above and {}",
            png.display()
        ))),
        None => Err(Failure::new("interrupted")),
    }
}

/// Where to watch the running demo in Foxglove (`foxglove:=true` starts arnie_foxglove).
fn foxglove_hint(foxglove: Option<&str>) {
    if foxglove == Some("true") {
        eprintln!("xtask: demo: watch it live in Foxglove: Open connection -> Foxglove WebSocket -> ws://127.0.0.1:8765 (layout: nodes/arnie_bringup/foxglove/arnie_layout.json)");
    } else {
        eprintln!("xtask: demo: to watch it live in Foxglove, run with foxglove:=true and open ws://127.0.0.1:8765");
    }
}
