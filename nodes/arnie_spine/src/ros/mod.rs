//! The ROS 2 glue (feature `ros`): sockets, topics and `/diagnostics` around the pure
//! [`Router`]. The binary `spine_bridge` only calls [`run`]: [`setup`] reads the
//! parameters (`params`) into [`Settings`] and calls [`start`]; everything that touches
//! a socket or r2r lives here.
//!
//! # Layout
//! - `params`: the node's parameters, declared once (range, effect), checked at start;
//!   all start only.
//! - [`convert`]: global-frame items \[mm\] ⇄ `PointStamped` / `Coordinates` \[m\], the
//!   one place metres meet millimetres (through [`Scale`]).
//! - [`bridge`]: the shared state (the router behind a mutex, the sender socket, glue
//!   counters), one task per input socket, one task per output topic.
//! - [`counters`]: the glue's own counters ([`counters::GlueCounters`], one per
//!   interface), declared once.
//! - [`status`]: `/diagnostics` statuses, one per interface, and the rate-limited log.
//! - [`tf`]: the interfaces' rigid transforms on `/tf_static` (`world` → interface),
//!   once at start (the config is start-only).
//!
//! # Design (latency)
//! Each input socket has its own tokio task that receives, drains what is queued,
//! routes under a short `std::sync::Mutex` lock (microseconds; no `.await` while held),
//! then sends and publishes outside the lock. This is one hop less than a single task
//! owning the router behind channels (no extra wake-up between tasks per datagram).
//!
//! The input tasks run on their own current-thread tokio runtime, on one thread
//! (`spine-io`) that sleeps in `epoll_wait` itself: a datagram wakes exactly that
//! thread, which routes, sends and publishes without handing work to another thread.
//! On the node's two-worker runtime a wake-up often also woke the second worker (work
//! stealing), which cost CPU and latency per datagram. Output topics, parameters and
//! `/diagnostics` stay on the node's runtime. Optionally (`io_thread_rt_priority`) that
//! thread runs SCHED_FIFO, which removes most of its wake-up tail on a busy machine.
//!
//! Only the newest datagram per streamed input matters: after a wake-up the task drains
//! the socket with `try_recv_from` and routes the newest one. If that one is rejected
//! (malformed, unauthorised), the next older one is tried, so a burst of garbage cannot
//! hide the controller's last good value. Every datagram is counted exactly once:
//! routed (with its outcome) or `stale_dropped`. Non-streamed inputs route every
//! datagram in order.

pub mod bridge;
pub mod convert;
pub mod counters;
mod params;
pub mod status;
pub mod tf;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use node_glue::lifecycle::{Failed, Lifecycle, Managed, Outcome, State};
use node_glue::{App, Error, ParameterError};

use crate::config::{MsgKind, TopicQos};
use crate::{Config, Limits, LoopbackMap, Router, Scale};

/// The node's settings, checked (from the `spine_bridge` parameters).
#[derive(Debug, Clone)]
pub struct Settings {
    /// The Spine config file.
    pub config_file: PathBuf,
    /// `Some`: every host → 127.0.0.1, every port shifted.
    pub loopback: Option<LoopbackMap>,
    /// Metres per wire unit at the topic edge.
    pub scale: Scale,
    /// Decoding limits.
    pub limits: Limits,
    /// Receive buffer of each input socket \[bytes\]; 0 = the kernel's default (the
    /// kernel caps it at `net.core.rmem_max`).
    pub recv_buffer_bytes: usize,
    /// `header.frame_id` of published messages, and the frame accepted on output topics.
    pub frame_id: String,
    /// Period of `/diagnostics`.
    pub diagnostics_period: Duration,
    /// `Some(1..=99)`: run the I/O thread (every input task) with SCHED_FIFO at this
    /// priority; `None`: normal scheduling.
    pub io_rt_priority: Option<i32>,
}

/// Why the node cannot start, beyond its parameters and ROS (the line it exits with).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The config file does not load (the error names its field).
    #[error("config_file {}: {source}", file.display())]
    ConfigFile {
        /// The file.
        file: PathBuf,
        /// Why.
        source: crate::LoadError,
    },
    /// The I/O thread's runtime cannot be created.
    #[error("cannot create the I/O runtime: {0}")]
    IoRuntime(std::io::Error),
    /// The I/O thread cannot be started.
    #[error("cannot start the I/O thread: {0}")]
    IoThread(std::io::Error),
    /// The (IPv4) socket outputs are sent from cannot be created.
    #[error("cannot create the sender socket: {0}")]
    SenderSocket(std::io::Error),
    /// The IPv6 socket outputs are sent from cannot be created.
    #[error("cannot create the IPv6 sender socket: {0}")]
    SenderSocketV6(std::io::Error),
    /// An input's port cannot be bound.
    #[error("input {input:?}: cannot bind {addr}: {source}")]
    Bind {
        /// The input's name in the config.
        input: String,
        /// The address.
        addr: std::net::SocketAddr,
        /// Why.
        source: std::io::Error,
    },
}

