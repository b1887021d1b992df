//! `cargo xtask bench base`, the live part: planner, comms_bridge and arnie_base from the
//! release build, started with the parameters `launch/eurobot.launch.xml` gives them (its
//! nodes, read by the project's launch reader, with `use_sim:=false`: no board_sim, no
//! strategy), on their own ROS domain and free loopback ports; the motor board's end of
//! the CAN-over-UDP link is `base_bench` (src/bin/base_bench/), which prints the table.
//! The nodes' logs go to `out/bench_base/<node>.log`.
//!
//! `ARNIE_BENCH_BASE_S` sets how long the goals run (default 60 s).
use crate::env::{Layout, Ros};
use crate::launch;
use crate::run::{self, Failure};
use std::collections::HashMap;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// The launch file's nodes the bench runs, by launch name.
const NODES: &[&str] = &["planner", "comms_bridge", "base"];

const CAPTION: &str = "\
Live, through the real stack (release builds, one run; the machine is shared: compare
within a run). planner + comms_bridge + arnie_base as launch/eurobot.launch.xml starts
them (params/, the table map params/eurobot/table.pgm), CAN-over-UDP on 127.0.0.1; the
motor board is the bench (base_bench): it loads nodes/lib/arnie_packets/packets through
arnie_packets, sends Odometry at 50 Hz from an ideal differential drive following the last
DriveSpeed, answers Stop with Ack, and sends NavigateTo goals back and forth between
(0.40, 0.30) and (0.55, 1.25). arnie_base's control loop is driven by odometry, not by a
timer: each Odometry packet runs one follower step and sends one DriveSpeed (its 20 ms
tick only runs the link watchdog, the progress check and the wait before a re-plan).
(1) therefore includes: the bench's UDP write of the Odometry CAN frames -> comms_bridge
reads, reassembles and decodes them -> Packet on comms/rx (DDS, loopback) -> arnie_base
parses it, publishes odom and base/pose, runs the step -> Packet on comms/tx (DDS) ->
comms_bridge encodes DriveSpeed -> UDP -> the bench has read and reassembled it.
Re-plan: once per northbound goal the bench marks a 5 cm disc where its sensor sees the
obstacle (UpdateMap, ttl 3 s), asks PlanPath from the robot's pose to the goal itself,
then sends an ObstacleReport 0.15 m from the robot's edge, 0.55 rad off its heading.
The base does not re-plan on a map change: it re-plans after a stop (obstacle or no
progress). (2) is its reaction; (3) is the whole re-plan as the base does it: Stop, its
own 0.2 m mark through UpdateMap, replan_delay_s = 0.5 s of deliberate wait (20 ms tick),
then PlanPath; the instant is the planner's new path arriving on planner/path (published
with the answer), so a re-plan that finds no path is not in (3). (6) is the planner alone
after a mark, through DDS: the bench's UpdateMap request sent -> its PlanPath answered.";

/// Builds what the bench needs, starts the nodes, runs `base_bench`, stops the nodes.
pub fn base(layout: &Layout, ros: &Ros) -> Result<(), Failure> {
    // The nodes, then the bench's own binary (a feature of xtask, so a second build).
    for args in [
        "build --release -p arnie_planner -p arnie_comms -p arnie_base --bins",
        "build --release -p xtask --features live-bench --bin base_bench",
    ] {
        run::cargo(layout, ros, &args.split(' ').collect::<Vec<_>>())?;
    }
    launch::use_ros_env(layout, ros);
    let (link_port, board_port) = (free_udp_port()?, free_udp_port()?);
    let packets = layout.root.join("nodes/lib/arnie_packets/packets");
    let args: HashMap<String, String> = [
        ("use_sim", "false".to_string()),
        ("params", layout.root.join("params").display().to_string()),
        ("packets_dir", packets.display().to_string()),
        ("link_port", link_port.to_string()),
        ("board_port", board_port.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let file = layout.root.join("launch/eurobot.launch.xml");
    let specs = launch::parse(&file, &args)?;
    let release = layout.target.join("release");
    let logs = layout.root.join("out/bench_base");
    std::fs::create_dir_all(&logs)?;
    let domain = (std::process::id() % 60 + 140).to_string();
    let env = [
        ("ROS_DOMAIN_ID", domain.as_str()),
        ("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST"),
        ("RCUTILS_COLORIZED_OUTPUT", "0"),
    ];
    let mut children: Vec<(String, Child)> = Vec::new();
    let started = (|| {
        for name in NODES {
            let spec = specs
                .iter()
                .find(|s| s.name == *name)
                .ok_or_else(|| Failure::new(format!("{}: no node `{name}`", file.display())))?;
            let exe = release.join(&spec.exec);
            let log = std::fs::File::create(logs.join(format!("{name}.log")))?;
            let mut c = run::command(layout, ros, &exe.to_string_lossy());
            c.args(spec.argv())
                .args(["--log-level", "warn"])
                .stdin(Stdio::null())
                .stdout(log.try_clone()?)
                .stderr(log);
            for (k, v) in env {
                c.env(k, v);
            }
            use std::os::unix::process::CommandExt;
            c.process_group(0);
            let child = c
                .spawn()
                .map_err(|e| Failure::new(format!("cannot start {}: {e}", exe.display())))?;
            children.push((name.to_string(), child));
        }
        Ok::<(), Failure>(())
    })();
    let result = started.and_then(|()| {
        println!("{CAPTION}\n");
        let secs = std::env::var("ARNIE_BENCH_BASE_S").unwrap_or_else(|_| "60".into());
        let mut c = run::command(layout, ros, &release.join("base_bench").to_string_lossy());
        c.args(["--packets", &packets.to_string_lossy()])
            .args(["--bind", &format!("127.0.0.1:{board_port}")])
            .args(["--peer", &format!("127.0.0.1:{link_port}")])
            .args(["--duration", &secs]);
        for (k, v) in env {
            c.env(k, v);
        }
        run::status(c, "base_bench")
    });
    stop(&mut children);
    eprintln!(
        "xtask: bench base: the nodes' logs are in {}",
        logs.display()
    );
    result
}

fn free_udp_port() -> Result<u16, Failure> {
    Ok(std::net::UdpSocket::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// SIGINT to each child's process group, SIGKILL after 5 s.
fn stop(children: &mut [(String, Child)]) {
    for (_, c) in children.iter() {
        // SAFETY: kill(2) on our own child's process group.
        unsafe { libc::kill(-(c.id() as i32), libc::SIGINT) };
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    for (name, c) in children.iter_mut() {
        loop {
            match c.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20))
                }
                _ => {
                    unsafe { libc::kill(-(c.id() as i32), libc::SIGKILL) };
                    let _ = c.wait();
                    eprintln!("xtask: bench base: {name} killed after 5 s");
                    break;
                }
            }
        }
    }
}
