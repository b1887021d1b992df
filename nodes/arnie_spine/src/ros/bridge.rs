//! Sockets and topics around the [`Router`]: the shared state, one task per input
//! socket ([`InputTask`]) and one per output topic ([`run_topic`]).
//!
//! The router is behind a `std::sync::Mutex` held only while routing (no `.await`, no
//! logging, no I/O inside). Sends and publishes happen after the lock is released.
//! Datagrams leave through one non-blocking sender socket (plain `sendto`, usable from
//! any thread or runtime).

use std::io;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};

use futures::{Stream, StreamExt};
use node_glue::lifecycle::{Lifecycle, LifecyclePublisher};
use node_glue::Shutdown;
use r2r::arnie_interfaces::msg::Coordinates;
use r2r::geometry_msgs::msg::PointStamped;
use tokio::net::UdpSocket;

/// Tries of a send that finds the socket buffer full, 50 µs apart, before counting a
/// send error.
const SEND_RETRIES: u32 = 20;

/// At most one warning per interface per period (the rest are counted in the next one).
const LOG_PERIOD: std::time::Duration = std::time::Duration::from_secs(1);

use super::convert;
use super::counters::GlueCounters;
use super::{Settings, SetupError};
use crate::forward::{Held, HoldReason};
use crate::gate::Verdict;
use crate::{Emit, InputId, Outcome, OutputId, Routed, Router, Scale};
use node_glue::ratelimit::{suffix, RateLimit};

/// Most datagrams drained from one socket before routing (bounds memory and the time
/// between two routings under a flood; the next wake-up is immediate anyway).
const MAX_BATCH: usize = 256;

/// A drained slot keeps its allocation for the next batch unless it grew past this.
const KEEP_SLOT_BYTES: usize = 4096;

/// The publisher of an input's topic (silent unless the node is active).
#[derive(Clone)]
pub enum TopicPublisher {
    /// `kind: "point"`.
    Point(LifecyclePublisher<PointStamped>),
    /// `kind: "coordinates"`.
    Coordinates(LifecyclePublisher<Coordinates>),
}

/// The subscription of an output's topic.
pub enum TopicStream {
    /// `kind: "point"`.
    Point(Box<dyn Stream<Item = PointStamped> + Unpin + Send>),
    /// `kind: "coordinates"`.
    Coordinates(Box<dyn Stream<Item = Coordinates> + Unpin + Send>),
}

/// State shared by every task.
pub struct Shared {
    router: Mutex<Router>,
    sender_v4: std::net::UdpSocket,
    /// Only if an output has an IPv6 address.
    sender_v6: Option<std::net::UdpSocket>,
    /// Metres per wire unit.
    pub scale: Scale,
    /// Frame of published messages, and the one accepted on output topics.
    pub frame_id: String,
    /// Longest accepted datagram \[bytes\].
    pub max_datagram: usize,
    /// Glue counters per input (config order).
    pub input_extra: Vec<GlueCounters>,
    /// Glue counters per output (config order).
    pub output_extra: Vec<GlueCounters>,
    input_names: Vec<String>,
    output_names: Vec<String>,
    /// Rate-limited log lines, one key per interface (`input.<k>`, `output.<k>`).
    logs: RateLimit,
    /// The node's lifecycle: nothing is forwarded unless it is active.
    lc: Lifecycle,
}

impl Shared {
    /// Shared state around `router`; binds the sender socket(s) (ephemeral ports).
    ///
    /// # Errors
    /// [`SetupError::SenderSocket`] if the sender socket cannot be created.
    pub fn new(router: Router, settings: &Settings, lc: Lifecycle) -> Result<Self, SetupError> {
        let config = router.config();
        let sender_v4 =
            bind(SocketAddr::from((Ipv4Addr::UNSPECIFIED, 0))).map_err(SetupError::SenderSocket)?;
        let sender_v6 = if config.outputs.iter().any(|o| o.addr.is_ipv6()) {
            Some(
                bind(SocketAddr::from((Ipv6Addr::UNSPECIFIED, 0)))
                    .map_err(SetupError::SenderSocketV6)?,
            )
        } else {
            None
        };
        Ok(Shared {
            input_extra: config
                .inputs
                .iter()
                .map(|_| GlueCounters::default())
                .collect(),
            output_extra: config
                .outputs
                .iter()
                .map(|_| GlueCounters::default())
                .collect(),
            input_names: config.inputs.iter().map(|i| i.name.clone()).collect(),
            output_names: config.outputs.iter().map(|o| o.name.clone()).collect(),
            logs: RateLimit::new(LOG_PERIOD),
            sender_v4,
            sender_v6,
            scale: settings.scale,
            frame_id: settings.frame_id.clone(),
            max_datagram: settings.limits.max_datagram,
            router: Mutex::new(router),
            lc,
        })
    }