impl From<SetupError> for Error {
    fn from(e: SetupError) -> Self {
        Error::node(e)
    }
}

/// The node's name (and the log target).
pub const NODE: &str = "spine_bridge";

/// Runs the spine bridge until shutdown, then exits the process (exit 2 on bad
/// parameters or a config that does not load, naming the reason). A managed node
/// (`node_glue::lifecycle`): see [`Spine`].
pub fn run() -> ! {
    node_glue::lifecycle::main_with(NODE, setup)
}

/// Reads the parameters (checked; all start only) and [`start`]s the bridge.
///
/// # Errors
/// As [`start`], and invalid parameters (the reason names the parameter and the value).
pub fn setup(app: &mut App, lc: &Lifecycle) -> Result<Box<dyn Managed>, Error> {
    let params = app.parameters_checked(params::SpineParams::default(), params::rules())?;
    let settings = {
        let p = params.lock()?;
        Settings::try_from(&*p).map_err(ParameterError::node)?
    };
    node_glue::log_info!("settings: {settings:?}");
    Ok(Box::new(start(app, lc, settings)?))
}

/// The bridge as a managed node: the config, the topics and the router are made at
/// start (the config names the topics, and r2r makes every entity before the node
/// spins); the input ports are bound on configure ([`Managed::on_configure`]: a port in
/// use fails it, naming the input and the address, and the node stays unconfigured), and
/// released on cleanup and shutdown. Datagrams and topic values are forwarded only
/// while the node is active: otherwise each is counted (`inactive_dropped` of its
/// interface) and dropped, and nothing is published.
pub struct Spine {
    shared: Arc<bridge::Shared>,
    settings: Settings,
    publishers: Vec<Option<bridge::TopicPublisher>>,
    shutdown: node_glue::Shutdown,
    /// The I/O thread of the bound inputs (configured), and its stop.
    io: Option<(
        tokio::sync::watch::Sender<bool>,
        std::thread::JoinHandle<()>,
    )>,
}

/// Loads the config, creates the publishers and subscriptions and spawns the topic
/// tasks; the inputs are bound on configure ([`Spine`]). Call before [`App::spin`].
///
/// # Errors
/// [`SetupError`] naming the problem: a config that does not load (with its field);
/// [`Error::Ros`] if r2r refuses an entity.
pub fn start(app: &mut App, lc: &Lifecycle, settings: Settings) -> Result<Spine, Error> {
    let config = Config::load(&settings.config_file, settings.loopback).map_err(|source| {
        SetupError::ConfigFile {
            file: settings.config_file.clone(),
            source,
        }
    })?;
    log_summary(&settings, &config);

    let shutdown = app.shutdown();
    let router = Router::new(config, settings.limits);
    let handle = app.handle();
    let _rt = handle.enter();
    let shared = Arc::new(bridge::Shared::new(router, &settings, lc.clone())?);
    let router = shared.router();
    let mut publishers = Vec::new();
    for input in &router.config().inputs {
        publishers.push(match &input.topic {
            None => None,
            Some(t) => Some(match t.kind {
                MsgKind::Point => bridge::TopicPublisher::Point(lc.publisher(
                    &mut app.node,
                    &t.name,
                    qos(t.qos),
                )?),
                MsgKind::Coordinates => bridge::TopicPublisher::Coordinates(lc.publisher(
                    &mut app.node,
                    &t.name,
                    qos(t.qos),
                )?),
            }),
        });
    }
    tf::publish_static(app, lc, &settings, router.config())?;
    let mut subscriptions = Vec::new();
    let mut resends = Vec::new();
    for (k, output) in router.config().outputs.iter().enumerate() {
        if let Some(t) = &output.topic {
            let stream = match t.kind {
                MsgKind::Point => {
                    bridge::TopicStream::Point(Box::new(app.subscribe(&t.name, qos(t.qos))?))
                }
                MsgKind::Coordinates => {
                    bridge::TopicStream::Coordinates(Box::new(app.subscribe(&t.name, qos(t.qos))?))
                }
            };
            subscriptions.push((k, stream));
        }
        if let Some(ms) = output.resend_interval_ms {
            resends.push((k, Duration::from_millis(ms)));
        }
    }
    let hardware_id = hardware_id(router.config());
    drop(router);
    let diagnostics = app.diagnostics()?.with_hardware_id(hardware_id);
    for (k, stream) in subscriptions {
        let down = shutdown.clone();
        tokio::spawn(bridge::run_topic(shared.clone(), k, stream, down));
    }
    for (k, interval) in resends {
        tokio::spawn(bridge::run_resend(
            shared.clone(),
            k,
            interval,
            shutdown.clone(),
        ));
    }
    let mut statuses = status::StatusBuilder::new(shared.clone(), &settings);
    diagnostics.spawn_periodic(settings.diagnostics_period, shutdown.clone(), move || {
        statuses.build()
    });
    Ok(Spine {
        shared,
        settings,
        publishers,
        shutdown,
        io: None,
    })
}

