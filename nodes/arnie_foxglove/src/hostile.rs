//! Refused client input: counted, and logged at a bounded rate.
//!
//! The SDK answers bad input itself (a status message to the client) and reports it
//! through `tracing`, which forwards to the `log` facade when no `tracing` subscriber is
//! installed. [`SdkLog`] is that `log` backend: it counts each report by kind in
//! [`Counters`] and hands a rate-limited line to the node's logger.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The counter and the rate limiter every node uses (`glue_core`, no ROS).
pub use glue_core::{Counter, RateLimit};

/// Everything `/diagnostics` reports about clients.
#[derive(Debug, Default)]
pub struct Counters {
    /// Frames the SDK could not parse (not JSON, unknown op, bad binary opcode ...).
    pub garbage_frames: Counter,
    /// Subscribe or message data naming a channel id that does not exist.
    pub unknown_channel_ids: Counter,
    /// Subscribe/unsubscribe operations beyond a client's per-second budget.
    pub storm_ops: Counter,
    /// Client advertisements refused (topic not in `publish_allow`, bad schema or encoding).
    pub publish_refused: Counter,
    /// Client messages dropped (on a refused channel, or the publisher failed).
    pub publish_dropped: Counter,
    /// Client messages published on the graph.
    pub published: Counter,
    /// Parameter requests that failed (node unreachable, refused, bad value).
    pub parameter_errors: Counter,
    /// Messages handed to the SDK for subscribed clients.
    pub messages_forwarded: Counter,
    /// Latched messages replayed to late subscribers.
    pub latched_replayed: Counter,
    /// Times a client's outbox was full (the SDK drops for slow clients).
    pub outbox_full: Counter,
    /// Other warnings and errors the SDK reported.
    pub other_sdk_errors: Counter,
    /// Connections refused before the WebSocket opened (no or unknown subprotocol, not
    /// a WebSocket upgrade, a head too long, too slow or not HTTP).
    pub handshakes_refused: Counter,
    /// Connections whose TLS handshake failed or did not finish in time (`wss://`).
    pub tls_refused: Counter,
    /// Upgrade requests refused with HTTP 401: no, an empty, a huge or a wrong token.
    pub auth_refused: Counter,
    /// Upgrade requests refused with HTTP 429: too many failures from the address.
    pub auth_rate_limited: Counter,
    /// Clients accepted with a viewer (read-only) token.
    pub viewer_clients: Counter,
    /// Parameter sets, advertisements or messages refused to a viewer token.
    pub read_only_refused: Counter,
    /// Clients accepted speaking `foxglove.websocket.v1` (handshake rewritten).
    pub websocket_v1_clients: Counter,
    /// Clients accepted speaking `foxglove.sdk.v1` or `foxglove.sdk.v1.1`.
    pub sdk_v1_clients: Counter,
    /// Asset fetches answered with the file.
    pub assets_served: Counter,
    /// Asset fetches refused (not allowlisted, outside the package, missing, too large).
    pub assets_refused: Counter,
    /// Service calls answered by the ROS service.
    pub service_calls: Counter,
    /// Service calls that failed (bad request bytes, no server in time, no response).
    pub service_failures: Counter,
    /// ROS messages dropped because a subscription's queue was full (the bridge fell
    /// behind by more than `subscription_queue` messages). Shared with the subscriptions.
    pub subscription_overflow: Arc<AtomicU64>,
}

/// What one SDK report was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Report {
    /// A frame that did not parse.
    Garbage,
    /// An unknown channel id.
    UnknownChannel,
    /// A slow client's outbox was full.
    OutboxFull,
    /// Connections, start, stop: informational.
    Info,
    /// Any other warning or error.
    Other,
}

/// Classifies one SDK log message (the texts of foxglove 0.30's `connected_client.rs`).
pub fn classify(level: log::Level, message: &str) -> Report {
    let lower = message.to_ascii_lowercase();
    if lower.contains("invalid message") {
        Report::Garbage
    } else if lower.contains("unknown channel") {
        Report::UnknownChannel
    } else if lower.contains("outbox for client") {
        Report::OutboxFull
    } else if level <= log::Level::Warn {
        Report::Other
    } else {
        Report::Info
    }
}

/// Where [`SdkLog`] writes its lines: (level, text).
pub type LineSink = Box<dyn Fn(log::Level, &str) + Send + Sync>;

/// The one key of [`SdkLog`]'s rate limit: all its lines share the budget.
const SDK_LINES: &str = "sdk";

/// The `log` backend that counts the SDK's reports of bad client input.
pub struct SdkLog {
    counters: Arc<Counters>,
    limit: RateLimit,
    sink: LineSink,
}

impl SdkLog {
    /// Counts into `counters`; at most 10 lines per 10 s go to `sink`.
    pub fn new(counters: Arc<Counters>, sink: LineSink) -> Self {
        SdkLog {
            counters,
            limit: RateLimit::with_burst(10, Duration::from_secs(10)),
            sink,
        }
    }

    /// Counts and (rate-limited) logs one message.
    pub fn report(&self, level: log::Level, message: &str, now: Instant) {
        let kind = classify(level, message);
        match kind {
            Report::Garbage => self.counters.garbage_frames.inc(),
            Report::UnknownChannel => self.counters.unknown_channel_ids.inc(),
            Report::OutboxFull => self.counters.outbox_full.inc(),
            Report::Other => self.counters.other_sdk_errors.inc(),
            Report::Info => {
                (self.sink)(level, message);
                return;
            }
        };
        if let Some(suppressed) = self.limit.allow_at(SDK_LINES, 1, now) {
            if suppressed > 0 {
                (self.sink)(
                    level,
                    &format!("{message} ({suppressed} similar lines suppressed)"),
                );
            } else {
                (self.sink)(level, message);
            }
        }
    }

    /// Installs `self` as the process's `log` backend (once; later calls do nothing).
    pub fn install(self) -> bool {
        let ok = log::set_boxed_logger(Box::new(self)).is_ok();
        if ok {
            log::set_max_level(log::LevelFilter::Info);
        }
        ok
    }
}

impl log::Log for SdkLog {
    fn enabled(&self, metadata: &log::Metadata) -> bool {
        metadata.target().starts_with("foxglove") && metadata.level() <= log::Level::Info
    }

    fn log(&self, record: &log::Record) {
        if self.enabled(record.metadata()) {
            self.report(record.level(), &record.args().to_string(), Instant::now());
        }
    }

    fn flush(&self) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn sdk_reports_are_counted_by_kind_and_lines_bounded() {
        let counters = Arc::new(Counters::default());
        let lines = Arc::new(Mutex::new(Vec::new()));
        let l2 = lines.clone();
        let log = SdkLog::new(
            counters.clone(),
            Box::new(move |_, m| l2.lock().unwrap().push(m.to_string())),
        );
        let t = Instant::now();
        for _ in 0..100 {
            log.report(
                log::Level::Error,
                "Invalid message from 127.0.0.1:5: expected value",
                t,
            );
        }
        log.report(
            log::Level::Error,
            "Client 127.0.0.1:5 attempted to subscribe to unknown channel: 99",
            t,
        );
        log.report(log::Level::Info, "Registered client 127.0.0.1:5", t);
        assert_eq!(counters.garbage_frames.get(), 100);
        assert_eq!(counters.unknown_channel_ids.get(), 1);
        let lines = lines.lock().unwrap();
        assert_eq!(
            lines.len(),
            11,
            "10 rate-limited lines and the info line: {lines:?}"
        );
    }
}
