//! Position tracking: the latest `/arm/position` and when it arrived (the node's ROS
//! clock, `node_glue::time`: with `use_sim_time`, `/clock`).
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{Stream, StreamExt};
use nalgebra::Point3;
use node_glue::r2r::geometry_msgs::msg::PointStamped;

use super::convert::{finite, from_point};
use super::counters::Counters;

/// The latest arm position and when it arrived.
#[derive(Clone, Copy)]
pub(crate) struct Received {
    pub(crate) position_mm: Point3<f64>,
    /// Arrival, ROS time since the epoch.
    pub(crate) at: Duration,
}

pub(crate) type Latest = Arc<Mutex<Option<Received>>>;

pub(crate) fn latest(arm: &Latest) -> Option<Received> {
    arm.lock().map(|g| *g).unwrap_or(None)
}

/// Stores every arm position (also non-finite ones: a goal is then rejected with that
/// reason, and a running move treats it as stale).
pub(crate) async fn track_position(
    mut positions: impl Stream<Item = PointStamped> + Unpin,
    arm: Latest,
    counters: Arc<Counters>,
) {
    while let Some(msg) = positions.next().await {
        let position_mm = from_point(&msg.point);
        counters.positions.inc();
        if !finite(&position_mm) {
            counters.positions_not_finite.inc();
        }
        if let Ok(mut slot) = arm.lock() {
            *slot = Some(Received {
                position_mm,
                at: node_glue::time::now_duration(),
            });
        }
    }
}
