//! The `live` bench of `arnie_spine` (`spine_bench` in its messages): the spine's latency
//! and throughput on one machine, in one run, printed as markdown tables. Not a test:
//! numbers, with the targets beside them.
//!
//! Starts the real `spine_bridge` binary (cargo builds it with the bench, release) on a
//! generated config in an
//! own ROS domain (`ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST`), and measures:
//! - (a) UDP datagram → spine → `/bench/arm` (PointStamped) → subscriber here, at 1 kHz
//!   for 10 s, against a baseline of a plain r2r publisher (a child process of this
//!   binary) → the same subscriber here; the difference is the spine's cost;
//! - (b) the highest packet rate one input sustains with no loss other than the counted
//!   latest-value drops (`stale_dropped`), from the spine's own counters on
//!   `/diagnostics` and the kernel's `Udp RcvbufErrors`;
//! - (c) a legacy UDP → UDP route, p50/p99, against plain UDP → UDP on loopback.
//!
//! Run: `cargo xtask bench spine`, or `cargo bench -p arnie_spine --bench live -- OPTIONS`
//! (after `eval "$(cargo xtask env)"`). Options: `--seconds N` (measured time of (a) and
//! (c), default 10), `--rate HZ` (default 1000), `--quick` (2 s, for a smoke run),
//! `--spine PATH`, `--rt N` (the spine's `io_thread_rt_priority`, default 0: off). `SPINE_BENCH_DOMAIN` overrides the ROS domain (default: 102 +
//! pid % 100, outside the 1..101 the tests use).
//!
//! Times are wall-clock (`CLOCK_REALTIME`, shared by the processes of one machine): the
//! baseline publisher stamps its messages; the spine path is timed from the send here.
//!
//! Layout: `run` (the spine started, then the three measurements), `latency` (a),
//! `throughput` (b), `route` (c), `baseline` (the baseline publisher child),
//! `collect` (subscribers and counters), `stats`, `report` (the markdown tables).
use std::io;
use std::net::UdpSocket;
use std::path::PathBuf;
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use node_glue::r2r::geometry_msgs::msg::PointStamped;

use baseline::baseline_publisher;
use collect::Sample;
use run::run;

const ARM_TOPIC: &str = "/bench/arm";
const BASELINE_TOPIC: &str = "/bench/baseline";
const WARMUP_S: f64 = 1.0;
/// Offered rates of (b) [packets/s]; a last step sends as fast as one thread can.
const RATES: [u64; 5] = [10_000, 20_000, 40_000, 80_000, 160_000];
const STEP_S: f64 = 2.0;
const TARGET_ADDED_P99_US: f64 = 200.0;
const TARGET_RATE: u64 = 20_000;

mod baseline;
mod collect;
mod latency;
mod report;
mod route;
mod run;
mod stats;
mod throughput;

type BoxError = Box<dyn std::error::Error>;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = if args.first().map(String::as_str) == Some("--baseline-publisher") {
        baseline_publisher(&args[1..])
    } else {
        Options::parse(&args).and_then(run)
    };
    if let Err(e) = result {
        eprintln!("spine_bench: {e}");
        std::process::exit(1);
    }
}

#[derive(Debug, Clone)]
struct Options {
    seconds: f64,
    rate: u64,
    spine: PathBuf,
    /// Passed to the spine as `io_thread_rt_priority` (0: normal scheduling).
    rt_priority: u32,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options, BoxError> {
        let mut o = Options {
            seconds: 10.0,
            rate: 1000,
            spine: PathBuf::from(env!("CARGO_BIN_EXE_spine_bridge")),
            rt_priority: 0,
        };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let mut value = || it.next().ok_or_else(|| format!("{a} needs a value"));
            match a.as_str() {
                "--seconds" => o.seconds = value()?.parse()?,
                "--rate" => o.rate = value()?.parse()?,
                "--spine" => o.spine = PathBuf::from(value()?),
                "--quick" => o.seconds = 2.0,
                "--rt" => o.rt_priority = value()?.parse()?,
                "--ros-args" => break,
                // `cargo bench` asks a bench without a harness to run with this flag.
                "--bench" => {}
                other => return Err(format!("unknown option {other:?}").into()),
            }
        }
        if !(o.seconds > 0.0 && o.rate > 0) {
            return Err("--seconds and --rate must be > 0".into());
        }
        if !o.spine.exists() {
            return Err(format!(
                "{} is missing: build it first (cargo build --release -p arnie_spine --bins)",
                o.spine.display()
            )
            .into());
        }
        Ok(o)
    }
}

/// Nanoseconds since the epoch (wall clock, shared by every process of the machine).
fn now_ns() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0)
}

fn stamp_ns(msg: &PointStamped) -> i128 {
    msg.header.stamp.sec as i128 * 1_000_000_000 + msg.header.stamp.nanosec as i128
}

fn simulink(values: &[f64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn free_port() -> io::Result<u16> {
    Ok(UdpSocket::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Sleeps until `deadline` (no busy wait: on two cores a spinning sender would take
/// the CPU from the processes it measures; latencies are taken from the real send time,
/// so a late wake-up only shifts a send).
fn wait_until(deadline: Instant) {
    let now = Instant::now();
    if deadline > now {
        thread::sleep(deadline - now);
    }
}

fn measured_seqs(o: &Options, seconds: f64) -> (u64, u64) {
    let warm = (WARMUP_S * o.rate as f64) as u64;
    (warm, warm + (seconds * o.rate as f64) as u64)
}

fn take(samples: &Mutex<Vec<Sample>>) -> Vec<Sample> {
    samples
        .lock()
        .map(|mut v| std::mem::take(&mut *v))
        .unwrap_or_default()
}

/// An `Instant` for a wall-clock time [ns since the epoch].
fn instant_at(wall_ns: i128) -> Instant {
    let now = Instant::now();
    let ahead = wall_ns - now_ns();
    if ahead > 0 {
        now + Duration::from_nanos(ahead as u64)
    } else {
        now
    }
}
