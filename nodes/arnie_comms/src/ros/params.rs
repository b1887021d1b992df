//! The node's ROS parameters ([`CommsParams`]), each declared once here with its type,
//! default, range and description (what `ros2 param describe` shows: r2r 0.9.7 has no
//! range fields, so the range is written in the description), and their conversion into
//! the library's [`RawConfig`], checked by [`Config::try_from`] at start and on every
//! `ros2 param set` ([`rules`]): a refused value gets the reason and leaves nothing
//! changed.
//!
//! When a change takes effect (also in README.md):
//! - the next request: `reply_timeout_ms`, `max_fields_json_bytes`,
//!   `max_requests_in_flight` (read at each `/comms/tx` message and `/comms/send` request);
//! - start only, the rest ([`START_ONLY`]): the link is opened once.
use node_glue::params::Rules;
use node_glue::r2r::RosParams;

use crate::config::{Config, RawConfig};

/// Parameters read only at start: `ros2 param set` refuses them, saying so.
pub(crate) const START_ONLY: &[&str] = &[
    "packets_dir",
    "transport",
    "serial_port",
    "baud",
    "can_interface",
    "udp_bind",
    "udp_peer",
    "device",
    "max_frame_len",
    "frame_timeout_ms",
    "can_max_payload_len",
    "can_page_timeout_ms",
    "link_retry_ms",
];

/// ROS parameters: flat names with units; defaults = [`RawConfig::default`].
#[derive(RosParams, Clone, Debug)]
pub(crate) struct CommsParams {
    /// Folder of packet definitions, one JSON file per packet (required; e.g. nodes/arnie_comms/packets). Start only
    packets_dir: String,
    /// The wire: "uart" (serial port), "can" (SocketCAN) or "can_udp" (CAN over UDP). Start only
    transport: String,
    /// Serial device for transport uart (e.g. /dev/ttyUSB0, or a pty slave path). Start only
    serial_port: String,
    /// Serial speed for transport uart [baud], 1..=4294967295. Start only
    baud: i64,
    /// SocketCAN interface for transport can. Start only
    can_interface: String,
    /// Local address for transport can_udp (host:port; port 0 = any). Start only
    udp_bind: String,
    /// The device's address for transport can_udp (host:port); empty = whoever sent last. Start only
    udp_peer: String,
    /// CAN device for packets whose device is 0, 0..=31; unused on uart. Start only
    device: i64,
    /// Largest UART frame accepted, size bytes and checksum included [bytes], 4..=32770. Start only
    max_frame_len: i64,
    /// A partial UART frame with no new byte for this long is dropped [ms], 1..=60000. Start only
    frame_timeout_ms: i64,
    /// Longest CAN payload reassembled from pages [bytes], 8..=1048576. Start only
    can_max_payload_len: i64,
    /// A partial CAN message with no new page for this long is dropped [ms], 1..=60000. Start only
    can_page_timeout_ms: i64,
    /// How long /comms/send waits for a reply when the request's timeout_s is 0 [ms], 1..=3600000. Next request
    reply_timeout_ms: i64,
    /// After the link fails to read, wait this long before reading again [ms], 1..=60000. Start only
    link_retry_ms: i64,
    /// Longest fields_json of a /comms/tx message or /comms/send request [bytes], 2..=1048576; longer is refused (REJECTED) and counted. Next request
    max_fields_json_bytes: i64,
    /// /comms/send requests waiting for their outcome at once, 1..=4096; one more is refused at once (REJECTED) and counted. Next request
    max_requests_in_flight: i64,
}

impl Default for CommsParams {
    fn default() -> Self {
        let d = RawConfig::default();
        CommsParams {
            packets_dir: d.packets_dir,
            transport: d.transport,
            serial_port: d.serial_port,
            baud: d.baud,
            can_interface: d.can_interface,
            udp_bind: d.udp_bind,
            udp_peer: d.udp_peer,
            device: d.device,
            max_frame_len: d.max_frame_len,
            frame_timeout_ms: d.frame_timeout_ms,
            can_max_payload_len: d.can_max_payload_len,
            can_page_timeout_ms: d.can_page_timeout_ms,
            reply_timeout_ms: d.reply_timeout_ms,
            link_retry_ms: d.link_retry_ms,
            max_fields_json_bytes: d.max_fields_json_bytes,
            max_requests_in_flight: d.max_requests_in_flight,
        }
    }
}

impl CommsParams {
    /// The values as the library's config, unchecked.
    pub(crate) fn raw(&self) -> RawConfig {
        RawConfig {
            packets_dir: self.packets_dir.clone(),
            transport: self.transport.clone(),
            serial_port: self.serial_port.clone(),
            baud: self.baud,
            can_interface: self.can_interface.clone(),
            udp_bind: self.udp_bind.clone(),
            udp_peer: self.udp_peer.clone(),
            device: self.device,
            max_frame_len: self.max_frame_len,
            frame_timeout_ms: self.frame_timeout_ms,
            can_max_payload_len: self.can_max_payload_len,
            can_page_timeout_ms: self.can_page_timeout_ms,
            reply_timeout_ms: self.reply_timeout_ms,
            link_retry_ms: self.link_retry_ms,
            max_fields_json_bytes: self.max_fields_json_bytes,
            max_requests_in_flight: self.max_requests_in_flight,
        }
    }
}

/// The check run at start and on every `ros2 param set`, and the start-only list.
pub(crate) fn rules() -> Rules<CommsParams> {
    Rules {
        check: |p: &CommsParams| {
            Config::try_from(&p.raw())
                .map(|_| ())
                .map_err(|e| e.to_string())
        },
        start_only: START_ONLY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_need_a_folder_and_caps_are_checked() {
        let e = (rules().check)(&CommsParams::default()).unwrap_err();
        assert!(e.starts_with("packets_dir: is empty"), "{e}");
        let ok = CommsParams {
            packets_dir: "p".into(),
            ..CommsParams::default()
        };
        assert!((rules().check)(&ok).is_ok());
        let e = (rules().check)(&CommsParams {
            max_requests_in_flight: 0,
            ..ok
        })
        .unwrap_err();
        assert!(
            e.starts_with("max_requests_in_flight: 0 is outside 1..=4096"),
            "{e}"
        );
    }
}
