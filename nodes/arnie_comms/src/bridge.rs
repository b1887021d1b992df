//! [`run`]: the bridge's event loop, without ROS. One task owns the [`Link`] and
//! `select!`s over three inputs: the link (packets, rejections), a command channel
//! (packets to send, with or without waiting for a reply) and the earliest reply
//! deadline of the [`ReplyTracker`]. The ROS glue only turns messages into
//! [`Command`]s and [`Event`]s into messages and log lines.
//!
//! A failing transport (a pty whose other side went away, a USB adapter pulled) does not
//! end the loop: the error is reported once per failure, counted, and reading is retried
//! after [`Settings::retry_after`]; sends keep being attempted (and fail, counted).
//!
//! Definitions marked `reliable` ([`crate::reliable`]): a packet sent (by request or
//! fire-and-forget) is repeated every `interval_ms` until its acknowledgement arrives, at
//! most `attempts` sends; a request waits only for the acknowledgement of its own `seq`.
//! A received reliable packet is acknowledged (every copy), delivered once; its repeats
//! are counted as duplicates and not delivered again.
//!
//! [`Transport`] names the wire to open; [`Transport::open`] makes the [`Link`].
use crate::counters::{Counters, Rejected};
use crate::definition::Definitions;
use crate::error::{Error, Result};
use crate::link::{Link, LinkConfig, LinkEvent, Received};
use crate::packet::Packet;
use crate::reliable::{self, Arrival, Due, Receiver, Repeater};
use crate::reply::{ReplyTracker, Ticket};
use crate::transport::{CanBus, SerialPort, SocketCan, UdpCan};
use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};
use tokio::time::{sleep_until, Duration, Instant};

/// The wire a bridge (or the simulator) talks on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    /// A serial device (or a pty slave) in raw 8N1 mode.
    Uart { path: String, baud: u32 },
    /// A Linux SocketCAN interface (`can0`, `vcan0`).
    SocketCan { iface: String },
    /// CAN over UDP: bind `bind`; send to `peer`, or (when `None`) to the last sender.
    CanUdp {
        bind: SocketAddr,
        peer: Option<SocketAddr>,
    },
}

impl Transport {
    /// Opens the wire and puts the codec on it. Must be called inside a tokio runtime.
    ///
    /// # Errors
    /// The transport's own: [`Error::Serial`], [`Error::UnsupportedBaud`],
    /// [`Error::CanInterfaceNotFound`], [`Error::SocketCan`], [`Error::Udp`].
    pub async fn open(&self, defs: Arc<Definitions>, cfg: &LinkConfig) -> Result<Link> {
        Ok(match self {
            Transport::Uart { path, baud } => Link::uart(SerialPort::open(path, *baud)?, defs, cfg),
            Transport::SocketCan { iface } => {
                Link::can(CanBus::SocketCan(SocketCan::open(iface)?), defs, cfg)
            }
            Transport::CanUdp { bind, peer } => {
                Link::can(CanBus::Udp(UdpCan::bind(*bind, *peer).await?), defs, cfg)
            }
        })
    }

    /// True for the CAN transports (devices matter there).
    pub fn is_can(&self) -> bool {
        !matches!(self, Transport::Uart { .. })
    }
}

impl fmt::Display for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Transport::Uart { path, baud } => write!(f, "uart {path} at {baud} baud"),
            Transport::SocketCan { iface } => write!(f, "SocketCAN {iface}"),
            Transport::CanUdp {
                bind,
                peer: Some(peer),
            } => write!(f, "CAN over UDP {bind} -> {peer}"),
            Transport::CanUdp { bind, peer: None } => {
                write!(f, "CAN over UDP {bind} -> last sender")
            }
        }
    }
}

/// Settings of the loop itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    /// After the transport fails to read, wait this long before reading again.
    pub retry_after: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            retry_after: Duration::from_millis(500),
        }
    }
}

