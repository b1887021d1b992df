//! What goes into the bridge loop ([`Command`], [`Settings`]) and what comes out of it
//! ([`Outcome`], [`Event`], [`Stats`]).
use crate::counters::{Counters, Rejected};
use crate::error::Error;
use crate::link::Received;
use crate::packet::Packet;
use tokio::sync::oneshot;
use tokio::time::Duration;

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
        /// The packet.
        packet: Packet,
        /// How long to wait for the reply.
        timeout: Duration,
        /// Where the outcome goes.
        done: oneshot::Sender<Outcome>,
    },
}

/// The answer to a [`Command::Request`].
#[derive(Debug)]
pub enum Outcome {
    /// Written; the definition names no reply.
    Sent {
        /// The bytes written.
        raw: Vec<u8>,
    },
    /// Written, and its reply arrived.
    Reply {
        /// The bytes written.
        raw: Vec<u8>,
        /// The reply, as received.
        reply: Received,
    },
    /// Written, but the reply did not arrive within the timeout.
    NoReply {
        /// The bytes written.
        raw: Vec<u8>,
        /// The command id of the awaited reply.
        reply_id: u8,
        /// How long to wait for the reply.
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
    Sent {
        /// The packet.
        packet: &'a Packet,
        /// The bytes written.
        raw: &'a [u8],
    },
    /// A packet could not be written.
    SendFailed {
        /// The packet.
        packet: &'a Packet,
        /// Why.
        error: &'a Error,
    },
    /// The transport failed to read; reading is retried after [`Settings::retry_after`].
    LinkFailed(&'a Error),
    /// A request's reply did not come in time.
    ReplyTimedOut {
        /// The request's packet name.
        request: &'a str,
        /// The command id of the awaited reply.
        reply_id: u8,
    },
    /// A reliable packet was sent again (`attempt` 2 = the first repeat).
    Repeated {
        /// The packet.
        packet: &'a Packet,
        /// This send's number (2 = the first repeat).
        attempt: u32,
    },
    /// A reliable packet got no acknowledgement after `attempts` sends: not repeated any
    /// more (its request, if any, still waits for its timeout).
    GaveUp {
        /// The packet.
        packet: &'a Packet,
        /// Sends made.
        attempts: u32,
    },
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
