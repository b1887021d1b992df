//! [`Front`]: the one way outside input becomes work for the bridge loop. A packet asked
//! for by a fire-and-forget message (`/comms/tx`) or by a send request (`/comms/send`)
//! goes through the same steps: size cap, definition by name or id, fields from JSON,
//! device, then a [`Command`] on the loop's bounded channel. A send request is also
//! bounded in number: at most [`Limits::max_requests_in_flight`] wait for their outcome at
//! once; one more is refused at once ([`Refusal::Busy`]), never queued.
//!
//! Every refusal comes back as a [`Refused`] value (the kind, to count, and the reason,
//! for the caller); every request ends in an [`Answer`] with the interface's outcome
//! [`Code`]. Nothing here uses ROS.
use crate::bridge::{Command, Outcome};
use crate::definition::Definitions;
use crate::error::Error;
use crate::link::Received;
use crate::packet::Packet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// Longest reply wait a request may ask for [s].
pub const MAX_REPLY_TIMEOUT_S: f64 = 3600.0;

/// The caps and defaults of requests (live: read at each request).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The reply wait of a request that asks for 0.
    pub default_reply_timeout: Duration,
    /// Longest `fields_json` accepted [bytes]; longer is refused before parsing.
    pub max_fields_json_bytes: usize,
    /// Send requests waiting for their outcome at once; one more is refused.
    pub max_requests_in_flight: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            default_reply_timeout: Duration::from_millis(1000),
            max_fields_json_bytes: 65_536,
            max_requests_in_flight: 32,
        }
    }
}

/// A packet as outside input names it (the `Packet` message's fields).
#[derive(Clone, Copy, Debug)]
pub struct PacketSpec<'a> {
    /// The definition's name; empty = by `id`.
    pub name: &'a str,
    /// The definition's command id, used when `name` is empty.
    pub id: u8,
    /// The device; 0 on CAN = the bridge's default device.
    pub device: u8,
    /// The fields as a JSON object (missing fields at their defaults; empty = `{}`).
    pub fields_json: &'a str,
}

impl PacketSpec<'_> {
    /// What it names, for log lines: `"Ping"` or `id 7`.
    pub fn label(&self) -> String {
        if self.name.is_empty() {
            format!("id {}", self.id)
        } else {
            format!("{:?}", self.name)
        }
    }
}

/// How a send request ended: the `SendPacket` response's `outcome` constants, by meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    /// Sent (and the reply came, when one was expected).
    Ok,
    /// No definition with that name or id.
    UnknownPacket,
    /// Fields missing, of the wrong type or out of range.
    InvalidFields,
    /// The link is down, the write failed or the bridge is stopping.
    LinkDown,
    /// A reply was expected and did not come in time.
    Timeout,
    /// Refused by the bridge's limits (size, requests in flight, timeout range).
    Rejected,
}

/// Why a packet or request was refused before anything was sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// No definition with that name or id.
    UnknownPacket,
    /// Bad JSON, an unknown field, a value of the wrong type or out of range.
    InvalidFields,
    /// `fields_json` longer than [`Limits::max_fields_json_bytes`].
    TooLarge,
    /// [`Limits::max_requests_in_flight`] requests already wait for their outcome.
    Busy,
    /// The request's `timeout_s` is negative, not finite or over [`MAX_REPLY_TIMEOUT_S`].
    BadTimeout,
}

impl Refusal {
    /// The outcome code a refused request is answered with.
    pub fn code(self) -> Code {
        match self {
            Refusal::UnknownPacket => Code::UnknownPacket,
            Refusal::InvalidFields => Code::InvalidFields,
            Refusal::TooLarge | Refusal::Busy | Refusal::BadTimeout => Code::Rejected,
        }
    }
}

/// A refusal and its reason (the text the caller gets).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct Refused {
    /// The kind, to count.
    pub kind: Refusal,
    /// Why, naming the rule or the field.
    pub reason: String,
}

/// The end of a send request.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// The outcome.
    pub code: Code,
    /// What happened, for the caller.
    pub message: String,
    /// The reply packet, when the definition names one and it came in time.
    pub reply: Option<Received>,
}

impl Answer {
    fn failure(code: Code, message: String) -> Answer {
        Answer {
            code,
            message,
            reply: None,
        }
    }

    /// The answer to a refused request.
    pub fn refused(r: &Refused) -> Answer {
        Answer::failure(r.kind.code(), r.reason.clone())
    }

    /// True for [`Code::Ok`].
    pub fn success(&self) -> bool {
        self.code == Code::Ok
    }
}

/// A send request admitted: its packet, its reply wait, and its place among the requests
/// in flight (given back when this is dropped).
#[derive(Debug)]
pub struct Admitted {
    /// The packet to send.
    pub packet: Packet,
    /// How long to wait for its reply.
    pub timeout: Duration,
    _slot: Slot,
}

