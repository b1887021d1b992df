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
use crate::env::{Layout, Ros};
use crate::launch;
use crate::run::{self, Failure};
use serde_json::Value;
use std::fmt::Write as _;
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
        let link_file = out.join("board.link");
        let _ = std::fs::remove_file(&link_file);
        let exe = layout.target.join("debug/board_sim");
        let mut c = run::command(layout, ros, &exe.to_string_lossy());
        c.args(["--scenario", &scenario.to_string_lossy(), "--packets"])
            .arg(layout.root.join("nodes/lib/arnie_packets/packets"))
            .args(["pty", "--link-file"])
            .arg(&link_file)
            .arg("--truth-log")
            .arg(&truth)
            .args([
                "--colour",
                colour.name(),
                "--cord-pull-s",
                "1",
                "--lidar-symlink",
            ])
            .arg(&lidar)
            .arg("--control")
            .arg(&control)
            .stdin(Stdio::null());
        if let Some(p) = &corrupt {
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

fn read_json(path: &Path) -> Result<Value, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| Failure::new(format!("{}: {e}", path.display())))
}

/// One pose line of the truth log: time [s], the robot's x and y [m], and the opponent's
/// (x, y) [m] when the line has one.
type Pose = (f64, f64, f64, Option<(f64, f64)>);

const PALETTE: &[&str] = &[
    "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
];

