//! `base_bench`: the Eurobot base's control loop and re-plan, measured live through the
//! real stack (`cargo xtask bench base` starts planner, comms_bridge and arnie_base from
//! the release build as `launch/eurobot.launch.xml` does, then runs this).
//!
//! This program is the motor board's end of the CAN-over-UDP link: it loads the packet
//! definitions (`--packets`, the JSON files the bridge loads) through `arnie_packets`, sends
//! `Odometry` at 50 Hz from an ideal differential drive that follows the last `DriveSpeed`,
//! answers `Stop` with `Ack`, and logs the instant of every packet in and out. As a ROS
//! client (rcl, its own node) it sends `NavigateTo` goals back and forth on the table, and
//! once per northbound goal marks an obstacle across the robot's path through the planner's
//! `UpdateMap`, asks `PlanPath` itself, then reports the obstacle on the wire as the board's
//! proximity sensor would (`ObstacleReport`) and watches the base stop and re-plan
//! (`planner/path`). The table is computed from the logged instants afterwards; nothing
//! here asserts on timing.
//!
//! `base_bench --packets DIR --bind ADDR --peer ADDR [--duration S]`
mod table;

use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arnie_packets::link::{Link, LinkConfig, LinkEvent};
use arnie_packets::transport::{CanBus, UdpCan};
use arnie_packets::typed::{from_milli, to_milli, Ack, DriveSpeed, ObstacleReport, Odometry, Stop};
use arnie_packets::{Definitions, TypedPacket};
use futures::StreamExt;
use node_glue::r2r::{
    self,
    arnie_interfaces::{
        action::NavigateTo,
        srv::{PlanPath, UpdateMap},
    },
    geometry_msgs::msg::Point,
    nav_msgs::msg::Path,
    QosProfile,
};
use node_glue::topics;
use tokio::sync::{mpsc, watch};

/// The two ends of the bench's drive, in the open lower-left part of the table
/// (`params/eurobot/table.json`): 1 m apart, nearly north-south, clear of walls and
/// obstacles by more than the planner's inflation (robot_radius_m 0.2).
const A: (f64, f64) = (0.40, 0.30);
const B: (f64, f64) = (0.55, 1.25);
/// The board's period (the scenario's odometry rate, 50 Hz).
const PERIOD: Duration = Duration::from_millis(20);
/// The simulated robot's radius (the scenario's `robot.radius_m`): `ObstacleReport`
/// distances are from its edge.
const ROBOT_RADIUS_M: f64 = 0.15;
/// Where the obstacle is seen: from the robot's edge, and off the heading (toward the
/// table's left wall, so the way around it, on the right, stays open).
const HIT_DISTANCE_M: f64 = 0.15;
const HIT_BEARING_RAD: f64 = 0.55;

/// NavigateTo's outcome constants, by code (the action's result).
const OUTCOMES: &[&str] = &[
    "REACHED",
    "BLOCKED",
    "NO_PATH",
    "CANCELLED",
    "LINK_LOST (the first goal, before the base had odometry)",
    "REJECTED",
    "PREEMPTED",
];

/// One instant on the wire (the bench's side of the UDP socket).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Wire {
    /// Odometry about to be written.
    Odometry,
    /// A DriveSpeed read (v m/s, w rad/s).
    Drive(f64, f64),
    /// A Stop read.
    Stop,
    /// An ObstacleReport written.
    Report,
}

/// Everything the bench logs, read once at the end.
#[derive(Default)]
struct Log {
    wire: Vec<(Instant, Wire)>,
    /// `planner/path` messages received.
    paths: Vec<Instant>,
    /// Goals: accepted, ended, outcome.
    goals: Vec<(Instant, Instant, u8)>,
    /// The bench's own calls: mark sent, mark answered, own plan answered (code).
    trials: Vec<Trial>,
    rejected_frames: u64,
    encode_errors: u64,
}

#[derive(Clone, Copy, Debug)]
struct Trial {
    mark_sent: Instant,
    mark_answered: Instant,
    plan_answered: Instant,
    plan_code: u16,
    /// Set by the wire task when the ObstacleReport is written.
    reported: Option<Instant>,
}

/// The ideal differential drive the bench plays (no limits, no noise: the base's
/// reaction, not the board's, is measured).
#[derive(Clone, Copy, Debug)]
struct Drive {
    x: f64,
    y: f64,
    theta: f64,
    v: f64,
    w: f64,
    /// Last DriveSpeed received.
    cmd_at: Option<Instant>,
}

impl Drive {
    fn step(&mut self, dt: f64) {
        let mid = self.theta + 0.5 * self.w * dt;
        self.x += self.v * dt * mid.cos();
        self.y += self.v * dt * mid.sin();
        self.theta = wrap(self.theta + self.w * dt);
    }
}

