//! `comms_bridge`: the robot's serial / CAN link as a ROS 2 node.
//!
//! - publishes every decoded packet on `/comms/rx` (`arnie_interfaces/Packet`, reliable);
//! - sends every packet arriving on `/comms/tx` (same type, reliable); a packet that
//!   cannot be built (unknown name or id, bad JSON, a value out of range) is logged,
//!   counted (`tx_rejected`) and never sent;
//! - serves `/comms/send` (`arnie_interfaces/srv/SendPacket`): sends the packet and, when
//!   its definition names a `reply`, answers with that reply (or fails after the timeout);
//! - packets whose definition is `reliable` (`arnie_comms::reliable`) are repeated until
//!   acknowledged and de-duplicated on reception (acknowledged, published once); repeats,
//!   give-ups and duplicates are counted and logged (at most a line a second each);
//! - publishes the link's and its own counters on `/diagnostics`.
//!
//! One task owns the link ([`arnie_comms::bridge::run`]); the subscription and the
//! service feed it through one channel. All behaviour is in the library; this file
//! converts parameters and messages. Parameters are read once, at start.
use arnie_comms::bridge::{self, Command, Event, Outcome, Settings, Stats, Transport};
use arnie_comms::link::{LinkConfig, Received};
use arnie_comms::uart::DecoderConfig;
use arnie_comms::{Definitions, Packet, ReassemblerConfig};
use futures::StreamExt;
use node_glue::diagnostics::{Level, Status};
use node_glue::r2r::{
    self, arnie_interfaces::msg::Packet as PacketMsg, arnie_interfaces::srv::SendPacket, RosParams,
};
use node_glue::{main_with, qos, time, topics, App, Error};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};

/// Longest reply wait a `/comms/send` request may ask for [s].
const MAX_REPLY_TIMEOUT_S: f64 = 3600.0;
/// Commands queued for the link task before the subscription / service wait.
const COMMAND_QUEUE: usize = 64;
/// At most one log line per this period for repeated link rejections or failures.
const LOG_EVERY: Duration = Duration::from_secs(1);

#[derive(RosParams, Clone, Debug)]
struct CommsParams {
    /// Folder of packet definitions, one JSON file per packet (required; e.g. nodes/arnie_comms/packets)
    packets_dir: String,
    /// The wire: "uart" (serial port), "can" (SocketCAN) or "can_udp" (CAN over UDP)
    transport: String,
    /// Serial device for transport uart (e.g. /dev/ttyUSB0, or a pty slave path)
    serial_port: String,
    /// Serial speed for transport uart [baud]
    baud: i64,
    /// SocketCAN interface for transport can
    can_interface: String,
    /// Local address for transport can_udp (host:port; port 0 = any)
    udp_bind: String,
    /// The device's address for transport can_udp (host:port); empty = whoever sent last
    udp_peer: String,
    /// CAN device (0..31) for packets whose device is 0; unused on uart
    device: i64,
    /// Largest UART frame accepted, size bytes and checksum included [bytes]
    max_frame_len: i64,
    /// A partial UART frame with no new byte for this long is dropped [ms]
    frame_timeout_ms: i64,
    /// Longest CAN payload reassembled from pages [bytes]
    can_max_payload_len: i64,
    /// A partial CAN message with no new page for this long is dropped [ms]
    can_page_timeout_ms: i64,
    /// How long /comms/send waits for a reply when the request's timeout_s is 0 [ms]
    reply_timeout_ms: i64,
    /// After the link fails to read, wait this long before reading again [ms]
    link_retry_ms: i64,
}

impl Default for CommsParams {
    fn default() -> Self {
        CommsParams {
            packets_dir: String::new(),
            transport: "uart".into(),
            serial_port: "/dev/ttyUSB0".into(),
            baud: 115_200,
            can_interface: "can0".into(),
            udp_bind: "127.0.0.1:0".into(),
            udp_peer: String::new(),
            device: 0,
            max_frame_len: 1024,
            frame_timeout_ms: 100,
            can_max_payload_len: 4096,
            can_page_timeout_ms: 100,
            reply_timeout_ms: 1000,
            link_retry_ms: 500,
        }
    }
}

/// The parameters, checked.
struct Config {
    packets_dir: String,
    transport: Transport,
    default_device: u8,
    link: LinkConfig,
    reply_timeout: Duration,
    settings: Settings,
}

