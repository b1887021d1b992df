//! `brain/markers`: [`crate::markers::brain_markers`] as a
//! `visualization_msgs/MarkerArray` in `world`, stamped from the node's ROS clock, every
//! `period` (independent of the tick: observations move between ticks).
//!
//! The publisher, QoS (latched: every array is the whole picture) and the loop
//! (`DELETE` of markers that disappear, e.g. an observation gone or the variables of a
//! finished run replaced by the next run's) are [`arnie_markers::ros`]'s, shared with
//! the simulator's `sim/markers`.
use std::sync::Arc;
use std::time::Duration;

use node_glue::lifecycle::{Lifecycle, LifecyclePublisher};
use node_glue::{topics, Shutdown};
use r2r::visualization_msgs::msg::MarkerArray;

use super::{BrainServer, Inputs, SettingsFn};
use crate::markers::brain_markers;
use crate::Observation;

/// Creates the `brain/markers` publisher (before the node spins; silent unless active).
pub fn publisher(
    node: &mut r2r::Node,
    lc: &Lifecycle,
) -> r2r::Result<LifecyclePublisher<MarkerArray>> {
    arnie_markers::ros::publisher(node, lc, topics::BRAIN_MARKERS)
}

/// Publishes the brain's markers every `period` until shutdown: the last run's state
/// (from `server`) and the observations that are fresh now (`inputs`, the live
/// `observation_timeout` and scale of `settings`).
pub async fn run(
    publisher: LifecyclePublisher<MarkerArray>,
    server: Arc<BrainServer>,
    inputs: Arc<Inputs>,
    settings: SettingsFn,
    period: Duration,
    shutdown: Shutdown,
) {
    let lifetime_s = arnie_markers::lifetime_s(period);
    let draw = move || {
        let last = server.last_state();
        // The live parameters; a run's own scale wins for its state.
        let s = settings().ok()?;
        let scale = last.as_ref().map(|(_, sc)| *sc).unwrap_or(s.scale);
        let seen: Vec<Observation> = inputs
            .seen_now(s.observation_timeout)
            .iter()
            .map(|o| Observation {
                position_mm: scale.from_m(o.position_m),
                confidence: o.confidence,
            })
            .collect();
        let snap = last.as_ref().map(|(snap, _)| snap);
        Some(brain_markers(snap, &seen, scale.m_per_unit(), lifetime_s))
    };
    arnie_markers::ros::run(publisher, topics::BRAIN_MARKERS, period, shutdown, draw).await
}
