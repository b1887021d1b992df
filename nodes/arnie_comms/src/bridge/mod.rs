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
//!
//! Layout: [`transport`] (the wire to open), [`types`] (what goes in and out of the
//! loop: [`Command`], [`Outcome`], [`Event`], [`Stats`], [`Settings`]), this module
//! (the loop itself).
#[cfg(test)]
mod tests;
mod transport;
mod types;

pub use transport::Transport;
pub use types::{Command, Event, Outcome, Settings, Stats};

use crate::error::Result;
use crate::link::{Link, LinkEvent};
use crate::packet::Packet;
use crate::reliable::{self, Arrival, Due, Receiver, Repeater};
use crate::reply::{ReplyTracker, Ticket};
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};
use tokio::time::{sleep_until, Duration, Instant};

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
/// `commands` is the receiver or a `&mut` to it (a caller that runs the loop again on
/// a new link keeps its receiver).
pub async fn run(
    mut link: Link,
    mut commands: impl std::borrow::BorrowMut<mpsc::Receiver<Command>>,
    settings: Settings,
    mut on_event: impl FnMut(Event<'_>),
    stats: Arc<Mutex<Stats>>,
    shutdown: impl Future,
) -> Stats {
    let commands: &mut mpsc::Receiver<Command> = commands.borrow_mut();
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