fn wrap(a: f64) -> f64 {
    let t = (a + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU);
    t - std::f64::consts::PI
}

struct Shared {
    drive: Mutex<Drive>,
    log: Mutex<Log>,
}

/// The board: odometry every [`PERIOD`], DriveSpeed / Stop in, ObstacleReport on request.
async fn board(
    mut link: Link,
    shared: Arc<Shared>,
    mut reports: mpsc::UnboundedReceiver<usize>,
    mut stop: watch::Receiver<bool>,
) -> Result<(), String> {
    let defs = link.definitions().clone();
    let mut tick = tokio::time::interval(PERIOD);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut last = Instant::now();
    let (mut seq, mut cmd_seq, mut report_seq) = (0u16, 0u16, 0u16);
    loop {
        tokio::select! {
            biased;
            _ = stop.changed() => return Ok(()),
            ev = link.recv() => {
                let at = Instant::now();
                let p = match ev.map_err(|e| format!("link: {e}"))? {
                    LinkEvent::Packet(r) => r.packet,
                    LinkEvent::Rejected(_) => {
                        shared.log.lock().map_err(|_| "poisoned")?.rejected_frames += 1;
                        continue;
                    }
                };
                let event = if let Ok(c) = DriveSpeed::from_packet(&p) {
                    let (v, w) = (from_milli(c.linear_mm_s), from_milli(c.angular_mrad_s));
                    let mut d = shared.drive.lock().map_err(|_| "poisoned")?;
                    d.step(at.duration_since(last).as_secs_f64());
                    last = at;
                    (d.v, d.w, d.cmd_at) = (v, w, Some(at));
                    cmd_seq = c.seq;
                    Wire::Drive(v, w)
                } else if let Ok(stop) = Stop::from_packet(&p) {
                    {
                        let mut d = shared.drive.lock().map_err(|_| "poisoned")?;
                        d.step(at.duration_since(last).as_secs_f64());
                        (d.v, d.w) = (0.0, 0.0);
                    }
                    last = at;
                    let ack = Ack { command: Stop::ID, seq: stop.seq, status: 0 };
                    match ack.to_packet(&defs) {
                        Ok(ack) => { link.send(&ack).await.map_err(|e| format!("link: {e}"))?; }
                        Err(_) => shared.log.lock().map_err(|_| "poisoned")?.encode_errors += 1,
                    }
                    Wire::Stop
                } else {
                    continue;
                };
                shared.log.lock().map_err(|_| "poisoned")?.wire.push((at, event));
            }
            Some(trial) = reports.recv() => {
                let d = *shared.drive.lock().map_err(|_| "poisoned")?;
                let bearing = if d.theta.sin() > 0.0 { HIT_BEARING_RAD } else { -HIT_BEARING_RAD };
                let ray = d.theta + bearing;
                let r = ROBOT_RADIUS_M + HIT_DISTANCE_M;
                let (hx, hy) = (d.x + r * ray.cos(), d.y + r * ray.sin());
                report_seq = report_seq.wrapping_add(1);
                let report = ObstacleReport {
                    seq: report_seq,
                    sensor: 0,
                    distance_mm: to_milli(HIT_DISTANCE_M).unsigned_abs(),
                    bearing_mrad: to_milli(bearing),
                    x_mm: (hx * 1000.0) as f32,
                    y_mm: (hy * 1000.0) as f32,
                };
                let p = report.to_packet(&defs).map_err(|e| format!("ObstacleReport: {e}"))?;
                let at = Instant::now();
                link.send(&p).await.map_err(|e| format!("link: {e}"))?;
                let mut log = shared.log.lock().map_err(|_| "poisoned")?;
                log.wire.push((at, Wire::Report));
                if let Some(t) = log.trials.get_mut(trial) {
                    t.reported = Some(at);
                }
            }
            _ = tick.tick() => {
                let now = Instant::now();
                let d = {
                    let mut d = shared.drive.lock().map_err(|_| "poisoned")?;
                    d.step(now.duration_since(last).as_secs_f64());
                    last = now;
                    *d
                };
                seq = seq.wrapping_add(1);
                let odometry = Odometry {
                    seq,
                    x_mm: to_milli(d.x),
                    y_mm: to_milli(d.y),
                    theta_mrad: to_milli(d.theta),
                    linear_mm_s: to_milli(d.v),
                    angular_mrad_s: to_milli(d.w),
                    cmd_seq,
                    flags: u8::from(d.v != 0.0 || d.w != 0.0),
                };
                let p = odometry.to_packet(&defs).map_err(|e| format!("Odometry: {e}"))?;
                let at = Instant::now();
                link.send(&p).await.map_err(|e| format!("link: {e}"))?;
                shared.log.lock().map_err(|_| "poisoned")?.wire.push((at, Wire::Odometry));
            }
        }
    }
}

