//! The node's ROS parameters ([`SpineParams`]), each declared once here with its type,
//! default, range and description (what `ros2 param describe` shows), and their
//! conversion into [`Settings`]. The set is checked at start ([`rules`]): a bad value
//! stops the node with the reason (exit 2).
//!
//! When a change takes effect (also in the crate's README.md): **start only**, every
//! parameter ([`START_ONLY`]): the sockets are bound and the config file loaded once, so a
//! `ros2 param set` is refused, saying so.
use std::path::PathBuf;
use std::time::Duration;

use node_glue::params::Rules;
use node_glue::r2r::RosParams;
use node_glue::topics;

use super::Settings;
use crate::{Limits, LoopbackMap, Scale};

/// Every parameter is read only at start.
pub(crate) const START_ONLY: &[&str] = &[
    "config_file",
    "loopback",
    "port_offset",
    "m_per_unit",
    "max_datagram",
    "recv_buffer_bytes",
    "frame_id",
    "diagnostics_period_ms",
    "io_thread_rt_priority",
];

#[derive(RosParams, Clone, Debug)]
pub(crate) struct SpineParams {
    /// The Spine config file (original config.json format, plus optional topic/kind/qos/allowedSources/resendIntervalMs). Start only
    config_file: String,
    /// Map every host of the file to 127.0.0.1 (and shift every port by port_offset), to run a multi-machine file on one machine. Start only
    loopback: bool,
    /// Added to every port of the file when loopback is true. Start only
    port_offset: i64,
    /// Metres per unit of the wire and the config file (0.001: millimetres). Start only
    m_per_unit: f64,
    /// Longest accepted datagram [bytes]; longer ones are rejected as oversized. Start only
    max_datagram: i64,
    /// Receive buffer of each input socket [bytes]; 0 = the kernel's default (capped by net.core.rmem_max). Bursts wait there until the newest is routed. Start only
    recv_buffer_bytes: i64,
    /// frame_id of published messages; output topics accept this frame or an empty one. Start only
    frame_id: String,
    /// Period of /diagnostics [ms], 10..=600000. Start only
    diagnostics_period_ms: i64,
    /// Real-time priority (SCHED_FIFO 1..99) of the thread that receives, routes and publishes; 0 = normal scheduling. Needs CAP_SYS_NICE or an rtprio limit (else a warning). Start only
    io_thread_rt_priority: i64,
}

impl Default for SpineParams {
    fn default() -> Self {
        SpineParams {
            config_file: "params/spine_sim.json".into(),
            loopback: false,
            port_offset: 0,
            m_per_unit: Scale::MILLIMETRES.m_per_unit(),
            max_datagram: Limits::default().max_datagram as i64,
            recv_buffer_bytes: 1 << 20,
            frame_id: topics::WORLD_FRAME.into(),
            diagnostics_period_ms: 1000,
            io_thread_rt_priority: 0,
        }
    }
}

impl TryFrom<&SpineParams> for Settings {
    type Error = String;
    fn try_from(p: &SpineParams) -> Result<Self, String> {
        if p.config_file.is_empty() {
            return Err("config_file is empty: point it at a Spine config.json".into());
        }
        let port_offset = i32::try_from(p.port_offset)
            .ok()
            .filter(|o| o.abs() <= 65_535)
            .ok_or_else(|| {
                format!(
                    "port_offset must be within -65535..65535, got {}",
                    p.port_offset
                )
            })?;
        if !p.loopback && port_offset != 0 {
            return Err(format!(
                "port_offset {port_offset} is only used with loopback:=true"
            ));
        }
        let scale = Scale::new(p.m_per_unit).ok_or_else(|| {
            format!(
                "m_per_unit must be a finite number > 0, got {}",
                p.m_per_unit
            )
        })?;
        let max = crate::wire::MAX_UDP_PAYLOAD as i64;
        if !(1..=max).contains(&p.max_datagram) {
            return Err(format!(
                "max_datagram must be within 1..{max}, got {}",
                p.max_datagram
            ));
        }
        let recv_buffer_bytes = usize::try_from(p.recv_buffer_bytes)
            .ok()
            .filter(|n| *n <= i32::MAX as usize)
            .ok_or_else(|| {
                format!(
                    "recv_buffer_bytes must be within 0..{}, got {}",
                    i32::MAX,
                    p.recv_buffer_bytes
                )
            })?;
        if !(10..=600_000).contains(&p.diagnostics_period_ms) {
            return Err(format!(
                "diagnostics_period_ms must be in 10..=600000 [ms], got {}",
                p.diagnostics_period_ms
            ));
        }
        let io_rt_priority = match p.io_thread_rt_priority {
            0 => None,
            n @ 1..=99 => Some(n as i32),
            n => {
                return Err(format!(
                    "io_thread_rt_priority must be 0 (off) or 1..99, got {n}"
                ))
            }
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
        check: |p: &SpineParams| Settings::try_from(p).map(|_| ()),
        start_only: START_ONLY,
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
            let err = (rules().check)(&p).unwrap_err();
            assert!(err.contains(want), "{err} does not contain {want}");
        }
    }

    #[test]
    fn every_parameter_is_start_only() {
        let mut listed = START_ONLY.to_vec();
        listed.sort_unstable();
        assert_eq!(
            node_glue::params::declared_names(SpineParams::default()),
            listed
        );
    }
}
