//! `bag_bench`: `arnie_bag record` and `play` measured on this machine, printed as markdown
//! tables (`cargo xtask bench bag`). Not a test: numbers, never asserted.
//!
//! Starts the real `arnie_bag` binary (next to this one) in an own ROS domain
//! (`ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST`) and measures:
//! 1. **recording without loss**: this process publishes `/arm/position`
//!    (`PointStamped`, best effort) at 1 kHz (`--rate`) plus the demo's other topics at
//!    their rates (`/arm/command` every 35 ms, `/eyes/observations` 20 Hz, `/sim/truth`
//!    10 Hz latched, `/diagnostics` 6 Hz, `/brain/state` and `/trajectory/plan` 0.5 Hz)
//!    for `--duration` s (60) into `arnie_bag record`; lost = published − recorded, read
//!    back from the bag; the recorder's CPU share from `/proc/<pid>/stat`;
//! 2. the same at **the demo's rates** (`/arm/position` at 50 Hz, as the simulator
//!    sends it) for `--demo-duration` s (20): the recorder's CPU share in the demo;
//! 3. **playback timing**: the bag of 2 played with `arnie_bag play -r 1` and `-r 4` into
//!    raw subscriptions here; each message's error = (receive time − first message's) −
//!    (log_time − first log_time) / rate, matched by topic and header stamp (every
//!    message has its own); p50 / p99 / max of |error|.
//!
//! 4. first, **the recorder's loss-free rate** (`--no-sweep` skips it, `--sweep-only` runs
//!    only it): 100-byte
//!    `PointStamped`s (reliable, keep-last 1000) at 5k, 10k, 20k, 50k and 100k msg/s for
//!    `--sweep-seconds` s (3) each, on one topic and spread over 20; lost = published −
//!    recorded; the recorder's CPU per 1 000 msg/s.
//!
//! Options: `--duration S`, `--demo-duration S`, `--rate HZ`, `--quick` (5 s and 4 s),
//! `--no-sweep`, `--sweep-only`, `--sweep-seconds S`,
//! `--arnie-bag PATH`, `--keep` (keep the bags). `BAG_BENCH_DOMAIN` overrides the ROS
//! domain (default 160 + pid % 60, outside the 1..101 the tests use).
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use arnie_bag::Bag;
use futures::{FutureExt, Stream, StreamExt};
use node_glue::r2r::{self, QosProfile, WrappedTypesupport};
use r2r::arnie_interfaces::msg::{BrainEvent, BrainState, Coordinate, Coordinates, SimTruth};
use r2r::builtin_interfaces::msg::Time;
use r2r::diagnostic_msgs::msg::{DiagnosticArray, DiagnosticStatus, KeyValue};
use r2r::geometry_msgs::msg::{Point, PointStamped, PoseStamped};
use r2r::nav_msgs::msg::Path as NavPath;

type BoxError = Box<dyn std::error::Error>;

fn main() {
    if let Err(e) = Options::parse(std::env::args().skip(1).collect()).and_then(run) {
        eprintln!("bag_bench: {e}");
        std::process::exit(1);
    }
}

struct Options {
    duration_s: f64,
    demo_duration_s: f64,
    rate_hz: f64,
    arnie_bag: PathBuf,
    keep: bool,
    sweep: bool,
    sweep_only: bool,
    sweep_seconds: f64,
}

