//! The simulated world's objects as frames of their own on `/tf_static` (tf2's static
//! broadcaster QoS: reliable, transient local): `world` → `source_flame`, `candle` and
//! `obstacle_<name>` (each box's centre), from the scenario ([`Scenario::world_frames`]),
//! once at start (they go out when the node is first active). The markers on `sim/markers` stay in `world` (rviz's fixed frame); these
//! frames let a tool place, follow or measure from each object. The taper rides on the
//! arm's tool link (`taper_holder` of the arm's URDF).
use node_glue::lifecycle::{Lifecycle, LifecyclePublisher};
use node_glue::r2r::tf2_msgs::msg::TFMessage;
use node_glue::{App, Error};

use crate::Scenario;

/// The parent of every world frame.
pub const WORLD: &str = "world";

/// Publishes the frames; the returned publisher must live as long as the node (a
/// latched topic is served while its publisher exists).
pub(super) fn publish(
    app: &mut App,
    lc: &Lifecycle,
    scenario: &Scenario,
) -> Result<LifecyclePublisher<TFMessage>, Error> {
    let publisher = lc.latched_publisher::<TFMessage>(
        &mut app.node,
        node_glue::tf::TF_STATIC,
        node_glue::tf::static_broadcaster_qos(),
    )?;
    let stamp = node_glue::time::now();
    let frames = scenario.world_frames();
    publisher.publish(&TFMessage {
        transforms: frames
            .iter()
            .map(|f| {
                node_glue::tf::transform_stamped(
                    WORLD,
                    &f.name,
                    &stamp,
                    f.origin_m,
                    [0.0, 0.0, 0.0, 1.0],
                )
            })
            .collect(),
    })?;
    node_glue::log_info!(
        "{}: {WORLD} -> [{}]",
        node_glue::tf::TF_STATIC,
        frames
            .iter()
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(publisher)
}
