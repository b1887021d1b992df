//! The UDP side: arm targets in, the physics sending encoder positions and observations.
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use node_glue::time;
use tokio::net::UdpSocket;

use super::Ctx;
use crate::settings::CatchUp;
use crate::truth_log::event_line;
use crate::world::Arrival;
use crate::{Dest, Event};

/// At most this many physics steps per timer tick (after a stall, time jumps instead).
const MAX_CATCH_UP_STEPS: u64 = 200;

/// Arm target datagrams from `spine` (the spine's address; any when unspecified) → the
/// world; a datagram from any other address is dropped, counted (`foreign_sources`) and
/// logged (the first, then every 100th).
pub(super) fn from_spine(spine: std::net::IpAddr, from: SocketAddr) -> bool {
    spine.is_unspecified() || from.ip() == spine
}

/// Arm target datagrams → the world.
pub(super) async fn receive_targets(sock: Arc<UdpSocket>, spine: std::net::IpAddr, ctx: Ctx) {
    let mut buf = vec![0u8; 65_536];
    loop {
        let got = tokio::select! {
            _ = ctx.shutdown.wait() => return,
            got = sock.recv_from(&mut buf) => got,
        };
        match got {
            Ok((_, from)) if !from_spine(spine, from) => {
                ctx.counters.foreign_sources.inc();
                let n = ctx.counters.foreign_sources.get();
                if n % 100 == 1 {
                    node_glue::log_warn!(
                        "arm datagram from {from} dropped: only the spine ({spine}) sends targets ({n} so far, counted as foreign_sources)"
                    );
                }
            }
            Ok((n, from)) => {
                let result = ctx.world().on_arm_datagram(&buf[..n]);
                match result {
                    Ok(Arrival::Accepted { .. }) => {}
                    Ok(Arrival::Dropped { target_mm }) => {
                        node_glue::log_debug!(
                            "simulated loss dropped target {:?} mm",
                            target_mm.as_slice()
                        );
                    }
                    Err(e) => node_glue::log_warn!("rejected arm datagram from {from}: {e}"),
                }
            }
            Err(e) => {
                // E.g. ICMP errors surfacing on the socket: count, never end the loop.
                ctx.counters.recv_errors.inc();
                node_glue::log_warn!("arm socket receive error: {e}");
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
}

/// The sockets the physics sends from, and where to.
pub(super) struct Sockets {
    /// The arm's socket (also receiving targets).
    pub arm: Arc<UdpSocket>,
    /// The eyes' socket.
    pub eyes: UdpSocket,
    /// The spine's arm input.
    pub arm_dest: SocketAddr,
    /// The spine's eyes input.
    pub eyes_dest: SocketAddr,
}

/// The fixed-step physics: catches up on the node's ROS clock (wall time, or `/clock` with
/// `use_sim_time`), sends what the world emits, logs its events.
pub(super) async fn physics(step: Duration, sockets: Sockets, ctx: Ctx) {
    let mut clock = CatchUp::new(step, MAX_CATCH_UP_STEPS);
    let dt_s = clock.dt_s();
    let mut start = None;
    let mut interval = time::interval(step);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let now = tokio::select! {
            _ = ctx.shutdown.wait() => return,
            now = interval.tick() => now,
        };
        let start = *start.get_or_insert(now);
        let n = clock.due(now.saturating_sub(start));
        let mut datagrams = Vec::new();
        let mut events = Vec::new();
        {
            let mut w = ctx.world();
            for _ in 0..n {
                let out = w.step(dt_s);
                datagrams.extend(out.datagrams);
                let t_s = w.now_s();
                events.extend(out.events.into_iter().map(|e| (t_s, e)));
            }
        }
        for d in datagrams {
            let (sock, to) = match d.dest {
                Dest::ArmInput => (&*sockets.arm, sockets.arm_dest),
                Dest::EyesInput => (&sockets.eyes, sockets.eyes_dest),
            };
            if let Err(e) = sock.send_to(&d.bytes, to).await {
                if ctx.counters.send_errors.get() == 0 {
                    node_glue::log_warn!(
                        "send to {to} failed: {e} (only the first is logged; see send_errors)"
                    );
                }
                ctx.counters.send_errors.inc();
            }
        }
        for (t_s, e) in events {
            log_event(&e);
            ctx.log_line(|| event_line(t_s, &e));
        }
    }
}

fn log_event(e: &Event) {
    match e {
        Event::Lit(lit) => {
            node_glue::log_info!("the {} is lit (t = {:.2} s)", lit.flame.name(), lit.at_s)
        }
        Event::Blocked { obstacle, at_mm } => node_glue::log_warn!(
            "the arm is blocked by {obstacle} at {:?} mm",
            at_mm.as_slice()
        ),
        Event::Freed => node_glue::log_info!("the arm moves freely again"),
    }
}
