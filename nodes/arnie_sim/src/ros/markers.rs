//! `sim/markers`: the scene of [`crate::markers::SceneMarkers`] as a
//! `visualization_msgs/MarkerArray` in `world`, stamped from the node's ROS clock.
//!
//! Every array is the whole scene (the static workspace and obstacles are republished
//! with the moving parts: a few markers), so one topic and one display carry every
//! namespace. The publisher, QoS (latched) and loop (`DELETE` of markers no longer drawn,
//! `DELETEALL` first) are [`arnie_markers::ros`]'s, shared with `brain/markers`.
use std::sync::{Arc, Mutex};
use std::time::Duration;

use node_glue::lifecycle::{Lifecycle, LifecyclePublisher};
use node_glue::r2r::{self, visualization_msgs::msg::MarkerArray};
use node_glue::{topics, Shutdown};

use crate::markers::SceneMarkers;
use crate::World;

/// Creates the `sim/markers` publisher (before the node spins; silent unless active).
pub fn publisher(
    node: &mut r2r::Node,
    lc: &Lifecycle,
) -> r2r::Result<LifecyclePublisher<MarkerArray>> {
    arnie_markers::ros::publisher(node, lc, topics::SIM_MARKERS)
}

/// Publishes the scene of `world` every `period` until shutdown (the moving markers
/// live [`arnie_markers::lifetime_s`] of `period`).
pub async fn run(
    publisher: LifecyclePublisher<MarkerArray>,
    world: Arc<Mutex<World>>,
    scene: SceneMarkers,
    period: Duration,
    shutdown: Shutdown,
) {
    let mut scene = scene.with_lifetime_s(arnie_markers::lifetime_s(period));
    let draw = move || {
        let w = world.lock().unwrap_or_else(|p| p.into_inner());
        Some(scene.of_world(&w))
    };
    arnie_markers::ros::run(publisher, topics::SIM_MARKERS, period, shutdown, draw).await
}
