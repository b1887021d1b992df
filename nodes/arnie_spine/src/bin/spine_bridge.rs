//! `spine_bridge`: the Spine as a ROS 2 node (see nodes/arnie_spine/README.md).
//!
//! - forwards the legacy UDP routes of the config file (`connections`);
//! - publishes every input that has a `topic` (`PointStamped` or `Coordinates`, frame
//!   `frame_id`, metres; QoS by the config's `qos`, default by kind);
//! - writes every output `topic` to its output, through the same gate; re-sends an
//!   output's last value while it is silent if the config sets `resendIntervalMs`;
//! - `/diagnostics`: one status per interface with every counter.
use std::path::PathBuf;
use std::time::Duration;

use arnie_spine::ros::{start, Settings};
use arnie_spine::{Limits, LoopbackMap, Scale};
use node_glue::r2r::{self, RosParams};
use node_glue::{main_with, topics, App, Error};

#[derive(RosParams, Clone, Debug)]
struct SpineParams {
    /// The Spine config file (original config.json format, plus optional topic/kind/qos/allowedSources/resendIntervalMs)
    config_file: String,
    /// Map every host of the file to 127.0.0.1 (and shift every port by port_offset), to run a multi-machine file on one machine
    loopback: bool,
    /// Added to every port of the file when loopback is true
    port_offset: i64,
    /// Metres per unit of the wire and the config file (0.001: millimetres)
    m_per_unit: f64,
    /// Longest accepted datagram [bytes]; longer ones are rejected as oversized
    max_datagram: i64,
    /// Receive buffer of each input socket [bytes]; 0 = the kernel's default (capped by net.core.rmem_max). Bursts wait there until the newest is routed
    recv_buffer_bytes: i64,
    /// frame_id of published messages; output topics accept this frame or an empty one
    frame_id: String,
    /// Period of /diagnostics [ms]
    diagnostics_period_ms: i64,
    /// Real-time priority (SCHED_FIFO 1..99) of the thread that receives, routes and publishes; 0 = normal scheduling. Needs CAP_SYS_NICE or an rtprio limit (else a warning)
    io_thread_rt_priority: i64,
}

impl Default for SpineParams {
    fn default() -> Self {
        SpineParams {
            config_file: "params/spine_sim.json".into(),
            loopback: false,
            port_offset: 0,
            m_per_unit: Scale::MILLIMETRES.m_per_unit,
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
        let max = arnie_spine::wire::MAX_UDP_PAYLOAD as i64;
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
        if p.diagnostics_period_ms < 1 {
            return Err(format!(
                "diagnostics_period_ms must be >= 1, got {}",
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

fn main() {
    main_with("spine_bridge", setup)
}

fn setup(app: &mut App) -> Result<(), Error> {
    let params = app.parameters(SpineParams::default())?;
    let settings = {
        let p = params
            .lock()
            .map_err(|_| Error::Setup("parameters poisoned".into()))?;
        Settings::try_from(&*p).map_err(Error::Parameter)?
    };
    // Parameters are read once at start (sockets are bound from them): later `ros2 param
    // set` calls are logged by node_glue but need a restart.
    r2r::log_info!(app.name(), "settings: {settings:?}");
    start(app, settings)
}
