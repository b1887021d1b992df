//! The bridge's settings: [`RawConfig`] (the values as given, flat, with units: the ROS
//! parameters map one to one onto it) checked into [`Config`]. Every range is here, once;
//! an error names the parameter and the rule.
use crate::bridge::{Settings, Transport};
use crate::can::ReassemblerConfig;
use crate::front::Limits;
use crate::link::LinkConfig;
use crate::uart::DecoderConfig;
use std::net::SocketAddr;
use std::time::Duration;

/// The allowed ranges `(lowest, highest)` of the numeric settings, inclusive: the checks
/// below and the node's parameter declarations use these.
pub mod ranges {
    /// `baud` [baud] (any `u32`; the serial port refuses what termios has no rate for).
    pub const BAUD: (i64, i64) = (1, u32::MAX as i64);
    /// `device` (5 bits of a CAN id).
    pub const DEVICE: (i64, i64) = (0, 31);
    /// `max_frame_len` [bytes] (two size bytes, 0x7fff, and the checksum).
    pub const MAX_FRAME_LEN: (i64, i64) = (4, 0x7fff + 3);
    /// `frame_timeout_ms`, `can_page_timeout_ms`, `link_retry_ms` [ms].
    pub const TIMEOUT_MS: (i64, i64) = (1, 60_000);
    /// `can_max_payload_len` [bytes].
    pub const CAN_MAX_PAYLOAD_LEN: (i64, i64) = (8, 1 << 20);
    /// `reply_timeout_ms` [ms].
    pub const REPLY_TIMEOUT_MS: (i64, i64) = (1, 3_600_000);
    /// `max_fields_json_bytes` [bytes].
    pub const MAX_FIELDS_JSON_BYTES: (i64, i64) = (2, 1 << 20);
    /// `max_requests_in_flight`.
    pub const MAX_REQUESTS_IN_FLIGHT: (i64, i64) = (1, 4096);
    /// The `transport` values.
    pub const TRANSPORTS: &[&str] = &["uart", "can", "can_udp"];
}

/// The settings as given (see the README's parameter table for each one's meaning).
#[derive(Clone, Debug, PartialEq)]
pub struct RawConfig {
    /// Folder of packet definitions, one JSON file per packet; required.
    pub packets_dir: String,
    /// `"uart"`, `"can"` or `"can_udp"`.
    pub transport: String,
    /// Serial device for `uart`.
    pub serial_port: String,
    /// Serial speed for `uart` [baud], 1..=4294967295.
    pub baud: i64,
    /// SocketCAN interface for `can`.
    pub can_interface: String,
    /// Local address for `can_udp` (`host:port`).
    pub udp_bind: String,
    /// The device's address for `can_udp`; empty = whoever sent last.
    pub udp_peer: String,
    /// CAN device for packets whose device is 0, 0..=31.
    pub device: i64,
    /// Largest UART frame [bytes], 4..=32770.
    pub max_frame_len: i64,
    /// Partial UART frame timeout [ms], 1..=60000.
    pub frame_timeout_ms: i64,
    /// Longest reassembled CAN payload [bytes], 8..=1048576.
    pub can_max_payload_len: i64,
    /// Partial CAN message timeout [ms], 1..=60000.
    pub can_page_timeout_ms: i64,
    /// Reply wait of a send request whose timeout is 0 [ms], 1..=3600000.
    pub reply_timeout_ms: i64,
    /// Pause after a failed read before reading again [ms], 1..=60000.
    pub link_retry_ms: i64,
    /// Longest `fields_json` of a packet to send [bytes], 2..=1048576.
    pub max_fields_json_bytes: i64,
    /// Send requests waiting for their outcome at once, 1..=4096.
    pub max_requests_in_flight: i64,
}

impl Default for RawConfig {
    fn default() -> Self {
        RawConfig {
            packets_dir: String::new(),
            transport: "uart".into(),
            serial_port: "/dev/ttyUSB0".into(),
            baud: 115_200,
            can_interface: "can0".into(),
            udp_bind: "127.0.0.1:0".into(),
            udp_peer: String::new(),
            device: 0,
            max_frame_len: 1024,
            frame_timeout_ms: 100,
            can_max_payload_len: 4096,
            can_page_timeout_ms: 100,
            reply_timeout_ms: 1000,
            link_retry_ms: 500,
            max_fields_json_bytes: 65_536,
            max_requests_in_flight: 32,
        }
    }
}

/// The settings, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The definitions folder (not empty).
    pub packets_dir: String,
    /// The wire to open.
    pub transport: Transport,
    /// On CAN, the device of packets whose device is 0; `None` on UART.
    pub default_device: Option<u8>,
    /// The codecs' limits.
    pub link: LinkConfig,
    /// The loop's own settings (the retry pause).
    pub settings: Settings,
    /// The caps and defaults of requests to send ([`crate::front::Front`]).
    pub limits: Limits,
}

/// A value outside its range: names the parameter and why (the workspace's one shape,
/// `glue_core`'s, shown `name: reason`).
pub use glue_core::ConfigError;

fn bad(name: &'static str, reason: impl Into<String>) -> ConfigError {
    ConfigError::new(name, reason)
}

fn ranged(name: &'static str, v: i64, (lo, hi): (i64, i64)) -> Result<i64, ConfigError> {
    if (lo..=hi).contains(&v) {
        Ok(v)
    } else {
        Err(bad(name, format!("{v} is outside {lo}..={hi}")))
    }
}

fn ms(name: &'static str, v: i64, range: (i64, i64)) -> Result<Duration, ConfigError> {
    Ok(Duration::from_millis(
        ranged(name, v, range)?.unsigned_abs(),
    ))
}

