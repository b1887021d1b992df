//! `spine_bench`: the spine's latency and throughput on one machine, in one run, printed
//! as markdown tables. Not a test: numbers, with the issue's targets beside them.
//!
//! Starts the real `spine_bridge` binary (next to this one) on a generated config in an
//! own ROS domain (`ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST`), and measures:
//! - (a) UDP datagram → spine → `/bench/arm` (PointStamped) → subscriber here, at 1 kHz
//!   for 10 s, against a baseline of a plain r2r publisher (a child process of this
//!   binary) → the same subscriber here; the difference is the spine's cost;
//! - (b) the highest packet rate one input sustains with no loss other than the counted
//!   latest-value drops (`stale_dropped`), from the spine's own counters on
//!   `/diagnostics` and the kernel's `Udp RcvbufErrors`;
//! - (c) a legacy UDP → UDP route, p50/p99, against plain UDP → UDP on loopback.
//!
//! Run (release): `cargo build --release -p spine_bridge --bins && target/release/spine_bench`
//! (after `eval "$(cargo xtask env)"`). Options: `--seconds N` (measured time of (a) and
//! (c), default 10), `--rate HZ` (default 1000), `--quick` (2 s, for a smoke run),
//! `--spine PATH`, `--rt N` (the spine's `io_thread_rt_priority`, default 0: off). `SPINE_BENCH_DOMAIN` overrides the ROS domain (default: 102 +
//! pid % 100, outside the 1..101 the tests use).
//!
//! Times are wall-clock (`CLOCK_REALTIME`, shared by the processes of one machine): the
//! baseline publisher stamps its messages; the spine path is timed from the send here.
use std::collections::HashMap;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use arnie_ros::r2r::{diagnostic_msgs::msg::DiagnosticArray, geometry_msgs::msg::PointStamped};
use arnie_ros::{qos, App};
use futures::StreamExt;

const ARM_TOPIC: &str = "/bench/arm";
const BASELINE_TOPIC: &str = "/bench/baseline";
const WARMUP_S: f64 = 1.0;
/// Offered rates of (b) [packets/s]; a last step sends as fast as one thread can.
const RATES: [u64; 5] = [10_000, 20_000, 40_000, 80_000, 160_000];
const STEP_S: f64 = 2.0;
const TARGET_ADDED_P99_US: f64 = 200.0;
const TARGET_RATE: u64 = 20_000;

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
        let here = std::env::current_exe()?;
        let mut o = Options {
            seconds: 10.0,
            rate: 1000,
            spine: here.with_file_name("spine_bridge"),
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
                other => return Err(format!("unknown option {other:?}").into()),
            }
        }
        if !(o.seconds > 0.0 && o.rate > 0) {
            return Err("--seconds and --rate must be > 0".into());
        }
        if !o.spine.exists() {
            return Err(format!(
                "{} is missing: build it first (cargo build --release -p spine_bridge --bins)",
                o.spine.display()
            )
            .into());
        }
        Ok(o)
    }
}

/// Nanoseconds since the epoch (wall clock, shared by every process of the machine).
fn now_ns() -> i128 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as i128).unwrap_or(0)
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

// ------------------------------------------------------------------ statistics
#[derive(Debug, Clone, Copy, Default)]
struct Stats {
    n: usize,
    lost: usize,
    /// Of the lost: datagrams the spine counted as stale (a newer one was waiting).
    stale: Option<u64>,
    p50: f64,
    p90: f64,
    p99: f64,
    max: f64,
}

/// Latencies (µs) → p50 / p99 / max; `expected` samples were sent.
fn stats(mut us: Vec<f64>, expected: usize) -> Stats {
    us.sort_by(f64::total_cmp);
    let pick = |q: f64| if us.is_empty() { f64::NAN } else { us[((us.len() - 1) as f64 * q).round() as usize] };
    Stats {
        n: us.len(),
        lost: expected.saturating_sub(us.len()),
        stale: None,
        p50: pick(0.5),
        p90: pick(0.9),
        p99: pick(0.99),
        max: pick(1.0),
    }
}

// ------------------------------------------------------------------ collectors
/// One received message: (sequence number, receive time, header stamp), in ns.
type Sample = (u64, i128, i128);

