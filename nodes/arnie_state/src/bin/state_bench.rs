//! `state_bench`: the cost of `state_publisher`'s publication on this machine, printed as a
//! markdown table (`cargo xtask bench state`). Not a test: numbers, never asserted.
//!
//! Starts the real `state_publisher` binary (next to this one) on the shipped URDF in an own
//! ROS domain (`ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST`), publishes `/arm/position`
//! (`PointStamped`, best effort, frame `arm`, each stamped with its send time) at the
//! demo's rate (50 Hz, the simulator's `position_rate_hz`) and at 1 kHz (and 2 kHz) for
//! `--duration` s each, and reports per rate: positions sent, `/joint_states` and `/tf`
//! messages received here (the share it kept up with), the node's CPU (utime + stime
//! from `/proc/<pid>/stat`, % of one core) and the latency position sent → joint state
//! received (matched by the stamp the node copies), p50 / p99.
//!
//! Options: `--duration S` (10), `--quick` (3 s), `--arnie-state PATH`.
//! `STATE_BENCH_DOMAIN` overrides the ROS domain (default 160 + pid % 60, outside the
//! 1..101 the tests use).
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures::{FutureExt, StreamExt};
use node_glue::r2r::{self, QosProfile};
use r2r::builtin_interfaces::msg::Time;
use r2r::geometry_msgs::msg::{Point, PointStamped};
use r2r::sensor_msgs::msg::JointState;
use r2r::std_msgs::msg::Header;
use r2r::tf2_msgs::msg::TFMessage;

type BoxError = Box<dyn std::error::Error>;

const URDF: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../arnie_bringup/urdf/arnie_arm.urdf"
);

fn main() {
    if let Err(e) = run() {
        eprintln!("state_bench: {e}");
        std::process::exit(1);
    }
}

fn wall_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

fn ns_of(t: &Time) -> u64 {
    t.sec as u64 * 1_000_000_000 + t.nanosec as u64
}

/// utime + stime of a process, in seconds (clock ticks of 1/100 s, Linux's USER_HZ).
fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

struct Row {
    rate_hz: f64,
    seconds: f64,
    sent: u64,
    joint_states: u64,
    tf: u64,
    cpu_percent: f64,
    latency_us: Vec<f64>,
}

fn run() -> Result<(), BoxError> {
    let mut duration_s = 10.0;
    let mut exe = std::env::current_exe()?.with_file_name("state_publisher");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--duration" => duration_s = args.next().ok_or("--duration S")?.parse()?,
            "--quick" => duration_s = 3.0,
            "--arnie-state" => exe = PathBuf::from(args.next().ok_or("--arnie-state PATH")?),
            other => return Err(format!("unknown option {other}").into()),
        }
    }
    let domain = std::env::var("STATE_BENCH_DOMAIN")
        .unwrap_or_else(|_| (160 + std::process::id() % 60).to_string());
    std::env::set_var("ROS_DOMAIN_ID", &domain);
    std::env::set_var("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST");

    let log = std::env::temp_dir().join(format!("state_bench-{}.log", std::process::id()));
    let out = std::fs::File::create(&log)?;
    let mut child = Command::new(&exe)
        .args(["--ros-args", "-p"])
        .arg(format!("robot_description_file:={URDF}"))
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out)
        .spawn()
        .map_err(|e| format!("{}: {e}", exe.display()))?;
    let result = measure(&mut child, duration_s);
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let _ = child.wait();
    let rows = result.map_err(|e| format!("{e} (state_publisher's log: {})", log.display()))?;

    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "state_publisher ({}), domain {domain}, {duration_s} s per rate, load average {}\n",
        exe.display(),
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!("| rate [Hz] | positions sent | /joint_states received | /tf received | kept up | state_publisher CPU [% of one core] | position → joint state p50 / p99 [µs] |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for r in rows {
        let mut l = r.latency_us.clone();
        l.sort_by(|a, b| a.total_cmp(b));
        println!(
            "| {:.0} | {} | {} | {} | {:.1} % | {:.1} | {:.0} / {:.0} |",
            r.rate_hz,
            r.sent,
            r.joint_states,
            r.tf,
            100.0 * r.joint_states.min(r.tf) as f64 / r.sent.max(1) as f64,
            r.cpu_percent,
            percentile(&l, 0.5),
            percentile(&l, 0.99),
        );
        let _ = r.seconds;
    }
    Ok(())
}

