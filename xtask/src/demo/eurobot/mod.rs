//! `cargo xtask demo eurobot [name:=value ...]`: one Eurobot match on the simulated table.
//!
//! 1. builds the workspace's binaries;
//! 2. starts the simulated motor board (`board_sim`) on a pty FIRST (so the bridge's
//!    serial port exists when it starts), with its truth log in `out/eurobot/`;
//! 3. launches `launch/eurobot.launch.xml` with `use_sim:=false transport:=uart
//!    serial_port:=<the pty>` (by `ros2 launch` where installed, else the project's
//!    launcher), the strategy file `params/eurobot/strategy.json` unless
//!    `strategy_file:=` says otherwise;
//! 4. `xtask/scripts/eurobot_monitor.py` (an rclpy client) sends the RunStrategy goal,
//!    prints progress (task, score, time left, re-plans) and decides: exit 0 when the
//!    points reach the scenario's `match.expected_points`;
//! 5. draws `out/eurobot/eurobot.svg` (and `eurobot.png` beside it): the table, obstacles, the opponent's path, the
//!    robot's driven path coloured by task, where it stopped for an obstacle or re-planned,
//!    and the score over time.
//!
//! Own arguments (not passed to the launch file): `scenario:=FILE`, `link:=pty|can_udp`
//! (`can_udp`: the launch file's own board_sim over CAN-over-UDP), `corrupt_rate:=P`
//! (pty only: board_sim's `--corrupt-rate`). `colour:=blue|yellow` goes to the launch
//! file and to board_sim (the table mirrored for yellow), and the picture is drawn on that
//! side. board_sim also streams the simulated LiDAR (`out/eurobot/lidar`, the launch
//! file's `lidar_port`), pulls the start cord 1 s after the strategy arms the match, and
//! takes commands on `out/eurobot/board.ctl` (`echo "cord pull" > out/eurobot/board.ctl`).
use super::common::{self, Graph};

mod picture;
use crate::env::{Layout, Ros};
use crate::launch;
use crate::run::{self, Failure};
pub use picture::draw;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

pub fn cmd(layout: &Layout, ros: &Ros, rest: &[String]) -> Result<(), Failure> {
    let started = Instant::now();
    let mut args = launch::launch_args(rest)?;
    let scenario = args
        .remove("scenario")
        .map(PathBuf::from)
        .unwrap_or_else(|| layout.root.join("params/eurobot/table.json"));
    let link = args.remove("link").unwrap_or_else(|| "pty".into());
    let corrupt = args.remove("corrupt_rate");
    if link != "pty" && link != "can_udp" {
        return Err(Failure::new(format!(
            "link:={link}: expected link:=pty or link:=can_udp"
        )));
    }
    if corrupt.is_some() && link != "pty" {
        return Err(Failure::new("corrupt_rate:= needs link:=pty"));
    }
    let strategy = args
        .entry("strategy_file".into())
        .or_insert_with(|| {
            layout
                .root
                .join("params/eurobot/strategy.json")
                .to_string_lossy()
                .into_owned()
        })
        .clone();
    args.insert("scenario".into(), scenario.to_string_lossy().into_owned());
    let colour = args.get("colour").cloned().unwrap_or_else(|| "blue".into());
    let colour = arnie_math::Colour::parse(&colour)
        .map_err(|e| Failure::new(format!("colour:={colour}: {e}")))?;
    args.insert("colour".into(), colour.name().into());
    run::cargo(layout, ros, &["build", "--workspace", "--bins"])?;
    launch::use_ros_env(layout, ros);
    let out = layout.root.join("out/eurobot");
    std::fs::create_dir_all(&out)?;
    let truth = out.join("truth.jsonl");
    let record = out.join("run.json");
    let svg = out.join("eurobot.svg");
    for stale in [&truth, &record] {
        let _ = std::fs::remove_file(stale);
    }
    let graph = Graph::local();
    let env = &graph.env;
    let lidar = out.join("lidar");
    let control = out.join("board.ctl");
    args.insert("lidar_port".into(), lidar.to_string_lossy().into_owned());
    args.insert(
        "board_control".into(),
        control.to_string_lossy().into_owned(),
    );

    // The board first (pty), so the bridge finds its serial port.
    let mut board: Option<Child> = None;
    if link == "pty" {
        let sim = BoardSim {
            colour,
            lidar: &lidar,
            control: &control,
            corrupt: corrupt.as_deref(),
        };
        let (child, pty) = start_board(layout, ros, &scenario, &out, &truth, &sim)?;
        args.insert("use_sim".into(), "false".into());
        args.insert("transport".into(), "uart".into());
        args.insert("serial_port".into(), pty);
        board = Some(child);
    } else {
        args.insert("use_sim".into(), "true".into());
        args.insert("truth_log".into(), truth.to_string_lossy().into_owned());
    }

    let running = common::launch_stack(
        layout,
        ros,
        "demo eurobot",
        "eurobot.launch.xml",
        &args,
        &graph,
    );
    let running = match running {
        Ok(r) => r,
        Err(e) => {
            stop_board(board);
            return Err(e);
        }
    };
    let stop = running.stop_flag();
    launch::stop_on_signals(stop.clone());
    let mut monitor = run::command(layout, ros, &ros.python.to_string_lossy());
    monitor
        .arg(layout.root.join("xtask/scripts/eurobot_monitor.py"))
        .args([
            "--strategy-file",
            &strategy,
            "--scenario",
            &scenario.to_string_lossy(),
            "--record",
        ])
        .arg(&record)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    if let Some(ns) = args.get("namespace") {
        monitor.args(["--namespace", ns]);
    }
    let status = match common::run_monitor(&mut monitor, &stop) {
        Ok(status) => status,
        Err(e) => {
            eprintln!("xtask: demo eurobot: cannot start the monitor: {e}");
            None
        }
    };
    common::shutdown("demo eurobot", running);
    stop_board(board);
    // The picture, also (especially) after a failed match.
    match draw(&scenario, colour, &truth, &record, &svg) {
        Ok(()) => eprintln!(
            "xtask: demo eurobot: picture {} and {}",
            svg.display(),
            svg.with_extension("png").display()
        ),
        Err(e) => eprintln!("xtask: demo eurobot: no picture: {}", e.message),
    }
    let wall = started.elapsed().as_secs_f64();
    match status {
        Some(st) if st.success() => {
            eprintln!("xtask: demo eurobot: done in {wall:.0} s (build included)");
            Ok(())
        }
        Some(st) => Err(Failure::new(format!(
            "the match did not reach the expected score ({st}); see the lines above and {}",
            record.display()
        ))),
        None => Err(Failure::new("interrupted")),
    }
}