/// One of the [`Limits::max_requests_in_flight`] places; freed on drop.
#[derive(Debug)]
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The bridge's front door (see the module doc). Cheap to clone: every clone shares the
/// definitions, the loop's channel and the count of requests in flight.
#[derive(Clone, Debug)]
pub struct Front {
    defs: Arc<Definitions>,
    default_device: Option<u8>,
    commands: mpsc::Sender<Command>,
    in_flight: Arc<AtomicUsize>,
}

impl Front {
    /// A front door to the loop fed by `commands`; on CAN, packets with device 0 go to
    /// `default_device` (`None` on UART).
    pub fn new(
        defs: Arc<Definitions>,
        default_device: Option<u8>,
        commands: mpsc::Sender<Command>,
    ) -> Front {
        Front {
            defs,
            default_device,
            commands,
            in_flight: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Send requests waiting for their outcome now.
    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Acquire)
    }

    /// The packet `spec` names, checked against the definitions and the size cap.
    ///
    /// # Errors
    /// [`Refusal::TooLarge`], [`Refusal::UnknownPacket`] or [`Refusal::InvalidFields`].
    pub fn packet(&self, spec: &PacketSpec<'_>, limits: &Limits) -> Result<Packet, Refused> {
        let len = spec.fields_json.len();
        if len > limits.max_fields_json_bytes {
            return Err(Refused {
                kind: Refusal::TooLarge,
                reason: format!(
                    "fields_json is {len} bytes, over max_fields_json_bytes {}",
                    limits.max_fields_json_bytes
                ),
            });
        }
        let device = match (spec.device, self.default_device) {
            (0, Some(d)) => d,
            (d, _) => d,
        };
        self.defs
            .packet_from_json(spec.name, spec.id, device, spec.fields_json)
            .map_err(|e| Refused {
                kind: match e {
                    Error::UnknownName(_) | Error::UnknownId(_) => Refusal::UnknownPacket,
                    _ => Refusal::InvalidFields,
                },
                reason: e.to_string(),
            })
    }

    /// Fire and forget: the packet goes to the loop (waiting while its queue is full).
    /// `Ok(false)` when the loop has stopped (shutting down).
    ///
    /// # Errors
    /// The packet's refusal ([`Front::packet`]).
    pub async fn send(&self, spec: &PacketSpec<'_>, limits: &Limits) -> Result<bool, Refused> {
        let packet = self.packet(spec, limits)?;
        Ok(self.commands.send(Command::Send(packet)).await.is_ok())
    }

    /// Admits a send request: a place among those in flight, its reply wait (`timeout_s`
    /// 0 = [`Limits::default_reply_timeout`]) and its packet. Decided at once.
    ///
    /// # Errors
    /// [`Refusal::Busy`], [`Refusal::BadTimeout`] or the packet's refusal.
    pub fn admit(
        &self,
        spec: &PacketSpec<'_>,
        timeout_s: f64,
        limits: &Limits,
    ) -> Result<Admitted, Refused> {
        let max = limits.max_requests_in_flight;
        let taken = self
            .in_flight
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            });
        if let Err(n) = taken {
            return Err(Refused {
                kind: Refusal::Busy,
                reason: format!(
                    "{n} requests already wait for their outcome (max_requests_in_flight {max}); try again later"
                ),
            });
        }
        let slot = Slot(self.in_flight.clone());
        let timeout = reply_timeout(timeout_s, limits.default_reply_timeout)?;
        let packet = self.packet(spec, limits)?;
        Ok(Admitted {
            packet,
            timeout,
            _slot: slot,
        })
    }

    /// Sends an admitted request and waits for its outcome.
    pub async fn request(&self, admitted: Admitted) -> Answer {
        let Admitted {
            packet,
            timeout,
            _slot,
        } = admitted;
        let request = packet.name().to_string();
        let (done, outcome) = oneshot::channel();
        let command = Command::Request {
            packet,
            timeout,
            done,
        };
        let stopping = || Answer::failure(Code::LinkDown, "the bridge is shutting down".into());
        if self.commands.send(command).await.is_err() {
            return stopping();
        }
        match outcome.await {
            Ok(outcome) => answer(&request, outcome, &self.defs),
            Err(_) => stopping(),
        }
    }
}

/// The request's reply wait: `default` for 0.
fn reply_timeout(timeout_s: f64, default: Duration) -> Result<Duration, Refused> {
    if timeout_s == 0.0 {
        return Ok(default);
    }
    if !(timeout_s.is_finite() && timeout_s > 0.0 && timeout_s <= MAX_REPLY_TIMEOUT_S) {
        return Err(Refused {
            kind: Refusal::BadTimeout,
            reason: format!(
                "timeout_s {timeout_s} must be 0 (the default) or in (0, {MAX_REPLY_TIMEOUT_S}]"
            ),
        });
    }
    Ok(Duration::from_secs_f64(timeout_s))
}