impl TryFrom<&CommsParams> for Config {
    type Error = Error;

    fn try_from(p: &CommsParams) -> Result<Config, Error> {
        let bad = |name: &str, why: String| Error::Parameter(format!("{name}: {why}"));
        if p.packets_dir.trim().is_empty() {
            return Err(bad(
                "packets_dir",
                "is empty: name the folder of packet definitions (e.g. nodes/arnie_comms/packets)"
                    .into(),
            ));
        }
        let ranged = |name: &str, v: i64, lo: i64, hi: i64| {
            if (lo..=hi).contains(&v) {
                Ok(v)
            } else {
                Err(bad(name, format!("{v} is outside {lo}..={hi}")))
            }
        };
        let addr = |name: &str, v: &str| -> Result<SocketAddr, Error> {
            v.trim()
                .parse()
                .map_err(|_| bad(name, format!("{v:?} is not an address like 127.0.0.1:5000")))
        };
        let transport = match p.transport.as_str() {
            "uart" => {
                if p.serial_port.is_empty() {
                    return Err(bad(
                        "serial_port",
                        "is empty (transport uart needs a device path)".into(),
                    ));
                }
                let baud = ranged("baud", p.baud, 1, i64::from(u32::MAX))? as u32;
                Transport::Uart {
                    path: p.serial_port.clone(),
                    baud,
                }
            }
            "can" => Transport::SocketCan {
                iface: p.can_interface.clone(),
            },
            "can_udp" => Transport::CanUdp {
                bind: addr("udp_bind", &p.udp_bind)?,
                peer: if p.udp_peer.trim().is_empty() {
                    None
                } else {
                    Some(addr("udp_peer", &p.udp_peer)?)
                },
            },
            other => {
                return Err(bad(
                    "transport",
                    format!("{other:?} is not one of \"uart\", \"can\", \"can_udp\""),
                ))
            }
        };
        let link = LinkConfig {
            decoder: DecoderConfig {
                max_frame_len: ranged("max_frame_len", p.max_frame_len, 4, 0x7fff + 3)? as usize,
                frame_timeout_ms: ranged("frame_timeout_ms", p.frame_timeout_ms, 1, 60_000)? as u64,
            },
            reassembler: ReassemblerConfig {
                max_payload_len: ranged("can_max_payload_len", p.can_max_payload_len, 8, 1 << 20)?
                    as usize,
                page_timeout_ms: ranged("can_page_timeout_ms", p.can_page_timeout_ms, 1, 60_000)?
                    as u64,
            },
        };
        Ok(Config {
            packets_dir: p.packets_dir.clone(),
            transport,
            default_device: ranged("device", p.device, 0, 31)? as u8,
            link,
            reply_timeout: Duration::from_millis(ranged(
                "reply_timeout_ms",
                p.reply_timeout_ms,
                1,
                3_600_000,
            )? as u64),
            settings: Settings {
                retry_after: Duration::from_millis(ranged(
                    "link_retry_ms",
                    p.link_retry_ms,
                    1,
                    60_000,
                )? as u64),
            },
        })
    }
}

/// Counts of the ROS side (the link task keeps [`Stats`]).
#[derive(Default)]
struct NodeCounters {
    /// `/comms/tx` messages that did not become a packet.
    tx_rejected: AtomicU64,
    /// `/comms/send` requests refused before sending (bad packet or timeout).
    send_rejected: AtomicU64,
    /// Packets published on `/comms/rx`.
    published: AtomicU64,
    /// Publications that failed.
    publish_errors: AtomicU64,
}

fn main() {
    main_with("comms_bridge", setup)
}

