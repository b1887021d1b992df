//! The ROS 2 side of the `sim` node (feature `ros`): the only module that uses r2r. The
//! binary only calls [`run`].
//!
//! The hardware side speaks UDP only, mirroring the spine config named by
//! `spine_config`: the arm listens for simulink targets where the spine's arm output
//! sends; encoder positions go to the spine's arm input and csv observations to its
//! eyes input, each in the device frame of the config's transforms. ROS carries the
//! parameters, the ground truth on `sim/truth` (`arnie_interfaces/SimTruth`, metres,
//! `world`, latched), the scene on `sim/markers` and `/diagnostics`.
//!
//! Tasks (all behaviour is the library's [`crate::World`], behind one mutex):
//! - `link::receive_targets`: arm datagrams → the world;
//! - `link::physics`: the fixed-step physics on the node's ROS clock, sending what the
//!   world emits and logging its events;
//! - `truth::publish`: `sim/truth` at `truth_rate_hz` (live) and a truth log line;
//! - `markers::run`: `sim/markers`;
//! - the truth log's writer is a thread of its own ([`crate::truth_log`]): no file write
//!   runs on the async runtime, and lines it cannot keep up with are counted.
//!
//! Layout: `params` (the parameters and their rules), `counters` (the glue's counters),
//! `link` (UDP), `truth` (`sim/truth`), `markers` (`sim/markers`), `frames` (the world's
//! objects on `/tf_static`), `status` (`/diagnostics`).
mod counters;
mod frames;
mod link;
pub mod markers;
mod params;
mod status;
mod truth;

use std::net::{SocketAddr, UdpSocket as StdUdpSocket};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use arnie_xpc::{Config, LoopbackMap};
use node_glue::lifecycle::{Failed, Lifecycle, Managed, Outcome, State};
use node_glue::r2r::arnie_interfaces::msg::SimTruth;
use node_glue::{qos, topics, App, Error, ParameterError, Shutdown};
use tokio::net::UdpSocket;

use crate::markers::SceneMarkers;
use crate::truth_log::{Sent, TruthLog};
use crate::wiring::InterfaceNames;
use crate::{Scenario, SimError, Wiring, World};
use counters::Counters;
use params::{SimParams, RULES};

/// The node's name (`main_with`; the logger is the node's).
pub const NODE: &str = "sim";

/// Why the node cannot start, beyond its parameters and ROS (the line it exits with).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// `spine_config` does not load.
    #[error("spine_config {file}: {source}")]
    SpineConfig {
        /// The file.
        file: String,
        /// Why (naming the field).
        source: arnie_xpc::LoadError,
    },
    /// `spine_config` loads but lacks what the sim needs (an interface, an invertible transform).
    #[error("spine_config {file}: {source}")]
    Wiring {
        /// The file.
        file: String,
        /// Why.
        source: SimError,
    },
    /// `scenario_file` does not load.
    #[error("scenario_file {file}: {source}")]
    Scenario {
        /// The file.
        file: String,
        /// Why (naming the field).
        source: SimError,
    },
    /// The arm's port cannot be bound.
    #[error("cannot bind the arm at {addr}: {source}")]
    BindArm {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// `truth_log` cannot be created (the error names the path).
    #[error("truth_log {0}")]
    TruthLog(SimError),
    /// The eyes' socket cannot be bound or set up.
    #[error("socket: {0}")]
    Socket(std::io::Error),
}

impl From<SetupError> for Error {
    fn from(e: SetupError) -> Self {
        Error::node(e)
    }
}

/// What every task of the node shares.
#[derive(Clone)]
struct Ctx {
    world: Arc<Mutex<World>>,
    counters: Arc<Counters>,
    log: Option<TruthLog>,
    shutdown: Shutdown,
}

impl Ctx {
    /// Locks the world; a poisoned lock (a panicked task) still holds a usable world.
    fn world(&self) -> MutexGuard<'_, World> {
        self.world.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Hands a line to the truth log (if any); the first dropped line is logged.
    fn log_line(&self, line: impl FnOnce() -> String) {
        if let Some(log) = &self.log {
            if let Sent::Dropped { first: true } = log.send(line()) {
                node_glue::log_warn!("truth_log: the writer is behind, lines are dropped (counted in truth_log_dropped)"
                );
            }
        }
    }
}