/// Starts `board_sim` on a pty, its truth log at `truth`, and waits for it to say where
/// What the simulated board plays besides the motors: the side, the LiDAR's pty (a
/// symlink), the control FIFO and the corruption rate of its link.
struct BoardSim<'a> {
    colour: arnie_math::Colour,
    lidar: &'a Path,
    control: &'a Path,
    corrupt: Option<&'a str>,
}

/// its pty is (the link file in `out`): the child and the pty's path.
fn start_board(
    layout: &Layout,
    ros: &Ros,
    scenario: &Path,
    out: &Path,
    truth: &Path,
    sim: &BoardSim,
) -> Result<(Child, String), Failure> {
    let link_file = out.join("board.link");
    let _ = std::fs::remove_file(&link_file);
    let exe = layout.target.join("debug/board_sim");
    let mut c = run::command(layout, ros, &exe.to_string_lossy());
    c.args(["--scenario", &scenario.to_string_lossy(), "--packets"])
        .arg(layout.root.join("nodes/lib/arnie_packets/packets"))
        .args(["pty", "--link-file"])
        .arg(&link_file)
        .arg("--truth-log")
        .arg(truth)
        .args([
            "--colour",
            sim.colour.name(),
            "--cord-pull-s",
            "1",
            "--lidar-symlink",
        ])
        .arg(sim.lidar)
        .arg("--control")
        .arg(sim.control)
        .stdin(Stdio::null());
    if let Some(p) = sim.corrupt {
        c.args(["--corrupt-rate", p]);
    }
    use std::os::unix::process::CommandExt;
    c.process_group(0);
    let mut child = c
        .spawn()
        .map_err(|e| Failure::new(format!("cannot start {}: {e}", exe.display())))?;
    let deadline = Instant::now() + Duration::from_secs(20);
    while !link_file.exists() {
        if let Some(st) = child.try_wait()? {
            return Err(Failure::new(format!(
                "board_sim exited ({st}) before opening its pty"
            )));
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            return Err(Failure::new(
                "board_sim did not write its link file within 20 s",
            ));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let pty = std::fs::read_to_string(&link_file)?.trim().to_string();
    eprintln!(
        "xtask: demo eurobot: board_sim on {pty} (truth log {})",
        truth.display()
    );
    Ok((child, pty))
}

/// SIGINT to board_sim (it prints its counters and flushes the truth log), SIGKILL after 5 s.
fn stop_board(board: Option<Child>) {
    let Some(mut child) = board else { return };
    // SAFETY: signalling our own child.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}
