//! `sim/truth` (`arnie_interfaces/SimTruth`, metres, `world`, latched) at `truth_rate_hz`,
//! and a truth line in the log for every publication.
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arnie_xpc::Scale;
use node_glue::r2r::{arnie_interfaces::msg::SimTruth, geometry_msgs::msg::Point};
use node_glue::{time, topics};

use super::params::SimParams;
use super::Ctx;
use crate::settings::TRUTH_RATE_HZ;
use crate::truth_log::truth_line;
use crate::Truth;

/// Publishes the truth every `period` until shutdown; `truth_rate_hz` is live: a change
/// (already checked against its range) restarts the interval at the new period.
pub(super) async fn publish(
    publisher: node_glue::lifecycle::LifecyclePublisher<SimTruth>,
    params: Arc<Mutex<SimParams>>,
    mut period: Duration,
    ctx: Ctx,
) {
    let mut interval = time::interval(period);
    let mut failed = false;
    loop {
        tokio::select! {
            _ = ctx.shutdown.wait() => return,
            _ = interval.tick() => {}
        }
        let truth = ctx.world().truth();
        match publisher.publish(&to_msg(&truth)) {
            Ok(()) => failed = false,
            Err(e) if !failed => {
                failed = true;
                node_glue::log_warn!("could not publish {}: {e}", topics::SIM_TRUTH);
            }
            Err(_) => {}
        }
        ctx.log_line(|| truth_line(&truth));
        if let Some(new) = live_period(&params) {
            if new != period {
                period = new;
                interval = time::interval(period);
                // The tick at once is this one's: the next comes a period later.
                interval.tick().await;
            }
        }
    }
}

/// The period of the live `truth_rate_hz` (None if the table cannot be read; the value
/// was checked when set, and is checked again here).
fn live_period(params: &Mutex<SimParams>) -> Option<Duration> {
    let hz = params.lock().ok()?.truth_rate_hz;
    let hz = TRUTH_RATE_HZ.check("truth_rate_hz", hz).ok()?;
    Some(Duration::from_secs_f64(1.0 / hz))
}

/// Truth in millimetres → the message in metres (the one scale of spine_bridge).
fn to_msg(t: &Truth) -> SimTruth {
    let point = |mm: [f64; 3]| {
        let m = Scale::MILLIMETRES.to_m(mm);
        Point {
            x: m[0],
            y: m[1],
            z: m[2],
        }
    };
    SimTruth {
        header: time::header(topics::WORLD_FRAME),
        arm: point(t.arm_mm),
        has_target: t.target_mm.is_some(),
        target: t.target_mm.map(point).unwrap_or_default(),
        blocked: t.blocked_by.is_some(),
        lit: t.lit.iter().map(|s| s.to_string()).collect(),
        commands_received: t.commands_received,
        commands_dropped: t.commands_dropped,
    }
}
