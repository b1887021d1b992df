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

use node_glue::r2r::{
    arnie_interfaces::msg::Packet as PacketMsg, arnie_interfaces::srv::SendPacket,
};
use node_glue::ratelimit::RateLimit;
use node_glue::{qos, topics, App, Error};
use tokio::sync::mpsc;

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
/// cannot start (a bad parameter, definitions that do not load, a link that will not open).
pub fn run() -> ! {
    node_glue::main_with(NODE, setup)
}

/// Loads the definitions, opens the link, creates the topics, the service and the tasks.
///
/// # Errors
/// Invalid parameters, definitions that do not load, a link that does not open, or a ROS
/// entity that could not be created.
pub fn setup(app: &mut App) -> Result<(), Error> {
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
    let link = app
        .block_on(config.transport.open(defs.clone(), &config.link))
        .map_err(|source| SetupError::Link {
            transport: config.transport.clone(),
            source,
        })?;
    node_glue::log_info!("link open: {}", config.transport);

    let rx_pub = app
        .node
        .create_publisher::<PacketMsg>(topics::COMMS_RX, qos::commands())?;
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
        front: Front::new(defs, config.default_device, commands),
        params,
        counters: counters.clone(),
        logs: Arc::new(RateLimit::new(Duration::from_secs(1))),
    };
    let on_event = events::handler(rx_pub, counters.clone());
    let down = shutdown.clone();
    tokio::spawn(bridge::run(
        link,
        command_rx,
        config.settings,
        on_event,
        stats.clone(),
        async move { down.wait().await },
    ));
    let front = inputs.front.clone();
    tokio::spawn(inputs::forward_tx(tx_sub, inputs.clone()));
    tokio::spawn(inputs::serve_send(requests, inputs));

    let transport = config.transport.to_string();
    diagnostics.spawn_periodic(Duration::from_millis(500), shutdown, move || {
        let s = stats
            .lock()
            .map(|s| s.clone())
            .unwrap_or_else(|p| p.into_inner().clone());
        vec![counters.status(&transport, &s, front.in_flight())]
    });
    Ok(())
}
