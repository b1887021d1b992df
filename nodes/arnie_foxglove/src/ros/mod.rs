//! The r2r glue: the node, discovery, raw subscriptions on demand, client publishers and
//! parameter service clients.
//!
//! One thread owns the node and spins it (as `arnie_bag record` does); between spins it
//! polls the graph (every `discovery_ms`), reconciles the raw subscriptions with what
//! clients want ([`Demand`]) and runs the commands the SDK's callbacks send it (they run
//! on the SDK's tokio tasks and never touch the node). Each raw subscription is drained
//! by a tokio task that hands the CDR bytes to the topic's Foxglove channel (and to the
//! latched cache), so a message reaches the WebSocket without waiting for the loop.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};
use std::time::{Duration, Instant};

use foxglove::websocket::{
    AnyClient, Capability, ChannelView, Client, ClientChannel, ClientChannelId, ClientId,
    GetParametersResponder, Parameter, ServerListener, SetParametersResponder, Status,
};
use foxglove::{ChannelBuilder, ChannelId, Context, PartialMetadata, RawChannel, WebSocketServer};
use futures::StreamExt;
use node_glue::diagnostics::Status as DiagStatus;
use node_glue::App;
use r2r::qos::{DurabilityPolicy, ReliabilityPolicy};
use r2r::rcl_interfaces::srv::{GetParameters, ListParameters, SetParameters};
use r2r::QosProfile;
use ros_model::qos::{Durability, Qos, Reliability};

use crate::assets::Assets;
use crate::config::{ros_type_name, Config};
use crate::demand::{Change, Demand, StormGuard};
use crate::hostile::{RateLimit, SdkLog};
use crate::latched::{latched_keep, queue_len, LastMessages};
use crate::params::{from_foxglove, split_name};
use crate::schema::Schemas;

mod bridge;
mod counters;
mod front;
mod graph;
mod param_services;
mod params;
mod services;
mod tls;
use bridge::Bridge;
use counters::Counters;
use param_services::{get_params, set_params, ParamClients, ParamHandler};
use params::FoxgloveParams;
pub use tls::connector as tls_connector;

/// The node's name.
pub const NODE: &str = "foxglove_bridge";

/// Client messages kept for a publisher that is still being created.
const PENDING_LIMIT: usize = 64;
/// Where the SDK's own server listens (any free port): only the front connects to it.
const SDK_ADDRESS: &str = "127.0.0.1";

/// Why the node cannot start, beyond its parameters and ROS (the line it exits with).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The public port cannot be bound.
    #[error("cannot serve on {address}:{port}: {source}")]
    Serve {
        /// The address.
        address: std::net::IpAddr,
        /// The port.
        port: u16,
        /// Why.
        source: std::io::Error,
    },
    /// The SDK's server (behind the front, on loopback) does not start.
    #[error("cannot start the SDK's server on {SDK_ADDRESS}: {0}")]
    Sdk(foxglove::FoxgloveError),
}

impl From<SetupError> for node_glue::Error {
    fn from(e: SetupError) -> Self {
        node_glue::Error::node(e)
    }
}
/// How long a parameter request waits for a node's parameter services.
const PARAM_TIMEOUT: Duration = Duration::from_secs(3);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Now on the node's ROS clock [ns since the epoch]: `/clock` on sim time (0 before the
/// first), else the system time. Message log times and the `time` capability use it.
fn ros_now_ns() -> u64 {
    u64::try_from(node_glue::time::now_duration().as_nanos()).unwrap_or(u64::MAX)
}

/// One advertised topic.
struct Topic {
    name: String,
    type_name: String,
    channel: Arc<RawChannel>,
    /// A raw subscription exists now (set and cleared by the spin thread under the demand lock).
    active: AtomicBool,
    /// Every publisher was transient-local when the subscription was made.
    latched: AtomicBool,
    cache: Mutex<LastMessages>,
}

/// A client's advertised channel that was accepted.
enum Slot {
    /// The spin thread is creating the publisher; messages wait here.
    Pending(Vec<Vec<u8>>),
    Ready(r2r::PublisherUntyped),
}

/// What the SDK's callbacks ask of the spin thread.
enum Cmd {
    Advertise {
        key: (ClientId, ClientChannelId),
        topic: String,
        type_name: String,
    },
    Unadvertise(r2r::PublisherUntyped),
    GetParams {
        names: Vec<String>,
        responder: GetParametersResponder,
    },
    SetParams {
        params: Vec<Parameter>,
        client: AnyClient,
        responder: SetParametersResponder,
    },
    /// A client's call of a ROS service.
    Call(services::Call),
}

