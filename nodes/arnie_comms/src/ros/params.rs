//! The node's ROS parameters ([`CommsParams`]), each declared once here with its type,
//! default, range, description and when a change takes effect (what `ros2 param describe`
//! shows: the range, `read_only`; and the README's table), and their conversion into the
//! library's [`RawConfig`], checked by [`Config::try_from`] at start and on every
//! `ros2 param set` ([`rules`]): a refused value gets the reason and leaves nothing
//! changed. The ranges are the library's ([`crate::config::ranges`]).
//!
//! When a change takes effect:
//! - the next request: `reply_timeout_ms`, `max_fields_json_bytes`,
//!   `max_requests_in_flight` (read at each `/comms/tx` message and `/comms/send` request);
//! - start only, the rest: the link is opened once.
use node_glue::params::Rules;

use crate::config::ranges::{
    BAUD, CAN_MAX_PAYLOAD_LEN, DEVICE, MAX_FIELDS_JSON_BYTES, MAX_FRAME_LEN,
    MAX_REQUESTS_IN_FLIGHT, REPLY_TIMEOUT_MS, TIMEOUT_MS, TRANSPORTS,
};
use crate::config::{Config, RawConfig};

node_glue::declare_parameters! {
    /// ROS parameters: flat names with units; defaults = [`RawConfig::default`].
    pub(crate) struct CommsParams(d = RawConfig::default()) {
        /// Folder of packet definitions, one JSON file per packet; other files are ignored (required: empty stops the node; ours: nodes/lib/arnie_packets/packets)
        packets_dir: String = d.packets_dir, any(), "start only";
        /// The wire: uart (serial port), can (SocketCAN) or can_udp (CAN over UDP)
        transport: String = d.transport, one_of(TRANSPORTS), "start only";
        /// Serial device for transport uart (e.g. /dev/ttyUSB0, or a pty slave path)
        serial_port: String = d.serial_port, any(), "start only";
        /// Serial speed for transport uart (the port opens at the termios rates 1200 … 2000000) [baud]
        baud: i64 = d.baud, int(BAUD.0, BAUD.1), "start only";
        /// SocketCAN interface for transport can
        can_interface: String = d.can_interface, any(), "start only";
        /// Local address for transport can_udp (host:port; port 0 = any)
        udp_bind: String = d.udp_bind, any(), "start only";
        /// The device's address for transport can_udp (host:port); empty = whoever sent last
        udp_peer: String = d.udp_peer, any(), "start only";
        /// CAN device for packets whose device is 0; unused on uart
        device: i64 = d.device, int(DEVICE.0, DEVICE.1), "start only";
        /// Largest UART frame accepted, size bytes and checksum included [bytes]
        max_frame_len: i64 = d.max_frame_len, int(MAX_FRAME_LEN.0, MAX_FRAME_LEN.1), "start only";
        /// A partial UART frame with no new byte for this long is dropped [ms]
        frame_timeout_ms: i64 = d.frame_timeout_ms, int(TIMEOUT_MS.0, TIMEOUT_MS.1), "start only";
        /// Longest CAN payload reassembled from pages [bytes]
        can_max_payload_len: i64 = d.can_max_payload_len, int(CAN_MAX_PAYLOAD_LEN.0, CAN_MAX_PAYLOAD_LEN.1), "start only";
        /// A partial CAN message with no new page for this long is dropped [ms]
        can_page_timeout_ms: i64 = d.can_page_timeout_ms, int(TIMEOUT_MS.0, TIMEOUT_MS.1), "start only";
        /// How long /comms/send waits for a reply when the request's timeout_s is 0 [ms]
        reply_timeout_ms: i64 = d.reply_timeout_ms, int(REPLY_TIMEOUT_MS.0, REPLY_TIMEOUT_MS.1), "next request";
        /// After the link fails to read, wait this long before reading again [ms]
        link_retry_ms: i64 = d.link_retry_ms, int(TIMEOUT_MS.0, TIMEOUT_MS.1), "start only";
        /// Longest fields_json of a /comms/tx message or /comms/send request; longer is refused (REJECTED) and counted [bytes]
        max_fields_json_bytes: i64 = d.max_fields_json_bytes, int(MAX_FIELDS_JSON_BYTES.0, MAX_FIELDS_JSON_BYTES.1), "next request";
        /// /comms/send requests waiting for their outcome at once; one more is refused at once (REJECTED) and counted
        max_requests_in_flight: i64 = d.max_requests_in_flight, int(MAX_REQUESTS_IN_FLIGHT.0, MAX_REQUESTS_IN_FLIGHT.1), "next request";
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

/// The check run at start and on every `ros2 param set` (after the declarations').
pub(crate) fn rules() -> Rules<CommsParams> {
    Rules {
        check: |p: &CommsParams| Config::try_from(&p.raw()).map(|_| ()).map_err(Into::into),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_need_a_folder_and_caps_are_checked() {
        let e = (rules().check)(&CommsParams::default())
            .unwrap_err()
            .to_string();
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
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with("max_requests_in_flight: 0 is outside 1..=4096"),
            "{e}"
        );
    }

    #[test]
    fn the_declared_ranges_are_the_librarys() {
        use node_glue::params::Declared;
        use node_glue::r2r::{ParameterValue, RosParams};
        let ok = CommsParams {
            packets_dir: "p".into(),
            ..CommsParams::default()
        };
        // Each range's ends pass the library's check, one past them fails it.
        for d in CommsParams::declarations() {
            if let node_glue::params::Range::Integer { from, to, .. } = d.range {
                for (v, pass) in [(from, true), (to, true), (from - 1, false), (to + 1, false)] {
                    let mut p = ok.clone();
                    p.set_parameter(d.name, &ParameterValue::Integer(v))
                        .unwrap();
                    assert_eq!((rules().check)(&p).is_ok(), pass, "{} = {v}", d.name);
                }
            }
        }
    }

    #[test]
    fn the_readme_table_is_the_declarations() {
        node_glue::params::check_readme::<CommsParams>(include_str!("../../README.md")).unwrap();
    }
}
