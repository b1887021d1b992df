//! Position tracking: the latest `/arm/position` and when it arrived (the node's ROS
//! clock, `node_glue::time`: with `use_sim_time`, `/clock`).
use std::sync::Arc;

use futures::{Stream, StreamExt};
use nalgebra::Point3;
use node_glue::r2r::geometry_msgs::msg::PointStamped;
use node_glue::tracker::Tracker;

use super::convert::{finite, from_point};
use super::counters::Counters;

/// The latest arm position \[mm\] and when it arrived (`node_glue::tracker`).
pub(crate) type Latest = Tracker<Point3<f64>>;

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
        arm.set(position_mm);
    }
}