/// What the loop is asked to do.
#[derive(Debug)]
pub enum Command {
    /// Send and forget (`/comms/tx`): a reply, if any, only shows up as a received packet.
    Send(Packet),
    /// Send, then wait up to `timeout` for the reply the definition names (the send
    /// service). `done` gets the [`Outcome`]; a dropped receiver is fine.
    Request {
        packet: Packet,
        timeout: Duration,
        done: oneshot::Sender<Outcome>,
    },
}

/// The answer to a [`Command::Request`].
#[derive(Debug)]
pub enum Outcome {
    /// Written; the definition names no reply.
    Sent { raw: Vec<u8> },
    /// Written, and its reply arrived.
    Reply { raw: Vec<u8>, reply: Received },
    /// Written, but the reply did not arrive within the timeout.
    NoReply {
        raw: Vec<u8>,
        reply_id: u8,
        timeout: Duration,
    },
    /// Not written: the packet does not fit the wire (e.g. a CAN device over 31) or
    /// the transport failed.
    NotSent(Error),
}

/// What happened, for the glue to publish and log. Already counted in [`Stats`].
#[derive(Debug)]
pub enum Event<'a> {
    /// A packet came off the wire.
    Received(&'a Received),
    /// Bytes that did not become a packet.
    Rejected(Rejected),
    /// A packet was written.
    Sent { packet: &'a Packet, raw: &'a [u8] },
    /// A packet could not be written.
    SendFailed {
        packet: &'a Packet,
        error: &'a Error,
    },
    /// The transport failed to read; reading is retried after [`Settings::retry_after`].
    LinkFailed(&'a Error),
    /// A request's reply did not come in time.
    ReplyTimedOut { request: &'a str, reply_id: u8 },
    /// A reliable packet was sent again (`attempt` 2 = the first repeat).
    Repeated { packet: &'a Packet, attempt: u32 },
    /// A reliable packet got no acknowledgement after `attempts` sends: not repeated any
    /// more (its request, if any, still waits for its timeout).
    GaveUp { packet: &'a Packet, attempts: u32 },
    /// A repeat of a reliable packet already delivered: acknowledged again, not delivered.
    Duplicate(&'a Received),
}

/// Counts of the loop, with the link's own [`Counters`]. All keys are always listed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// The link's counters (packets in and out, rejections by kind).
    pub link: Counters,
    /// Send-service requests handled.
    pub requests: u64,
    /// Requests answered with their reply.
    pub replies: u64,
    /// Requests whose reply did not come in time.
    pub reply_timeouts: u64,
    /// Packets that could not be written.
    pub send_failures: u64,
    /// Reads of the transport that failed.
    pub link_failures: u64,
    /// Reliable packets sent again for want of their acknowledgement.
    pub repeats: u64,
    /// Reliable packets given up (no acknowledgement after every attempt, or the request
    /// timed out while repeating).
    pub gave_up: u64,
    /// Received repeats of reliable packets already delivered (dropped, acknowledged).
    pub duplicates: u64,
    /// Acknowledgements the bridge sent for received reliable packets (repeats included).
    pub acks_sent: u64,
    /// False from a failed read until the next good one.
    pub link_up: bool,
    /// The last transport or send error, for the diagnostics message.
    pub last_error: Option<String>,
}

impl Stats {
    /// `(key, value)` pairs for a `DiagnosticStatus`: the link's, then the loop's.
    pub fn key_values(&self) -> Vec<(String, String)> {
        let mut out = self.link.key_values();
        out.extend([
            ("requests".to_string(), self.requests.to_string()),
            ("replies".to_string(), self.replies.to_string()),
            (
                "reply_timeouts".to_string(),
                self.reply_timeouts.to_string(),
            ),
            ("send_failures".to_string(), self.send_failures.to_string()),
            ("link_failures".to_string(), self.link_failures.to_string()),
            ("repeats".to_string(), self.repeats.to_string()),
            ("gave_up".to_string(), self.gave_up.to_string()),
            ("duplicates".to_string(), self.duplicates.to_string()),
            ("acks_sent".to_string(), self.acks_sent.to_string()),
            ("link_up".to_string(), self.link_up.to_string()),
        ]);
        out
    }
}

/// A request waiting for its reply.
struct Pending {
    done: oneshot::Sender<Outcome>,
    raw: Vec<u8>,
    request: String,
    reply_id: u8,
    timeout: Duration,
}

/// One turn of the loop.
enum Step {
    Link(Result<LinkEvent>),
    Command(Option<Command>),
    Expire,
    Shutdown,
}

/// Runs the bridge on `link` until `shutdown` resolves; returns the final counts.
///
/// Every turn reports through `on_event` and refreshes `stats` (read by the
/// diagnostics publisher). When every command sender is gone the loop keeps receiving.
/// Replies are matched oldest request first, by command id and, on CAN, device.
pub async fn run(
    mut link: Link,
    mut commands: mpsc::Receiver<Command>,
    settings: Settings,
    mut on_event: impl FnMut(Event<'_>),
    stats: Arc<Mutex<Stats>>,
    shutdown: impl Future,
) -> Stats {
    let start = Instant::now();
    let ms = |at: Instant| {
        u64::try_from(at.saturating_duration_since(start).as_millis()).unwrap_or(u64::MAX)
    };
    let match_device = link.is_can();
    let defs = link.definitions().clone();
    let mut tracker = ReplyTracker::new();
    let mut repeater = Repeater::new();
    let mut receiver = Receiver::new();
    // Repeats of fire-and-forget sends: ids apart from the request tickets.
    let mut next_send_id: u64 = 1 << 63;
    let mut pending: HashMap<Ticket, Pending> = HashMap::new();
    let mut local = Stats {
        link_up: true,
        ..Stats::default()
    };
    let mut retry_at: Option<Instant> = None;
    let mut commands_open = true;
    *lock(&stats) = local.clone();
    tokio::pin!(shutdown);
    loop {
        let deadline = [tracker.deadline_ms(), repeater.deadline_ms()]
            .into_iter()
            .flatten()
            .min()
            .map(|d| start + Duration::from_millis(d));
        let step = tokio::select! {
            _ = &mut shutdown => Step::Shutdown,
            ev = recv_after(&mut link, retry_at) => Step::Link(ev),
            cmd = commands.recv(), if commands_open => Step::Command(cmd),
            _ = sleep_or_never(deadline) => Step::Expire,
        };
        match step {
            Step::Shutdown => break,
            Step::Link(Ok(LinkEvent::Packet(received))) => {
                retry_at = None;
                local.link_up = true;
                match receiver.on_packet(&received.packet, ms(Instant::now())) {
                    Arrival::Duplicate { reply, .. } => {
                        local.duplicates += 1;
                        on_event(Event::Duplicate(&received));
                        if let Some(ack) = reply {
                            if send(&mut link, &ack, &mut local, &mut on_event)
                                .await
                                .is_ok()
                            {
                                local.acks_sent += 1;
                            }
                        }
                        local.link = link.counters();
                        *lock(&stats) = local.clone();
                        continue;
                    }
                    Arrival::First(key) => {
                        on_event(Event::Received(&received));
                        if let Some(ack) = reliable::ack_for(&defs, &received.packet) {
                            if send(&mut link, &ack, &mut local, &mut on_event)
                                .await
                                .is_ok()
                            {
                                local.acks_sent += 1;
                            }
                            receiver.set_reply(key, ack);
                        }
                    }
                    Arrival::Untracked => on_event(Event::Received(&received)),
                }
                repeater.on_packet(&received.packet);
                if let Some(ticket) = tracker.on_packet(&received.packet) {
                    if let Some(p) = pending.remove(&ticket) {
                        local.replies += 1;
                        let _ = p.done.send(Outcome::Reply {
                            raw: p.raw,
                            reply: received,
                        });
                    }
                }
            }
            Step::Link(Ok(LinkEvent::Rejected(rejected))) => {
                retry_at = None;
                local.link_up = true;
                on_event(Event::Rejected(rejected));
            }
            Step::Link(Err(e)) => {
                local.link_failures += 1;
                local.link_up = false;
                local.last_error = Some(e.to_string());
                on_event(Event::LinkFailed(&e));
                retry_at = Some(Instant::now() + settings.retry_after);
            }
            Step::Command(None) => commands_open = false,
            Step::Command(Some(Command::Send(packet))) => {
                if send(&mut link, &packet, &mut local, &mut on_event)
                    .await
                    .is_ok()
                {
                    repeater.start(next_send_id, packet, ms(Instant::now()));
                    next_send_id = next_send_id.wrapping_add(1) | 1 << 63;
                }
            }
            Step::Command(Some(Command::Request {
                packet,
                timeout,
                done,
            })) => {
                local.requests += 1;
                match (
                    send(&mut link, &packet, &mut local, &mut on_event).await,
                    packet.definition().reply,
                ) {
                    (Err(e), _) => {
                        let _ = done.send(Outcome::NotSent(e));
                    }
                    (Ok(raw), None) => {
                        let _ = done.send(Outcome::Sent { raw });
                    }
                    (Ok(raw), Some(reply_id)) => {
                        let device = match_device.then_some(packet.device);
                        let timeout_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
                        let now = ms(Instant::now());
                        let deadline = now.saturating_add(timeout_ms);
                        let ticket = match packet.definition().reliable {
                            Some(_) => {
                                let t = tracker.expect_ack(packet.clone(), deadline);
                                if let Some(t) = t {
                                    repeater.start(t.0, packet.clone(), now);
                                }
                                t
                            }
                            None => None,
                        }
                        .unwrap_or_else(|| tracker.expect(reply_id, device, deadline));
                        let request = packet.name().to_string();
                        pending.insert(
                            ticket,
                            Pending {
                                done,
                                raw,
                                request,
                                reply_id,
                                timeout,
                            },
                        );
                    }
                }
            }
            Step::Expire => {
                let now = ms(Instant::now());
                for due in repeater.due(now) {
                    match due {
                        Due::Repeat {
                            packet, attempt, ..
                        } => {
                            local.repeats += 1;
                            on_event(Event::Repeated {
                                packet: &packet,
                                attempt,
                            });
                            let _ = send(&mut link, &packet, &mut local, &mut on_event).await;
                        }
                        Due::GaveUp {
                            packet, attempts, ..
                        } => {
                            local.gave_up += 1;
                            on_event(Event::GaveUp {
                                packet: &packet,
                                attempts,
                            });
                        }
                    }
                }
                for ticket in tracker.expire(now) {
                    if repeater.cancel(ticket.0) {
                        local.gave_up += 1;
                    }
                    if let Some(p) = pending.remove(&ticket) {
                        local.reply_timeouts += 1;
                        on_event(Event::ReplyTimedOut {
                            request: &p.request,
                            reply_id: p.reply_id,
                        });
                        let _ = p.done.send(Outcome::NoReply {
                            raw: p.raw,
                            reply_id: p.reply_id,
                            timeout: p.timeout,
                        });
                    }
                }
            }
        }
        // Callers that gave up need no reply any more.
        pending.retain(|ticket, p| {
            let keep = !p.done.is_closed();
            if !keep {
                tracker.cancel(*ticket);
                repeater.cancel(ticket.0);
            }
            keep
        });
        local.link = link.counters();
        *lock(&stats) = local.clone();
    }
    local.link = link.counters();
    *lock(&stats) = local.clone();
    local
}

/// Writes one packet, counting and reporting the result.
async fn send(
    link: &mut Link,
    packet: &Packet,
    stats: &mut Stats,
    on_event: &mut impl FnMut(Event<'_>),
) -> Result<Vec<u8>> {
    match link.send(packet).await {
        Ok(raw) => {
            on_event(Event::Sent { packet, raw: &raw });
            Ok(raw)
        }
        Err(error) => {
            stats.send_failures += 1;
            stats.last_error = Some(error.to_string());
            on_event(Event::SendFailed {
                packet,
                error: &error,
            });
            Err(error)
        }
    }
}

/// Reads the link, first waiting until `retry_at` (after a failure). Cancel-safe.
async fn recv_after(link: &mut Link, retry_at: Option<Instant>) -> Result<LinkEvent> {
    if let Some(at) = retry_at {
        sleep_until(at).await;
    }
    link.recv().await
}

async fn sleep_or_never(deadline: Option<Instant>) {
    match deadline {
        Some(d) => sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// A poisoned lock still holds usable counts.
fn lock(stats: &Mutex<Stats>) -> std::sync::MutexGuard<'_, Stats> {
    stats.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim;
    use crate::transport::open_pty;
    use crate::value::Value;

    fn defs() -> Arc<Definitions> {
        Arc::new(
            Definitions::from_texts([
                (
                    "ping",
                    r#"{"name":"Ping","id":1,"reply":"Pong","data":{"seq":{"type":"uint16"}}}"#,
                ),
                (
                    "pong",
                    r#"{"name":"Pong","id":2,"data":{"seq":{"type":"uint16"}}}"#,
                ),
                (
                    "led",
                    r#"{"name":"Led","id":3,"data":{"on":{"type":"bool"}}}"#,
                ),
            ])
            .expect("valid"),
        )
    }

    /// The loop under test, with its event lines, command sender and stop switch.
    struct Harness {
        commands: mpsc::Sender<Command>,
        events: mpsc::UnboundedReceiver<String>,
        stats: Arc<Mutex<Stats>>,
        stop: oneshot::Sender<()>,
        task: tokio::task::JoinHandle<Stats>,
    }

    fn start(link: Link) -> Harness {
        let (commands, rx) = mpsc::channel(8);
        let (stop, stopped) = oneshot::channel::<()>();
        let stats = Arc::new(Mutex::new(Stats::default()));
        let (events_tx, events) = mpsc::unbounded_channel::<String>();
        let on_event = move |e: Event<'_>| {
            let line = match e {
                Event::Received(r) => format!(
                    "rx {} {} {}",
                    r.packet.name(),
                    r.packet.device,
                    r.packet.fields_json()
                ),
                Event::Sent { packet, .. } => format!("tx {}", packet.name()),
                Event::SendFailed { packet, error } => {
                    format!("send failed {}: {error}", packet.name())
                }
                Event::LinkFailed(e) => format!("link failed: {e}"),
                other => format!("{other:?}"),
            };
            let _ = events_tx.send(line);
        };
        let settings = Settings {
            retry_after: Duration::from_millis(20),
        };
        let task = tokio::spawn(run(link, rx, settings, on_event, stats.clone(), stopped));
        Harness {
            commands,
            events,
            stats,
            stop,
            task,
        }
    }

    impl Harness {
        async fn request(&self, packet: Packet, timeout: Duration) -> Outcome {
            let (done, outcome) = oneshot::channel();
            self.commands
                .send(Command::Request {
                    packet,
                    timeout,
                    done,
                })
                .await
                .expect("loop alive");
            tokio::time::timeout(Duration::from_secs(5), outcome)
                .await
                .expect("answered in time")
                .expect("answered")
        }
        async fn next_event(&mut self) -> String {
            tokio::time::timeout(Duration::from_secs(5), self.events.recv())
                .await
                .expect("an event")
                .expect("open")
        }
        async fn finish(self) -> Stats {
            self.stop.send(()).expect("loop alive");
            let end = self.task.await.expect("joined");
            assert_eq!(
                *self.stats.lock().expect("not poisoned"),
                end,
                "published counts are the final ones"
            );
            end
        }
    }

    /// (bridge link on the pty slave, the master as a serial port, the slave fd that
    /// `open_pty` returned). While that fd lives, the master never reads EIO when the
    /// bridge closes its side; drop it at once to let the device see the hang-up.
    async fn pty(defs: &Arc<Definitions>) -> (Link, SerialPort, std::os::fd::OwnedFd) {
        let (master, slave, path) = open_pty().expect("pty");
        let link = Transport::Uart { path, baud: 115200 }
            .open(defs.clone(), &LinkConfig::default())
            .await
            .expect("open");
        (
            link,
            SerialPort::from_fd(master, "master").expect("master"),
            slave,
        )
    }

    #[tokio::test]
    async fn requests_get_their_reply_or_are_answered_when_sent_and_sends_echo() {
        let defs = defs();
        // The slave fd is kept to the end: the bridge finishes (closing its side) before
        // the device is stopped, and the device must not read EIO meanwhile.
        let (link, master, slave_guard) = pty(&defs).await;
        let (stop_sim, sim_stopped) = oneshot::channel::<()>();
        let sim = tokio::spawn(sim::run(
            Link::uart(master, defs.clone(), &LinkConfig::default()),
            sim_stopped,
        ));
        let mut h = start(link);

        let ping = defs
            .packet_from_json("Ping", 0, 0, r#"{"seq": 9}"#)
            .expect("valid");
        match h.request(ping, Duration::from_secs(5)).await {
            Outcome::Reply { raw, reply } => {
                assert_eq!(raw[1], 1, "the Ping frame was written");
                assert_eq!(
                    (reply.packet.name(), reply.packet.get("seq")),
                    ("Pong", Some(Value::U16(9)))
                );
            }
            other => panic!("{other:?}"),
        }
        let led = defs
            .packet_from_json("Led", 0, 0, r#"{"on": true}"#)
            .expect("valid");
        assert!(
            matches!(
                h.request(led.clone(), Duration::from_secs(5)).await,
                Outcome::Sent { .. }
            ),
            "no reply named"
        );
        h.commands.send(Command::Send(led)).await.expect("alive");
        let mut seen = Vec::new();
        while seen
            .iter()
            .filter(|l: &&String| l.starts_with("rx Led"))
            .count()
            < 2
        {
            seen.push(h.next_event().await);
        }
        assert!(
            seen.contains(&r#"rx Pong 0 {"seq":9}"#.to_string()),
            "every packet is reported: {seen:?}"
        );
        assert_eq!(
            seen.iter().filter(|l| l.starts_with("tx ")).count(),
            3,
            "{seen:?}"
        );

        let end = h.finish().await;
        assert_eq!(
            (
                end.requests,
                end.replies,
                end.reply_timeouts,
                end.send_failures
            ),
            (2, 1, 0, 0)
        );
        assert_eq!(
            (end.link.tx_packets, end.link.rx_packets, end.link_up),
            (3, 3, true)
        );
        stop_sim.send(()).expect("sim alive");
        sim.await.expect("joined").expect("sim ok");
        drop(slave_guard);
    }

    /// The device side drops the first copy of a reliable command, acknowledges the
    /// second; it sends a reliable report twice (its first acknowledgement "lost").
    #[tokio::test]
    async fn reliable_packets_are_repeated_until_acked_and_deduplicated() {
        let defs = Arc::new(
            Definitions::from_texts([
                (
                    "cmd",
                    r#"{"name":"Cmd","id":5,"reply":"Ack","reliable":{"attempts":5,"interval_ms":40},"data":{"seq":{"type":"uint16"}}}"#,
                ),
                (
                    "done",
                    r#"{"name":"Done","id":6,"reply":"Ack","reliable":{"attempts":5,"interval_ms":40},"data":{"seq":{"type":"uint16"},"status":{"type":"uint8"}}}"#,
                ),
                (
                    "ack",
                    r#"{"name":"Ack","id":7,"data":{"command":{"type":"uint8"},"seq":{"type":"uint16"},"status":{"type":"uint8"}}}"#,
                ),
            ])
            .expect("valid"),
        );
        let (link, master, _guard) = pty(&defs).await;
        let mut device = Link::uart(master, defs.clone(), &LinkConfig::default());
        let mut h = start(link);
        let cmd = defs
            .packet_from_json("Cmd", 0, 0, r#"{"seq":41}"#)
            .expect("valid");
        let (done, outcome) = oneshot::channel();
        h.commands
            .send(Command::Request {
                packet: cmd,
                timeout: Duration::from_secs(5),
                done,
            })
            .await
            .expect("alive");
        let mut copies = 0;
        while copies < 2 {
            if let Ok(LinkEvent::Packet(r)) = device.recv().await {
                assert_eq!(r.packet.fields_json(), r#"{"seq":41}"#);
                copies += 1;
            }
        }
        let ack = defs
            .packet_from_json("Ack", 0, 0, r#"{"command":5,"seq":41,"status":1}"#)
            .expect("valid");
        device.send(&ack).await.expect("written");
        match tokio::time::timeout(Duration::from_secs(5), outcome).await {
            Ok(Ok(Outcome::Reply { reply, .. })) => {
                assert_eq!(reply.packet.get("status"), Some(Value::U8(1)))
            }
            other => panic!("{other:?}"),
        }
        // The report, twice: delivered once, acknowledged twice.
        let report = defs
            .packet_from_json("Done", 0, 0, r#"{"seq":7,"status":0}"#)
            .expect("valid");
        device.send(&report).await.expect("written");
        device.send(&report).await.expect("written");
        let mut acks = 0;
        while acks < 2 {
            if let Ok(LinkEvent::Packet(r)) = device.recv().await {
                if r.packet.name() == "Ack" {
                    assert_eq!(
                        r.packet.fields_json(),
                        r#"{"command":6,"seq":7,"status":0}"#
                    );
                    acks += 1;
                }
            }
        }
        let mut lines = Vec::new();
        while !lines.iter().any(|l: &String| l.starts_with("Duplicate")) {
            lines.push(h.next_event().await);
        }
        let end = h.finish().await;
        assert_eq!(
            lines.iter().filter(|l| l.starts_with("rx Done")).count(),
            1,
            "{lines:?}"
        );
        assert!(
            end.repeats >= 1 && end.duplicates == 1 && end.acks_sent == 2,
            "{end:?}"
        );
        assert_eq!((end.replies, end.gave_up), (1, 0));
    }

    #[tokio::test]
    async fn an_unacknowledged_reliable_packet_is_given_up_after_its_attempts() {
        let defs = Arc::new(
            Definitions::from_texts([
                (
                    "cmd",
                    r#"{"name":"Cmd","id":5,"reply":"Ack","reliable":{"attempts":3,"interval_ms":20},"data":{"seq":{"type":"uint16"}}}"#,
                ),
                (
                    "ack",
                    r#"{"name":"Ack","id":7,"data":{"command":{"type":"uint8"},"seq":{"type":"uint16"}}}"#,
                ),
            ])
            .expect("valid"),
        );
        let (link, _silent_master, _guard) = pty(&defs).await;
        let mut h = start(link);
        let cmd = defs.packet_from_json("Cmd", 0, 0, "").expect("valid");
        h.commands.send(Command::Send(cmd)).await.expect("alive");
        let mut lines = Vec::new();
        while !lines.iter().any(|l: &String| l.starts_with("GaveUp")) {
            lines.push(h.next_event().await);
        }
        let end = h.finish().await;
        assert_eq!(
            (end.repeats, end.gave_up, end.link.tx_packets),
            (2, 1, 3),
            "{lines:?}"
        );
    }

    #[tokio::test]
    async fn a_missing_reply_times_out_and_the_loop_goes_on() {
        let defs = defs();
        let (link, _silent_master, _) = pty(&defs).await;
        let h = start(link);
        let ping = defs.packet_from_json("Ping", 0, 0, "").expect("valid");
        match h.request(ping, Duration::from_millis(30)).await {
            Outcome::NoReply {
                reply_id, timeout, ..
            } => {
                assert_eq!((reply_id, timeout), (2, Duration::from_millis(30)))
            }
            other => panic!("{other:?}"),
        }
        // A caller that gives up is forgotten (no outcome, no timeout counted).
        let (done, outcome) = oneshot::channel();
        let ping = defs.packet_from_json("Ping", 0, 0, "").expect("valid");
        h.commands
            .send(Command::Request {
                packet: ping,
                timeout: Duration::from_secs(60),
                done,
            })
            .await
            .expect("alive");
        drop(outcome);
        let led = defs.packet_from_json("Led", 0, 0, "").expect("valid");
        assert!(matches!(
            h.request(led, Duration::ZERO).await,
            Outcome::Sent { .. }
        ));
        let end = h.finish().await;
        assert_eq!((end.requests, end.replies, end.reply_timeouts), (3, 0, 1));
    }

    #[tokio::test]
    async fn can_replies_match_the_device_and_unsendable_packets_are_answered_not_sent() {
        let defs = defs();
        let sim_bus = UdpCan::bind(SocketAddr::from(([127, 0, 0, 1], 0)), None)
            .await
            .expect("bind sim");
        let sim_addr = sim_bus.local_addr().expect("addr");
        let (stop_sim, sim_stopped) = oneshot::channel::<()>();
        let sim = tokio::spawn(sim::run(
            Link::can(CanBus::Udp(sim_bus), defs.clone(), &LinkConfig::default()),
            sim_stopped,
        ));
        let transport = Transport::CanUdp {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            peer: Some(sim_addr),
        };
        assert!(transport.is_can());
        let mut h = start(
            transport
                .open(defs.clone(), &LinkConfig::default())
                .await
                .expect("open"),
        );

        let ping = defs
            .packet_from_json("Ping", 0, 7, r#"{"seq": 3}"#)
            .expect("valid");
        match h.request(ping, Duration::from_secs(5)).await {
            Outcome::Reply { reply, .. } => {
                assert_eq!((reply.packet.name(), reply.packet.device), ("Pong", 7))
            }
            other => panic!("{other:?}"),
        }
        let far = defs
            .packet_from_json("Ping", 0, 32, "")
            .expect("valid JSON; the device is the wire's business");
        match h.request(far, Duration::from_secs(5)).await {
            Outcome::NotSent(Error::CanDeviceOutOfRange(32)) => {}
            other => panic!("{other:?}"),
        }
        let mut seen = Vec::new();
        while !seen.iter().any(|l: &String| l.starts_with("send failed")) {
            seen.push(h.next_event().await);
        }
        let live = h.stats.lock().expect("not poisoned").clone();
        assert_eq!(
            (live.requests, live.send_failures),
            (2, 1),
            "published after every turn"
        );
        let end = h.finish().await;
        assert_eq!((end.requests, end.replies, end.send_failures), (2, 1, 1));
        assert!(
            end.last_error.as_deref().is_some_and(|e| e.contains("32")),
            "{:?}",
            end.last_error
        );
        stop_sim.send(()).expect("sim alive");
        sim.await.expect("joined").expect("sim ok");
    }

    #[tokio::test]
    async fn a_failed_transport_is_reported_retried_and_does_not_end_the_loop() {
        let defs = defs();
        let (link, master, _) = pty(&defs).await;
        let mut h = start(link);
        drop(master); // the device goes away: the slave reads EIO
        let line = h.next_event().await;
        assert!(line.starts_with("link failed"), "{line}");
        let line = h.next_event().await;
        assert!(
            line.starts_with("link failed"),
            "retried after the pause: {line}"
        );
        let led = defs.packet_from_json("Led", 0, 0, "").expect("valid");
        assert!(
            matches!(h.request(led, Duration::ZERO).await, Outcome::NotSent(_)),
            "commands are still answered"
        );
        let end = h.finish().await;
        assert!(end.link_failures >= 2 && !end.link_up, "{end:?}");
        assert_eq!(end.send_failures, 1);
        assert!(end
            .key_values()
            .iter()
            .any(|(k, v)| k == "link_up" && v == "false"));
    }
}