    /// True while the node forwards (it is active).
    pub fn forwarding(&self) -> bool {
        self.lc.is_active()
    }

    /// The router (a poisoned lock is taken over: routing never panics, and counters
    /// stay meaningful).
    pub fn router(&self) -> MutexGuard<'_, Router> {
        self.router
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn output_name(&self, id: OutputId) -> &str {
        self.output_names
            .get(id.index())
            .map(String::as_str)
            .unwrap_or("?")
    }

    /// Sends the emits (the wire first), then publishes on `publisher` (input `k`'s
    /// topic, if any), then logs what was held. The publisher is not `Sync`: it is only
    /// used after the last `.await`.
    async fn deliver(
        &self,
        routed: Routed,
        publisher: Option<(usize, &mut Option<TopicPublisher>)>,
    ) {
        for emit in &routed.emits {
            self.send(emit).await;
        }
        if let (Some((k, Some(publisher))), Some(global)) = (publisher, &routed.publish) {
            self.publish(k, publisher, global);
        }
        for held in &routed.held {
            self.log_held(held);
        }
    }

    async fn send(&self, emit: &Emit) {
        let socket = match (emit.to.is_ipv4(), &self.sender_v6) {
            (true, _) => &self.sender_v4,
            (false, Some(v6)) => v6,
            (false, None) => &self.sender_v4, // unreachable by construction; the send fails and is counted
        };
        let mut sent = socket.send_to(&emit.bytes, emit.to);
        for _ in 0..SEND_RETRIES {
            match &sent {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    tokio::time::sleep(std::time::Duration::from_micros(50)).await;
                    sent = socket.send_to(&emit.bytes, emit.to);
                }
                _ => break,
            }
        }
        if let Err(e) = sent {
            let k = emit.output.index();
            if let Some(c) = self.output_extra.get(k) {
                c.send_errors.inc();
            }
            if let Some(suppressed) = self.output_log(k) {
                node_glue::log_warn!(
                    "output {:?}: cannot send to {}: {e}{}",
                    self.output_name(emit.output),
                    emit.to,
                    suffix(suppressed)
                );
            }
        }
    }

    fn publish(&self, k: usize, publisher: &TopicPublisher, global: &[crate::Item]) {
        let Some(extra) = self.input_extra.get(k) else {
            return;
        };
        let result = match publisher {
            TopicPublisher::Point(p) => {
                match convert::point_msg(global, self.scale, &self.frame_id) {
                    Some(msg) => p.publish(&msg),
                    None => {
                        extra.unpublishable.inc();
                        return;
                    }
                }
            }
            TopicPublisher::Coordinates(p) => p.publish(&convert::coordinates_msg(
                global,
                self.scale,
                &self.frame_id,
            )),
        };
        if let Err(e) = result {
            extra.publish_errors.inc();
            node_glue::log_warn!("input {:?}: publish failed: {e}", self.input_names.get(k));
        }
    }

    /// `Some(suppressed)` if output `k` may log now.
    fn output_log(&self, k: usize) -> Option<u64> {
        self.logs.allow(&format!("output.{k}"))
    }

    fn log_held(&self, held: &Held) {
        let why = match &held.reason {
            HoldReason::Gate(Verdict::Duplicate) | HoldReason::Gate(Verdict::Send) => return,
            HoldReason::Gate(Verdict::TooFar {
                dist_mm,
                threshold_mm,
            }) => {
                format!("dropped: {dist_mm:.1} mm from the last value sent (threshold {threshold_mm} mm)")
            }
            HoldReason::Gate(Verdict::TooShort { len, need }) => {
                format!("dropped: the first item has {len} values, the radius check needs {need}")
            }
            HoldReason::Gate(Verdict::NotFinite) => "dropped: NaN or infinite value".to_string(),
            HoldReason::Unsendable(r) => format!("cannot send: {r}"),
        };
        if let Some(suppressed) = self.output_log(held.output.index()) {
            node_glue::log_warn!(
                "output {:?}: {why}{}",
                self.output_name(held.output),
                suffix(suppressed)
            );
        }
    }
}