fn setup(app: &mut App) -> Result<(), Error> {
    let params = app.parameters(CommsParams::default())?;
    let config = {
        let p = params
            .lock()
            .map_err(|_| Error::Setup("parameters poisoned".into()))?;
        Config::try_from(&*p)?
    };
    let name = app.name().to_string();
    let defs = Definitions::load_dir(Path::new(&config.packets_dir))
        .map_err(|e| Error::Setup(format!("packets_dir {}: {e}", config.packets_dir)))?;
    let defs = Arc::new(defs);
    let names: Vec<String> = defs
        .iter()
        .map(|d| format!("{} ({})", d.name, d.id))
        .collect();
    r2r::log_info!(
        &name,
        "{} packet definitions from {}: {}",
        defs.len(),
        config.packets_dir,
        names.join(", ")
    );

    let link = app
        .block_on(config.transport.open(defs.clone(), &config.link))
        .map_err(|e| Error::Setup(format!("cannot open the link ({}): {e}", config.transport)))?;
    r2r::log_info!(&name, "link open: {}", config.transport);

    let rx_pub = app
        .node
        .create_publisher::<PacketMsg>(topics::COMMS_RX, qos::commands())?;
    let tx_sub = app.subscribe::<PacketMsg>(topics::COMMS_TX, qos::commands())?;
    let requests = app
        .node
        .create_service::<SendPacket::Service>(topics::COMMS_SEND, qos::commands())?;
    let diagnostics = app.diagnostics()?;
    let shutdown = app.shutdown();
    let _rt = app.handle().enter();

    let stats = Arc::new(Mutex::new(Stats::default()));
    let counters = Arc::new(NodeCounters::default());
    let (commands, command_rx) = mpsc::channel::<Command>(COMMAND_QUEUE);
    let device = if config.transport.is_can() {
        Some(config.default_device)
    } else {
        None
    };
    let builder = Builder {
        defs,
        default_device: device,
    };

    let on_event = event_handler(name.clone(), rx_pub, counters.clone());
    let down = shutdown.clone();
    tokio::spawn(bridge::run(
        link,
        command_rx,
        config.settings,
        on_event,
        stats.clone(),
        async move { down.wait().await },
    ));
    tokio::spawn(forward_tx(
        tx_sub,
        builder.clone(),
        commands.clone(),
        counters.clone(),
        name.clone(),
    ));
    tokio::spawn(serve_send(
        requests,
        builder,
        commands,
        config.reply_timeout,
        counters.clone(),
        name.clone(),
    ));

    let transport = config.transport.to_string();
    diagnostics.spawn_periodic(Duration::from_millis(500), shutdown, move || {
        let s = stats
            .lock()
            .map(|s| s.clone())
            .unwrap_or_else(|p| p.into_inner().clone());
        let (level, message) = match (&s.link_up, &s.last_error) {
            (true, _) => (Level::Ok, format!("{transport}: up")),
            (false, e) => (
                Level::Error,
                format!("{transport}: down: {}", e.as_deref().unwrap_or("?")),
            ),
        };
        let mut status = Status {
            name: "link".into(),
            level,
            message,
            values: s.key_values(),
        };
        for (key, c) in [
            ("tx_rejected", &counters.tx_rejected),
            ("send_rejected", &counters.send_rejected),
            ("published", &counters.published),
            ("publish_errors", &counters.publish_errors),
        ] {
            status = status.with(key, c.load(Ordering::Relaxed));
        }
        vec![status]
    });
    Ok(())
}

/// Turns `Packet` messages into packets of the loaded definitions.
#[derive(Clone)]
struct Builder {
    defs: Arc<Definitions>,
    /// On CAN, the device of packets whose device is 0 (`None` on UART).
    default_device: Option<u8>,
}

impl Builder {
    /// Definition by name (or id when the name is empty), fields from JSON (missing ones
    /// at their defaults), device from the message or the `device` parameter.
    fn packet(&self, msg: &PacketMsg) -> arnie_comms::Result<Packet> {
        let device = match (msg.device, self.default_device) {
            (0, Some(d)) => d,
            (d, _) => d,
        };
        self.defs
            .packet_from_json(&msg.name, msg.id, device, &msg.fields_json)
    }
}

/// What a message names, for log lines: `"Ping"` or `"id 7"`.
fn label(msg: &PacketMsg) -> String {
    if msg.name.is_empty() {
        format!("id {}", msg.id)
    } else {
        format!("{:?}", msg.name)
    }
}

fn to_msg(r: &Received) -> PacketMsg {
    PacketMsg {
        stamp: time::now(),
        name: r.packet.name().to_string(),
        id: r.packet.id(),
        device: r.packet.device,
        fields_json: r.packet.fields_json(),
        raw: r.raw.clone(),
    }
}

/// At most one line per [`LOG_EVERY`]; says how many were held back.
struct Throttle {
    last: Option<Instant>,
    held: u64,
}