impl Options {
    fn parse(args: Vec<String>) -> Result<Options, BoxError> {
        let mut o = Options {
            duration_s: 60.0,
            demo_duration_s: 20.0,
            rate_hz: 1000.0,
            arnie_bag: std::env::current_exe()?.with_file_name("arnie_bag"),
            keep: false,
            sweep: true,
            sweep_only: false,
            sweep_seconds: 3.0,
        };
        let mut it = args.into_iter();
        while let Some(a) = it.next() {
            let mut value = || it.next().ok_or_else(|| format!("{a} needs a value"));
            match a.as_str() {
                "--duration" => o.duration_s = value()?.parse()?,
                "--demo-duration" => o.demo_duration_s = value()?.parse()?,
                "--rate" => o.rate_hz = value()?.parse()?,
                "--quick" => (o.duration_s, o.demo_duration_s) = (5.0, 4.0),
                "--arnie-bag" => o.arnie_bag = PathBuf::from(value()?),
                "--keep" => o.keep = true,
                "--no-sweep" => o.sweep = false,
                "--sweep-only" => (o.sweep, o.sweep_only) = (true, true),
                "--sweep-seconds" => o.sweep_seconds = value()?.parse()?,
                "--ros-args" => break,
                other => return Err(format!("unknown option {other:?} (--duration S, --demo-duration S, --rate HZ, --quick, --no-sweep, --sweep-only, --sweep-seconds S, --arnie-bag PATH, --keep)").into()),
            }
        }
        if !(o.duration_s > 0.0 && o.demo_duration_s > 0.0 && o.rate_hz > 0.0) {
            return Err("--duration, --demo-duration and --rate must be > 0".into());
        }
        if !o.arnie_bag.exists() {
            return Err(format!(
                "{} is missing: build it first (cargo build --release -p arnie_bag --bins)",
                o.arnie_bag.display()
            )
            .into());
        }
        Ok(o)
    }
}

/// One published topic: name, type, QoS, rate, and its message for a stamp.
struct TopicLoad {
    name: &'static str,
    type_name: &'static str,
    qos: QosProfile,
    rate_hz: f64,
    make: fn(u64, Time) -> Vec<u8>,
}

fn stamp(ns: u64) -> Time {
    Time {
        sec: (ns / 1_000_000_000) as i32,
        nanosec: (ns % 1_000_000_000) as u32,
    }
}

fn header(t: Time) -> r2r::std_msgs::msg::Header {
    r2r::std_msgs::msg::Header {
        stamp: t,
        frame_id: "world".into(),
    }
}

fn cdr<T: WrappedTypesupport>(m: &T) -> Vec<u8> {
    m.to_serialized_bytes()
        .expect("a generated message serializes")
}

fn point(i: u64) -> Point {
    let f = i as f64 * 1e-3;
    Point {
        x: 0.3 + 0.1 * f.sin(),
        y: 0.1 * f.cos(),
        z: 0.25,
    }
}

