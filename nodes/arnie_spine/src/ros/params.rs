//! The node's ROS parameters ([`SpineParams`]), each declared once here with its type,
//! default, range, description and when a change takes effect (what `ros2 param describe`
//! shows, and the crate README's table), and their conversion into [`Settings`]. The set
//! is checked at start ([`rules`]): a bad value stops the node with the reason (exit 2).
//!
//! Every parameter is **start only**: the sockets are bound and the config file loaded
//! once, so a `ros2 param set` is refused (read only), saying so.
use std::path::PathBuf;
use std::time::Duration;

use node_glue::params::Rules;
use node_glue::topics;

use super::Settings;
use crate::wire::MAX_UDP_PAYLOAD;
use crate::{Limits, LoopbackMap, Scale};

node_glue::declare_parameters! {
    /// The spine bridge's parameters; every one is read only at start.
    pub(crate) struct SpineParams(d = Limits::default()) {
        /// The Spine config file (original config.json format, plus optional topic/kind/qos/allowedSources/resendIntervalMs), relative to the working directory
        config_file: String = "params/spine_sim.json".into(), any(), "start only";
        /// Map every host of the file to 127.0.0.1 (and shift every port by port_offset), to run a multi-machine file on one machine (clashes are logged)
        loopback: bool = false, any(), "start only";
        /// Added to every port of the file when loopback is true (must be 0 otherwise)
        port_offset: i64 = 0, int(-65_535, 65_535), "start only";
        /// Metres per unit of the wire and the config file (0.001: millimetres; x y z only) [m]
        m_per_unit: f64 = Scale::MILLIMETRES.m_per_unit(), float(1e-9, 1e3), "start only";
        /// Longest accepted datagram; longer ones are rejected as oversized [bytes]
        max_datagram: i64 = d.max_datagram as i64, int(1, MAX_UDP_PAYLOAD as i64), "start only";
        /// Receive buffer of each input socket; 0 = the kernel's default (capped by net.core.rmem_max). Bursts wait there until the newest is routed [bytes]
        recv_buffer_bytes: i64 = 1 << 20, int(0, i64::from(i32::MAX)), "start only";
        /// frame_id of published messages; output topics accept this frame or an empty one
        frame_id: String = topics::WORLD_FRAME.into(), any(), "start only";
        /// Period of /diagnostics [ms]
        diagnostics_period_ms: i64 = 1000, int(10, 600_000), "start only";
        /// Real-time priority (SCHED_FIFO) of the thread that receives, routes and publishes; 0 = normal scheduling. Needs CAP_SYS_NICE or an rtprio limit (else a warning)
        io_thread_rt_priority: i64 = 0, int(0, 99), "start only";
    }
}

/// Why the parameters do not make [`Settings`] (its `Display` is the reason the node
/// exits with, or `ros2 param set` prints).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum ParamsError {
    /// `config_file` is the empty string.
    #[error("config_file is empty: point it at a Spine config.json")]
    NoConfigFile,
    /// `port_offset` outside ±65535.
    #[error("port_offset must be within -65535..65535, got {0}")]
    PortOffset(i64),
    /// A `port_offset` without `loopback`.
    #[error("port_offset {0} is only used with loopback:=true")]
    OffsetWithoutLoopback(i32),
    /// `m_per_unit` not finite or not positive.
    #[error("m_per_unit must be a finite number > 0, got {0}")]
    Scale(f64),
    /// `max_datagram` outside 1..=the UDP payload.
    #[error("max_datagram must be within 1..{max}, got {0}", max = MAX_UDP_PAYLOAD)]
    MaxDatagram(i64),
    /// `recv_buffer_bytes` outside 0..=i32::MAX.
    #[error("recv_buffer_bytes must be within 0..{max}, got {0}", max = i32::MAX)]
    RecvBuffer(i64),
    /// `diagnostics_period_ms` outside 10..=600000.
    #[error("diagnostics_period_ms must be in 10..=600000 [ms], got {0}")]
    DiagnosticsPeriod(i64),
    /// `io_thread_rt_priority` outside 0..=99.
    #[error("io_thread_rt_priority must be 0 (off) or 1..99, got {0}")]
    RtPriority(i64),
}