/// State shared by the spin thread and the SDK's callbacks.
struct Shared {
    config: Config,
    counters: Arc<Counters>,
    demand: Mutex<Demand>,
    dirty: AtomicBool,
    storm: Mutex<StormGuard<ClientId>>,
    topics: RwLock<HashMap<ChannelId, Arc<Topic>>>,
    slots: Mutex<HashMap<(ClientId, ClientChannelId), Slot>>,
    cmds: Mutex<Sender<Cmd>>,
    refusals: RateLimit,
    /// Some client subscribes to the connection graph.
    graph_wanted: AtomicBool,
    /// A client subscribed to it just now: read and send the graph at once.
    graph_dirty: AtomicBool,
    /// Failed token attempts per address (the front's rate limit).
    guesses: Mutex<crate::auth::Guesses>,
}

impl Shared {
    fn send(&self, cmd: Cmd) {
        // The spin thread is gone only at shutdown.
        let _ = lock(&self.cmds).send(cmd);
    }

    /// Logs a refusal, at most a few lines per 10 s.
    fn refuse_log(&self, what: &str) {
        if let Some(suppressed) = self.refusals.allow_at("refusals", 1, Instant::now()) {
            if suppressed > 0 {
                node_glue::log_warn!("{what} ({suppressed} similar refusals not logged)");
            } else {
                node_glue::log_warn!("{what}");
            }
        }
    }

    fn storm_check(&self, client: &Client) {
        if lock(&self.storm).op(client.id(), Instant::now()) {
            self.counters.storm_ops.inc();
            self.refuse_log(&format!(
                "client {:?}: more than {} subscribe/unsubscribe per second (served; counted as storm_ops)",
                client.id(),
                self.config.storm_ops_per_s
            ));
        }
    }

    fn topic(&self, id: ChannelId) -> Option<Arc<Topic>> {
        self.topics
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(&id)
            .cloned()
    }
}

/// The SDK servers' listener: `.1` is true for the read-only server of viewer tokens.
struct Listener(Arc<Shared>, bool);

impl ServerListener for Listener {
    fn on_subscribe(&self, client: Client, channel: ChannelView) {
        let s = &self.0;
        s.storm_check(&client);
        let Some(topic) = s.topic(channel.id()) else {
            return;
        };
        let replay = {
            let mut demand = lock(&s.demand);
            if demand.subscribe(&topic.name) == Change::First {
                s.dirty.store(true, Ordering::Release);
            }
            // Under the demand lock: the spin thread clears `active` under it before it
            // drops a subscription, so an active one stays for this client.
            topic.active.load(Ordering::Acquire) && topic.latched.load(Ordering::Acquire)
        };
        if replay {
            let cached: Vec<(u64, Vec<u8>)> = lock(&topic.cache).iter().cloned().collect();
            for (t, data) in cached {
                topic.channel.log_with_meta_to_sink(
                    &data,
                    PartialMetadata { log_time: Some(t) },
                    client.sink_id(),
                );
                s.counters.latched_replayed.inc();
            }
        }
    }

    fn on_unsubscribe(&self, client: Client, channel: ChannelView) {
        let s = &self.0;
        s.storm_check(&client);
        let Some(topic) = s.topic(channel.id()) else {
            return;
        };
        if lock(&s.demand).unsubscribe(&topic.name) == Change::Last {
            s.dirty.store(true, Ordering::Release);
        }
    }

    fn on_client_advertise(&self, client: Client, ch: &ClientChannel) {
        let s = &self.0;
        if self.1 {
            s.counters.read_only_refused.inc();
            let why = format!(
                "publishing on {} refused: a viewer token is read only",
                ch.topic
            );
            client.send_status(Status::error(why.clone()));
            s.refuse_log(&format!("client {:?}: {why}", client.id()));
            return;
        }
        let refusal = if !s.config.may_publish(&ch.topic) {
            Some(format!(
                "publishing on {} is not allowed (publish_allow)",
                ch.topic
            ))
        } else if ch.encoding != crate::MESSAGE_ENCODING {
            Some(format!(
                "{}: encoding `{}` refused: only cdr",
                ch.topic, ch.encoding
            ))
        } else if ros_type_name(&ch.schema_name).is_none() {
            Some(format!(
                "{}: schema name `{}` is not a ROS message type",
                ch.topic, ch.schema_name
            ))
        } else {
            None
        };
        if let Some(why) = refusal {
            s.counters.publish_refused.inc();
            client.send_status(Status::error(why.clone()));
            s.refuse_log(&format!("client {:?}: {why}", client.id()));
            return;
        }
        let type_name = ros_type_name(&ch.schema_name).unwrap_or_default();
        let key = (client.id(), ch.id);
        lock(&s.slots).insert(key, Slot::Pending(Vec::new()));
        s.send(Cmd::Advertise {
            key,
            topic: ch.topic.clone(),
            type_name,
        });
    }

