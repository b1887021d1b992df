//! `sim`: the simulated hardware (xPC arm and eyes) as a process. The hardware side
//! speaks UDP only, mirroring the spine config named by `spine_config`:
//! - listens for simulink arm targets where the spine's arm output sends;
//! - sends encoder positions to the spine's arm input and csv observations to its eyes
//!   input, each in the device frame of the config's transforms.
//!
//! ROS is used only for the parameters, the ground truth on `/sim/truth`
//! (`arnie_interfaces/SimTruth`, metres, `world`, reliable transient-local) and
//! `/diagnostics`. The physics runs at a fixed step (`step_ms`) catching up on the wall
//! clock; all behaviour is in the `sim` library ([`arnie_sim::World`]).
use std::fs::File;
use std::io::Write;
use std::net::{SocketAddr, UdpSocket as StdUdpSocket};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use arnie_sim::markers::SceneMarkers;
use arnie_sim::wiring::InterfaceNames;
use arnie_sim::world::{Arrival, Truth};
use arnie_sim::{Dest, Event, Scenario, Wiring, World};
use arnie_spine::{Config, LoopbackMap, Scale};
use node_glue::diagnostics::Status;
use node_glue::r2r::{self, arnie_interfaces::msg::SimTruth, geometry_msgs::msg::Point, RosParams};
use node_glue::{main_with, qos, time, topics, App, Error, Shutdown};
use tokio::net::UdpSocket;
use tokio::sync::mpsc;

use node_glue::topics::SIM_TRUTH;
/// At most this many physics steps per timer tick (after a stall, time jumps instead).
const MAX_CATCH_UP_STEPS: u64 = 200;

#[derive(RosParams, Debug, Clone)]
struct SimParams {
    /// Spine config JSON the sim mirrors (ports, formats, transforms); every host is mapped to 127.0.0.1
    spine_config: String,
    /// Spine output that sends arm targets: the sim arm listens at its host:port
    arm_output: String,
    /// Spine input that receives encoder positions: the sim arm sends there
    arm_input: String,
    /// Spine input that receives eye observations: the sim eyes send there
    eyes_input: String,
    /// Scenario JSON (positions, limits, obstacles, timings); empty = built-in flame-passing defaults
    scenario_file: String,
    /// Ground-truth JSON Lines file (one truth line per publication, one line per event); empty = off
    truth_log: String,
    /// Added to every port of the spine config (the spine's loopback port offset)
    port_offset: i64,
    /// Physics step [ms]
    step_ms: i64,
    /// /sim/truth publications per second [Hz]
    truth_rate_hz: f64,
    /// sim/markers (rviz scene) publications per second [Hz]; 0 = off
    markers_rate_hz: f64,
}

impl Default for SimParams {
    fn default() -> Self {
        SimParams {
            spine_config: "params/spine_sim.json".into(),
            arm_output: "arm".into(),
            arm_input: "arm".into(),
            eyes_input: "eyes".into(),
            scenario_file: "params/scenario_flame.json".into(),
            truth_log: String::new(),
            port_offset: 0,
            step_ms: 5,
            truth_rate_hz: 10.0,
            markers_rate_hz: 10.0,
        }
    }
}

/// Counters of the glue itself (the world keeps its own).
#[derive(Default)]
struct GlueCounters {
    send_errors: AtomicU64,
    recv_errors: AtomicU64,
    truth_log_errors: AtomicU64,
}

fn main() {
    main_with("sim", setup)
}

/// Locks the world; a poisoned lock (a panicked task) still holds a usable world.
fn lock(world: &Mutex<World>) -> MutexGuard<'_, World> {
    world.lock().unwrap_or_else(|p| p.into_inner())
}

