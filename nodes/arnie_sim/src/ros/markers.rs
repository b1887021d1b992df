//! `sim/markers`: the scene of [`crate::markers::SceneMarkers`] as a
//! `visualization_msgs/MarkerArray` in `world`, stamped from the node's ROS clock.
//!
//! QoS: reliable, transient-local, depth 1 ([`node_glue::qos::latched`]). Every array is
//! the whole scene (the static workspace and obstacles are republished with the moving
//! parts: a few markers), so a late subscriber (rviz started later, a Foxglove client)
//! gets the complete picture at once from the latched last array, and one topic and one
//! display carry every namespace. Markers that disappear are deleted
//! ([`arnie_markers::Tracker`]); the first array starts with `DELETEALL`.
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arnie_markers::{ros::array_msg, Tracker};
use node_glue::r2r::{self, visualization_msgs::msg::MarkerArray};
use node_glue::{qos, time, topics, Shutdown};

use crate::markers::SceneMarkers;
use crate::World;

/// Creates the `sim/markers` publisher (before the node spins).
pub fn publisher(node: &mut r2r::Node) -> r2r::Result<r2r::Publisher<MarkerArray>> {
    node.create_publisher::<MarkerArray>(topics::SIM_MARKERS, qos::latched())
}

/// How long the moving markers live in a viewer [s]: five periods, at least 1 s, so they
/// vanish soon after the simulator stops.
pub fn lifetime_s(period: Duration) -> f64 {
    (5.0 * period.as_secs_f64()).max(1.0)
}

/// Publishes the scene of `world` every `period` until shutdown.
pub async fn run(
    publisher: r2r::Publisher<MarkerArray>,
    world: Arc<Mutex<World>>,
    mut scene: SceneMarkers,
    period: Duration,
    log: String,
    shutdown: Shutdown,
) {
    let mut tracker = Tracker::new();
    let mut interval = tokio::time::interval(period);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut failed = false;
    loop {
        tokio::select! {
            _ = shutdown.wait() => return,
            _ = interval.tick() => {}
        }
        let markers = {
            let w = world.lock().unwrap_or_else(|p| p.into_inner());
            scene.of_world(&w)
        };
        let entries = tracker.update(markers);
        let msg = array_msg(&time::header(topics::WORLD_FRAME), &entries);
        match publisher.publish(&msg) {
            Ok(()) => failed = false,
            Err(e) if !failed => {
                failed = true;
                r2r::log_warn!(&log, "could not publish {}: {e}", topics::SIM_MARKERS);
            }
            Err(_) => {}
        }
    }
}