    fn on_client_unadvertise(&self, client: Client, ch: &ClientChannel) {
        let slot = lock(&self.0.slots).remove(&(client.id(), ch.id));
        if let Some(Slot::Ready(p)) = slot {
            self.0.send(Cmd::Unadvertise(p));
        }
    }

    fn on_message_data(&self, client: Client, ch: &ClientChannel, payload: &[u8]) {
        let s = &self.0;
        let mut slots = lock(&s.slots);
        match slots.get_mut(&(client.id(), ch.id)) {
            Some(Slot::Ready(p)) => match p.publish_raw(payload) {
                Ok(()) => {
                    s.counters.published.inc();
                }
                Err(e) => {
                    s.counters.publish_dropped.inc();
                    s.refuse_log(&format!("{}: publish failed: {e}", ch.topic));
                }
            },
            Some(Slot::Pending(q)) if q.len() < PENDING_LIMIT => q.push(payload.to_vec()),
            _ => {
                drop(slots);
                s.counters.publish_dropped.inc();
                s.refuse_log(&format!(
                    "client {:?}: message on refused channel {} ({}) dropped",
                    client.id(),
                    ch.id,
                    ch.topic
                ));
            }
        }
    }

    fn on_client_disconnect(&self) {}

    fn on_connection_graph_subscribe(&self) {
        self.0.graph_wanted.store(true, Ordering::Release);
        self.0.graph_dirty.store(true, Ordering::Release);
    }

    fn on_connection_graph_unsubscribe(&self) {
        self.0.graph_wanted.store(false, Ordering::Release);
    }
}

/// What the server offers: client publishing, parameters, the connection graph, service
/// calls, assets
/// (the handler makes the SDK add it), and the server's time when the node runs on sim
/// time (`/clock`).
fn capabilities(sim_time: bool, read_only: bool) -> Vec<Capability> {
    let mut c = if read_only {
        // Viewer tokens: no client publishing, no service calls; parameter sets are
        // refused by the handler.
        vec![Capability::Parameters, Capability::ConnectionGraph]
    } else {
        vec![
            Capability::ClientPublish,
            Capability::Parameters,
            Capability::ConnectionGraph,
            Capability::Services,
        ]
    };
    if sim_time {
        c.push(Capability::Time);
    }
    c
}

/// Reads the ROS graph and sends it to the connection graph's subscribers when it changed
/// (or `always`, for a client that just subscribed).
fn send_graph(
    node: &r2r::Node,
    handles: &[Arc<foxglove::WebSocketServerHandle>],
    sent: &mut Option<crate::graph::GraphView>,
    always: bool,
) {
    match graph::read(node) {
        Ok(view) => {
            if always || sent.as_ref() != Some(&view) {
                for handle in handles {
                    if let Err(e) = handle.publish_connection_graph(view.to_connection_graph()) {
                        node_glue::log_warn!("cannot send the connection graph: {e}");
                    }
                }
                *sent = Some(view);
            }
        }
        Err(e) => node_glue::log_warn!("cannot read the ROS graph: {e}"),
    }
}

/// Runs the node until SIGINT/SIGTERM, then exits the process (exit 2 when it cannot
/// start, naming the reason). All the binary calls.
pub fn run() -> ! {
    node_glue::main_with_loop(NODE, setup)
}