/// The loop's [`Outcome`] as an answer: success means written, and (when the definition
/// names a reply) answered in time.
pub fn answer(request: &str, outcome: Outcome, defs: &Definitions) -> Answer {
    match outcome {
        Outcome::Sent { raw } => Answer {
            code: Code::Ok,
            message: format!("sent {request} ({} bytes); it has no reply", raw.len()),
            reply: None,
        },
        Outcome::Reply { reply, .. } => Answer {
            code: Code::Ok,
            message: format!("sent {request}, reply {}", reply.packet.name()),
            reply: Some(reply),
        },
        Outcome::NoReply {
            reply_id, timeout, ..
        } => {
            let reply = defs
                .get(reply_id)
                .map_or_else(|| format!("command {reply_id}"), |d| d.name.clone());
            Answer::failure(
                Code::Timeout,
                format!(
                    "sent {request}, but no {reply} within {} ms",
                    timeout.as_millis()
                ),
            )
        }
        Outcome::NotSent(e) => Answer::failure(Code::LinkDown, format!("{request} not sent: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn front() -> (Front, mpsc::Receiver<Command>) {
        let defs = Definitions::from_texts([
            (
                "ping",
                r#"{"name":"Ping","id":1,"reply":"Pong","data":{"seq":{"type":"uint16"}}}"#,
            ),
            (
                "pong",
                r#"{"name":"Pong","id":2,"data":{"seq":{"type":"uint16"}}}"#,
            ),
        ])
        .expect("valid");
        let (tx, rx) = mpsc::channel(4);
        (Front::new(Arc::new(defs), Some(5), tx), rx)
    }

    fn spec(fields_json: &str) -> PacketSpec<'_> {
        PacketSpec {
            name: "Ping",
            id: 0,
            device: 0,
            fields_json,
        }
    }

    #[test]
    fn packets_are_checked_and_capped() {
        let (f, _rx) = front();
        let limits = Limits {
            max_fields_json_bytes: 12,
            ..Limits::default()
        };
        let p = f.packet(&spec(r#"{"seq":3}"#), &limits).expect("valid");
        assert_eq!(p.device, 5, "device 0 goes to the default device");
        let e = f.packet(&spec(r#"{"seq":     3}"#), &limits).unwrap_err();
        assert_eq!(e.kind, Refusal::TooLarge);
        assert!(e.reason.contains("max_fields_json_bytes 12"), "{e}");
        let e = f.packet(&spec(r#"{"seq":-1}"#), &limits).unwrap_err();
        assert_eq!(e.kind.code(), Code::InvalidFields);
        let unknown = PacketSpec {
            name: "",
            id: 9,
            ..spec("")
        };
        assert_eq!(unknown.label(), "id 9");
        let e = f.packet(&unknown, &limits).unwrap_err();
        assert_eq!(e.kind.code(), Code::UnknownPacket);
    }

    #[test]
    fn requests_in_flight_are_capped_and_their_places_given_back() {
        let (f, _rx) = front();
        let limits = Limits {
            max_requests_in_flight: 2,
            ..Limits::default()
        };
        let a = f.admit(&spec(""), 0.0, &limits).expect("first");
        assert_eq!(a.timeout, limits.default_reply_timeout);
        let b = f.admit(&spec(""), 0.5, &limits).expect("second");
        assert_eq!(b.timeout, Duration::from_millis(500));
        let e = f.admit(&spec(""), 0.0, &limits).unwrap_err();
        assert_eq!((e.kind, e.kind.code()), (Refusal::Busy, Code::Rejected));
        assert!(e.reason.contains("max_requests_in_flight 2"), "{e}");
        assert_eq!(f.in_flight(), 2);
        drop(a);
        assert_eq!(f.in_flight(), 1);
        for bad in [-1.0, f64::NAN, f64::INFINITY, 1e9] {
            let e = f.admit(&spec(""), bad, &limits).unwrap_err();
            assert_eq!(e.kind, Refusal::BadTimeout, "{bad}");
        }
        let e = f.admit(&spec("{"), 0.0, &limits).unwrap_err();
        assert_eq!(e.kind, Refusal::InvalidFields);
        assert_eq!(f.in_flight(), 1, "refused requests give their place back");
        drop(b);
        assert_eq!(f.in_flight(), 0);
    }

    #[tokio::test]
    async fn a_request_to_a_stopped_loop_is_answered_link_down() {
        let (f, rx) = front();
        drop(rx);
        let a = f
            .admit(&spec(""), 0.0, &Limits::default())
            .expect("admitted");
        let answer = f.request(a).await;
        assert_eq!(answer.code, Code::LinkDown);
        assert!(!answer.success());
        assert_eq!(f.in_flight(), 0);
        assert_eq!(f.send(&spec(""), &Limits::default()).await, Ok(false));
    }
}
