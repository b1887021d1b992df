//! `brain/markers`: [`crate::markers::brain_markers`] as a
//! `visualization_msgs/MarkerArray` in `world`, stamped from the node's ROS clock, every
//! `period` (independent of the tick: observations move between ticks).
//!
//! QoS: reliable, transient-local, depth 1 ([`node_glue::qos::latched`]): every array is
//! the whole picture, so a late subscriber gets it at once. Markers that disappear (an
//! observation gone, the variables of a finished run replaced by the next run's) are
//! deleted ([`arnie_markers::Tracker`]); the first array starts with `DELETEALL`.
use std::sync::Arc;
use std::time::Duration;

use arnie_markers::{ros::array_msg, Tracker};
use node_glue::{qos, time, topics, Shutdown};
use r2r::visualization_msgs::msg::MarkerArray;

use super::{BrainServer, Inputs, SettingsFn};
use crate::markers::brain_markers;
use crate::Observation;

/// Creates the `brain/markers` publisher (before the node spins).
pub fn publisher(node: &mut r2r::Node) -> r2r::Result<r2r::Publisher<MarkerArray>> {
    node.create_publisher::<MarkerArray>(topics::BRAIN_MARKERS, qos::latched())
}

/// Publishes the brain's markers every `period` until shutdown: the last run's state
/// (from `server`) and the observations that are fresh now (`inputs`, the live
/// `observation_timeout` and scale of `settings`).
pub async fn run(
    publisher: r2r::Publisher<MarkerArray>,
    server: Arc<BrainServer>,
    inputs: Arc<Inputs>,
    settings: SettingsFn,
    period: Duration,
    log: String,
    shutdown: Shutdown,
) {
    let lifetime_s = (5.0 * period.as_secs_f64()).max(1.0);
    let mut tracker = Tracker::new();
    let mut interval = tokio::time::interval(period);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut failed = false;
    loop {
        tokio::select! {
            _ = shutdown.wait() => return,
            _ = interval.tick() => {}
        }
        let last = server.last_state();
        // The live parameters; a run's own scale wins for its state.
        let Ok(s) = settings() else { continue };
        let scale = last.as_ref().map(|(_, sc)| *sc).unwrap_or(s.scale);
        let seen: Vec<Observation> = inputs
            .seen_now(s.observation_timeout)
            .iter()
            .map(|o| Observation {
                position_mm: scale.to_units(o.position_m),
                confidence: o.confidence,
            })
            .collect();
        let snap = last.as_ref().map(|(snap, _)| snap);
        let markers = brain_markers(snap, &seen, scale.m_per_unit(), lifetime_s);
        let msg = array_msg(&time::header(topics::WORLD_FRAME), &tracker.update(markers));
        match publisher.publish(&msg) {
            Ok(()) => failed = false,
            Err(e) if !failed => {
                failed = true;
                r2r::log_warn!(&log, "could not publish {}: {e}", topics::BRAIN_MARKERS);
            }
            Err(_) => {}
        }
    }
}
