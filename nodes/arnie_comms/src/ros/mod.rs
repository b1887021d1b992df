//! The ROS 2 side of the `comms_bridge` node (feature `ros`): the only module that uses
//! r2r. The binary only calls [`run`].
//!
//! - publishes every decoded packet on `/comms/rx` (`arnie_interfaces/Packet`, reliable);
//! - sends every packet arriving on `/comms/tx` (same type, reliable); a packet that
//!   cannot be built (unknown name or id, bad JSON, a value out of range, `fields_json`
//!   over `max_fields_json_bytes`) is logged, counted (`tx_rejected`) and never sent;
//! - serves `/comms/send` (`arnie_interfaces/srv/SendPacket`): sends the packet and, when
//!   its definition names a `reply`, answers with that reply (outcome `TIMEOUT` after the
//!   wait); at most `max_requests_in_flight` requests wait at once, one more is answered
//!   at once with outcome `REJECTED` and the reason (counted: `send_rejected`,
//!   `refused_in_flight`);
//! - packets whose definition is `reliable` ([`crate::reliable`]) are repeated until
//!   acknowledged and de-duplicated on reception; repeats, give-ups and duplicates are
//!   counted and logged (rate-limited);
//! - publishes the link's and its own counters on `/diagnostics` (status `link`).
//!
//! One task owns the link ([`crate::bridge::run`]); the subscription and the service feed
//! it through the library's [`crate::front::Front`] (one send path, one set of caps).
//!
//! Layout:
//! - `params`: the ROS parameters, declared once, checked by [`crate::config`];
//! - `counters`: the `/diagnostics` counters and the `link` status;
//! - `events`: the link loop's reporter (`/comms/rx`, rate-limited log lines);
//! - `inputs`: `/comms/tx` and `/comms/send`;
//! - `convert`: messages ↔ library values, outcome constants.
mod convert;
mod counters;
mod events;
mod inputs;
mod params;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use node_glue::lifecycle::{Failed, Lifecycle, LifecyclePublisher, Managed, Outcome, State};
use node_glue::r2r::{
    arnie_interfaces::msg::Packet as PacketMsg, arnie_interfaces::srv::SendPacket,
};
use node_glue::ratelimit::RateLimit;
use node_glue::{qos, topics, App, Error};
use tokio::sync::mpsc;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::bridge::{self, Command, Stats};
use crate::config::Config;
use crate::definition::Definitions;
use crate::front::Front;
use counters::Counters;
use inputs::Inputs;
use params::CommsParams;

/// Why the node cannot start, beyond its parameters and ROS (the line it exits with).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The packet definitions do not load.
    #[error("packets_dir {dir}: {source}")]
    Definitions {
        /// The folder.
        dir: String,
        /// Why.
        source: crate::Error,
    },
    /// The link does not open.
    #[error("cannot open the link ({transport}): {source}")]
    Link {
        /// The wire.
        transport: crate::bridge::Transport,
        /// Why.
        source: crate::Error,
    },
}

impl From<SetupError> for Error {
    fn from(e: SetupError) -> Self {
        Error::node(e)
    }
}

/// The node's name (and the log target).
pub const NODE: &str = "comms_bridge";

/// Commands queued for the link loop before `/comms/tx` waits (and its subscription's
/// own queue fills: the middleware then drops the oldest).
const COMMAND_QUEUE: usize = 64;

/// Runs the node until SIGINT / SIGTERM (exit 0), or exits 2 with the reason when it
/// cannot start (a bad parameter, definitions that do not load, a link that will not
/// open). A managed node: see [`Comms`].
pub fn run() -> ! {
    node_glue::lifecycle::main_with(NODE, setup)
}

/// The bridge as a managed node: the packet definitions are loaded at start (they shape
/// the topics' and service's checks); the link (the serial port, the CAN socket, the
/// CAN-over-UDP port) is opened on configure (a device that will not open fails it, with
/// the reason: the node stays unconfigured) and closed on cleanup and shutdown. While
/// the node is not active, `/comms/tx` packets are not sent and `/comms/send` requests
/// are answered `LINK_DOWN` with the reason (both counted `inactive_refused`), and
/// nothing is published on `/comms/rx`.
pub struct Comms {
    config: Config,
    defs: Arc<Definitions>,
    rx_pub: LifecyclePublisher<PacketMsg>,
    counters: Arc<Counters>,
    stats: Arc<Mutex<Stats>>,
    /// The commands' receiver while no link loop runs.
    commands: Option<mpsc::Receiver<Command>>,
    /// The link loop (configured): its stop and its task, which gives the receiver back.
    running: Option<(oneshot::Sender<()>, JoinHandle<mpsc::Receiver<Command>>)>,
    handle: tokio::runtime::Handle,
    shutdown: node_glue::Shutdown,
}

/// How long cleanup waits for the link loop to close the link.
const STOP_WAIT: Duration = Duration::from_secs(3);