impl TryFrom<&SpineParams> for Settings {
    type Error = ParamsError;
    fn try_from(p: &SpineParams) -> Result<Self, ParamsError> {
        if p.config_file.is_empty() {
            return Err(ParamsError::NoConfigFile);
        }
        let port_offset = i32::try_from(p.port_offset)
            .ok()
            .filter(|o| o.abs() <= 65_535)
            .ok_or(ParamsError::PortOffset(p.port_offset))?;
        if !p.loopback && port_offset != 0 {
            return Err(ParamsError::OffsetWithoutLoopback(port_offset));
        }
        let scale = Scale::new(p.m_per_unit).ok_or(ParamsError::Scale(p.m_per_unit))?;
        let max = MAX_UDP_PAYLOAD as i64;
        if !(1..=max).contains(&p.max_datagram) {
            return Err(ParamsError::MaxDatagram(p.max_datagram));
        }
        let recv_buffer_bytes = usize::try_from(p.recv_buffer_bytes)
            .ok()
            .filter(|n| *n <= i32::MAX as usize)
            .ok_or(ParamsError::RecvBuffer(p.recv_buffer_bytes))?;
        if !(10..=600_000).contains(&p.diagnostics_period_ms) {
            return Err(ParamsError::DiagnosticsPeriod(p.diagnostics_period_ms));
        }
        let io_rt_priority = match p.io_thread_rt_priority {
            0 => None,
            n @ 1..=99 => Some(n as i32),
            n => return Err(ParamsError::RtPriority(n)),
        };
        Ok(Settings {
            config_file: PathBuf::from(&p.config_file),
            loopback: p.loopback.then_some(LoopbackMap { port_offset }),
            scale,
            limits: Limits {
                max_datagram: p.max_datagram as usize,
            },
            recv_buffer_bytes,
            frame_id: p.frame_id.clone(),
            diagnostics_period: Duration::from_millis(p.diagnostics_period_ms as u64),
            io_rt_priority,
        })
    }
}

/// The check run at start (and on a `ros2 param set`, which start-only refuses first).
pub(crate) fn rules() -> Rules<SpineParams> {
    Rules {
        check: |p: &SpineParams| Settings::try_from(p).map(|_| ()).map_err(Into::into),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_pass() {
        assert!((rules().check)(&SpineParams::default()).is_ok());
    }

    #[test]
    fn bad_values_are_refused_with_the_reason() {
        let d = SpineParams::default;
        let cases = [
            (
                SpineParams {
                    diagnostics_period_ms: 0,
                    ..d()
                },
                "diagnostics_period_ms must be in 10..=600000 [ms], got 0",
            ),
            (
                SpineParams {
                    m_per_unit: f64::NAN,
                    ..d()
                },
                "m_per_unit must be a finite number > 0, got NaN",
            ),
            (
                SpineParams {
                    port_offset: 5,
                    ..d()
                },
                "only used with loopback",
            ),
            (
                SpineParams {
                    io_thread_rt_priority: 100,
                    ..d()
                },
                "io_thread_rt_priority",
            ),
            (
                SpineParams {
                    config_file: String::new(),
                    ..d()
                },
                "config_file is empty",
            ),
        ];
        for (p, want) in cases {
            let err = (rules().check)(&p).unwrap_err().to_string();
            assert!(err.contains(want), "{err} does not contain {want}");
        }
    }

    #[test]
    fn every_parameter_is_start_only() {
        use node_glue::params::Declared;
        let decls = SpineParams::declarations();
        assert_eq!(
            node_glue::params::declared_names(SpineParams::default()).len(),
            decls.len()
        );
        for d in decls {
            assert!(d.read_only(), "{} is not start only", d.name);
        }
    }

    #[test]
    fn the_readme_table_is_the_declarations() {
        node_glue::params::check_readme::<SpineParams>(include_str!("../../README.md")).unwrap();
    }
}