/// The demo's topics (README of each node) with `/arm/position` at `arm_hz`.
fn loads(arm_hz: f64) -> Vec<TopicLoad> {
    use node_glue::qos::{commands, latched, sensor};
    vec![
        TopicLoad {
            name: "/arm/position",
            type_name: "geometry_msgs/msg/PointStamped",
            qos: sensor(),
            rate_hz: arm_hz,
            make: |i, t| {
                cdr(&PointStamped {
                    header: header(t),
                    point: point(i),
                })
            },
        },
        TopicLoad {
            name: "/arm/command",
            type_name: "geometry_msgs/msg/PointStamped",
            qos: commands(),
            rate_hz: 1000.0 / 35.0,
            make: |i, t| {
                cdr(&PointStamped {
                    header: header(t),
                    point: point(i + 7),
                })
            },
        },
        TopicLoad {
            name: "/eyes/observations",
            type_name: "arnie_interfaces/msg/Coordinates",
            qos: sensor(),
            rate_hz: 20.0,
            make: |i, t| {
                let c = |k: u64| Coordinate {
                    values: vec![(i + k) as f64 * 1e-3, -0.05, 0.05, 90.0],
                };
                cdr(&Coordinates {
                    header: header(t),
                    items: vec![c(0), c(1)],
                })
            },
        },
        TopicLoad {
            name: "/sim/truth",
            type_name: "arnie_interfaces/msg/SimTruth",
            qos: latched(),
            rate_hz: 10.0,
            make: |i, t| {
                cdr(&SimTruth {
                    header: header(t),
                    arm: point(i),
                    has_target: true,
                    target: point(i + 100),
                    blocked: false,
                    lit: vec!["source".into()],
                    commands_received: i,
                    commands_dropped: 0,
                })
            },
        },
        TopicLoad {
            name: "/diagnostics",
            type_name: "diagnostic_msgs/msg/DiagnosticArray",
            qos: commands(),
            rate_hz: 6.0,
            make: |i, t| {
                let kv = |k: &str, v: u64| KeyValue {
                    key: k.into(),
                    value: v.to_string(),
                };
                cdr(&DiagnosticArray {
                    header: header(t),
                    status: vec![DiagnosticStatus {
                        level: 0,
                        name: "spine_bridge: arm".into(),
                        message: "ok".into(),
                        hardware_id: "xpc-arm".into(),
                        values: vec![
                            kv("received", i * 50),
                            kv("sent", i * 28),
                            kv("dropped", 0),
                            kv("rejected", 0),
                            kv("stale_dropped", 0),
                        ],
                    }],
                })
            },
        },
        TopicLoad {
            name: "/brain/state",
            type_name: "arnie_interfaces/msg/BrainState",
            qos: latched(),
            rate_hz: 0.5,
            make: |i, t| {
                cdr(&BrainState {
                    header: header(t),
                    task: "flame_passing".into(),
                    tick: i,
                    last_decision: format!("tick {i}: move to the flame"),
                    events: vec![BrainEvent {
                        kind: BrainEvent::IDLE as u8,
                        text: format!("tick {i}"),
                        ..BrainEvent::default()
                    }],
                    has_target: true,
                    target: point(i),
                    ..BrainState::default()
                })
            },
        },
        TopicLoad {
            name: "/trajectory/plan",
            type_name: "nav_msgs/msg/Path",
            qos: latched(),
            rate_hz: 0.5,
            make: |i, t| {
                let pose = |k: u64| {
                    let mut p = PoseStamped {
                        header: header(t.clone()),
                        ..PoseStamped::default()
                    };
                    p.pose.position = point(i * 20 + k);
                    p.pose.orientation.w = 1.0;
                    p
                };
                cdr(&NavPath {
                    header: header(t.clone()),
                    poses: (0..20).map(pose).collect(),
                })
            },
        },
    ]
}

/// Topic names of the sweep (static, as [`TopicLoad`] holds them).
const SWEEP_TOPICS: [&str; 20] = [
    "/sweep/t00",
    "/sweep/t01",
    "/sweep/t02",
    "/sweep/t03",
    "/sweep/t04",
    "/sweep/t05",
    "/sweep/t06",
    "/sweep/t07",
    "/sweep/t08",
    "/sweep/t09",
    "/sweep/t10",
    "/sweep/t11",
    "/sweep/t12",
    "/sweep/t13",
    "/sweep/t14",
    "/sweep/t15",
    "/sweep/t16",
    "/sweep/t17",
    "/sweep/t18",
    "/sweep/t19",
];

/// `total_hz` messages per second of exactly 100 CDR bytes (a `PointStamped` whose frame
/// id is 59 characters), over `topics` topics.
fn sweep_loads(topics: usize, total_hz: f64) -> Vec<TopicLoad> {
    let qos = QosProfile::default().keep_last(1000).reliable();
    SWEEP_TOPICS[..topics]
        .iter()
        .map(|name| TopicLoad {
            name,
            type_name: "geometry_msgs/msg/PointStamped",
            qos: qos.clone(),
            rate_hz: total_hz / topics as f64,
            make: |i, t| {
                cdr(&PointStamped {
                    header: r2r::std_msgs::msg::Header {
                        stamp: t,
                        frame_id: "f".repeat(59),
                    },
                    point: point(i),
                })
            },
        })
        .collect()
}

fn wall_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// utime + stime of a process, in seconds.
fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) start at field 3 (state).
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    // SAFETY: sysconf only reads a configuration value.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    Some(ticks as f64 / if hz > 0 { hz as f64 } else { 100.0 })
}