impl Comms {
    fn open(&mut self) -> Result<(), Box<SetupError>> {
        let link = self
            .handle
            .block_on(
                self.config
                    .transport
                    .open(self.defs.clone(), &self.config.link),
            )
            .map_err(|source| {
                Box::new(SetupError::Link {
                    transport: self.config.transport.clone(),
                    source,
                })
            })?;
        node_glue::log_info!("link open: {}", self.config.transport);
        let Some(mut commands) = self.commands.take() else {
            return Ok(());
        };
        let on_event = events::handler(self.rx_pub.clone(), self.counters.clone());
        let (stop, stopped) = oneshot::channel::<()>();
        let down = self.shutdown.clone();
        let (settings, stats) = (self.config.settings, self.stats.clone());
        let task = self.handle.spawn(async move {
            let end = async move {
                tokio::select! {
                    _ = down.wait() => {}
                    _ = stopped => {}
                }
            };
            bridge::run(link, &mut commands, settings, on_event, stats, end).await;
            commands
        });
        self.running = Some((stop, task));
        Ok(())
    }

    fn close(&mut self) {
        let Some((stop, task)) = self.running.take() else {
            return;
        };
        let _ = stop.send(());
        match self.handle.block_on(tokio::time::timeout(STOP_WAIT, task)) {
            Ok(Ok(commands)) => {
                self.commands = Some(commands);
                node_glue::log_info!("link closed: {}", self.config.transport);
            }
            Ok(Err(e)) => node_glue::log_error!("the link loop ended abnormally: {e}"),
            Err(_) => node_glue::log_warn!(
                "the link loop did not stop within {} s",
                STOP_WAIT.as_secs()
            ),
        }
    }
}

impl Managed for Comms {
    fn on_configure(&mut self, _: State) -> Outcome {
        self.close();
        if self.commands.is_none() {
            return Err(Failed::error(
                "the link loop of the last configure never stopped",
            ));
        }
        self.open().map_err(Failed::failure)
    }
    fn on_cleanup(&mut self, _: State) -> Outcome {
        self.close();
        Ok(())
    }
    fn on_shutdown(&mut self, _: State) -> Outcome {
        self.close();
        Ok(())
    }
    fn on_error(&mut self, _: State) -> Outcome {
        self.close();
        Ok(())
    }
}

/// Loads the definitions, creates the topics, the service and the tasks; the link is
/// opened on configure ([`Comms`]).
///
/// # Errors
/// Invalid parameters, definitions that do not load, or a ROS entity that could not be
/// created.
pub fn setup(app: &mut App, lc: &Lifecycle) -> Result<Box<dyn Managed>, Error> {
    let params = app.parameters_checked(CommsParams::default(), params::rules())?;
    let config = {
        let p = params.lock()?;
        Config::try_from(&p.raw())?
    };
    let defs = Definitions::load_dir(Path::new(&config.packets_dir)).map_err(|source| {
        SetupError::Definitions {
            dir: config.packets_dir.clone(),
            source,
        }
    })?;
    let defs = Arc::new(defs);
    let names: Vec<String> = defs
        .iter()
        .map(|d| format!("{} ({})", d.name, d.id))
        .collect();
    node_glue::log_info!(
        "{} packet definitions from {}: {}",
        defs.len(),
        config.packets_dir,
        names.join(", ")
    );

    let rx_pub = lc.publisher::<PacketMsg>(&mut app.node, topics::COMMS_RX, qos::commands())?;
    let tx_sub = app.subscribe::<PacketMsg>(topics::COMMS_TX, qos::commands())?;
    let requests = app
        .node
        .create_service::<SendPacket::Service>(topics::COMMS_SEND, qos::commands())?;
    let diagnostics = app
        .diagnostics()?
        .with_hardware_id(config.transport.hardware_id());
    let shutdown = app.shutdown();
    let _rt = app.handle().enter();

    let stats = Arc::new(Mutex::new(Stats::default()));
    let counters = Arc::new(Counters::default());
    let (commands, command_rx) = mpsc::channel::<Command>(COMMAND_QUEUE);
    let inputs = Inputs {
        front: Front::new(defs.clone(), config.default_device, commands),
        lc: lc.clone(),
        params,
        counters: counters.clone(),
        logs: Arc::new(RateLimit::new(Duration::from_secs(1))),
    };
    let front = inputs.front.clone();
    tokio::spawn(inputs::forward_tx(tx_sub, inputs.clone()));
    tokio::spawn(inputs::serve_send(requests, inputs));

    let transport = config.transport.to_string();
    let (s, c) = (stats.clone(), counters.clone());
    diagnostics.spawn_periodic(Duration::from_millis(500), shutdown.clone(), move || {
        let s = s
            .lock()
            .map(|s| s.clone())
            .unwrap_or_else(|p| p.into_inner().clone());
        vec![c.status(&transport, &s, front.in_flight())]
    });
    Ok(Box::new(Comms {
        config,
        defs,
        rx_pub,
        counters,
        stats,
        commands: Some(command_rx),
        running: None,
        handle: app.handle(),
        shutdown,
    }))
}