/// A non-blocking UDP socket bound to `addr`.
fn bind(addr: SocketAddr) -> io::Result<std::net::UdpSocket> {
    let socket = std::net::UdpSocket::bind(addr)?;
    socket.set_nonblocking(true)?;
    Ok(socket)
}

/// Binds every input's socket, in config order (non-blocking; each [`InputTask`] hands
/// its socket to the runtime it runs on), with a receive buffer of `recv_buffer_bytes`
/// (0: the kernel's default). A burst waits there until the task drains it, so a larger
/// buffer turns uncounted kernel drops into counted `stale_dropped`, at no latency cost.
///
/// # Errors
/// [`SetupError::Bind`] naming the input and address that cannot be bound.
pub fn bind_inputs(
    shared: &Shared,
    recv_buffer_bytes: usize,
) -> Result<Vec<(InputId, std::net::UdpSocket)>, SetupError> {
    let binds: Vec<(InputId, String, SocketAddr)> = {
        let router = shared.router();
        router
            .input_ids()
            .zip(&router.config().inputs)
            .map(|(id, i)| (id, i.name.clone(), i.bind))
            .collect()
    };
    let mut sockets = Vec::with_capacity(binds.len());
    for (id, name, addr) in binds {
        let socket = bind(addr).map_err(|source| SetupError::Bind {
            input: name.clone(),
            addr,
            source,
        })?;
        let sock = socket2::SockRef::from(&socket);
        if recv_buffer_bytes > 0 {
            if let Err(e) = sock.set_recv_buffer_size(recv_buffer_bytes) {
                node_glue::log_warn!("input {name:?}: cannot set the receive buffer to {recv_buffer_bytes} bytes: {e}");
            }
        }
        match sock.recv_buffer_size() {
            Ok(n) => node_glue::log_info!("input {name:?}: bound {addr}, receive buffer {n} bytes"),
            Err(_) => node_glue::log_info!("input {name:?}: bound {addr}"),
        }
        sockets.push((id, socket));
    }
    Ok(sockets)
}

/// Datagrams drained in one wake-up, oldest first. Slots are reused between batches.
#[derive(Default)]
struct Batch {
    slots: Vec<(SocketAddr, Vec<u8>)>,
    len: usize,
}

impl Batch {
    fn push(&mut self, from: SocketAddr, bytes: &[u8]) {
        if let Some(slot) = self.slots.get_mut(self.len) {
            slot.0 = from;
            slot.1.clear();
            slot.1.extend_from_slice(bytes);
        } else {
            self.slots.push((from, bytes.to_vec()));
        }
        self.len += 1;
    }

    fn clear(&mut self) {
        for slot in &mut self.slots[..self.len] {
            if slot.1.capacity() > KEEP_SLOT_BYTES {
                slot.1 = Vec::new();
            }
        }
        self.len = 0;
    }
}

/// One input socket: receive, drain, route, send, publish.
pub struct InputTask {
    shared: Arc<Shared>,
    index: usize,
    id: InputId,
    name: String,
    streamed: bool,
    /// Bound, not yet registered with a runtime (done in [`InputTask::run`]).
    socket: Option<std::net::UdpSocket>,
    publisher: Option<TopicPublisher>,
    log: RateLimit,
    batch: Batch,
}