fn stop(child: &mut Child) -> Result<(), BoxError> {
    // SAFETY: kill sends SIGINT to our own child.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
    }
    let end = Instant::now() + Duration::from_secs(30);
    while Instant::now() < end {
        if let Some(status) = child.try_wait()? {
            return if status.success() {
                Ok(())
            } else {
                Err(format!("arnie_bag exited with {status}").into())
            };
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    Err("arnie_bag did not stop within 30 s of SIGINT".into())
}

struct Recording {
    label: String,
    seconds: f64,
    /// (topic, rate, published, recorded)
    topics: Vec<(&'static str, f64, u64, u64)>,
    cpu_percent: f64,
    bag: PathBuf,
}

/// Publishes `loads` for `seconds` into `arnie_bag record`; counts what the bag holds.
fn record(
    o: &Options,
    node: &mut r2r::Node,
    label: &str,
    loads: &[TopicLoad],
    seconds: f64,
    bag: &Path,
    log: &Path,
) -> Result<Recording, BoxError> {
    let pubs = loads
        .iter()
        .map(|l| node.create_publisher_untyped(l.name, l.type_name, l.qos.clone()))
        .collect::<Result<Vec<_>, _>>()?;
    let out = std::fs::File::create(log)?;
    let mut child = Command::new(&o.arnie_bag)
        .arg("record")
        .args(loads.iter().map(|l| l.name))
        .arg("-o")
        .arg(bag)
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out)
        .spawn()?;
    // Discovery: every publisher matched, then a second for the recorder's side.
    let deadline = Instant::now() + Duration::from_secs(60);
    while pubs
        .iter()
        .any(|p| p.get_inter_process_subscription_count().unwrap_or(0) == 0)
    {
        if Instant::now() > deadline {
            let _ = stop(&mut child);
            return Err(format!("the recorder did not subscribe (log: {})", log.display()).into());
        }
        node.spin_once(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_secs(1));

    let start = Instant::now();
    // Messages of this run (a latched publisher of an earlier run may still deliver its
    // last message to this recorder): header stamps from here on.
    let first_stamp = wall_ns();
    let cpu0 = cpu_seconds(child.id()).unwrap_or(0.0);
    let mut next: Vec<Instant> = vec![start; loads.len()];
    let mut published = vec![0u64; loads.len()];
    let mut last_stamp = vec![0u64; loads.len()];
    let end = start + Duration::from_secs_f64(seconds);
    loop {
        let (i, due) = next
            .iter()
            .enumerate()
            .min_by_key(|(_, t)| **t)
            .map(|(i, t)| (i, *t))
            .expect("topics");
        if due >= end {
            break;
        }
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
        // Each message of a topic gets its own stamp (playback matches on it).
        let ns = wall_ns().max(last_stamp[i] + 1);
        last_stamp[i] = ns;
        let data = (loads[i].make)(published[i], stamp(ns));
        if pubs[i].publish_raw(&data).is_ok() {
            published[i] += 1;
        }
        // Drift-free schedule; a late sender catches up at once (no loss from us).
        next[i] = start + Duration::from_secs_f64((published[i] as f64 + 1.0) / loads[i].rate_hz);
    }
    let elapsed = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds(child.id()).unwrap_or(0.0) - cpu0;
    // Reliable topics: give the recorder a moment for the last messages, then SIGINT.
    let linger = Instant::now() + Duration::from_secs(1);
    while Instant::now() < linger {
        node.spin_once(Duration::from_millis(10));
    }
    stop(&mut child)?;
    drop(pubs);
    let counts = count_messages(bag, first_stamp)?;
    Ok(Recording {
        label: label.to_string(),
        seconds: elapsed,
        topics: loads
            .iter()
            .zip(&published)
            .map(|(l, p)| {
                (
                    l.name,
                    l.rate_hz,
                    *p,
                    counts.get(l.name).copied().unwrap_or(0),
                )
            })
            .collect(),
        cpu_percent: 100.0 * cpu / elapsed,
        bag: bag.to_path_buf(),
    })
}

/// The sweep's table: per topic count and asked rate, what was published and recorded,
/// and the recorder's CPU.
fn print_sweep(runs: &[(usize, f64, Recording)]) {
    println!(
        "### Recorder loss-free rate (100-byte messages, reliable keep-last 1000, {} build)\n",
        if cfg!(debug_assertions) {
            "dev"
        } else {
            "release"
        }
    );
    println!("| topics | asked [msg/s] | published [msg/s] | published | recorded | lost | recorder CPU [% of a core] | CPU per 1 000 msg/s [%] |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (topics, asked, r) in runs {
        let p: u64 = r.topics.iter().map(|t| t.2).sum();
        let rec: u64 = r.topics.iter().map(|t| t.3).sum();
        let rate = p as f64 / r.seconds;
        println!(
            "| {topics} | {asked:.0} | {rate:.0} | {p} | {rec} | {} | {:.1} | {:.2} |",
            p.saturating_sub(rec),
            r.cpu_percent,
            r.cpu_percent / (rate / 1000.0)
        );
    }
    for topics in [1usize, 20] {
        let best = runs
            .iter()
            .filter(|(t, _, r)| *t == topics && r.topics.iter().all(|x| x.2 == x.3))
            .map(|(_, _, r)| r.topics.iter().map(|t| t.2).sum::<u64>() as f64 / r.seconds)
            .fold(0.0f64, f64::max);
        println!("\nHighest rate with nothing lost, {topics} topic(s): {best:.0} msg/s");
    }
    println!();
}

/// Messages per topic whose header stamp is `from_ns` or later.
fn count_messages(bag: &Path, from_ns: u64) -> Result<HashMap<String, u64>, BoxError> {
    let b = Bag::open(bag)?;
    let mut n = HashMap::new();
    for m in b.messages() {
        let m = m?;
        if stamp_key(&m.data).is_some_and(|k| stamp_ns(k) >= from_ns) {
            *n.entry(m.topic.to_string()).or_insert(0) += 1;
        }
    }
    Ok(n)
}

/// The stamp bytes (little-endian CDR `int32 sec`, `uint32 nanosec`) in ns.
fn stamp_ns(k: [u8; 8]) -> u64 {
    let sec = i32::from_le_bytes([k[0], k[1], k[2], k[3]]).max(0) as u64;
    let nsec = u32::from_le_bytes([k[4], k[5], k[6], k[7]]) as u64;
    sec * 1_000_000_000 + nsec
}

struct Playback {
    rate: f64,
    in_bag: usize,
    received: usize,
    /// |error| in ms, sorted, of when the player published each message (the
    /// middleware's source timestamp): the player's own timing.
    errors_ms: Vec<f64>,
    /// The same of when the bench's reader received it (the middleware's received
    /// timestamp): the player's timing plus DDS delivery.
    delivered_ms: Vec<f64>,
}

type RawStream = Box<dyn Stream<Item = r2r::RawMessage> + Unpin>;

/// Header stamp bytes of a CDR message whose first field is a `std_msgs/Header`.
fn stamp_key(data: &[u8]) -> Option<[u8; 8]> {
    data.get(4..12)?.try_into().ok()
}

fn play(
    o: &Options,
    node: &mut r2r::Node,
    bag: &Path,
    rate: f64,
    log: &Path,
) -> Result<Playback, BoxError> {
    let b = Bag::open(bag)?;
    // (topic, stamp) -> log_time
    let mut log_times: HashMap<(String, [u8; 8]), u64> = HashMap::new();
    for m in b.messages() {
        let m = m?;
        if let Some(k) = stamp_key(&m.data) {
            log_times.insert((m.topic.to_string(), k), m.log_time);
        }
    }
    let best_effort = QosProfile::default().best_effort().keep_last(1000);
    let mut subs: Vec<(String, RawStream)> = Vec::new();
    // The counted raw subscription: every waiting message per spin, each with the
    // middleware's source and received timestamps (so the bench's own loop is not
    // measured), overflows counted.
    let dropped = Arc::new(AtomicU64::new(0));
    for t in b.topics() {
        let s = node_glue::typesupport::subscribe(
            node,
            &t.metadata.name,
            &t.metadata.type_name,
            best_effort.clone(),
            10_000,
            dropped.clone(),
        )?;
        subs.push((t.metadata.name.clone(), Box::new(s)));
    }
    let out = std::fs::File::create(log)?;
    let mut child = Command::new(&o.arnie_bag)
        .arg("play")
        .arg(bag)
        .args([
            "-r",
            &rate.to_string(),
            "--wait-for-subscribers",
            "-d",
            "1",
            "--disable-keyboard-controls",
        ])
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out)
        .spawn()?;
    // (source timestamp, received timestamp, log time) of each message that came back.
    let mut got: Vec<(i64, i64, u64)> = Vec::new();
    let mut take = |subs: &mut Vec<(String, RawStream)>| {
        for (topic, s) in subs.iter_mut() {
            while let Some(Some(m)) = s.next().now_or_never() {
                if let Some(t) = stamp_key(&m.data).and_then(|k| log_times.get(&(topic.clone(), k)))
                {
                    got.push((m.source_timestamp, m.received_timestamp, *t));
                }
            }
        }
    };
    let deadline = Instant::now()
        + Duration::from_secs_f64(b.metadata().duration_ns as f64 / 1e9 / rate + 60.0);
    loop {
        node.spin_once(Duration::from_millis(2));
        take(&mut subs);
        if let Some(status) = child.try_wait()? {
            if !status.success() {
                return Err(format!(
                    "arnie_bag play exited with {status} (log: {})",
                    log.display()
                )
                .into());
            }
            // Its publishers linger a second after the last message: drain, then stop.
            let end = Instant::now() + Duration::from_millis(300);
            while Instant::now() < end {
                node.spin_once(Duration::from_millis(5));
                take(&mut subs);
            }
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            return Err("arnie_bag play did not finish".into());
        }
    }
    drop(subs);
    if dropped.load(Ordering::Relaxed) > 0 {
        eprintln!(
            "bag_bench: {} messages overflowed the bench's queues",
            dropped.load(Ordering::Relaxed)
        );
    }
    got.sort_by_key(|m| m.2);
    // |(stamp − first stamp) − (log time − first log time) / rate|, in ms, sorted.
    let errors = |stamp: fn(&(i64, i64, u64)) -> i64| -> Vec<f64> {
        let Some(first) = got.first() else {
            return Vec::new();
        };
        let (s0, t0) = (stamp(first), first.2);
        let mut e: Vec<f64> = got
            .iter()
            .map(|m| {
                let wall = (stamp(m) - s0) as f64 / 1e9;
                let due = (m.2 - t0) as f64 / 1e9 / rate;
                (wall - due).abs() * 1e3
            })
            .collect();
        e.sort_by(f64::total_cmp);
        e
    };
    Ok(Playback {
        rate,
        in_bag: log_times.len(),
        received: got.len(),
        errors_ms: errors(|m| m.0),
        delivered_ms: errors(|m| m.1),
    })
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn run(o: Options) -> Result<(), BoxError> {
    let domain = std::env::var("BAG_BENCH_DOMAIN")
        .ok()
        .and_then(|d| d.parse::<u32>().ok())
        .unwrap_or(160 + std::process::id() % 60);
    // Before any ROS call, and inherited by arnie_bag.
    std::env::set_var("ROS_DOMAIN_ID", domain.to_string());
    std::env::set_var("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST");
    let dir = std::env::temp_dir().join(format!("bag_bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    // node_glue's App (not a bare r2r::Node): it links what the ROS wheels need.
    let mut app = node_glue::App::new("bag_bench")?;
    let node = &mut app.node;
    let loadavg = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    eprintln!(
        "bag_bench: domain {domain}, {cores} cores, load average {}; recording {} s at {} Hz, then {} s at the demo's rates, then playing",
        loadavg.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
        o.duration_s,
        o.rate_hz,
        o.demo_duration_s
    );

    let mut sweep = Vec::new();
    if o.sweep {
        for topics in [1usize, 20] {
            for total in [5_000.0, 10_000.0, 20_000.0, 50_000.0, 100_000.0] {
                let r = record(
                    &o,
                    node,
                    &format!("{topics} topic(s), {total:.0} msg/s"),
                    &sweep_loads(topics, total),
                    o.sweep_seconds,
                    &dir.join(format!("sweep-{topics}-{total}")),
                    &dir.join(format!("record-sweep-{topics}-{total}.log")),
                )?;
                let _ = std::fs::remove_dir_all(&r.bag);
                sweep.push((topics, total, r));
            }
        }
        print_sweep(&sweep);
        if o.sweep_only {
            return Ok(());
        }
    }
    let full = record(
        &o,
        node,
        &format!("{} Hz arm + demo topics", o.rate_hz),
        &loads(o.rate_hz),
        o.duration_s,
        &dir.join("full"),
        &dir.join("record-full.log"),
    )?;
    let demo = record(
        &o,
        node,
        "demo rates (arm 50 Hz)",
        &loads(50.0),
        o.demo_duration_s,
        &dir.join("demo"),
        &dir.join("record-demo.log"),
    )?;
    let mut plays = Vec::new();
    for rate in [1.0, 4.0] {
        plays.push(play(
            &o,
            node,
            &demo.bag,
            rate,
            &dir.join(format!("play-{rate}.log")),
        )?);
    }

    println!(
        "### Recording (`arnie_bag record`, {} build; publishers in bag_bench, one process)\n",
        if cfg!(debug_assertions) {
            "dev"
        } else {
            "release"
        }
    );
    println!("| load | topic | rate [Hz] | published | recorded | lost |");
    println!("| --- | --- | ---: | ---: | ---: | ---: |");
    for r in [&full, &demo] {
        let (mut p, mut rec) = (0, 0);
        for (name, rate, published, recorded) in &r.topics {
            println!(
                "| {} | `{name}` | {rate:.1} | {published} | {recorded} | {} |",
                r.label,
                published.saturating_sub(*recorded)
            );
            p += published;
            rec += recorded;
        }
        println!(
            "| **{}** | **all, {:.1} s** | {:.0} msg/s | {p} | {rec} | **{}** |",
            r.label,
            r.seconds,
            p as f64 / r.seconds,
            p.saturating_sub(rec)
        );
    }
    println!("\n### Recorder CPU (utime + stime from /proc/<pid>/stat over the publishing time)\n");
    println!("| load | messages/s | recorder CPU [% of one core] |");
    println!("| --- | ---: | ---: |");
    for r in [&full, &demo] {
        let n: u64 = r.topics.iter().map(|t| t.2).sum();
        println!(
            "| {} | {:.0} | {:.1} |",
            r.label,
            n as f64 / r.seconds,
            r.cpu_percent
        );
    }
    println!("\n### Playback timing (`arnie_bag play` of the demo-rate bag; error = time since the first message vs log_time since the first / rate; published = the middleware's source timestamp, delivered = the bench reader's received timestamp)\n");
    println!("| rate | messages in bag | received | published: error p50 [ms] | p99 [ms] | max [ms] | delivered: error p50 [ms] | p99 [ms] | max [ms] |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for p in &plays {
        println!(
            "| `-r {}` | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            p.rate,
            p.in_bag,
            p.received,
            pct(&p.errors_ms, 0.5),
            pct(&p.errors_ms, 0.99),
            p.errors_ms.last().copied().unwrap_or(f64::NAN),
            pct(&p.delivered_ms, 0.5),
            pct(&p.delivered_ms, 0.99),
            p.delivered_ms.last().copied().unwrap_or(f64::NAN)
        );
    }
    if o.keep {
        eprintln!("bag_bench: bags and logs kept in {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(())
}