fn point((x, y): (f64, f64)) -> Point {
    Point { x, y, z: 0.0 }
}

async fn within<F: std::future::Future>(secs: u64, what: &str, f: F) -> Result<F::Output, String> {
    tokio::time::timeout(Duration::from_secs(secs), f)
        .await
        .map_err(|_| format!("{what}: no answer within {secs} s"))
}

struct Clients {
    nav: r2r::ActionClient<NavigateTo::Action>,
    mark: r2r::Client<UpdateMap::Service>,
    plan: r2r::Client<PlanPath::Service>,
}

/// The goals, back and forth for `duration`, one re-plan trial per northbound goal.
async fn drive(
    c: Clients,
    shared: Arc<Shared>,
    reports: mpsc::UnboundedSender<usize>,
    duration: Duration,
) -> Result<(), String> {
    let up = |e: r2r::Error| format!("{e}");
    within(
        60,
        "the base's NavigateTo server",
        r2r::Node::is_available(&c.nav).map_err(up)?,
    )
    .await?
    .map_err(up)?;
    within(
        60,
        topics::UPDATE_MAP,
        r2r::Node::is_available(&c.mark).map_err(up)?,
    )
    .await?
    .map_err(up)?;
    within(
        60,
        topics::PLAN_PATH,
        r2r::Node::is_available(&c.plan).map_err(up)?,
    )
    .await?
    .map_err(up)?;
    let start = Instant::now();
    let mut northbound = true;
    let mut link_lost_at_start = 0;
    while start.elapsed() < duration {
        let target = if northbound { B } else { A };
        let goal = NavigateTo::Goal {
            x: target.0,
            y: target.1,
            theta: 0.0,
            use_heading: false,
        };
        let request = c.nav.send_goal_request(goal).map_err(up)?;
        let (_handle, result, mut feedback) = within(10, "NavigateTo goal", request)
            .await?
            .map_err(|e| format!("NavigateTo goal refused: {e}"))?;
        let accepted = Instant::now();
        tokio::spawn(async move { while feedback.next().await.is_some() {} });
        tokio::pin!(result);
        let from = {
            let d = shared.drive.lock().map_err(|_| "poisoned")?;
            (d.x, d.y)
        };
        let mut tried = !northbound;
        let outcome = loop {
            tokio::select! {
                r = &mut result => break r.map_err(|e| format!("NavigateTo result: {e}"))?.1.outcome,
                _ = tokio::time::sleep(Duration::from_millis(5)), if !tried => {
                    let d = *shared.drive.lock().map_err(|_| "poisoned")?;
                    let driving = d.v >= 0.25 && d.w.abs() < 0.3
                        && d.cmd_at.is_some_and(|t| t.elapsed() < PERIOD * 2);
                    let gone = (d.x - from.0).hypot(d.y - from.1);
                    if driving && gone > 0.2 {
                        tried = true;
                        trial(&c, &shared, &reports, (d.x, d.y, d.theta), target).await?;
                    }
                }
            }
        };
        shared
            .log
            .lock()
            .map_err(|_| "poisoned")?
            .goals
            .push((accepted, Instant::now(), outcome));
        if outcome == NavigateTo::Result::LINK_LOST as u8 && link_lost_at_start < 20 {
            // The base has not had odometry yet (the bridge just started): try again.
            link_lost_at_start += 1;
            tokio::time::sleep(Duration::from_millis(250)).await;
            continue;
        }
        link_lost_at_start = 20;
        northbound = !northbound;
    }
    Ok(())
}

/// Marks the obstacle across the path (UpdateMap), plans from here (PlanPath, as the base
/// asks: simplify, smooth), then has the board report it (ObstacleReport).
async fn trial(
    c: &Clients,
    shared: &Shared,
    reports: &mpsc::UnboundedSender<usize>,
    (x, y, theta): (f64, f64, f64),
    target: (f64, f64),
) -> Result<(), String> {
    let up = |e: r2r::Error| format!("{e}");
    let bearing = if theta.sin() > 0.0 {
        HIT_BEARING_RAD
    } else {
        -HIT_BEARING_RAD
    };
    let r = ROBOT_RADIUS_M + HIT_DISTANCE_M + 0.05;
    let centre = (
        x + r * (theta + bearing).cos(),
        y + r * (theta + bearing).sin(),
    );
    let mark_sent = Instant::now();
    let req = UpdateMap::Request {
        centers: vec![point(centre)],
        radius_m: 0.05,
        clear: false,
        ttl_s: 3.0,
    };
    within(10, "UpdateMap", c.mark.request(&req).map_err(up)?)
        .await?
        .map_err(up)?;
    let mark_answered = Instant::now();
    let here = {
        let d = shared.drive.lock().map_err(|_| "poisoned")?;
        (d.x, d.y)
    };
    let req = PlanPath::Request {
        start: point(here),
        goal: point(target),
        simplify: true,
        smooth: true,
    };
    let answer = within(10, "PlanPath", c.plan.request(&req).map_err(up)?)
        .await?
        .map_err(up)?;
    let plan_answered = Instant::now();
    let index = {
        let mut log = shared.log.lock().map_err(|_| "poisoned")?;
        log.trials.push(Trial {
            mark_sent,
            mark_answered,
            plan_answered,
            plan_code: answer.error_code,
            reported: None,
        });
        log.trials.len() - 1
    };
    reports
        .send(index)
        .map_err(|_| "the board task ended".to_string())
}

