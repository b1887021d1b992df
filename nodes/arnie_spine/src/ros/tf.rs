//! The config's interface frames on `/tf_static` ([`crate::frames`] does the maths).
//!
//! One `tf2_msgs/TFMessage` holding every rigid interface transform, parent
//! `frame_id` (`world`) → child `<interface>`, published once at start (the config is
//! a start-only parameter: the node never reloads it) with the QoS of tf2's static
//! broadcaster (reliable, transient local, keep last 1), so a subscriber that joins
//! later still gets it. It goes out when the node is first active (a latched lifecycle
//! publisher holds it until then). Each interface that cannot be a frame gets one warning naming
//! it and why.

use node_glue::lifecycle::Lifecycle;
use node_glue::{App, Error};
use r2r::tf2_msgs::msg::TFMessage;

use super::Settings;
use crate::frames::{static_frames, StaticFrame};
use crate::Config;

/// The static transforms topic (absolute, as tf2's static broadcaster).
pub use node_glue::tf::TF_STATIC;

/// Publishes the static frames of `config` (see the module documentation) and returns
/// the names published.
///
/// # Errors
/// [`Error::Ros`] if r2r refuses the publisher or the message.
pub fn publish_static(
    app: &mut App,
    lc: &Lifecycle,
    settings: &Settings,
    config: &Config,
) -> Result<Vec<String>, Error> {
    let parent = settings.frame_id.as_str();
    let (frames, skipped) = static_frames(config, settings.scale);
    for s in &skipped {
        node_glue::log_warn!(
            "transforms.{}: not published on {TF_STATIC} (not a rigid motion: {})",
            s.interface,
            s.reason
        );
    }
    let frames: Vec<StaticFrame> = frames
        .into_iter()
        .filter(|f| {
            let bad = if f.child.is_empty() || f.child.starts_with('/') {
                Some("not a valid frame id")
            } else if f.child == parent {
                Some("it is the parent frame itself")
            } else {
                None
            };
            if let Some(why) = bad {
                node_glue::log_warn!(
                    "transforms.{}: not published on {TF_STATIC} ({why})",
                    f.child
                );
            }
            bad.is_none()
        })
        .collect();
    if !config.unused_transforms.is_empty() {
        node_glue::log_info!(
            "transforms {:?} name no interface: not published on {TF_STATIC}",
            config.unused_transforms
        );
    }
    let names: Vec<String> = frames.iter().map(|f| f.child.clone()).collect();
    if frames.is_empty() {
        node_glue::log_info!("no interface has a rigid transform: nothing on {TF_STATIC}");
        return Ok(names);
    }
    let publisher = lc.latched_publisher::<TFMessage>(
        &mut app.node,
        TF_STATIC,
        node_glue::tf::static_broadcaster_qos(),
    )?;
    let stamp = node_glue::time::now();
    let msg = TFMessage {
        transforms: frames
            .iter()
            .map(|f| {
                node_glue::tf::transform_stamped(
                    parent,
                    &f.child,
                    &stamp,
                    f.translation_m,
                    f.rotation,
                )
            })
            .collect(),
    };
    publisher.publish(&msg)?;
    node_glue::log_info!("{TF_STATIC}: {parent} -> [{}]", names.join(", "));
    Ok(names)
}