/// How long cleanup waits for the I/O thread to let its sockets go.
const IO_STOP_LIMIT: Duration = Duration::from_secs(2);

impl Spine {
    /// Binds every input and starts the I/O thread that serves them.
    fn bind(&mut self) -> Result<(), SetupError> {
        let sockets = bridge::bind_inputs(&self.shared, self.settings.recv_buffer_bytes)?;
        let io = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(SetupError::IoRuntime)?;
        let tasks: Vec<bridge::InputTask> = sockets
            .into_iter()
            .zip(self.publishers.iter().cloned())
            .map(|((id, socket), publisher)| {
                bridge::InputTask::new(self.shared.clone(), id, socket, publisher)
            })
            .collect();
        let down = self.shutdown.clone();
        let (stop, mut stopped) = tokio::sync::watch::channel(false);
        let priority = self.settings.io_rt_priority;
        let thread = std::thread::Builder::new()
            .name("spine-io".into())
            .spawn(move || {
                if let Some(priority) = priority {
                    match realtime(priority) {
                        Ok(()) => node_glue::log_info!("I/O thread: SCHED_FIFO priority {priority}"),
                        Err(e) => node_glue::log_warn!("I/O thread: cannot use SCHED_FIFO priority {priority} ({e}); normal scheduling"),
                    }
                }
                io.block_on(async move {
                    for task in tasks {
                        tokio::spawn(task.run(down.clone()));
                    }
                    tokio::select! {
                        _ = down.wait() => {}
                        _ = stopped.wait_for(|s| *s) => {}
                    }
                });
                // Dropping the runtime drops the input tasks and closes their sockets.
                drop(io);
            })
            .map_err(SetupError::IoThread)?;
        self.io = Some((stop, thread));
        Ok(())
    }

    /// Stops the I/O thread: the input ports are free again once it returns.
    fn unbind(&mut self) {
        let Some((stop, thread)) = self.io.take() else {
            return;
        };
        let _ = stop.send(true);
        let started = std::time::Instant::now();
        while !thread.is_finished() && started.elapsed() < IO_STOP_LIMIT {
            std::thread::sleep(Duration::from_millis(5));
        }
        if thread.is_finished() {
            let _ = thread.join();
            node_glue::log_info!("inputs released");
        } else {
            node_glue::log_warn!(
                "the I/O thread did not stop within {} ms",
                IO_STOP_LIMIT.as_millis()
            );
        }
    }
}

impl Managed for Spine {
    fn on_configure(&mut self, _: State) -> Outcome {
        self.unbind();
        self.bind().map_err(Failed::failure)
    }

    fn on_activate(&mut self, _: State) -> Outcome {
        node_glue::log_info!("forwarding (inputs, output topics and re-sends)");
        Ok(())
    }

    fn on_deactivate(&mut self, _: State) -> Outcome {
        node_glue::log_info!("not forwarding: datagrams and topic values are counted and dropped");
        Ok(())
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

/// The devices behind the node, for the diagnostics' `hardware_id`: the outputs in the
/// `simulink` format (the xPC Target controllers' wire format) as `udp:HOST:PORT (name)`,
/// else every output, else the inputs' bind addresses (`udp:ADDR (name)`).
pub fn hardware_id(config: &Config) -> String {
    let xpc: Vec<String> = config
        .outputs
        .iter()
        .filter(|o| o.format == crate::Format::Simulink)
        .map(|o| format!("udp:{} ({})", o.addr, o.name))
        .collect();
    let ids = if !xpc.is_empty() {
        xpc
    } else if !config.outputs.is_empty() {
        config
            .outputs
            .iter()
            .map(|o| format!("udp:{} ({})", o.addr, o.name))
            .collect()
    } else {
        config
            .inputs
            .iter()
            .map(|i| format!("udp:{} ({})", i.bind, i.name))
            .collect()
    };
    ids.join(", ")
}

/// The QoS of a config `qos` value (`node_glue::qos` presets).
pub fn qos(q: TopicQos) -> r2r::QosProfile {
    match q {
        TopicQos::Sensor => node_glue::qos::sensor(),
        TopicQos::Command => node_glue::qos::commands(),
        TopicQos::Latched => node_glue::qos::latched(),
    }
}

/// Gives the calling thread the real-time policy SCHED_FIFO at `priority` (1..=99).
/// Needs CAP_SYS_NICE or an `rtprio` limit; the caller logs a refusal and goes on.
fn realtime(priority: i32) -> std::io::Result<()> {
    let param = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: pthread_self() is the calling thread, alive for the call; `param` is a
    // valid sched_param that outlives the call. The function only changes scheduling.
    let rc = unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &param) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::from_raw_os_error(rc))
    }
}