/// Runs the node until shutdown, then exits the process (exit 2 when it cannot start,
/// naming the reason). All the binary calls. A managed node: see [`Sim`].
pub fn run() -> ! {
    node_glue::lifecycle::main_with(NODE, setup)
}

/// The simulator as a managed node: the spine config, the scenario and the truth log are
/// read at start; the arm's and eyes' sockets are bound on configure (a port in use
/// fails it, naming the address) and the simulated controllers run from configure to
/// cleanup, as the real ones would; `/sim/truth`, `sim/markers` and the world frames on
/// `/tf_static` are published only while the node is active (the frames go out on
/// activation).
pub struct Sim {
    wiring: Wiring,
    step: Duration,
    ctx: Ctx,
    handle: tokio::runtime::Handle,
    /// The simulated controllers' tasks (configured) and their stop.
    running: Option<(node_glue::Stop, Vec<tokio::task::JoinHandle<()>>)>,
}

/// How long cleanup waits for the controllers' tasks to let their sockets go.
const STOP_WAIT: Duration = Duration::from_secs(2);

impl Sim {
    fn bind(&mut self) -> Result<(), SetupError> {
        let wiring = &self.wiring;
        let arm_std =
            StdUdpSocket::bind(wiring.arm_targets.addr).map_err(|source| SetupError::BindArm {
                addr: wiring.arm_targets.addr,
                source,
            })?;
        // Loopback to a loopback spine; any address to a spine on the network.
        let eyes_bind = SocketAddr::new(
            match (wiring.eyes.addr, wiring.eyes.addr.ip().is_loopback()) {
                (SocketAddr::V4(_), true) => std::net::Ipv4Addr::LOCALHOST.into(),
                (SocketAddr::V6(_), true) => std::net::Ipv6Addr::LOCALHOST.into(),
                (SocketAddr::V4(_), false) => std::net::Ipv4Addr::UNSPECIFIED.into(),
                (SocketAddr::V6(_), false) => std::net::Ipv6Addr::UNSPECIFIED.into(),
            },
            0,
        );
        let socket = |r: std::io::Result<StdUdpSocket>| {
            r.and_then(|s| s.set_nonblocking(true).map(|()| s))
                .map_err(SetupError::Socket)
        };
        let arm_std = socket(Ok(arm_std))?;
        let eyes_std = socket(StdUdpSocket::bind(eyes_bind))?;
        let _rt = self.handle.enter();
        let arm_sock = Arc::new(UdpSocket::from_std(arm_std).map_err(SetupError::Socket)?);
        let eyes_sock = UdpSocket::from_std(eyes_std).map_err(SetupError::Socket)?;
        let (stop, shutdown) = self.ctx.shutdown.child();
        let ctx = Ctx {
            shutdown,
            ..self.ctx.clone()
        };
        let sockets = link::Sockets {
            arm: arm_sock.clone(),
            eyes: eyes_sock,
            arm_dest: wiring.arm_positions.addr,
            eyes_dest: wiring.eyes.addr,
        };
        let tasks = vec![
            tokio::spawn(link::receive_targets(
                arm_sock,
                wiring.arm_positions.addr.ip(),
                ctx.clone(),
            )),
            tokio::spawn(link::physics(self.step, sockets, ctx)),
        ];
        node_glue::log_info!("arm and eyes sockets bound: the simulated controllers run");
        self.running = Some((stop, tasks));
        Ok(())
    }

    fn unbind(&mut self) {
        let Some((stop, tasks)) = self.running.take() else {
            return;
        };
        stop.stop();
        let all = futures::future::join_all(tasks);
        if self
            .handle
            .block_on(tokio::time::timeout(STOP_WAIT, all))
            .is_err()
        {
            node_glue::log_warn!(
                "the simulated controllers did not stop within {} s",
                STOP_WAIT.as_secs()
            );
        } else {
            node_glue::log_info!("the simulated controllers stopped; sockets released");
        }
    }
}

impl Managed for Sim {
    fn on_configure(&mut self, _: State) -> Outcome {
        self.unbind();
        self.bind().map_err(Failed::failure)
    }
    fn on_cleanup(&mut self, _: State) -> Outcome {
        self.unbind();
        Ok(())
    }
    fn on_shutdown(&mut self, _: State) -> Outcome {
        self.unbind();
        Ok(())
    }
    fn on_error(&mut self, _: State) -> Outcome {
        self.unbind();
        Ok(())
    }
}

