//! The ROS 2 glue (feature `ros`): sockets, topics and `/diagnostics` around the pure
//! [`Router`]. The binary `spine_bridge` reads its parameters into [`Settings`] and calls
//! [`start`]; everything that touches a socket or r2r lives here.
//!
//! # Layout
//! - [`convert`]: global-frame items [mm] ⇄ `PointStamped` / `Coordinates` [m], the
//!   one place metres meet millimetres (through [`Scale`]).
//! - [`bridge`]: the shared state (the router behind a mutex, the sender socket, glue
//!   counters), one task per input socket, one task per output topic.
//! - [`status`]: `/diagnostics` statuses, one per interface, and the rate-limited log.
//!
//! # Design (latency)
//! Each input socket has its own tokio task that receives, drains what is queued,
//! routes under a short `std::sync::Mutex` lock (microseconds; no `.await` while held),
//! then sends and publishes outside the lock. This is one hop less than a single task
//! owning the router behind channels (no extra wake-up between tasks per datagram), and
//! the lock is uncontended in practice: the runtime has two workers.
//!
//! Only the newest datagram per streamed input matters: after a wake-up the task drains
//! the socket with `try_recv_from` and routes the newest one. If that one is rejected
//! (malformed, unauthorised), the next older one is tried, so a burst of garbage cannot
//! hide the controller's last good value. Every datagram is counted exactly once:
//! routed (with its outcome) or `stale_dropped`. Non-streamed inputs route every
//! datagram in order.

pub mod bridge;
pub mod convert;
pub mod status;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use arnie_ros::{App, Error};

use crate::config::MsgKind;
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
    /// `header.frame_id` of published messages, and the frame accepted on output topics.
    pub frame_id: String,
    /// Period of `/diagnostics`.
    pub diagnostics_period: Duration,
}

/// Loads the config, binds every input, creates the publishers and subscriptions and
/// spawns the tasks. Call before [`App::spin`].
///
/// # Errors
/// [`Error::Setup`] naming the problem: a config that does not load (with its field), an
/// input port that cannot be bound; [`Error::Ros`] if r2r refuses an entity.
pub fn start(app: &mut App, settings: Settings) -> Result<(), Error> {
    let name = app.name().to_string();
    let config = Config::load(&settings.config_file, settings.loopback).map_err(|e| {
        Error::Setup(format!("config_file {}: {e}", settings.config_file.display()))
    })?;
    log_summary(&name, &settings, &config);

    let shutdown = app.shutdown();
    let router = Router::new(config, settings.limits);

    // Sockets first, so that every input is bound once any of the node's publishers is
    // visible on the graph (clients wait for one), then the ROS entities, then tasks.
    let handle = app.handle();
    let _rt = handle.enter();
    let shared = Arc::new(bridge::Shared::new(&name, router, &settings)?);
    let sockets = bridge::bind_inputs(&shared)?;
    let router = shared.router();
    let mut publishers = Vec::new();
    for input in &router.config().inputs {
        publishers.push(match &input.topic {
            None => None,
            Some(t) => Some(match t.kind {
                MsgKind::Point => bridge::TopicPublisher::Point(
                    app.node.create_publisher(&t.name, arnie_ros::qos::sensor())?,
                ),
                MsgKind::Coordinates => bridge::TopicPublisher::Coordinates(
                    app.node.create_publisher(&t.name, arnie_ros::qos::sensor())?,
                ),
            }),
        });
    }
    let mut subscriptions = Vec::new();
    for (k, output) in router.config().outputs.iter().enumerate() {
        if let Some(t) = &output.topic {
            let stream = match t.kind {
                MsgKind::Point => bridge::TopicStream::Point(Box::new(
                    app.node.subscribe(&t.name, arnie_ros::qos::commands())?,
                )),
                MsgKind::Coordinates => bridge::TopicStream::Coordinates(Box::new(
                    app.node.subscribe(&t.name, arnie_ros::qos::commands())?,
                )),
            };
            subscriptions.push((k, stream));
        }
    }
    drop(router);
    let diagnostics = app.diagnostics()?;

    for ((id, socket), publisher) in sockets.into_iter().zip(publishers) {
        let task = bridge::InputTask::new(shared.clone(), id, socket, publisher);
        let down = shutdown.clone();
        tokio::spawn(async move { task.run(down).await });
    }
    for (k, stream) in subscriptions {
        let down = shutdown.clone();
        tokio::spawn(bridge::run_topic(shared.clone(), k, stream, down));
    }
    let mut statuses = status::StatusBuilder::new(shared.clone(), &settings);
    diagnostics.spawn_periodic(settings.diagnostics_period, shutdown, move || statuses.build());
    Ok(())
}

/// Logs what the config says: every input, output and route, and the clashes.
fn log_summary(name: &str, settings: &Settings, config: &Config) {
    let mode = match settings.loopback {
        Some(m) => format!("loopback (every host 127.0.0.1, ports {:+})", m.port_offset),
        None => "addresses as written".to_string(),
    };
    r2r::log_info!(
        name,
        "config {}: {} inputs, {} outputs, {} connections; {mode}; {} m per unit; frame {:?}",
        settings.config_file.display(),
        config.inputs.len(),
        config.outputs.len(),
        config.connections.len(),
        settings.scale.m_per_unit,
        settings.frame_id
    );
    for (i, input) in config.inputs.iter().enumerate() {
        let routes: Vec<&str> = config
            .connections
            .iter()
            .filter(|c| c.input == i)
            .filter_map(|c| config.outputs.get(c.output).map(|o| o.name.as_str()))
            .collect();
        let topic = input.topic.as_ref().map(|t| format!(", publishes {} ({:?})", t.name, t.kind)).unwrap_or_default();
        let sources = match &input.allowed_sources {
            None => String::new(),
            Some(rules) => format!(", {} allowed source rule(s)", rules.len()),
        };
        r2r::log_info!(
            name,
            "input {:?}: {} {}{}{topic}{sources}; routes to [{}]",
            input.name,
            input.bind,
            input.format,
            if input.streamed { " streamed" } else { "" },
            routes.join(", ")
        );
    }
    for output in &config.outputs {
        let check = match output.threshold_mm {
            Some(t) => format!(", radius {t} mm over {} value(s)", output.check_elements),
            None => String::new(),
        };
        let topic = output.topic.as_ref().map(|t| format!(", from topic {} ({:?})", t.name, t.kind)).unwrap_or_default();
        r2r::log_info!(name, "output {:?}: {} {}{check}{topic}", output.name, output.addr, output.format);
    }
    for clash in config.address_clashes() {
        r2r::log_warn!(name, "address clash: {clash}");
    }
}