/// Takes messages off an r2r stream on its own thread and timestamps them on arrival.
fn collect_points(
    stream: impl futures::Stream<Item = PointStamped> + Unpin + Send + 'static,
    seq_of: fn(&PointStamped) -> u64,
) -> (Arc<Mutex<Vec<Sample>>>, Arc<AtomicU64>) {
    let samples = Arc::new(Mutex::new(Vec::with_capacity(32_768)));
    let count = Arc::new(AtomicU64::new(0));
    let (s, c) = (samples.clone(), count.clone());
    thread::spawn(move || {
        let mut stream = stream;
        while let Some(msg) = futures::executor::block_on(stream.next()) {
            let t = now_ns();
            c.fetch_add(1, Ordering::Relaxed);
            if let Ok(mut v) = s.lock() {
                v.push((seq_of(&msg), t, stamp_ns(&msg)));
            }
        }
    });
    (samples, count)
}

/// The latest counters of every spine interface, from /diagnostics.
#[derive(Clone, Default)]
struct Counters {
    /// `input.arm` → counter → value.
    values: HashMap<String, HashMap<String, u64>>,
    updates: u64,
}

impl Counters {
    fn of(&self, interface: &str) -> HashMap<String, u64> {
        self.values.get(interface).cloned().unwrap_or_default()
    }
}

fn collect_diagnostics(
    stream: impl futures::Stream<Item = DiagnosticArray> + Unpin + Send + 'static,
) -> Arc<Mutex<Counters>> {
    let latest = Arc::new(Mutex::new(Counters::default()));
    let l = latest.clone();
    thread::spawn(move || {
        let mut stream = stream;
        while let Some(msg) = futures::executor::block_on(stream.next()) {
            let Ok(mut c) = l.lock() else { return };
            for s in &msg.status {
                if let Some(interface) = s.name.strip_prefix("spine_bridge: ") {
                    let values = s.values.iter().filter_map(|kv| Some((kv.key.clone(), kv.value.parse().ok()?))).collect();
                    c.values.insert(interface.to_string(), values);
                }
            }
            c.updates += 1;
        }
    });
    latest
}