fn addr(name: &'static str, v: &str) -> Result<SocketAddr, ConfigError> {
    v.trim()
        .parse()
        .map_err(|_| bad(name, format!("{v:?} is not an address like 127.0.0.1:5000")))
}

impl RawConfig {
    /// The caps and defaults of send requests alone (the live part of the settings).
    ///
    /// # Errors
    /// `reply_timeout_ms`, `max_fields_json_bytes` or `max_requests_in_flight` out of range.
    pub fn limits(&self) -> Result<Limits, ConfigError> {
        Ok(Limits {
            default_reply_timeout: ms(
                "reply_timeout_ms",
                self.reply_timeout_ms,
                ranges::REPLY_TIMEOUT_MS,
            )?,
            max_fields_json_bytes: ranged(
                "max_fields_json_bytes",
                self.max_fields_json_bytes,
                ranges::MAX_FIELDS_JSON_BYTES,
            )? as usize,
            max_requests_in_flight: ranged(
                "max_requests_in_flight",
                self.max_requests_in_flight,
                ranges::MAX_REQUESTS_IN_FLIGHT,
            )? as usize,
        })
    }
}

impl TryFrom<&RawConfig> for Config {
    type Error = ConfigError;

    fn try_from(p: &RawConfig) -> Result<Config, ConfigError> {
        if p.packets_dir.trim().is_empty() {
            return Err(bad(
                "packets_dir",
                "is empty: name the folder of packet definitions (e.g. nodes/lib/arnie_packets/packets)",
            ));
        }
        let transport = match p.transport.as_str() {
            "uart" => {
                if p.serial_port.is_empty() {
                    return Err(bad(
                        "serial_port",
                        "is empty (transport uart needs a device path)",
                    ));
                }
                Transport::Uart {
                    path: p.serial_port.clone(),
                    baud: ranged("baud", p.baud, ranges::BAUD)? as u32,
                }
            }
            "can" => Transport::SocketCan {
                iface: p.can_interface.clone(),
            },
            "can_udp" => Transport::CanUdp {
                bind: addr("udp_bind", &p.udp_bind)?,
                peer: if p.udp_peer.trim().is_empty() {
                    None
                } else {
                    Some(addr("udp_peer", &p.udp_peer)?)
                },
            },
            other => {
                return Err(bad(
                    "transport",
                    format!("{other:?} is not one of \"uart\", \"can\", \"can_udp\""),
                ))
            }
        };
        let device = ranged("device", p.device, ranges::DEVICE)? as u8;
        let link = LinkConfig {
            decoder: DecoderConfig {
                max_frame_len: ranged("max_frame_len", p.max_frame_len, ranges::MAX_FRAME_LEN)?
                    as usize,
                frame_timeout_ms: ranged(
                    "frame_timeout_ms",
                    p.frame_timeout_ms,
                    ranges::TIMEOUT_MS,
                )? as u64,
            },
            reassembler: ReassemblerConfig {
                max_payload_len: ranged(
                    "can_max_payload_len",
                    p.can_max_payload_len,
                    ranges::CAN_MAX_PAYLOAD_LEN,
                )? as usize,
                page_timeout_ms: ranged(
                    "can_page_timeout_ms",
                    p.can_page_timeout_ms,
                    ranges::TIMEOUT_MS,
                )? as u64,
            },
        };
        Ok(Config {
            packets_dir: p.packets_dir.clone(),
            default_device: transport.is_can().then_some(device),
            transport,
            link,
            settings: Settings {
                retry_after: ms("link_retry_ms", p.link_retry_ms, ranges::TIMEOUT_MS)?,
            },
            limits: p.limits()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(f: impl FnOnce(&mut RawConfig)) -> Result<Config, ConfigError> {
        let mut raw = RawConfig {
            packets_dir: "p".into(),
            ..RawConfig::default()
        };
        f(&mut raw);
        Config::try_from(&raw)
    }

    #[test]
    fn defaults_with_a_folder_are_valid() {
        let c = with(|_| {}).expect("valid");
        assert_eq!(c.default_device, None, "uart: no device");
        assert_eq!(c.limits.max_requests_in_flight, 32);
        let c = with(|r| {
            r.transport = "can_udp".into();
            r.device = 5;
        })
        .expect("valid");
        assert_eq!(c.default_device, Some(5));
    }

    #[test]
    fn each_bad_value_names_its_parameter() {
        type Case = (&'static str, fn(&mut RawConfig));
        let cases: [Case; 10] = [
            ("packets_dir", |r| r.packets_dir = " ".into()),
            ("transport", |r| r.transport = "usb".into()),
            ("serial_port", |r| r.serial_port.clear()),
            ("baud", |r| r.baud = 0),
            ("device", |r| r.device = 32),
            ("frame_timeout_ms", |r| r.frame_timeout_ms = 0),
            ("reply_timeout_ms", |r| r.reply_timeout_ms = -1),
            ("link_retry_ms", |r| r.link_retry_ms = 0),
            ("max_fields_json_bytes", |r| r.max_fields_json_bytes = 1),
            ("max_requests_in_flight", |r| r.max_requests_in_flight = 0),
        ];
        for (name, f) in cases {
            let e = with(f).expect_err(name);
            assert_eq!(e.name, name, "{e}");
        }
        let e = with(|r| {
            r.transport = "can_udp".into();
            r.udp_peer = "nowhere".into();
        })
        .expect_err("bad peer");
        assert!(e.to_string().starts_with("udp_peer: "), "{e}");
    }
}