fn setup(app: &mut App) -> Result<(), Error> {
    let params = app.parameters(SimParams::default())?;
    // Read once: the sockets, scenario and rates are fixed for the life of the node.
    let p = params
        .lock()
        .map_err(|_| Error::Setup("parameters poisoned".into()))?
        .clone();
    let name = app.name().to_string();
    let port_offset = i32::try_from(p.port_offset)
        .map_err(|_| Error::Parameter(format!("port_offset {} is out of range", p.port_offset)))?;
    if !(1..=1000).contains(&p.step_ms) {
        return Err(Error::Parameter(format!(
            "step_ms must be in 1..=1000, got {}",
            p.step_ms
        )));
    }
    if !(p.truth_rate_hz.is_finite() && p.truth_rate_hz > 0.0 && p.truth_rate_hz <= 1000.0) {
        return Err(Error::Parameter(format!(
            "truth_rate_hz must be in (0, 1000], got {}",
            p.truth_rate_hz
        )));
    }
    if !(p.markers_rate_hz.is_finite() && (0.0..=100.0).contains(&p.markers_rate_hz)) {
        return Err(Error::Parameter(format!(
            "markers_rate_hz must be in [0, 100], got {}",
            p.markers_rate_hz
        )));
    }

    let config = Config::load(
        Path::new(&p.spine_config),
        Some(LoopbackMap { port_offset }),
    )
    .map_err(|e| Error::Setup(format!("spine_config {}: {e}", p.spine_config)))?;
    let names = InterfaceNames {
        arm_output: p.arm_output.clone(),
        arm_input: p.arm_input.clone(),
        eyes_input: p.eyes_input.clone(),
    };
    let wiring = Wiring::from_config(&config, &names)
        .map_err(|e| Error::Setup(format!("spine_config {}: {e}", p.spine_config)))?;
    let scenario = if p.scenario_file.is_empty() {
        Scenario::default()
    } else {
        Scenario::load(Path::new(&p.scenario_file))
            .map_err(|e| Error::Setup(format!("scenario_file {}: {e}", p.scenario_file)))?
    };
    r2r::log_info!(
        &name,
        "arm listens on {} ({}), sends positions to {} ({}); eyes send to {} ({}); source at {:?} mm, candle at {:?} mm",
        wiring.arm_targets.addr,
        wiring.arm_targets.format,
        wiring.arm_positions.addr,
        wiring.arm_positions.format,
        wiring.eyes.addr,
        wiring.eyes.format,
        scenario.eyes.source_mm.as_slice(),
        scenario.eyes.candle_mm.as_slice(),
    );

    let arm_std = StdUdpSocket::bind(wiring.arm_targets.addr).map_err(|e| {
        Error::Setup(format!(
            "cannot bind the arm at {}: {e}",
            wiring.arm_targets.addr
        ))
    })?;
    let eyes_bind: SocketAddr = if wiring.eyes.addr.is_ipv4() {
        "127.0.0.1:0"
    } else {
        "[::1]:0"
    }
    .parse()
    .map_err(|e| Error::Setup(format!("eyes socket: {e}")))?;
    let eyes_std = StdUdpSocket::bind(eyes_bind)?;
    arm_std.set_nonblocking(true)?;
    eyes_std.set_nonblocking(true)?;

    let truth_pub = app
        .node
        .create_publisher::<SimTruth>(SIM_TRUTH, qos::latched())?;
    let markers_pub = match p.markers_rate_hz > 0.0 {
        true => Some(arnie_sim::ros::markers::publisher(&mut app.node)?),
        false => None,
    };
    let diagnostics = app.diagnostics()?;
    let shutdown = app.shutdown();
    let _rt = app.handle().enter();
    let arm_sock = Arc::new(UdpSocket::from_std(arm_std)?);
    let eyes_sock = UdpSocket::from_std(eyes_std)?;

    let scene = SceneMarkers::new(scenario.clone(), 0.0);
    let world = Arc::new(Mutex::new(World::new(scenario, &wiring)));
    let glue = Arc::new(GlueCounters::default());
    let log_tx = match p.truth_log.as_str() {
        "" => None,
        path => Some(spawn_truth_log(
            path,
            &name,
            glue.clone(),
            shutdown.clone(),
        )?),
    };

    tokio::spawn(receive_targets(
        arm_sock.clone(),
        world.clone(),
        glue.clone(),
        name.clone(),
        shutdown.clone(),
    ));
    let dests = Dests {
        arm: wiring.arm_positions.addr,
        eyes: wiring.eyes.addr,
    };
    let step = Duration::from_millis(p.step_ms as u64);
    tokio::spawn(physics(
        world.clone(),
        step,
        Sockets {
            arm: arm_sock,
            eyes: eyes_sock,
            dests,
        },
        glue.clone(),
        log_tx.clone(),
        name.clone(),
        shutdown.clone(),
    ));
    let period = Duration::from_secs_f64(1.0 / p.truth_rate_hz);
    tokio::spawn(publish_truth(
        world.clone(),
        truth_pub,
        period,
        log_tx,
        name.clone(),
        shutdown.clone(),
    ));
    if let Some(publisher) = markers_pub {
        let period = Duration::from_secs_f64(1.0 / p.markers_rate_hz);
        let scene = scene.with_lifetime_s(arnie_sim::ros::markers::lifetime_s(period));
        let (world, name, shutdown) = (world.clone(), name.clone(), shutdown.clone());
        tokio::spawn(arnie_sim::ros::markers::run(
            publisher, world, scene, period, name, shutdown,
        ));
    }

    diagnostics.spawn_periodic(Duration::from_millis(500), shutdown, move || {
        let w = lock(&world);
        let c = w.counters();
        let t = w.truth();
        let mut status = Status::ok(
            "sim",
            if t.blocked_by.is_some() {
                "arm blocked"
            } else {
                "running"
            },
        )
        .with("t_s", format!("{:.3}", t.t_s))
        .with("lit", t.lit.join(","))
        .with("commands_received", c.commands_received)
        .with("commands_dropped", c.commands_dropped)
        .with(
            "commands_rejected",
            c.commands_rejected.values().sum::<u64>(),
        )
        .with("positions_sent", c.positions_sent)
        .with("positions_dropped", c.positions_dropped)
        .with("observations_sent", c.observations_sent)
        .with("send_errors", glue.send_errors.load(Ordering::Relaxed))
        .with("recv_errors", glue.recv_errors.load(Ordering::Relaxed))
        .with(
            "truth_log_errors",
            glue.truth_log_errors.load(Ordering::Relaxed),
        );
        for (kind, n) in &c.commands_rejected {
            status = status.with(format!("rejected_{kind}"), n);
        }
        vec![status]
    });
    Ok(())
}

