//! The link loop's reporter: publishes received packets on `/comms/rx`, logs the rest.
//! Every line the wire can trigger (rejections, failures, repeats, duplicates, give-ups,
//! timeouts) is rate-limited per kind by one `node_glue` [`RateLimit`] (one line a second
//! a kind, then "(K more suppressed)"); the counts are in [`crate::bridge::Stats`].
use node_glue::lifecycle::LifecyclePublisher;
use std::sync::Arc;
use std::time::Duration;

use node_glue::r2r::arnie_interfaces::msg::Packet as PacketMsg;
use node_glue::ratelimit::{suffix, RateLimit};
use node_glue::{topics, warn_limited};

use super::convert::to_msg;
use super::counters::Counters;
use crate::bridge::Event;

/// The reporter closure given to [`crate::bridge::run`].
pub(crate) fn handler(
    rx_pub: LifecyclePublisher<PacketMsg>,
    counters: Arc<Counters>,
) -> impl FnMut(Event<'_>) + Send + 'static {
    let limit = RateLimit::new(Duration::from_secs(1));
    move |event| match event {
        Event::Received(r) => match rx_pub.publish(&to_msg(r)) {
            Ok(()) => counters.published.inc(),
            Err(e) => {
                counters.publish_errors.inc();
                warn_limited!(
                    limit,
                    "publish",
                    "cannot publish {} on {}: {e}",
                    r.packet.name(),
                    topics::COMMS_RX
                );
            }
        },
        Event::Rejected(r) => warn_limited!(limit, "rejected", "link: {r}"),
        Event::Sent { packet, raw } => {
            node_glue::log_debug!(
                "sent {} {} ({} bytes)",
                packet.name(),
                packet.fields_json(),
                raw.len()
            );
        }
        Event::SendFailed { packet, error } => warn_limited!(
            limit,
            "send_failed",
            "cannot send {}: {error}",
            packet.name()
        ),
        Event::LinkFailed(e) => {
            if let Some(n) = limit.allow("link_failed") {
                node_glue::log_error!("link read failed (retrying): {e}{}", suffix(n));
            }
        }
        Event::ReplyTimedOut { request, reply_id } => warn_limited!(
            limit,
            "reply_timeout",
            "no reply (command {reply_id}) to {request} in time"
        ),
        Event::Repeated { packet, attempt } => {
            if let Some(n) = limit.allow("repeated") {
                node_glue::log_info!(
                    "repeating {} {} (send {attempt}): no acknowledgement yet{}",
                    packet.name(),
                    packet.fields_json(),
                    suffix(n)
                );
            }
        }
        Event::GaveUp { packet, attempts } => warn_limited!(
            limit,
            "gave_up",
            "gave up {} {}: no acknowledgement after {attempts} sends",
            packet.name(),
            packet.fields_json()
        ),
        Event::Duplicate(r) => {
            if let Some(n) = limit.allow("duplicate") {
                node_glue::log_info!(
                    "duplicate {} {} acknowledged again, not republished{}",
                    r.packet.name(),
                    r.packet.fields_json(),
                    suffix(n)
                );
            }
        }
    }
}