fn measure(child: &mut Child, duration_s: f64) -> Result<Vec<Row>, BoxError> {
    // node_glue's App: the rcl context and node (and libpython kept linked for the wheels).
    let mut app = node_glue::App::new("state_bench")?;
    let node = &mut app.node;
    let publisher = node.create_publisher::<PointStamped>(
        "/arm/position",
        QosProfile::sensor_data().keep_last(5),
    )?;
    let mut joints = node.subscribe::<JointState>(
        "/joint_states",
        QosProfile::default().keep_last(1000).reliable(),
    )?;
    let mut tf =
        node.subscribe::<TFMessage>("/tf", QosProfile::default().keep_last(1000).reliable())?;
    let position = |ns: u64, k: u64| PointStamped {
        header: Header {
            stamp: Time {
                sec: (ns / 1_000_000_000) as i32,
                nanosec: (ns % 1_000_000_000) as u32,
            },
            frame_id: "arm".into(),
        },
        point: Point {
            x: 0.001 * (k % 100) as f64,
            y: 0.02,
            z: 0.03,
        },
    };
    // Discovery: publish until a joint state comes back, then a second more.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut warm = false;
    while !warm {
        if Instant::now() > deadline {
            return Err("no joint state within 60 s".into());
        }
        if let Some(status) = child.try_wait()? {
            return Err(format!("state_publisher exited with {status}").into());
        }
        publisher.publish(&position(wall_ns(), 0))?;
        node.spin_once(Duration::from_millis(20));
        while let Some(Some(_)) = joints.next().now_or_never() {
            warm = true;
        }
    }
    let settle = Instant::now() + Duration::from_secs(1);
    while Instant::now() < settle {
        node.spin_once(Duration::from_millis(10));
    }
    while joints.next().now_or_never().flatten().is_some() {}
    while tf.next().now_or_never().flatten().is_some() {}

    let mut rows = Vec::new();
    for rate_hz in [50.0, 1000.0, 2000.0] {
        let mut sent_at: HashMap<u64, Instant> = HashMap::new();
        let mut latency_us = Vec::new();
        let (mut sent, mut n_joints, mut n_tf) = (0u64, 0u64, 0u64);
        let cpu0 = cpu_seconds(child.id()).unwrap_or(0.0);
        let start = Instant::now();
        let end = start + Duration::from_secs_f64(duration_s);
        let mut drain = |node: &mut r2r::Node,
                         sent_at: &HashMap<u64, Instant>,
                         latency_us: &mut Vec<f64>,
                         n_joints: &mut u64,
                         n_tf: &mut u64| {
            node.spin_once(Duration::from_millis(0));
            while let Some(Some(m)) = joints.next().now_or_never() {
                *n_joints += 1;
                if let Some(t) = sent_at.get(&ns_of(&m.header.stamp)) {
                    latency_us.push(t.elapsed().as_secs_f64() * 1e6);
                }
            }
            while let Some(Some(_)) = tf.next().now_or_never() {
                *n_tf += 1;
            }
        };
        let mut last_ns = 0;
        loop {
            let due = start + Duration::from_secs_f64(sent as f64 / rate_hz);
            if due >= end {
                break;
            }
            while Instant::now() < due {
                drain(node, &sent_at, &mut latency_us, &mut n_joints, &mut n_tf);
                let left = due.saturating_duration_since(Instant::now());
                if left > Duration::from_micros(300) {
                    std::thread::sleep(left.min(Duration::from_millis(1)) / 2);
                }
            }
            let ns = wall_ns().max(last_ns + 1);
            last_ns = ns;
            sent_at.insert(ns, Instant::now());
            publisher.publish(&position(ns, sent))?;
            sent += 1;
        }
        let elapsed = start.elapsed().as_secs_f64();
        let cpu = cpu_seconds(child.id()).unwrap_or(0.0) - cpu0;
        // The last messages in flight.
        let linger = Instant::now() + Duration::from_millis(500);
        while Instant::now() < linger {
            drain(node, &sent_at, &mut latency_us, &mut n_joints, &mut n_tf);
            std::thread::sleep(Duration::from_millis(1));
        }
        rows.push(Row {
            rate_hz,
            seconds: elapsed,
            sent,
            joint_states: n_joints,
            tf: n_tf,
            cpu_percent: 100.0 * cpu / elapsed,
            latency_us,
        });
    }
    Ok(rows)
}