/// Logs what the config says: every input, output and route, and the clashes.
fn log_summary(settings: &Settings, config: &Config) {
    let mode = match settings.loopback {
        Some(m) => format!("loopback (every host 127.0.0.1, ports {:+})", m.port_offset),
        None => "addresses as written".to_string(),
    };
    node_glue::log_info!(
        "config {}: {} inputs, {} outputs, {} connections; {mode}; {} m per unit; frame {:?}",
        settings.config_file.display(),
        config.inputs.len(),
        config.outputs.len(),
        config.connections.len(),
        settings.scale.m_per_unit(),
        settings.frame_id
    );
    for (i, input) in config.inputs.iter().enumerate() {
        let routes: Vec<&str> = config
            .connections
            .iter()
            .filter(|c| c.input == i)
            .filter_map(|c| config.outputs.get(c.output).map(|o| o.name.as_str()))
            .collect();
        let topic = input
            .topic
            .as_ref()
            .map(|t| {
                format!(
                    ", publishes {} ({:?}, qos {})",
                    t.name,
                    t.kind,
                    t.qos.as_str()
                )
            })
            .unwrap_or_default();
        let sources = match &input.allowed_sources {
            None => String::new(),
            Some(rules) => format!(", {} allowed source rule(s)", rules.len()),
        };
        node_glue::log_info!(
            "input {:?}: {} {}{}{topic}{sources}; routes to [{}]",
            input.name,
            input.bind,
            input.format,
            if input.streamed { " streamed" } else { "" },
            routes.join(", ")
        );
        if input.allowed_sources.is_none() {
            node_glue::log_warn!(
                "input {:?} has no allowedSources: it takes datagrams from anyone who reaches {} (list the controllers' addresses, as the shipped configs do)",
                input.name,
                input.bind
            );
        }
    }
    for output in &config.outputs {
        let check = match output.threshold_mm {
            Some(t) => format!(", radius {t} mm over {} value(s)", output.check_elements),
            None => String::new(),
        };
        let topic = output
            .topic
            .as_ref()
            .map(|t| {
                format!(
                    ", from topic {} ({:?}, qos {})",
                    t.name,
                    t.kind,
                    t.qos.as_str()
                )
            })
            .unwrap_or_default();
        let resend = output
            .resend_interval_ms
            .map(|ms| format!(", re-sends its last value after {ms} ms silent"))
            .unwrap_or_default();
        node_glue::log_info!(
            "output {:?}: {} {}{check}{topic}{resend}",
            output.name,
            output.addr,
            output.format
        );
    }
    for clash in config.address_clashes() {
        node_glue::log_warn!("address clash: {clash}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hardware_id_names_the_xpc_targets() {
        let text = r#"{
            "host": "127.0.0.1",
            "transforms": {"default": "1 0 0 0;0 1 0 0;0 0 1 0;0 0 0 1"},
            "interfaces": {
                "input": {"arm": {"port": 35001, "format": "simulink"}},
                "output": {
                    "arm": {"host": "192.168.1.80", "port": 25000, "format": "simulink"},
                    "logger": {"host": "192.168.1.1", "port": 25090, "format": "csv"}
                }
            },
            "connections": []
        }"#;
        let config = Config::from_json(text, None).unwrap();
        assert_eq!(hardware_id(&config), "udp:192.168.1.80:25000 (arm)");
        let text = r#"{
            "host": "127.0.0.1",
            "transforms": {"default": "1 0 0 0;0 1 0 0;0 0 1 0;0 0 0 1"},
            "interfaces": {"input": {"brain": {"port": 26002, "format": "csv"}}, "output": {}},
            "connections": []
        }"#;
        let config = Config::from_json(text, None).unwrap();
        assert_eq!(hardware_id(&config), "udp:127.0.0.1:26002 (brain)");
    }
}