/// The counters of `interface` once they stop moving (two reports in a row with the
/// same `received`).
fn settled(counters: &Mutex<Counters>, interface: &str, timeout: Duration) -> HashMap<String, u64> {
    let end = Instant::now() + timeout;
    let mut last: Option<(u64, u64)> = None; // (updates, received)
    loop {
        let (updates, values) = counters.lock().map(|c| (c.updates, c.of(interface))).unwrap_or_default();
        let received = values.get("received").copied().unwrap_or(0);
        match last {
            Some((u, r)) if updates > u && received == r => return values,
            Some((u, _)) if updates == u => {}
            _ => last = Some((updates, received)),
        }
        if Instant::now() > end {
            return values;
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// `after - before` of one counter.
fn delta(before: &HashMap<String, u64>, after: &HashMap<String, u64>, key: &str) -> u64 {
    after.get(key).copied().unwrap_or(0).saturating_sub(before.get(key).copied().unwrap_or(0))
}

/// The kernel's count of UDP datagrams dropped for a full receive buffer (all sockets).
fn udp_rcvbuf_errors() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/net/snmp").ok()?;
    let mut lines = text.lines().filter(|l| l.starts_with("Udp:"));
    let header: Vec<&str> = lines.next()?.split_whitespace().collect();
    let values: Vec<&str> = lines.next()?.split_whitespace().collect();
    let k = header.iter().position(|h| *h == "RcvbufErrors")?;
    values.get(k)?.parse().ok()
}

// ------------------------------------------------------------------ the run
struct Spine {
    child: Child,
    dir: PathBuf,
}

impl Spine {
    fn stop(mut self) {
        let _ = Command::new("kill").arg("-INT").arg(self.child.id().to_string()).status();
        let end = Instant::now() + Duration::from_secs(5);
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                let _ = std::fs::remove_dir_all(&self.dir);
                return;
            }
            thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Ports {
    arm: u16,
    legacy: u16,
    echo: UdpSocket,
}

fn write_config(dir: &Path, ports: &Ports) -> Result<PathBuf, BoxError> {
    let echo = ports.echo.local_addr()?.port();
    let config = format!(
        r#"{{
  "host": "127.0.0.1",
  "transforms": {{ "default": "1 0 0 0;0 1 0 0;0 0 1 0;0 0 0 1" }},
  "interfaces": {{
    "input": {{
      "arm":    {{ "port": {arm}, "streamed": true, "format": "simulink", "topic": "{ARM_TOPIC}", "kind": "point" }},
      "legacy": {{ "port": {legacy}, "streamed": true, "format": "simulink" }}
    }},
    "output": {{
      "echo": {{ "host": "127.0.0.1", "port": {echo}, "format": "simulink" }}
    }}
  }},
  "connections": [ {{ "input": "legacy", "output": "echo" }} ]
}}"#,
        arm = ports.arm,
        legacy = ports.legacy,
    );
    let path = dir.join("bench.json");
    std::fs::write(&path, config)?;
    Ok(path)
}

fn run(o: Options) -> Result<(), BoxError> {
    let domain = std::env::var("SPINE_BENCH_DOMAIN")
        .ok()
        .and_then(|d| d.parse::<u32>().ok())
        .unwrap_or(102 + std::process::id() % 100);
    // Before any ROS call, and inherited by the spine and the baseline publisher.
    std::env::set_var("ROS_DOMAIN_ID", domain.to_string());
    std::env::set_var("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST");

    let dir = std::env::temp_dir().join(format!("spine_bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let ports = Ports { arm: free_port()?, legacy: free_port()?, echo: UdpSocket::bind("127.0.0.1:0")? };
    let config = write_config(&dir, &ports)?;

    let mut app = App::new("spine_bench")?;
    let arm_sub = app.node.subscribe::<PointStamped>(ARM_TOPIC, qos::sensor())?;
    let base_sub = app.node.subscribe::<PointStamped>(BASELINE_TOPIC, qos::sensor())?;
    let diag_sub = app.node.subscribe::<DiagnosticArray>("/diagnostics", qos::commands())?;
    // The spine publishes x = seq mm = seq / 1000 m; the baseline publishes x = seq.
    let (arm_samples, arm_count) = collect_points(arm_sub, |m| (m.point.x * 1000.0).round() as u64);
    let (base_samples, _) = collect_points(base_sub, |m| m.point.x.round() as u64);
    let counters = collect_diagnostics(diag_sub);

    eprintln!("spine_bench: ROS domain {domain}, config {}, spine {}", config.display(), o.spine.display());
    let log = std::fs::File::create(dir.join("spine_bridge.log"))?;
    let child = Command::new(&o.spine)
        .args(["--ros-args", "--log-level", "warn", "-p"])
        .arg(format!("config_file:={}", config.display()))
        .args(["-p", "diagnostics_period_ms:=100", "-p"])
        .arg(format!("io_thread_rt_priority:={}", o.rt_priority))
        .stdout(Stdio::from(log.try_clone()?))
        .stderr(Stdio::from(log))
        .spawn()?;
    let spine = Spine { child, dir: dir.clone() };

    // Wait for the spine's publisher on the graph (its sockets are bound by then).
    let end = Instant::now() + Duration::from_secs(30);
    while app.node.get_publishers_info_by_topic(ARM_TOPIC, false).map(|v| v.is_empty()).unwrap_or(true) {
        if Instant::now() > end {
            spine.stop();
            return Err("the spine did not start (see its log in the temp dir)".into());
        }
        thread::sleep(Duration::from_millis(20));
    }
    let trigger = app.shutdown_trigger();
    let spinner = thread::spawn(move || app.spin());

    let sender = UdpSocket::bind("127.0.0.1:0")?;
    let arm_addr: SocketAddr = ([127, 0, 0, 1], ports.arm).into();
    let legacy_addr: SocketAddr = ([127, 0, 0, 1], ports.legacy).into();
    let echo_addr = ports.echo.local_addr()?;

    // (a) both paths at once, interleaved half a period apart, so both see the same
    // machine: a plain r2r publisher (child process) → this subscriber, and UDP → spine
    // → topic → this subscriber.
    eprintln!("spine_bench: (a) {} Hz for {} s: r2r publisher -> subscriber, and UDP -> spine -> {ARM_TOPIC} -> subscriber", o.rate, o.seconds);
    let before = settled(&counters, "input.arm", Duration::from_secs(3));
    let (baseline, mut through_spine, spine_internal) = measure_topic_latency(&o, &sender, arm_addr, &base_samples, &arm_samples)?;
    through_spine.stale = Some(delta(&before, &settled(&counters, "input.arm", Duration::from_secs(3)), "stale_dropped"));
    // (c) legacy route and plain UDP, interleaved the same way.
    eprintln!("spine_bench: (c) UDP -> spine -> UDP, and plain UDP -> UDP");
    let echo = Echo::start(ports.echo.try_clone()?);
    let before = settled(&counters, "input.legacy", Duration::from_secs(3));
    let (mut legacy, direct) = measure_udp(&o, &sender, legacy_addr, echo_addr, &echo);
    legacy.stale = Some(delta(&before, &settled(&counters, "input.legacy", Duration::from_secs(3)), "stale_dropped"));
    echo.stop();
    // (b) throughput of one input.
    eprintln!("spine_bench: (b) throughput of one input");
    let steps = measure_throughput(&sender, arm_addr, &counters, &arm_count, &arm_samples);

    spine.stop();
    trigger();
    let _ = spinner.join();

    print_report(&o, domain, &baseline, &through_spine, &spine_internal, &legacy, &direct, &steps);
    Ok(())
}

fn measured_seqs(o: &Options, seconds: f64) -> (u64, u64) {
    let warm = (WARMUP_S * o.rate as f64) as u64;
    (warm, warm + (seconds * o.rate as f64) as u64)
}

fn take(samples: &Mutex<Vec<Sample>>) -> Vec<Sample> {
    samples.lock().map(|mut v| std::mem::take(&mut *v)).unwrap_or_default()
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

/// One paced stream of `simulink(seq_base + k, 0, 0)` datagrams.
struct Stream {
    to: SocketAddr,
    seq_base: u64,
    /// Offset within the period [fraction of a period].
    phase: f64,
}

/// Sends every stream at the rate from `start` for warm-up + `seconds`; returns the
/// send times per stream (index k).
fn send_paced(o: &Options, seconds: f64, sender: &UdpSocket, start: Instant, streams: &[Stream]) -> Vec<Vec<i128>> {
    let (_, end) = measured_seqs(o, seconds);
    let period = 1.0 / o.rate as f64;
    let mut sent: Vec<Vec<i128>> = streams.iter().map(|_| Vec::with_capacity(end as usize)).collect();
    for k in 0..end {
        for (stream, times) in streams.iter().zip(&mut sent) {
            wait_until(start + Duration::from_secs_f64(period * (k as f64 + stream.phase)));
            let bytes = simulink(&[(stream.seq_base + k) as f64, 0.0, 0.0]);
            times.push(now_ns());
            let _ = sender.send_to(&bytes, stream.to);
        }
    }
    thread::sleep(Duration::from_millis(300));
    sent
}

/// (a): the baseline publisher (a child process) and the UDP → spine path at once,
/// half a period apart. Returns (baseline, spine, UDP → spine's publish stamp).
fn measure_topic_latency(
    o: &Options,
    sender: &UdpSocket,
    arm: SocketAddr,
    base_samples: &Mutex<Vec<Sample>>,
    arm_samples: &Mutex<Vec<Sample>>,
) -> Result<(Stats, Stats, Stats), BoxError> {
    take(base_samples);
    take(arm_samples);
    // Far enough ahead for the child to start and match its subscriber.
    let start_ns = now_ns() + 5_000_000_000;
    let mut child = Command::new(std::env::current_exe()?)
        .args(["--baseline-publisher", "--seconds", &o.seconds.to_string(), "--rate", &o.rate.to_string()])
        .args(["--start-ns", &start_ns.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()?;
    let sent = send_paced(o, o.seconds, sender, instant_at(start_ns), &[Stream { to: arm, seq_base: 0, phase: 0.5 }]);
    let status = child.wait()?;
    if !status.success() {
        return Err(format!("the baseline publisher failed: {status}").into());
    }
    let (first, end) = measured_seqs(o, o.seconds);
    let expected = (end - first) as usize;
    let measured = |(seq, _, _): &Sample| (first..end).contains(seq);
    let baseline = take(base_samples).into_iter().filter(measured).map(|(_, t, stamp)| (t - stamp) as f64 / 1000.0).collect();
    let sent = sent.into_iter().next().unwrap_or_default();
    let got: Vec<Sample> = take(arm_samples).into_iter().filter(measured).collect();
    let total = got.iter().filter_map(|(seq, t, _)| Some((t - sent.get(*seq as usize)?) as f64 / 1000.0)).collect();
    let internal = got.iter().filter_map(|(seq, _, st)| Some((st - sent.get(*seq as usize)?) as f64 / 1000.0)).collect();
    Ok((stats(baseline, expected), stats(total, expected), stats(internal, expected)))
}

/// Receives on the echo socket and timestamps every datagram (seq = first value).
struct Echo {
    samples: Arc<Mutex<Vec<(u64, i128)>>>,
    stop: Arc<AtomicBool>,
    thread: thread::JoinHandle<()>,
}

impl Echo {
    fn start(socket: UdpSocket) -> Echo {
        let samples = Arc::new(Mutex::new(Vec::with_capacity(32_768)));
        let stop = Arc::new(AtomicBool::new(false));
        let (s, st) = (samples.clone(), stop.clone());
        let _ = socket.set_read_timeout(Some(Duration::from_millis(50)));
        let thread = thread::spawn(move || {
            let mut buf = [0u8; 2048];
            while !st.load(Ordering::Relaxed) {
                if let Ok(n) = socket.recv(&mut buf) {
                    let t = now_ns();
                    if n >= 8 {
                        let mut first = [0u8; 8];
                        first.copy_from_slice(&buf[..8]);
                        if let Ok(mut v) = s.lock() {
                            v.push((f64::from_le_bytes(first).round() as u64, t));
                        }
                    }
                }
            }
        });
        Echo { samples, stop, thread }
    }

    fn take(&self) -> Vec<(u64, i128)> {
        self.samples.lock().map(|mut v| std::mem::take(&mut *v)).unwrap_or_default()
    }

    fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.thread.join();
    }
}

/// (c): UDP → spine → UDP and plain UDP → UDP at once, half a period apart.
fn measure_udp(o: &Options, sender: &UdpSocket, legacy: SocketAddr, echo_addr: SocketAddr, echo: &Echo) -> (Stats, Stats) {
    const DIRECT: u64 = 1_000_000;
    echo.take();
    let streams = [Stream { to: legacy, seq_base: 0, phase: 0.0 }, Stream { to: echo_addr, seq_base: DIRECT, phase: 0.5 }];
    let sent = send_paced(o, o.seconds, sender, Instant::now() + Duration::from_millis(10), &streams);
    let (first, end) = measured_seqs(o, o.seconds);
    let got = echo.take();
    let latencies = |base: u64, times: &[i128]| -> Vec<f64> {
        got.iter()
            .filter(|(seq, _)| (base + first..base + end).contains(seq))
            .filter_map(|(seq, t)| Some((t - times.get((seq - base) as usize)?) as f64 / 1000.0))
            .collect()
    };
    let expected = (end - first) as usize;
    let none = Vec::new();
    (
        stats(latencies(0, sent.first().unwrap_or(&none)), expected),
        stats(latencies(DIRECT, sent.get(1).unwrap_or(&none)), expected),
    )
}

#[derive(Debug, Clone)]
struct Step {
    offered: Option<u64>,
    sent: u64,
    achieved: f64,
    received: u64,
    routed: u64,
    stale: u64,
    malformed: u64,
    published_seen: u64,
    kernel_drops: Option<u64>,
}

impl Step {
    fn uncounted_loss(&self) -> u64 {
        self.sent.saturating_sub(self.received)
    }
}

fn measure_throughput(
    sender: &UdpSocket,
    to: SocketAddr,
    counters: &Mutex<Counters>,
    published: &AtomicU64,
    samples: &Mutex<Vec<Sample>>,
) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut seq: u64 = 10_000_000; // distinct from the latency runs: never a duplicate
    for offered in RATES.iter().copied().map(Some).chain([None]) {
        let before = settled(counters, "input.arm", Duration::from_secs(3));
        let kernel_before = udp_rcvbuf_errors();
        let published_before = published.load(Ordering::Relaxed);
        let start = Instant::now();
        let length = Duration::from_secs_f64(STEP_S);
        let mut sent: u64 = 0;
        loop {
            let elapsed = start.elapsed();
            if elapsed >= length {
                break;
            }
            let due = match offered {
                Some(rate) => (elapsed.as_secs_f64() * rate as f64) as u64,
                None => sent + 64,
            };
            while sent < due {
                let bytes = simulink(&[seq as f64, 1.0, 2.0]);
                seq += 1;
                if sender.send_to(&bytes, to).is_ok() {
                    sent += 1;
                }
            }
            if offered.is_some() {
                thread::sleep(Duration::from_micros(200));
            }
        }
        let achieved = sent as f64 / start.elapsed().as_secs_f64();
        let after = settled(counters, "input.arm", Duration::from_secs(3));
        let delta = |k: &str| delta(&before, &after, k);
        let malformed = after
            .iter()
            .filter(|(k, _)| k.starts_with("malformed."))
            .map(|(k, v)| v.saturating_sub(before.get(k).copied().unwrap_or(0)))
            .sum();
        let step = Step {
            offered,
            sent,
            achieved,
            received: delta("received"),
            routed: delta("forwarded") + delta("deduplicated"),
            stale: delta("stale_dropped"),
            malformed,
            published_seen: published.load(Ordering::Relaxed) - published_before,
            kernel_drops: kernel_before.zip(udp_rcvbuf_errors()).map(|(b, a)| a.saturating_sub(b)),
        };
        eprintln!("spine_bench:     {step:?}");
        take(samples); // not used here: only counted
        steps.push(step);
    }
    steps
}

// ------------------------------------------------------------------ report
#[allow(clippy::too_many_arguments)]
fn print_report(
    o: &Options,
    domain: u32,
    baseline: &Stats,
    spine: &Stats,
    internal: &Stats,
    legacy: &Stats,
    direct: &Stats,
    steps: &[Step],
) {
    let cores = thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    println!("## spine_bridge benchmark\n");
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("Load average at the end: {}.", load.split_whitespace().take(3).collect::<Vec<_>>().join(" "));
    println!(
        "One machine ({cores} cores), ROS domain {domain}, LOCALHOST discovery, {}; spine io_thread_rt_priority {}; {} Hz for {} s after {WARMUP_S} s of warm-up; the two paths of (a), and of (c), run at the same time, half a period apart. Latencies in µs.\n",
        std::env::var("RMW_IMPLEMENTATION").unwrap_or_else(|_| "default RMW".into()),
        o.rt_priority,
        o.rate,
        o.seconds
    );
    println!("### (a) latency to a ROS subscriber, and (c) legacy UDP route\n");
    println!("| path | received | not received (counted stale, incl. warm-up) | p50 | p90 | p99 | max |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    let row = |name: &str, s: &Stats| {
        let stale = s.stale.map(|n| format!(" ({n})")).unwrap_or_default();
        println!("| {name} | {} | {}{stale} | {:.0} | {:.0} | {:.0} | {:.0} |", s.n, s.lost, s.p50, s.p90, s.p99, s.max);
    };
    row("(a) baseline: r2r publisher → subscriber (DDS, 2 processes)", baseline);
    row("(a) UDP → spine → topic → subscriber", spine);
    row("(a) of which UDP → spine's publish (header stamp)", internal);
    println!(
        "| **(a) added by the spine (difference)** | | | **{:+.0}** | {:+.0} | **{:+.0}** | {:+.0} |",
        spine.p50 - baseline.p50,
        spine.p90 - baseline.p90,
        spine.p99 - baseline.p99,
        spine.max - baseline.max
    );
    row("(c) UDP → spine → UDP (legacy route)", legacy);
    row("(c) reference: UDP → UDP, no spine", direct);
    println!();
    println!("### (b) throughput of one input (`simulink`, newest value wins)\n");
    println!("| offered [pkt/s] | sent | achieved [pkt/s] | counted by spine | routed | stale dropped (counted) | uncounted loss | kernel rcvbuf drops | published, seen here |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for s in steps {
        let offered = s.offered.map(|r| r.to_string()).unwrap_or_else(|| "flat out".into());
        let kernel = s.kernel_drops.map(|k| k.to_string()).unwrap_or_else(|| "n/a".into());
        println!(
            "| {offered} | {} | {:.0} | {} | {} | {} | {} | {kernel} | {} |",
            s.sent,
            s.achieved,
            s.received,
            s.routed,
            s.stale,
            s.uncounted_loss() + s.malformed,
            s.published_seen
        );
    }
    // The highest offered rate that was really sent (within 2 %) with no uncounted loss.
    let sustained = steps
        .iter()
        .filter(|s| s.uncounted_loss() == 0 && s.malformed == 0)
        .map(|s| match s.offered {
            Some(rate) if s.achieved >= 0.98 * rate as f64 => rate as f64,
            _ => s.achieved,
        })
        .fold(0.0, f64::max);
    let added = spine.p99 - baseline.p99;
    println!();
    println!("### Against the targets\n");
    println!("| target | result | |");
    println!("| --- | ---: | --- |");
    println!(
        "| added latency p99 < {TARGET_ADDED_P99_US} µs over the DDS baseline | {added:+.0} µs | {} |",
        if added < TARGET_ADDED_P99_US { "met" } else { "NOT met" }
    );
    println!(
        "| the same, measured directly: UDP send → the spine's publish stamp, p99 | {:.0} µs | {} |",
        internal.p99,
        if internal.p99 < TARGET_ADDED_P99_US { "met" } else { "NOT met" }
    );
    println!(
        "| ≥ {TARGET_RATE} pkt/s on one input, no uncounted loss | {sustained:.0} pkt/s | {} |",
        if sustained >= TARGET_RATE as f64 { "met" } else { "NOT met" }
    );
    println!("| legacy UDP → UDP route | p50 {:.0} µs, p99 {:.0} µs | |", legacy.p50, legacy.p99);
}

// ------------------------------------------------------------------ baseline child
/// `--baseline-publisher --seconds S --rate HZ [--start-ns T]`: publishes PointStamped
/// (x = seq, stamped now) on the baseline topic for warm-up + S seconds, from wall-clock
/// time T (once a subscriber is matched).
fn baseline_publisher(args: &[String]) -> Result<(), BoxError> {
    let mut o = Options { seconds: 10.0, rate: 1000, spine: PathBuf::new(), rt_priority: 0 };
    let mut start_ns = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match (a.as_str(), it.next()) {
            ("--seconds", Some(v)) => o.seconds = v.parse()?,
            ("--rate", Some(v)) => o.rate = v.parse()?,
            ("--start-ns", Some(v)) => start_ns = Some(v.parse::<i128>()?),
            _ => return Err(format!("baseline publisher: bad option {a:?}").into()),
        }
    }
    let mut app = App::new("spine_bench_baseline")?;
    let publisher = app.node.create_publisher::<PointStamped>(BASELINE_TOPIC, qos::sensor())?;
    let trigger = app.shutdown_trigger();
    let spinner = thread::spawn(move || app.spin());
    let end = Instant::now() + Duration::from_secs(30);
    while publisher.get_inter_process_subscription_count().unwrap_or(0) == 0 {
        if Instant::now() > end {
            trigger();
            return Err("baseline publisher: no subscriber matched".into());
        }
        thread::sleep(Duration::from_millis(10));
    }
    let (_, count) = measured_seqs(&o, o.seconds);
    let period = 1.0 / o.rate as f64;
    let start = start_ns.map(instant_at).unwrap_or_else(Instant::now);
    for seq in 0..count {
        wait_until(start + Duration::from_secs_f64(period * seq as f64));
        // Built like the spine builds its messages (same size, same work).
        let mut msg = PointStamped { header: arnie_ros::time::header("world"), ..Default::default() };
        msg.point.x = seq as f64;
        if let Err(e) = publisher.publish(&msg) {
            eprintln!("baseline publisher: {e}");
        }
    }
    thread::sleep(Duration::from_millis(100));
    trigger();
    let _ = spinner.join();
    Ok(())
}