impl InputTask {
    /// The task of input `id` on its bound `socket`.
    pub fn new(
        shared: Arc<Shared>,
        id: InputId,
        socket: std::net::UdpSocket,
        publisher: Option<TopicPublisher>,
    ) -> Self {
        let (name, streamed) = {
            let router = shared.router();
            let input = router.config().inputs.get(id.index());
            (input.map(|i| i.name.clone()), input.map(|i| i.streamed))
        };
        InputTask {
            id,
            index: id.index(),
            name: name.unwrap_or_default(),
            streamed: streamed.unwrap_or(true),
            shared,
            socket: Some(socket),
            publisher,
            log: RateLimit::new(LOG_PERIOD),
            batch: Batch::default(),
        }
    }

    /// Runs until `shutdown`, on the runtime it is spawned on.
    pub async fn run(mut self, shutdown: Shutdown) {
        let registered = self.socket.take().map(UdpSocket::from_std);
        let socket = match registered {
            Some(Ok(socket)) => socket,
            Some(Err(e)) => {
                node_glue::log_error!("input {:?}: cannot use its socket: {e}", self.name);
                return;
            }
            None => return,
        };
        // One byte more than the limit, so an oversized datagram is seen as oversized
        // (the kernel truncates to the buffer) instead of being cut to a valid length.
        let mut buf = vec![0u8; self.shared.max_datagram.saturating_add(1)];
        let down = shutdown.wait();
        tokio::pin!(down);
        loop {
            let first = tokio::select! {
                biased;
                got = socket.recv_from(&mut buf) => got,
                _ = &mut down => break,
            };
            match first {
                Ok((n, from)) => self.batch.push(from, &buf[..n.min(buf.len())]),
                Err(e) => {
                    self.receive_error(e);
                    // A persistent error must not spin a worker.
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                    continue;
                }
            }
            if self.streamed {
                while self.batch.len < MAX_BATCH {
                    match socket.try_recv_from(&mut buf) {
                        Ok((n, from)) => self.batch.push(from, &buf[..n.min(buf.len())]),
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                        Err(e) => {
                            self.receive_error(e);
                            break;
                        }
                    }
                }
            }
            self.route_batch().await;
        }
    }

    fn receive_error(&mut self, e: io::Error) {
        if let Some(c) = self.shared.input_extra.get(self.index) {
            c.receive_errors.inc();
        }
        if let Some(suppressed) = self.log.allow("input") {
            node_glue::log_warn!(
                "input {:?}: receive error: {e}{}",
                self.name,
                suffix(suppressed)
            );
        }
    }

    /// Routes the newest acceptable datagram of the batch; older ones are stale. While
    /// the node is not active, the whole batch is counted `inactive_dropped`.
    async fn route_batch(&mut self) {
        let n = self.batch.len;
        if !self.shared.forwarding() {
            if let Some(c) = self.shared.input_extra.get(self.index) {
                c.inactive_dropped.add(n as u64);
            }
            self.batch.clear();
            return;
        }
        let mut chosen = None;
        let mut rejected = 0u64;
        let mut newest_rejection = None;
        {
            let mut router = self.shared.router();
            for k in (0..n).rev() {
                let Some((from, bytes)) = self.batch.slots.get(k) else {
                    continue;
                };
                let routed = router.on_datagram(self.id, *from, bytes);
                match routed.outcome {
                    Outcome::Rejected(_) | Outcome::Unauthorised(_) => {
                        rejected += 1;
                        if newest_rejection.is_none() {
                            newest_rejection = Some((*from, bytes.len(), routed.outcome));
                        }
                    }
                    _ => {
                        if k > 0 {
                            router.note_stale(self.id, k as u64);
                        }
                        chosen = Some(routed);
                        break;
                    }
                }
            }
        }
        self.batch.clear();
        if let Some(routed) = chosen {
            self.shared
                .deliver(routed, Some((self.index, &mut self.publisher)))
                .await;
        }
        if let Some((from, len, outcome)) = newest_rejection {
            if let Some(suppressed) =
                self.log
                    .allow_at("input", rejected, std::time::Instant::now())
            {
                let why = match outcome {
                    Outcome::Rejected(r) => format!("rejected ({}): {r}", r.kind()),
                    Outcome::Unauthorised(_) => {
                        "rejected: source not in allowedSources".to_string()
                    }
                    _ => String::new(),
                };
                node_glue::log_warn!(
                    "input {:?}: {len} bytes from {from} {why}{}",
                    self.name,
                    suffix(suppressed)
                );
            }
        }
    }
}