// ------------------------------------------------------------------ main

struct Args {
    packets: std::path::PathBuf,
    bind: std::net::SocketAddr,
    peer: std::net::SocketAddr,
    duration: Duration,
}

fn args() -> Result<Args, String> {
    let mut a = std::env::args().skip(1);
    let (mut packets, mut bind, mut peer, mut duration) = (None, None, None, 40.0);
    while let Some(k) = a.next() {
        let mut v = || a.next().ok_or_else(|| format!("{k} needs a value"));
        match k.as_str() {
            "--packets" => packets = Some(std::path::PathBuf::from(v()?)),
            "--bind" => bind = Some(v()?.parse().map_err(|e| format!("--bind: {e}"))?),
            "--peer" => peer = Some(v()?.parse().map_err(|e| format!("--peer: {e}"))?),
            "--duration" => {
                duration = v()?
                    .parse::<f64>()
                    .ok()
                    .filter(|d| d.is_finite() && *d > 0.0)
                    .ok_or("--duration: seconds > 0")?
            }
            "--ros-args" => break,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(Args {
        packets: packets.ok_or("--packets DIR is required")?,
        bind: bind.ok_or("--bind ADDR is required")?,
        peer: peer.ok_or("--peer ADDR is required")?,
        duration: Duration::from_secs_f64(duration),
    })
}

fn run() -> Result<(), String> {
    let args = args()?;
    let defs = Definitions::load_dir(&args.packets).map_err(|e| e.to_string())?;
    let mut app = node_glue::App::new("base_bench").map_err(|e| e.to_string())?;
    let node = &mut app.node;
    let clients = Clients {
        nav: node
            .create_action_client::<NavigateTo::Action>(topics::NAVIGATE_TO)
            .map_err(|e| e.to_string())?,
        mark: node
            .create_client::<UpdateMap::Service>(topics::UPDATE_MAP, QosProfile::default())
            .map_err(|e| e.to_string())?,
        plan: node
            .create_client::<PlanPath::Service>(topics::PLAN_PATH, QosProfile::default())
            .map_err(|e| e.to_string())?,
    };
    let mut paths = node
        .subscribe::<Path>(topics::PLANNER_PATH, QosProfile::default())
        .map_err(|e| e.to_string())?;
    let shared = Arc::new(Shared {
        drive: Mutex::new(Drive {
            x: A.0,
            y: A.1,
            theta: std::f64::consts::FRAC_PI_2,
            v: 0.0,
            w: 0.0,
            cmd_at: None,
        }),
        log: Mutex::default(),
    });
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let (stop_tx, stop_rx) = watch::channel(false);
    let spin = {
        let stop = stop_rx.clone();
        std::thread::spawn(move || {
            while !*stop.borrow() {
                app.node.spin_once(Duration::from_millis(2));
            }
        })
    };
    let result = rt.block_on(async {
        let bus = UdpCan::bind(args.bind, Some(args.peer))
            .await
            .map_err(|e| e.to_string())?;
        let link = Link::can(CanBus::Udp(bus), Arc::new(defs), &LinkConfig::default());
        {
            let shared = shared.clone();
            tokio::spawn(async move {
                while paths.next().await.is_some() {
                    if let Ok(mut log) = shared.log.lock() {
                        log.paths.push(Instant::now());
                    }
                }
            });
        }
        let (reports_tx, reports_rx) = mpsc::unbounded_channel();
        let board = tokio::spawn(board(link, shared.clone(), reports_rx, stop_rx.clone()));
        eprintln!(
            "base_bench: NavigateTo goals between ({:.2}, {:.2}) and ({:.2}, {:.2}) for {:.0} s",
            A.0,
            A.1,
            B.0,
            B.1,
            args.duration.as_secs_f64()
        );
        let driven = drive(clients, shared.clone(), reports_tx, args.duration).await;
        let _ = stop_tx.send(true);
        let boarded = board.await.map_err(|e| e.to_string())?;
        driven.and(boarded)
    });
    let _ = stop_tx.send(true);
    let _ = spin.join();
    let log = shared.log.lock().map_err(|_| "poisoned")?;
    table::report(&log);
    result
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("base_bench: {e}");
            ExitCode::FAILURE
        }
    }
}