impl Throttle {
    fn new() -> Throttle {
        Throttle {
            last: None,
            held: 0,
        }
    }
    /// `Some(lines held back since the last one)` when this line may be logged.
    fn allow(&mut self) -> Option<u64> {
        let now = Instant::now();
        if self.last.is_some_and(|t| now.duration_since(t) < LOG_EVERY) {
            self.held += 1;
            return None;
        }
        self.last = Some(now);
        Some(std::mem::take(&mut self.held))
    }
}

fn held(n: u64) -> String {
    if n == 0 {
        String::new()
    } else {
        format!(" ({n} similar lines held back)")
    }
}

/// The link task's reporter: publishes packets, logs everything else.
fn event_handler(
    name: String,
    rx_pub: r2r::Publisher<PacketMsg>,
    counters: Arc<NodeCounters>,
) -> impl FnMut(Event<'_>) + Send + 'static {
    let mut rejected = Throttle::new();
    let mut failed = Throttle::new();
    let mut repeated = Throttle::new();
    let mut duplicate = Throttle::new();
    let mut gave_up = Throttle::new();
    move |event| match event {
        Event::Received(r) => match rx_pub.publish(&to_msg(r)) {
            Ok(()) => {
                counters.published.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                counters.publish_errors.fetch_add(1, Ordering::Relaxed);
                r2r::log_warn!(
                    &name,
                    "cannot publish {} on {}: {e}",
                    r.packet.name(),
                    topics::COMMS_RX
                );
            }
        },
        Event::Rejected(r) => {
            if let Some(n) = rejected.allow() {
                r2r::log_warn!(&name, "link: {r}{}", held(n));
            }
        }
        Event::Sent { packet, raw } => {
            r2r::log_debug!(
                &name,
                "sent {} {} ({} bytes)",
                packet.name(),
                packet.fields_json(),
                raw.len()
            );
        }
        Event::SendFailed { packet, error } => {
            r2r::log_warn!(&name, "cannot send {}: {error}", packet.name());
        }
        Event::LinkFailed(e) => {
            if let Some(n) = failed.allow() {
                r2r::log_error!(&name, "link read failed (retrying): {e}{}", held(n));
            }
        }
        Event::ReplyTimedOut { request, reply_id } => {
            r2r::log_warn!(&name, "no reply (command {reply_id}) to {request} in time");
        }
        Event::Repeated { packet, attempt } => {
            if let Some(n) = repeated.allow() {
                r2r::log_info!(
                    &name,
                    "repeating {} {} (send {attempt}): no acknowledgement yet{}",
                    packet.name(),
                    packet.fields_json(),
                    held(n)
                );
            }
        }
        Event::GaveUp { packet, attempts } => {
            if let Some(n) = gave_up.allow() {
                r2r::log_warn!(
                    &name,
                    "gave up {} {}: no acknowledgement after {attempts} sends{}",
                    packet.name(),
                    packet.fields_json(),
                    held(n)
                );
            }
        }
        Event::Duplicate(r) => {
            if let Some(n) = duplicate.allow() {
                r2r::log_info!(
                    &name,
                    "duplicate {} {} acknowledged again, not republished{}",
                    r.packet.name(),
                    r.packet.fields_json(),
                    held(n)
                );
            }
        }
    }
}

/// `/comms/tx` → the link task. Bad packets are logged and counted, never sent.
async fn forward_tx(
    mut sub: impl futures::Stream<Item = PacketMsg> + Unpin,
    builder: Builder,
    commands: mpsc::Sender<Command>,
    counters: Arc<NodeCounters>,
    name: String,
) {
    while let Some(msg) = sub.next().await {
        match builder.packet(&msg) {
            Ok(packet) => {
                if commands.send(Command::Send(packet)).await.is_err() {
                    return; // the link task has stopped: shutting down
                }
            }
            Err(e) => {
                counters.tx_rejected.fetch_add(1, Ordering::Relaxed);
                r2r::log_warn!(
                    &name,
                    "{}: packet {} not sent: {e}",
                    topics::COMMS_TX,
                    label(&msg)
                );
            }
        }
    }
}

/// `/comms/send`: each request gets its own task waiting for its outcome.
async fn serve_send(
    mut requests: impl futures::Stream<Item = r2r::ServiceRequest<SendPacket::Service>> + Unpin,
    builder: Builder,
    commands: mpsc::Sender<Command>,
    default_timeout: Duration,
    counters: Arc<NodeCounters>,
    name: String,
) {
    while let Some(req) = requests.next().await {
        let msg = &req.message;
        let checked = reply_timeout(msg.timeout_s, default_timeout)
            .map_err(|e| (SendPacket::Response::REJECTED as u8, e))
            .and_then(|timeout| {
                builder
                    .packet(&msg.packet)
                    .map(|p| (p, timeout))
                    .map_err(|e| {
                        let code = match e {
                            arnie_comms::Error::UnknownName(_)
                            | arnie_comms::Error::UnknownId(_) => {
                                SendPacket::Response::UNKNOWN_PACKET as u8
                            }
                            _ => SendPacket::Response::INVALID_FIELDS as u8,
                        };
                        (code, e.to_string())
                    })
            });
        let (packet, timeout) = match checked {
            Ok(ok) => ok,
            Err((code, e)) => {
                counters.send_rejected.fetch_add(1, Ordering::Relaxed);
                r2r::log_warn!(
                    &name,
                    "{}: packet {} refused: {e}",
                    topics::COMMS_SEND,
                    label(&msg.packet)
                );
                respond(req, failure(code, e), &name);
                continue;
            }
        };
        let commands = commands.clone();
        let name = name.clone();
        let defs = builder.defs.clone();
        tokio::spawn(async move {
            let request = packet.name().to_string();
            let (done, outcome) = oneshot::channel();
            let response = if commands
                .send(Command::Request {
                    packet,
                    timeout,
                    done,
                })
                .await
                .is_err()
            {
                failure(
                    SendPacket::Response::LINK_DOWN as u8,
                    "the bridge is shutting down".into(),
                )
            } else {
                match outcome.await {
                    Ok(outcome) => response(&request, outcome, &defs),
                    Err(_) => failure(
                        SendPacket::Response::LINK_DOWN as u8,
                        "the bridge is shutting down".into(),
                    ),
                }
            };
            respond(req, response, &name);
        });
    }
}

/// The request's timeout, or the default for 0.
fn reply_timeout(timeout_s: f64, default: Duration) -> Result<Duration, String> {
    if timeout_s == 0.0 {
        return Ok(default);
    }
    if !(timeout_s.is_finite() && timeout_s > 0.0 && timeout_s <= MAX_REPLY_TIMEOUT_S) {
        return Err(format!(
            "timeout_s {timeout_s} must be 0 (the default) or in (0, {MAX_REPLY_TIMEOUT_S}]"
        ));
    }
    Ok(Duration::from_secs_f64(timeout_s))
}

fn failure(outcome: u8, message: String) -> SendPacket::Response {
    SendPacket::Response {
        outcome,
        success: false,
        message,
        has_reply: false,
        reply: PacketMsg::default(),
    }
}

/// `success` means: written, and (when the definition names a reply) answered in time.
fn response(request: &str, outcome: Outcome, defs: &Definitions) -> SendPacket::Response {
    match outcome {
        Outcome::Sent { raw } => SendPacket::Response {
            outcome: SendPacket::Response::OK as u8,
            success: true,
            message: format!("sent {request} ({} bytes); it has no reply", raw.len()),
            has_reply: false,
            reply: PacketMsg::default(),
        },
        Outcome::Reply { reply, .. } => SendPacket::Response {
            outcome: SendPacket::Response::OK as u8,
            success: true,
            message: format!("sent {request}, reply {}", reply.packet.name()),
            has_reply: true,
            reply: to_msg(&reply),
        },
        Outcome::NoReply {
            reply_id, timeout, ..
        } => {
            let reply = defs
                .get(reply_id)
                .map_or_else(|| format!("command {reply_id}"), |d| d.name.clone());
            failure(
                SendPacket::Response::TIMEOUT as u8,
                format!(
                    "sent {request}, but no {reply} within {} ms",
                    timeout.as_millis()
                ),
            )
        }
        Outcome::NotSent(e) => failure(
            SendPacket::Response::LINK_DOWN as u8,
            format!("{request} not sent: {e}"),
        ),
    }
}

fn respond(
    req: r2r::ServiceRequest<SendPacket::Service>,
    response: SendPacket::Response,
    name: &str,
) {
    if let Err(e) = req.respond(response) {
        r2r::log_warn!(name, "cannot answer a {} request: {e}", topics::COMMS_SEND);
    }
}