/// Arm target datagrams → the world.
async fn receive_targets(
    sock: Arc<UdpSocket>,
    world: Arc<Mutex<World>>,
    glue: Arc<GlueCounters>,
    name: String,
    shutdown: Shutdown,
) {
    let mut buf = vec![0u8; 65_536];
    loop {
        let got = tokio::select! {
            _ = shutdown.wait() => return,
            got = sock.recv_from(&mut buf) => got,
        };
        match got {
            Ok((n, from)) => {
                let result = lock(&world).on_arm_datagram(&buf[..n]);
                match result {
                    Ok(Arrival::Accepted { .. }) => {}
                    Ok(Arrival::Dropped { target_mm }) => {
                        r2r::log_debug!(
                            &name,
                            "simulated loss dropped target {:?} mm",
                            target_mm.as_slice()
                        );
                    }
                    Err(e) => r2r::log_warn!(&name, "rejected arm datagram from {from}: {e}"),
                }
            }
            Err(e) => {
                // E.g. ICMP errors surfacing on the socket: count, never end the loop.
                glue.recv_errors.fetch_add(1, Ordering::Relaxed);
                r2r::log_warn!(&name, "arm socket receive error: {e}");
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
}

struct Dests {
    arm: SocketAddr,
    eyes: SocketAddr,
}

struct Sockets {
    arm: Arc<UdpSocket>,
    eyes: UdpSocket,
    dests: Dests,
}

/// The fixed-step physics: catches up on the node's ROS clock (wall time, or `/clock` with
/// `use_sim_time`), sends what the world emits.
async fn physics(
    world: Arc<Mutex<World>>,
    step: Duration,
    sockets: Sockets,
    glue: Arc<GlueCounters>,
    log_tx: Option<mpsc::UnboundedSender<String>>,
    name: String,
    shutdown: Shutdown,
) {
    let dt_s = step.as_secs_f64();
    let mut start = None;
    let mut done: u64 = 0;
    let mut interval = time::interval(step);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let now = tokio::select! {
            _ = shutdown.wait() => return,
            now = interval.tick() => now,
        };
        let start = *start.get_or_insert(now);
        let due = (now.saturating_sub(start).as_secs_f64() / dt_s) as u64;
        let n = due.saturating_sub(done).min(MAX_CATCH_UP_STEPS);
        done = due;
        let mut datagrams = Vec::new();
        let mut events = Vec::new();
        {
            let mut w = lock(&world);
            for _ in 0..n {
                let out = w.step(dt_s);
                datagrams.extend(out.datagrams);
                let t_s = w.now_s();
                events.extend(out.events.into_iter().map(|e| (t_s, e)));
            }
        }
        for d in datagrams {
            let (sock, to) = match d.dest {
                Dest::ArmInput => (&*sockets.arm, sockets.dests.arm),
                Dest::EyesInput => (&sockets.eyes, sockets.dests.eyes),
            };
            if let Err(e) = sock.send_to(&d.bytes, to).await {
                if glue.send_errors.fetch_add(1, Ordering::Relaxed) == 0 {
                    r2r::log_warn!(
                        &name,
                        "send to {to} failed: {e} (only the first is logged; see send_errors)"
                    );
                }
            }
        }
        for (t_s, e) in events {
            let line = match &e {
                Event::Lit(lit) => {
                    r2r::log_info!(
                        &name,
                        "the {} is lit (t = {:.2} s)",
                        lit.flame.name(),
                        lit.at_s
                    );
                    serde_json::json!({"kind": "event", "t_s": t_s, "event": "lit", "flame": lit.flame.name()})
                }
                Event::Blocked { obstacle, at_mm } => {
                    r2r::log_warn!(
                        &name,
                        "the arm is blocked by {obstacle} at {:?} mm",
                        at_mm.as_slice()
                    );
                    serde_json::json!({"kind": "event", "t_s": t_s, "event": "blocked",
                                       "obstacle": obstacle, "at_mm": at_mm.as_slice()})
                }
                Event::Freed => {
                    r2r::log_info!(&name, "the arm moves freely again");
                    serde_json::json!({"kind": "event", "t_s": t_s, "event": "freed"})
                }
            };
            if let Some(tx) = &log_tx {
                let _ = tx.send(line.to_string());
            }
        }
    }
}

/// /sim/truth at a fixed rate (and a truth line in the log).
async fn publish_truth(
    world: Arc<Mutex<World>>,
    publisher: r2r::Publisher<SimTruth>,
    period: Duration,
    log_tx: Option<mpsc::UnboundedSender<String>>,
    name: String,
    shutdown: Shutdown,
) {
    let mut interval = time::interval(period);
    loop {
        tokio::select! {
            _ = shutdown.wait() => return,
            _ = interval.tick() => {}
        }
        let truth = lock(&world).truth();
        if let Err(e) = publisher.publish(&to_msg(&truth)) {
            r2r::log_warn!(&name, "could not publish {SIM_TRUTH}: {e}");
        }
        if let Some(tx) = &log_tx {
            let mut v = serde_json::to_value(&truth).unwrap_or_default();
            if let Some(obj) = v.as_object_mut() {
                obj.insert("kind".into(), "truth".into());
            }
            let _ = tx.send(v.to_string());
        }
    }
}

/// Truth in millimetres → the message in metres (the one scale of spine_bridge).
fn to_msg(t: &Truth) -> SimTruth {
    let point = |mm: [f64; 3]| {
        let m = Scale::MILLIMETRES.point_to_m(mm);
        Point {
            x: m[0],
            y: m[1],
            z: m[2],
        }
    };
    SimTruth {
        header: time::header(topics::WORLD_FRAME),
        arm: point(t.arm_mm),
        has_target: t.target_mm.is_some(),
        target: t.target_mm.map(point).unwrap_or_default(),
        blocked: t.blocked_by.is_some(),
        lit: t.lit.iter().map(|s| s.to_string()).collect(),
        commands_received: t.commands_received,
        commands_dropped: t.commands_dropped,
    }
}

/// A writer task for the JSON Lines truth log; lines arrive on the returned channel.
fn spawn_truth_log(
    path: &str,
    name: &str,
    glue: Arc<GlueCounters>,
    shutdown: Shutdown,
) -> Result<mpsc::UnboundedSender<String>, Error> {
    let mut file =
        File::create(path).map_err(|e| Error::Setup(format!("truth_log {path}: {e}")))?;
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    let (name, path) = (name.to_string(), path.to_string());
    tokio::spawn(async move {
        loop {
            let line = tokio::select! {
                _ = shutdown.wait() => break,
                line = rx.recv() => match line { Some(l) => l, None => break },
            };
            if let Err(e) = writeln!(file, "{line}").and_then(|_| file.flush()) {
                if glue.truth_log_errors.fetch_add(1, Ordering::Relaxed) == 0 {
                    r2r::log_error!(&name, "cannot write truth_log {path}: {e}");
                }
            }
        }
    });
    Ok(tx)
}