/// One output topic: values \[m\] → router → datagrams.
pub async fn run_topic(shared: Arc<Shared>, index: usize, stream: TopicStream, shutdown: Shutdown) {
    let Some(id) = shared.router().output_ids().nth(index) else {
        return;
    };
    let mut stream = stream;
    let down = shutdown.wait();
    tokio::pin!(down);
    loop {
        let next = tokio::select! {
            biased;
            msg = next_items(&mut stream, &shared) => msg,
            _ = &mut down => break,
        };
        let items = match next {
            None => break,
            Some(Err(frame)) => {
                if let Some(c) = shared.output_extra.get(index) {
                    c.wrong_frame.inc();
                }
                if let Some(suppressed) = shared.output_log(index) {
                    node_glue::log_warn!(
                        "output {:?}: ignored a message in frame {frame:?} (expected {:?}){}",
                        shared.output_name(id),
                        shared.frame_id,
                        suffix(suppressed)
                    );
                }
                continue;
            }
            Some(Ok(items)) => items,
        };
        if !shared.forwarding() {
            if let Some(c) = shared.output_extra.get(index) {
                c.topic_inactive_dropped.inc();
            }
            continue;
        }
        let routed = shared.router().on_topic(id, &items);
        if let Outcome::Rejected(r) = &routed.outcome {
            if let Some(suppressed) = shared.output_log(index) {
                node_glue::log_warn!(
                    "output {:?}: rejected a topic value ({}): {r}{}",
                    shared.output_name(id),
                    r.kind(),
                    suffix(suppressed)
                );
            }
        }
        shared.deliver(routed, None).await;
    }
}

/// Output `index`'s `resendIntervalMs`: every `interval` in which the output sent
/// nothing new, its last value sent goes out again (counted `resent`; the gate, hence the
/// radius check and de-duplication, is unchanged). A value is so re-sent between one and
/// two intervals after the output fell silent, then every interval.
pub async fn run_resend(
    shared: Arc<Shared>,
    index: usize,
    interval: std::time::Duration,
    shutdown: Shutdown,
) {
    let Some(id) = shared.router().output_ids().nth(index) else {
        return;
    };
    let forwarded = |shared: &Shared| {
        shared
            .router()
            .output_counters(id)
            .map_or(0, |c| c.forwarded)
    };
    let mut seen = forwarded(&shared);
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + interval, interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let down = shutdown.wait();
    tokio::pin!(down);
    loop {
        tokio::select! {
            biased;
            _ = &mut down => break,
            _ = ticks.tick() => {}
        }
        if !shared.forwarding() {
            continue;
        }
        let emit = {
            let mut router = shared.router();
            let now = router.output_counters(id).map_or(0, |c| c.forwarded);
            if now != seen {
                seen = now;
                None
            } else {
                router.resend(id)
            }
        };
        if let Some(emit) = emit {
            shared.send(&emit).await;
        }
    }
}

/// The next message as items \[mm\], or `Err(frame)` if it is in a foreign frame;
/// `None` when the subscription ended.
async fn next_items(
    stream: &mut TopicStream,
    shared: &Shared,
) -> Option<Result<Vec<crate::Item>, String>> {
    let accept = |frame: &str| frame.is_empty() || frame == shared.frame_id;
    match stream {
        TopicStream::Point(s) => {
            let msg = s.next().await?;
            Some(if accept(&msg.header.frame_id) {
                Ok(convert::items_from_point(&msg, shared.scale))
            } else {
                Err(msg.header.frame_id)
            })
        }
        TopicStream::Coordinates(s) => {
            let msg = s.next().await?;
            Some(if accept(&msg.header.frame_id) {
                Ok(convert::items_from_coordinates(&msg, shared.scale))
            } else {
                Err(msg.header.frame_id)
            })
        }
    }
}
