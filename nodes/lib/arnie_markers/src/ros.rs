//! [`Entry`] → `visualization_msgs/Marker` (feature `ros`, the nodes' glue), and
//! [`run`], the loop every marker topic of the nodes runs (`sim/markers`,
//! `brain/markers`).
//!
//! QoS: reliable, transient-local, depth 1 ([`node_glue::qos::latched`]). Every array is
//! the node's whole picture, so a late subscriber (rviz started later, a Foxglove client)
//! gets all of it at once from the latched last array. Markers that disappear are
//! deleted ([`Tracker`]); the first array starts with `DELETEALL`.
//!
//! The publisher is a lifecycle publisher of the node ([`node_glue::lifecycle`]): while
//! the node is not active nothing is drawn or published.
use node_glue::lifecycle::{Lifecycle, LifecyclePublisher};
use node_glue::{qos, time, topics, Shutdown};
use r2r::builtin_interfaces::msg::Duration;
use r2r::geometry_msgs::msg::{Point, Pose, Quaternion, Vector3};
use r2r::std_msgs::msg::{ColorRGBA, Header};
use r2r::visualization_msgs::msg::{Marker as Msg, MarkerArray};

use crate::{Entry, Kind, Marker, Rgba, Tracker};

/// Creates a latched `MarkerArray` publisher on `topic` (before the node spins), silent
/// unless the node (`lc`) is active.
///
/// # Errors
/// The publisher could not be created.
pub fn publisher(
    node: &mut r2r::Node,
    lc: &Lifecycle,
    topic: &str,
) -> r2r::Result<LifecyclePublisher<MarkerArray>> {
    lc.publisher::<MarkerArray>(node, topic, qos::latched())
}

/// Every `period` until shutdown: the markers `draw` returns (`None`: nothing this time)
/// go out on `publisher` as one array in `world`, stamped from the node's ROS clock, with
/// `DELETE`s for those no longer drawn. A failed publication is logged (the node's
/// logger) once per run of failures, naming `topic`.
pub async fn run<F>(
    publisher: LifecyclePublisher<MarkerArray>,
    topic: &str,
    period: std::time::Duration,
    shutdown: Shutdown,
    mut draw: F,
) where
    F: FnMut() -> Option<Vec<Marker>>,
{
    let mut tracker = Tracker::new();
    let mut interval = tokio::time::interval(period);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut failed = false;
    loop {
        tokio::select! {
            _ = shutdown.wait() => return,
            _ = interval.tick() => {}
        }
        if !publisher.is_activated() {
            continue;
        }
        let Some(markers) = draw() else { continue };
        let msg = array_msg(&time::header(topics::WORLD_FRAME), &tracker.update(markers));
        match publisher.publish(&msg) {
            Ok(()) => failed = false,
            Err(e) if !failed => {
                failed = true;
                node_glue::log_warn!("could not publish {topic}: {e}");
            }
            Err(_) => {}
        }
    }
}

fn colour(c: Rgba) -> ColorRGBA {
    ColorRGBA {
        r: c.r,
        g: c.g,
        b: c.b,
        a: c.a,
    }
}

fn point(p: [f64; 3]) -> Point {
    Point {
        x: p[0],
        y: p[1],
        z: p[2],
    }
}

fn lifetime(s: f64) -> Duration {
    if !(s.is_finite() && s > 0.0) {
        return Duration { sec: 0, nanosec: 0 };
    }
    let s = s.min(i32::MAX as f64);
    Duration {
        sec: s.trunc() as i32,
        nanosec: ((s.fract() * 1e9) as u32).min(999_999_999),
    }
}

fn kind(k: Kind) -> i32 {
    match k {
        Kind::Sphere => Msg::SPHERE as i32,
        Kind::Cube => Msg::CUBE as i32,
        Kind::LineStrip => Msg::LINE_STRIP as i32,
        Kind::LineList => Msg::LINE_LIST as i32,
        Kind::Text => Msg::TEXT_VIEW_FACING as i32,
    }
}

/// One marker message; every message carries `header` (frame and stamp).
pub fn marker_msg(header: &Header, entry: &Entry) -> Msg {
    match entry {
        Entry::DeleteAll => Msg {
            header: header.clone(),
            action: Msg::DELETEALL as i32,
            ..Default::default()
        },
        Entry::Delete { ns, id } => Msg {
            header: header.clone(),
            ns: (*ns).to_owned(),
            id: *id,
            action: Msg::DELETE as i32,
            ..Default::default()
        },
        Entry::Add(m) => add(header, m),
    }
}

fn add(header: &Header, m: &Marker) -> Msg {
    Msg {
        header: header.clone(),
        ns: m.ns.to_owned(),
        id: m.id,
        type_: kind(m.kind),
        action: Msg::ADD as i32,
        pose: Pose {
            position: point(m.position),
            orientation: Quaternion {
                x: 0.0,
                y: 0.0,
                z: 0.0,
                w: 1.0,
            },
        },
        scale: Vector3 {
            x: m.scale[0],
            y: m.scale[1],
            z: m.scale[2],
        },
        color: colour(m.colour),
        lifetime: lifetime(m.lifetime_s),
        points: m.points.iter().copied().map(point).collect(),
        colors: m.colours.iter().copied().map(colour).collect(),
        text: m.text.clone(),
        ..Default::default()
    }
}

/// The `MarkerArray` of `entries`, each stamped with `header`.
pub fn array_msg(header: &Header, entries: &[Entry]) -> MarkerArray {
    MarkerArray {
        markers: entries.iter().map(|e| marker_msg(header, e)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_map_to_actions_and_types() {
        let header = Header {
            frame_id: "world".into(),
            ..Default::default()
        };
        let s = Marker::sphere("candle", 0, [0.1, 0.2, 0.3], 0.02, Rgba::rgb(1.0, 0.5, 0.0))
            .with_lifetime(1.5);
        let a = array_msg(
            &header,
            &[
                Entry::DeleteAll,
                Entry::Delete { ns: "x", id: 3 },
                Entry::Add(s),
            ],
        );
        let m = &a.markers;
        assert_eq!(m[0].action, 3);
        assert_eq!((m[1].action, m[1].ns.as_str(), m[1].id), (2, "x", 3));
        assert_eq!((m[2].action, m[2].type_), (0, 2));
        assert_eq!(m[2].pose.orientation.w, 1.0);
        assert_eq!((m[2].lifetime.sec, m[2].lifetime.nanosec), (1, 500_000_000));
        assert!(m.iter().all(|x| x.header.frame_id == "world"));
    }
}