/// Creates the node's publishers and tasks (`node_glue::lifecycle::main_with(NODE,
/// setup)`); the sockets are bound on configure ([`Sim`]).
///
/// # Errors
/// Invalid parameters (naming the parameter and its range), a spine config or scenario
/// the sim cannot run with, a truth log that cannot be created, or a ROS entity that
/// could not be created.
pub fn setup(app: &mut App, lc: &Lifecycle) -> Result<Box<dyn Managed>, Error> {
    let params = app.parameters_checked(SimParams::default(), RULES)?;
    let p = params.lock()?.clone();
    let settings = p.settings().map_err(ParameterError::node)?;

    let loopback = LoopbackMap {
        port_offset: settings.port_offset,
    };
    let config = Config::load(Path::new(&p.spine_config), p.loopback.then_some(loopback)).map_err(
        |source| SetupError::SpineConfig {
            file: p.spine_config.clone(),
            source,
        },
    )?;
    let names = InterfaceNames {
        arm_output: p.arm_output.clone(),
        arm_input: p.arm_input.clone(),
        eyes_input: p.eyes_input.clone(),
    };
    let wiring = Wiring::from_config(&config, &names).map_err(|source| SetupError::Wiring {
        file: p.spine_config.clone(),
        source,
    })?;
    let scenario = match p.scenario_file.as_str() {
        "" => Scenario::default(),
        file => Scenario::load(Path::new(file)).map_err(|source| SetupError::Scenario {
            file: file.to_string(),
            source,
        })?,
    };
    node_glue::log_info!("arm listens on {} ({}), sends positions to {} ({}); eyes send to {} ({}); source at {:?} mm, candle at {:?} mm",
        wiring.arm_targets.addr,
        wiring.arm_targets.format,
        wiring.arm_positions.addr,
        wiring.arm_positions.format,
        wiring.eyes.addr,
        wiring.eyes.format,
        scenario.eyes.source_mm.as_slice(),
        scenario.eyes.candle_mm.as_slice(),
    );

    // The file is created here, at start: a bad path stops the node naming it.
    let log = match p.truth_log.as_str() {
        "" => None,
        path => Some(TruthLog::create(Path::new(path)).map_err(SetupError::TruthLog)?),
    };

    let truth_pub = lc.publisher::<SimTruth>(&mut app.node, topics::SIM_TRUTH, qos::latched())?;
    let markers_pub = match settings.markers_period {
        Some(period) => Some((markers::publisher(&mut app.node, lc)?, period)),
        None => None,
    };
    let world_frames = frames::publish(app, lc, &scenario)?;
    let diagnostics = app.diagnostics()?;
    let _rt = app.handle().enter();

    let scene = SceneMarkers::new(scenario.clone(), 0.0);
    let log_counts = log.as_ref().map(|(l, _)| l.counts());
    let ctx = Ctx {
        world: Arc::new(Mutex::new(World::new(scenario, &wiring))),
        counters: Arc::new(Counters::default()),
        log: log.as_ref().map(|(l, _)| l.clone()),
        shutdown: app.shutdown(),
    };
    if let Some((_, writer)) = log {
        // At shutdown, give the writer (ended once every task dropped its sender) the
        // runtime's grace period to write and flush the last lines.
        let down = ctx.shutdown.clone();
        tokio::spawn(async move {
            down.wait().await;
            let _ = tokio::task::spawn_blocking(move || writer.join()).await;
        });
    }
    tokio::spawn(truth::publish(
        truth_pub,
        params,
        settings.truth_period,
        ctx.clone(),
    ));
    if let Some((publisher, period)) = markers_pub {
        let (world, shutdown) = (ctx.world.clone(), ctx.shutdown.clone());
        tokio::spawn(markers::run(publisher, world, scene, period, shutdown));
    }
    let keep = ctx.shutdown.clone();
    tokio::spawn(async move {
        let _latched = world_frames;
        keep.wait().await;
    });
    let (world, counters) = (ctx.world.clone(), ctx.counters.clone());
    diagnostics.spawn_periodic(
        Duration::from_millis(500),
        ctx.shutdown.clone(),
        move || {
            let w = world.lock().unwrap_or_else(|p| p.into_inner());
            vec![status::status(&w, &counters, log_counts.as_ref())]
        },
    );
    Ok(Box::new(Sim {
        wiring,
        step: settings.step,
        ctx,
        handle: app.handle(),
        running: None,
    }))
}
