//! The `live` bench of `arnie_bag` (`bag_bench` in its messages): `arnie_bag record` and
//! `play` measured on this machine, printed as markdown tables (`cargo xtask bench bag`,
//! or `cargo bench -p arnie_bag --bench live -- OPTIONS`). Not a test: numbers, never
//! asserted.
//!
//! Starts the real `arnie_bag` binary (cargo builds it with the bench, release) in an own
//! ROS domain
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
//!
//! Layout: `load` (what is published), `record` (1, 2, 4), `play` (3), here the options
//! and the run.
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

mod load;
mod play;
mod record;

use load::{loads, stamp, sweep_loads, TopicLoad};
use play::{play, print_playback, stamp_key};
use record::{print_recordings, print_sweep, record};

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
            arnie_bag: PathBuf::from(env!("CARGO_BIN_EXE_arnie_bag")),
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
                // `cargo bench` asks a bench without a harness to run with this flag.
                "--bench" => {}
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

    print_recordings(&[&full, &demo]);
    print_playback(&plays);
    if o.keep {
        eprintln!("bag_bench: bags and logs kept in {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(())
}