/// Draws the match as SVG (plain text): the table on the left (1 m = 250 px), the score
/// over time on the right; and the same as PNG beside it (`svg` with extension `png`,
/// rendered by arnie_plot).
pub fn draw(
    scenario: &Path,
    colour: arnie_math::Colour,
    truth: &Path,
    record: &Path,
    svg: &Path,
) -> Result<(), Failure> {
    let s = read_json(scenario)?;
    let f = |v: &Value| v.as_f64().unwrap_or(0.0);
    let (w_m, h_m) = (f(&s["table"]["width_m"]), f(&s["table"]["height_m"]));
    // The description is blue's: its x on the side played (the truth log is already there).
    let side = |x: f64| colour.x(x, w_m);
    if !(w_m > 0.0 && h_m > 0.0 && w_m <= 20.0 && h_m <= 20.0) {
        return Err(Failure::new(format!(
            "{}: no table size",
            scenario.display()
        )));
    }
    let k = 250.0;
    let (ox, oy) = (30.0, 60.0);
    let px = |x: f64| ox + x * k;
    let py = |y: f64| oy + (h_m - y) * k;
    // The truth log: start line (unix_s), poses, events.
    let text = std::fs::read_to_string(truth)
        .map_err(|e| Failure::new(format!("{}: {e}", truth.display())))?;
    let lines: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let board_unix = lines
        .iter()
        .find(|l| l["type"] == "start")
        .map_or(0.0, |l| f(&l["unix_s"]));
    let run = read_json(record).unwrap_or(Value::Null);
    let t0 = f(&run["t0_unix"]);
    // Board time [s] of a monitor time t.
    let board_t = |t: f64| {
        if t0 > 0.0 && board_unix > 0.0 {
            t + t0 - board_unix
        } else {
            t
        }
    };
    // Which task is running when (board time): TASK_SELECTED / STARTED events.
    let mut spans: Vec<(f64, String)> = Vec::new();
    for e in run["events"].as_array().into_iter().flatten() {
        let task = e["task"].as_str().unwrap_or("");
        let selected = e["kind"] == "TASK_SELECTED" || e["kind"] == "STARTED";
        if !task.is_empty() && selected && !matches!(spans.last(), Some((_, t)) if t == task) {
            spans.push((board_t(f(&e["t"])), task.to_string()));
        }
    }
    let mut names: Vec<String> = Vec::new();
    for (_, n) in &spans {
        if !names.contains(n) {
            names.push(n.clone());
        }
    }
    let colour_of = |task: Option<&String>| match task {
        Some(t) => PALETTE[names.iter().position(|n| n == t).unwrap_or(0) % PALETTE.len()],
        None => "#555555",
    };
    let task_at = |t: f64| spans.iter().rev().find(|(s, _)| *s <= t).map(|(_, n)| n);

    let (fig_w, fig_h) = (ox + w_m * k + 420.0, oy + h_m * k + 60.0);
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{fig_w:.0}" height="{fig_h:.0}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(o, r##"<rect width="100%" height="100%" fill="white"/>"##);
    let verdict = run["verdict"]["reason"]
        .as_str()
        .unwrap_or("no result recorded");
    let _ = writeln!(
        o,
        r#"<text x="{ox}" y="24" font-size="16" font-weight="bold">Eurobot match on the simulated table: {} ({colour})</text>"#,
        esc(s["name"].as_str().unwrap_or(""))
    );
    let _ = writeln!(o, r#"<text x="{ox}" y="44">{}</text>"#, esc(verdict));
    let _ = writeln!(
        o,
        r##"<rect x="{}" y="{}" width="{}" height="{}" fill="#f4f1e8" stroke="black" stroke-width="2"/>"##,
        px(0.0),
        py(h_m),
        w_m * k,
        h_m * k
    );
    for ob in s["obstacles"].as_array().into_iter().flatten() {
        if let Some(r) = ob.get("rect") {
            let (a, b) = (side(f(&r["x_min_m"])), side(f(&r["x_max_m"])));
            let (x0, y0, x1, y1) = (a.min(b), f(&r["y_min_m"]), a.max(b), f(&r["y_max_m"]));
            let _ = writeln!(
                o,
                r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="#777"/>"##,
                px(x0),
                py(y1),
                (x1 - x0) * k,
                (y1 - y0) * k
            );
        } else if let Some(d) = ob.get("disc") {
            let _ = writeln!(
                o,
                r##"<circle cx="{:.1}" cy="{:.1}" r="{:.1}" fill="#777"/>"##,
                px(side(f(&d["x_m"]))),
                py(f(&d["y_m"])),
                f(&d["radius_m"]) * k
            );
        }
    }
    for t in s["tasks"].as_array().into_iter().flatten() {
        let (x, y) = (px(side(f(&t["x_m"]))), py(f(&t["y_m"])));
        let _ = writeln!(
            o,
            r##"<rect x="{:.1}" y="{:.1}" width="12" height="12" fill="none" stroke="#2a2" stroke-width="2"/>"##,
            x - 6.0,
            y - 6.0
        );
        let _ = writeln!(
            o,
            r#"<text x="{:.1}" y="{:.1}">{} ({} pts)</text>"#,
            x + 9.0,
            y - 8.0,
            esc(t["name"].as_str().unwrap_or("")),
            t["points"]
        );
    }
    // The opponent's scripted path (dashed) and its driven trace.
    let wps: Vec<String> = s["opponent"]["waypoints"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|w| format!("{:.1},{:.1}", px(side(f(&w["x_m"]))), py(f(&w["y_m"]))))
        .collect();
    if !wps.is_empty() {
        let _ = writeln!(
            o,
            r##"<polyline points="{}" fill="none" stroke="#d62728" stroke-width="2" stroke-dasharray="6,4"/>"##,
            wps.join(" ")
        );
    }
    // The robot's path, one segment per pose line, coloured by the task then running.
    // Each task's line is shifted sideways by its own few pixels (as lines on a transit
    // map), so a later task driving the same corridor does not hide an earlier one.
    let poses: Vec<Pose> = lines
        .iter()
        .filter(|l| l["type"] == "pose")
        .map(|l| {
            let opp = l["opponent"]
                .is_object()
                .then(|| (f(&l["opponent"]["x"]), f(&l["opponent"]["y"])));
            (
                f(&l["t_ms"]) / 1000.0,
                f(&l["robot"]["x"]),
                f(&l["robot"]["y"]),
                opp,
            )
        })
        .collect();
    let lanes = names.len().max(1) as f64;
    for w in poses.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        if (a.1 - b.1).abs() + (a.2 - b.2).abs() < 1e-6 {
            continue;
        }
        let task = task_at(b.0);
        let lane = task
            .and_then(|t| names.iter().position(|n| n == t))
            .map_or(0.0, |i| i as f64 - (lanes - 1.0) / 2.0);
        let (dx, dy) = (px(b.1) - px(a.1), py(b.2) - py(a.2));
        let len = dx.hypot(dy).max(1e-9);
        let (nx, ny) = (-dy / len * 5.0 * lane, dx / len * 5.0 * lane);
        let _ = writeln!(
            o,
            r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{}" stroke-width="3" stroke-linecap="round"/>"#,
            px(a.1) + nx,
            py(a.2) + ny,
            px(b.1) + nx,
            py(b.2) + ny,
            colour_of(task)
        );
    }
    if let (Some(first), Some(last)) = (poses.first(), poses.last()) {
        let r = f(&s["robot"]["radius_m"]) * k;
        let _ = writeln!(
            o,
            r##"<circle cx="{:.1}" cy="{:.1}" r="{r:.1}" fill="none" stroke="#000" stroke-dasharray="3,3"/>"##,
            px(first.1),
            py(first.2)
        );
        let _ = writeln!(
            o,
            r##"<circle cx="{:.1}" cy="{:.1}" r="{r:.1}" fill="none" stroke="#000"/>"##,
            px(last.1),
            py(last.2)
        );
        if let Some((x, y)) = last.3 {
            let rr = f(&s["opponent"]["radius_m"]) * k;
            let _ = writeln!(
                o,
                r##"<circle cx="{:.1}" cy="{:.1}" r="{rr:.1}" fill="#d62728" fill-opacity="0.25" stroke="#d62728"/>"##,
                px(x),
                py(y)
            );
        }
    }
    // Where the robot was when the opponent was seen (first of each streak) and when
    // the strategy reported trouble (ERROR events): crosses.
    let pose_at = |t: f64| {
        poses
            .iter()
            .min_by(|a, b| (a.0 - t).abs().total_cmp(&(b.0 - t).abs()))
            .map(|p| (p.1, p.2))
    };
    let mut last_seen = -10.0;
    for l in lines.iter().filter(|l| l["type"] == "event") {
        let t = f(&l["t_ms"]) / 1000.0;
        if l["event"] == "sees_opponent" {
            if t - last_seen > 2.0 {
                if let Some((x, y)) = pose_at(t) {
                    let _ = writeln!(
                        o,
                        r##"<circle cx="{:.1}" cy="{:.1}" r="6" fill="#ff0" stroke="#000"/>"##,
                        px(x),
                        py(y)
                    );
                }
            }
            last_seen = t;
        }
    }
    for e in run["events"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["kind"] == "ERROR")
    {
        if let Some((x, y)) = pose_at(board_t(f(&e["t"]))) {
            let (x, y) = (px(x), py(y));
            let _ = writeln!(
                o,
                r#"<path d="M{:.1},{:.1} l12,12 m0,-12 l-12,12" stroke="black" stroke-width="3"/>"#,
                x - 6.0,
                y - 6.0
            );
        }
    }
    // Legend.
    let lx = ox + w_m * k + 30.0;
    let mut ly = oy;
    for (i, n) in names.iter().enumerate() {
        let _ = writeln!(
            o,
            r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{}" stroke-width="3"/><text x="{}" y="{}">{}</text>"#,
            lx + 24.0,
            PALETTE[i % PALETTE.len()],
            lx + 30.0,
            ly + 4.0,
            esc(n)
        );
        ly += 18.0;
    }
    for (mark, label) in [
        (
            r##"<line x1="LX" y1="LY" x2="LX2" y2="LY" stroke="#d62728" stroke-width="2" stroke-dasharray="6,4"/>"##,
            "opponent's scripted path",
        ),
        (
            r##"<circle cx="LXC" cy="LY" r="6" fill="#ff0" stroke="#000"/>"##,
            "opponent seen by a sensor",
        ),
        (
            r#"<path d="MLXM l12,12 m0,-12 l-12,12" stroke="black" stroke-width="3"/>"#,
            "blocked / task failed (re-selection)",
        ),
    ] {
        let m = mark
            .replace("LXM", &format!("{},{}", lx + 6.0, ly - 6.0))
            .replace("LXC", &format!("{}", lx + 12.0))
            .replace("LX2", &format!("{}", lx + 24.0))
            .replace("LX", &format!("{lx}"))
            .replace("LY", &format!("{ly}"));
        let _ = writeln!(
            o,
            r#"{m}<text x="{}" y="{}">{label}</text>"#,
            lx + 30.0,
            ly + 4.0
        );
        ly += 18.0;
    }
    // Score over time: axes with ticks (seconds, points), the title above the frame.
    let (gx, gy, gw, gh) = (lx + 30.0, ly + 50.0, 330.0, 200.0);
    let match_s = f(&run["match_s"]).max(1.0);
    let score: Vec<(f64, f64)> = run["score"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| (f(&p[0]), f(&p[1])))
        .collect();
    // Headroom above the highest of the score and the expected points, in whole ticks.
    let highest = score
        .iter()
        .map(|p| p.1)
        .fold(f(&run["expected_points"]), f64::max)
        .max(1.0);
    let step_p = arnie_plot::ticks::nice_step(highest, 4);
    let top = ((highest * 1.1) / step_p).ceil() * step_p;
    let step_t = arnie_plot::ticks::nice_step(match_s, 9);
    let sx = |t: f64| gx + t.clamp(0.0, match_s) / match_s * gw;
    let sy = |p: f64| gy + gh - p / top * gh;
    let _ = writeln!(
        o,
        r##"<rect x="{gx}" y="{gy}" width="{gw}" height="{gh}" fill="none" stroke="#000"/>"##
    );
    let _ = writeln!(
        o,
        r#"<text x="{gx}" y="{}" font-weight="bold">Score over the match</text>"#,
        gy - 12.0
    );
    let mut t = 0.0;
    while t <= match_s + 1e-9 {
        let x = sx(t);
        let _ = writeln!(
            o,
            r##"<line x1="{x:.1}" y1="{}" x2="{x:.1}" y2="{}" stroke="#000"/><text x="{x:.1}" y="{}" text-anchor="middle">{t:.0}</text>"##,
            gy + gh,
            gy + gh + 5.0,
            gy + gh + 18.0
        );
        t += step_t;
    }
    let mut p = 0.0;
    while p <= top + 1e-9 {
        let y = sy(p);
        let _ = writeln!(
            o,
            r##"<line x1="{}" y1="{y:.1}" x2="{gx}" y2="{y:.1}" stroke="#000"/><text x="{}" y="{:.1}" text-anchor="end">{p:.0}</text>"##,
            gx - 5.0,
            gx - 8.0,
            y + 4.0
        );
        p += step_p;
    }
    let _ = writeln!(
        o,
        r#"<text x="{:.1}" y="{}" text-anchor="middle">match time [s]</text>"#,
        gx + gw / 2.0,
        gy + gh + 34.0
    );
    let _ = writeln!(
        o,
        r#"<text x="{}" y="{:.1}" text-anchor="middle" transform="rotate(-90 {} {:.1})">points</text>"#,
        gx - 34.0,
        gy + gh / 2.0,
        gx - 34.0,
        gy + gh / 2.0
    );
    let exp = f(&run["expected_points"]);
    let _ = writeln!(
        o,
        r##"<line x1="{gx}" y1="{:.1}" x2="{}" y2="{:.1}" stroke="#2a2" stroke-dasharray="4,3"/><text x="{}" y="{:.1}" text-anchor="end" fill="#2a2">expected {exp:.0}</text>"##,
        sy(exp),
        gx + gw,
        sy(exp),
        gx + gw - 4.0,
        sy(exp) - 4.0
    );
    let mut pts = String::new();
    let mut prev = 0.0;
    for &(t, p) in &score {
        let _ = write!(
            pts,
            "{:.1},{:.1} {:.1},{:.1} ",
            sx(t),
            sy(prev),
            sx(t),
            sy(p)
        );
        prev = p;
    }
    let _ = write!(
        pts,
        "{:.1},{:.1}",
        sx(score.last().map_or(0.0, |p| p.0)),
        sy(prev)
    );
    let _ = writeln!(
        o,
        r##"<polyline points="{pts}" fill="none" stroke="#1f77b4" stroke-width="2"/>"##
    );
    let _ = writeln!(o, "</svg>");
    std::fs::write(svg, &o).map_err(|e| Failure::new(format!("{}: {e}", svg.display())))?;
    // The same picture as PNG beside it (arnie_plot's rasteriser, as the arm's demo.png).
    let png = svg.with_extension("png");
    let image = arnie_plot::render_png(&o, 1.0)
        .map_err(|e| Failure::new(format!("{}: {e}", png.display())))?;
    std::fs::write(&png, &image.data).map_err(|e| Failure::new(format!("{}: {e}", png.display())))
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_the_table_the_path_by_task_and_the_score() {
        let dir = std::env::temp_dir().join(format!("eurobot_draw_{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("tmp");
        let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("../params/eurobot/table.json");
        let truth = dir.join("truth.jsonl");
        let mut log = String::from("{\"type\":\"start\",\"unix_s\":1000.0}\n");
        for i in 0..50 {
            let x = 0.3 + i as f64 * 0.02;
            log += &format!("{{\"type\":\"pose\",\"t_ms\":{},\"robot\":{{\"x\":{x},\"y\":1.0,\"theta\":0}},\"opponent\":{{\"x\":2.0,\"y\":1.8,\"theta\":0}}}}\n", i * 100);
        }
        log += "{\"type\":\"event\",\"t_ms\":2000,\"event\":\"sees_opponent\",\"detail\":\"\"}\n";
        std::fs::write(&truth, log).expect("write");
        let record = dir.join("run.json");
        let run = r#"{"t0_unix": 1001.0, "match_s": 90, "expected_points": 34,
            "events": [{"t": 0.0, "kind": "TASK_SELECTED", "task": "tower_far"}, {"t": 1.5, "kind": "ERROR", "task": "tower_far"},
                       {"t": 2.0, "kind": "TASK_SELECTED", "task": "crate_mid"}],
            "score": [[0, 0], [3.0, 8]], "verdict": {"ok": false, "reason": "8 points, the scenario expects 34"}}"#;
        std::fs::write(&record, run).expect("write");
        let svg = dir.join("e.svg");
        draw(&scenario, arnie_math::Colour::Blue, &truth, &record, &svg).expect("draws");
        let text = std::fs::read_to_string(&svg).expect("svg");
        assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
        assert!(
            text.contains("tower_far")
                && text.contains("crate_mid")
                && text.contains("expected 34")
        );
        // Path segments in both tasks' colours (task 1 until board time 3 s, then task 2).
        assert!(text.contains(&format!(
            "stroke=\"{}\" stroke-width=\"3\" stroke-linecap",
            PALETTE[0]
        )));
        assert!(text.contains(&format!(
            "stroke=\"{}\" stroke-width=\"3\" stroke-linecap",
            PALETTE[1]
        )));
        // The score plot has ticks: 0 .. 90 s every 10 s, 0 .. 40 points every 10.
        for tick in [">0<", ">30<", ">90<", ">40<"] {
            assert!(text.contains(tick), "tick {tick}");
        }
        assert!(text.contains("match time [s]") && text.contains(">points<"));
        assert!(text.contains("fill=\"#ff0\""), "opponent seen");
        // The PNG beside it decodes to the SVG's size.
        let png = png::Decoder::new(std::fs::File::open(dir.join("e.png")).expect("png"));
        let info = png.read_info().expect("decodes").info().clone();
        let size = |attr: &str| {
            let at = text.find(&format!(" {attr}=\"")).expect(attr) + attr.len() + 3;
            text[at..]
                .split('"')
                .next()
                .and_then(|v| v.parse::<f64>().ok())
                .expect(attr)
        };
        assert_eq!(
            (info.width, info.height),
            (size("width").round() as u32, size("height").round() as u32)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