/// Sets the node up and runs its loop until shutdown: one thread owns the node and
/// spins it, polls the graph and creates subscriptions and publishers as clients ask.
///
/// # Errors
/// Invalid parameters (the reason names the parameter), a port that cannot be bound,
/// or a ROS entity that could not be created.
pub fn setup(app: &mut App) -> Result<(), node_glue::Error> {
    let (config, poll, publish_allow, assets, security) = {
        let live = app.parameters_checked(FoxgloveParams::default(), params::rules())?;
        let p = lock(&live);
        (
            p.config()?,
            p.discovery()?,
            p.settings().publish_allow,
            Assets::new(
                p.asset_uri_allowlist(),
                node_glue::typesupport::prefixes_from_env(),
            )?,
            p.security()?,
        )
    };
    if let Some(w) = &security.warning {
        node_glue::log_warn!("{w}");
    }
    let sim_time = node_glue::time::sim_time();
    let counters = Arc::new(Counters::default());
    SdkLog::new(
        counters.clone(),
        Box::new(|level, line| match level {
            log::Level::Error | log::Level::Warn => node_glue::log_warn!("foxglove: {line}"),
            _ => node_glue::log_info!("foxglove: {line}"),
        }),
    )
    .install();
    let (tx, rx): (Sender<Cmd>, Receiver<Cmd>) = channel();
    let shared = Arc::new(Shared {
        storm: Mutex::new(StormGuard::new(config.storm_ops_per_s)),
        config: config.clone(),
        counters: counters.clone(),
        demand: Mutex::new(Demand::default()),
        dirty: AtomicBool::new(false),
        topics: RwLock::new(HashMap::new()),
        slots: Mutex::new(HashMap::new()),
        cmds: Mutex::new(tx),
        refusals: RateLimit::with_burst(10, Duration::from_secs(10)),
        graph_wanted: AtomicBool::new(false),
        graph_dirty: AtomicBool::new(false),
        guesses: Mutex::new(crate::auth::Guesses::default()),
    });
    let ctx = Context::new();
    let rt = app.handle();
    // Clients connect to the front on the public port; it relays each to the SDK's
    // server on a loopback port of its own, rewriting a foxglove.websocket.v1 handshake.
    let public = app
        .block_on(tokio::net::TcpListener::bind((config.address, config.port)))
        .map_err(|source| SetupError::Serve {
            address: config.address,
            port: config.port,
            source,
        })?;
    let assets = Arc::new(assets);
    let sdk_server = |read_only: bool| {
        let fetch = {
            let s = shared.clone();
            let assets = assets.clone();
            move |_client, uri: String| match assets.fetch(&uri) {
                Ok(bytes) => {
                    s.counters.assets_served.inc();
                    Ok(bytes)
                }
                Err(e) => {
                    s.counters.assets_refused.inc();
                    s.refuse_log(&format!("asset refused: {e}"));
                    Err(e)
                }
            }
        };
        WebSocketServer::new()
            .name(NODE)
            .bind(SDK_ADDRESS, 0)
            .capabilities(capabilities(sim_time, read_only))
            .supported_encodings([crate::MESSAGE_ENCODING])
            .listener(Arc::new(Listener(shared.clone(), read_only)))
            .parameter_handler(Arc::new(ParamHandler(shared.clone(), read_only)))
            .fetch_asset_handler_blocking_fn(fetch)
            .context(&ctx)
            .tokio_runtime(&rt)
    };
    let handle = app
        .block_on(sdk_server(false).start())
        .map_err(SetupError::Sdk)?;
    // Viewer tokens: a second SDK server on the same channels, read only.
    let viewer = match &security.tokens {
        Some(t) if t.count(crate::auth::Role::Viewer) > 0 => Some(
            app.block_on(sdk_server(true).start())
                .map_err(SetupError::Sdk)?,
        ),
        _ => None,
    };
    let port = public.local_addr()?.port();
    let tls = security.tls.is_some();
    let gate = Arc::new(front::Gate {
        tls: security.tls,
        tokens: security.tokens,
        operator: (std::net::Ipv4Addr::LOCALHOST, handle.port()).into(),
        viewer: viewer
            .as_ref()
            .map(|v| (std::net::Ipv4Addr::LOCALHOST, v.port()).into()),
    });
    let tokens = gate.tokens.is_some();
    rt.spawn(front::run(public, gate, shared.clone(), app.shutdown()));
    node_glue::log_info!(
        "the SDK's own server: ws://{SDK_ADDRESS}:{}{} (behind the front; only the front connects to it)",
        handle.port(),
        viewer.as_ref().map_or(String::new(), |v| format!(", read-only for viewer tokens: ws://{SDK_ADDRESS}:{}", v.port()))
    );
    let url = format!(
        "{}://{}:{port}",
        if tls { "wss" } else { "ws" },
        config.address
    );
    node_glue::log_info!(
        "{}; {}",
        if tls {
            "TLS: wss:// only"
        } else {
            "no TLS (tls_cert, tls_key): plain ws://"
        },
        if tokens {
            "access tokens asked (?token= or Authorization: Bearer)"
        } else {
            "no access token asked (token_file)"
        }
    );
    node_glue::log_info!(
        "serving the ROS graph to Foxglove on {url} (subprotocols {}; open Foxglove or Lichtblick, Open connection, Foxglove WebSocket, {url})",
        crate::subprotocol::ACCEPTED.join(", ")
    );
    if config.exposed() && !(tls && tokens) {
        node_glue::log_warn!("bound to {}: every machine that reaches this port sees every advertised topic, may set parameters and publish on {:?}", config.address, publish_allow);
    }
    let handle = Arc::new(handle);
    let viewer = viewer.map(Arc::new);
    let handles: Vec<Arc<foxglove::WebSocketServerHandle>> = std::iter::once(handle.clone())
        .chain(viewer.clone())
        .collect();
    if sim_time {
        // The `time` capability: the /clock time, sent when it moves (polled at 20 Hz).
        let hs = handles.clone();
        let down = app.shutdown();
        rt.spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_millis(50));
            let mut sent = 0;
            while !down.is_set() {
                tick.tick().await;
                let now = ros_now_ns();
                if now != 0 && now != sent {
                    for h in &hs {
                        h.broadcast_time(now);
                    }
                    sent = now;
                }
            }
        });
        node_glue::log_info!("use_sim_time: clients get the /clock time (time capability)");
    }
    let diagnostics = app.diagnostics()?;
    {
        let _enter = rt.enter();
        let (c, hs, s) = (counters.clone(), handles.clone(), shared.clone());
        diagnostics.spawn_periodic(Duration::from_secs(1), app.shutdown(), move || {
            let channels = s.topics.read().map_or(0, |t| t.len());
            let active = s.topics.read().map_or(0, |t| {
                t.values()
                    .filter(|t| t.active.load(Ordering::Relaxed))
                    .count()
            });
            let clients: usize = hs.iter().map(|h| h.client_count()).sum();
            vec![DiagStatus::ok("clients", format!("{clients} connected"))
                .with("clients", clients)
                .with("channels_advertised", channels)
                .with("ros_subscriptions", active)
                .with("messages_forwarded", c.messages_forwarded.get())
                .with("latched_replayed", c.latched_replayed.get())
                .with("published", c.published.get())
                .with("publish_refused", c.publish_refused.get())
                .with("publish_dropped", c.publish_dropped.get())
                .with("garbage_frames", c.garbage_frames.get())
                .with("unknown_channel_ids", c.unknown_channel_ids.get())
                .with("storm_ops", c.storm_ops.get())
                .with("outbox_full", c.outbox_full.get())
                .with("parameter_errors", c.parameter_errors.get())
                .with("other_sdk_errors", c.other_sdk_errors.get())
                .with("handshakes_refused", c.handshakes_refused.get())
                .with("tls_refused", c.tls_refused.get())
                .with("auth_refused", c.auth_refused.get())
                .with("auth_rate_limited", c.auth_rate_limited.get())
                .with("viewer_clients", c.viewer_clients.get())
                .with("read_only_refused", c.read_only_refused.get())
                .with("websocket_v1_clients", c.websocket_v1_clients.get())
                .with("sdk_v1_clients", c.sdk_v1_clients.get())
                .with("assets_served", c.assets_served.get())
                .with("assets_refused", c.assets_refused.get())
                .with("service_calls", c.service_calls.get())
                .with("service_failures", c.service_failures.get())
                .with(
                    "subscription_overflow",
                    c.subscription_overflow.load(Ordering::Relaxed),
                )]
        });
        app.shutdown_on_signals();
    }
    let mut bridge = Bridge {
        shared: shared.clone(),
        ctx,
        schemas: Schemas::from_env(),
        by_name: HashMap::new(),
        skipped: HashSet::new(),
        subs: HashMap::new(),
        param_clients: HashMap::new(),
        rt: rt.clone(),
        services: services::Services::default(),
        server: handle.clone(),
    };
    let down = app.shutdown();
    let mut next_poll = Instant::now();
    let mut retry = false;
    let mut graph_sent: Option<crate::graph::GraphView> = None;
    while !down.is_set() {
        app.node.spin_once(Duration::from_millis(5));
        while let Ok(cmd) = rx.try_recv() {
            bridge.run(&mut app.node, cmd);
        }
        let now = Instant::now();
        let polling = now >= next_poll;
        if polling {
            bridge.discover(&app.node);
            bridge.discover_services(&app.node);
            next_poll = now + poll;
        }
        if shared.dirty.swap(false, Ordering::AcqRel) || (polling && retry) {
            retry = !bridge.reconcile(&mut app.node);
        }
        let first = shared.graph_dirty.swap(false, Ordering::AcqRel);
        if shared.graph_wanted.load(Ordering::Acquire) && (polling || first) {
            send_graph(&app.node, &handles, &mut graph_sent, first);
        }
    }
    node_glue::log_info!("shutting down");
    drop(handles);
    for h in std::iter::once(handle).chain(viewer) {
        if let Ok(h) = Arc::try_unwrap(h) {
            let _ = h.stop();
        }
    }
    for (_, t) in bridge.subs.drain() {
        t.abort();
    }
    Ok(())
}
