//! The node's own counters (declared once: `node_glue::counters!`), published with the
//! link loop's [`Stats`] in one `/diagnostics` status, `link`.
use node_glue::counters::CounterSet;
use node_glue::diagnostics::{Level, Status};

use crate::bridge::Stats;
use crate::front::Refusal;

node_glue::counters! {
    /// Counters of the ROS side (the link loop keeps [`Stats`]).
    pub(crate) struct Counters {
        link {
            /// `/comms/tx` messages refused (not a packet, or too large): never sent.
            tx_rejected,
            /// `/comms/send` requests refused before sending (bad packet, timeout, a cap).
            send_rejected,
            /// Of those (both inputs): `fields_json` over `max_fields_json_bytes`.
            refused_too_large,
            /// `/comms/send` requests refused: `max_requests_in_flight` already waiting.
            refused_in_flight,
            /// Packets published on `/comms/rx`.
            published,
            /// Publications that failed.
            publish_errors,
            /// `/comms/send` answers that could not be delivered.
            respond_errors,
            /// `/comms/tx` packets and `/comms/send` requests refused while the node was
            /// not active (requests answered LINK_DOWN with the reason).
            inactive_refused,
        }
    }
}

impl Counters {
    /// Counts a refusal of the cap kinds (the caller counts the input's own counter).
    pub(crate) fn count_refusal(&self, kind: Refusal) {
        match kind {
            Refusal::TooLarge => self.refused_too_large.inc(),
            Refusal::Busy => self.refused_in_flight.inc(),
            _ => {}
        }
    }

    /// The `link` status: up or down (ERROR with the last error), the loop's counts, then
    /// these counters and the requests in flight now.
    pub(crate) fn status(&self, transport: &str, stats: &Stats, in_flight: usize) -> Status {
        let (level, message) = if stats.link_up {
            (Level::Ok, format!("{transport}: up"))
        } else {
            let e = stats.last_error.as_deref().unwrap_or("?");
            (Level::Error, format!("{transport}: down: {e}"))
        };
        let mut status = CounterSet::status(self, "link")
            .message(message)
            .level(level);
        let mine = std::mem::take(&mut status.values);
        status.values = stats.key_values();
        status.values.extend(mine);
        status.with("requests_in_flight", in_flight)
    }
}
