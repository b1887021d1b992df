//! The latest arm position and observations, each with the instant it arrived.
//!
//! The arm position is a `node_glue::tracker::Tracker` (the tracker every node uses);
//! the observations a [`Sample`] of the same shape. Age is measured from arrival on the
//! node's ROS clock (`node_glue::time`: system time, or `/clock` with `use_sim_time`, so
//! a replay at `-r 4` ages values in replayed time), not from the header stamp: the
//! publisher's clock may differ, and what matters is how old the value is *here*. Only
//! finite values are stored; the others are counted and logged (rate-limited,
//! `node_glue::warn_limited!`).
//! Values stay in metres; the tick converts them with the run's [`super::Scale`].

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{Stream, StreamExt};
use nalgebra::Point3;
use node_glue::ratelimit::RateLimit;
use node_glue::topics;
use node_glue::tracker::{Sample, Tracker};
use r2r::arnie_interfaces::msg::Coordinates;
use r2r::geometry_msgs::msg::PointStamped;

use super::Counters;

/// One observed object, metres, with the 4th value (the eyes' confidence) if present.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seen {
    /// Where, metres, frame `world`.
    pub position_m: Point3<f64>,
    /// The item's 4th value, if it has one (finite).
    pub confidence: Option<f64>,
}

/// Shared by the subscription tasks (writers) and the tick loop (reader).
#[derive(Debug, Default)]
pub struct Inputs {
    /// The latest finite arm position (metres) and its arrival.
    pub arm: Tracker<Point3<f64>>,
    seen: Mutex<Option<Sample<Vec<Seen>>>>,
}

/// A sample's value if it arrived at most `max_age` before `now` (ROS time).
fn fresh<T: Clone>(s: Option<&Sample<T>>, now: Duration, max_age: Duration) -> Option<T> {
    s.filter(|s| now.saturating_sub(s.at) <= max_age)
        .map(|s| s.value.clone())
}

impl Inputs {
    /// Records the items of an observations message received now.
    pub fn set_seen(&self, seen: Vec<Seen>) {
        *self.seen.lock().unwrap_or_else(|e| e.into_inner()) = Some(Sample {
            value: seen,
            at: node_glue::time::now_duration(),
        });
    }

    /// The arm position (metres) if it arrived at most `max_age` before `now` (ROS time).
    pub fn arm_m(&self, now: Duration, max_age: Duration) -> Option<Point3<f64>> {
        fresh(self.arm.latest().as_ref(), now, max_age)
    }

    /// The latest observations if they arrived at most `max_age` before `now` (ROS time),
    /// else none.
    pub fn seen(&self, now: Duration, max_age: Duration) -> Vec<Seen> {
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        fresh(seen.as_ref(), now, max_age).unwrap_or_default()
    }
}

impl Inputs {
    /// The latest observations if they arrived at most `max_age` ago, else none
    /// (`brain/markers`, which runs beside the tick).
    pub fn seen_now(&self, max_age: Duration) -> Vec<Seen> {
        self.seen(node_glue::time::now_duration(), max_age)
    }
}

/// A point if all three coordinates are finite.
pub fn finite_point(x: f64, y: f64, z: f64) -> Option<Point3<f64>> {
    [x, y, z]
        .iter()
        .all(|v| v.is_finite())
        .then(|| Point3::new(x, y, z))
}

/// The usable items of a `Coordinates` message and how many were dropped (fewer than
/// three values, or a non-finite value among x, y, z and the confidence).
pub fn seen_items(msg: &Coordinates) -> (Vec<Seen>, usize) {
    let mut out = Vec::with_capacity(msg.items.len());
    let mut dropped = 0;
    for item in &msg.items {
        let v = &item.values;
        let point = match v.as_slice() {
            [x, y, z, ..] => finite_point(*x, *y, *z),
            _ => None,
        };
        let confidence = v.get(3).copied();
        match point {
            Some(position_m) if !matches!(confidence, Some(c) if !c.is_finite()) => {
                out.push(Seen {
                    position_m,
                    confidence,
                })
            }
            _ => dropped += 1,
        }
    }
    (out, dropped)
}

/// Feeds `/arm/position` into `inputs` until the stream ends.
pub async fn track_arm(
    mut positions: impl Stream<Item = PointStamped> + Unpin,
    inputs: Arc<Inputs>,
    counters: Arc<Counters>,
) {
    let limit = RateLimit::default();
    while let Some(m) = positions.next().await {
        match finite_point(m.point.x, m.point.y, m.point.z) {
            Some(p) => {
                counters.positions.inc();
                inputs.arm.set(p);
            }
            None => {
                counters.positions_rejected.inc();
                node_glue::warn_limited!(
                    limit,
                    "position",
                    "{}: ignored a non-finite position",
                    topics::ARM_POSITION
                );
            }
        }
    }
}

/// Feeds `/eyes/observations` into `inputs` until the stream ends.
pub async fn track_observations(
    mut messages: impl Stream<Item = Coordinates> + Unpin,
    inputs: Arc<Inputs>,
    counters: Arc<Counters>,
) {
    let limit = RateLimit::default();
    while let Some(m) = messages.next().await {
        counters.observation_messages.inc();
        let (seen, dropped) = seen_items(&m);
        if dropped > 0 {
            counters.observations_rejected.add(dropped as u64);
            node_glue::warn_limited!(
                limit,
                "observations",
                "{}: dropped {dropped} item(s) without 3 finite values",
                topics::EYES_OBSERVATIONS
            );
        }
        inputs.set_seen(seen);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use r2r::arnie_interfaces::msg::Coordinate;

    #[test]
    fn items_need_three_finite_values() {
        let item = |v: &[f64]| Coordinate { values: v.to_vec() };
        let msg = Coordinates {
            header: Default::default(),
            items: vec![
                item(&[0.08, 0.06, 0.04, 90.0]),
                item(&[1.0, 2.0]),
                item(&[f64::NAN, 0.0, 0.0]),
                item(&[0.0, 0.0, 0.0, f64::INFINITY]),
                item(&[-0.095, 0.03, 0.045]),
            ],
        };
        let (seen, dropped) = seen_items(&msg);
        assert_eq!(dropped, 3);
        assert_eq!(
            seen,
            [
                Seen {
                    position_m: Point3::new(0.08, 0.06, 0.04),
                    confidence: Some(90.0)
                },
                Seen {
                    position_m: Point3::new(-0.095, 0.03, 0.045),
                    confidence: None
                },
            ]
        );
    }

    #[test]
    fn old_values_are_stale() {
        let inputs = Inputs::default();
        let t0 = node_glue::time::now_duration();
        assert_eq!(inputs.arm_m(t0, Duration::from_secs(1)), None);
        inputs.arm.set(Point3::new(0.0, 0.1, 0.0));
        inputs.set_seen(vec![Seen {
            position_m: Point3::origin(),
            confidence: None,
        }]);
        let now = node_glue::time::now_duration();
        assert!(inputs.arm_m(now, Duration::from_secs(1)).is_some());
        assert_eq!(inputs.seen(now, Duration::from_secs(1)).len(), 1);
        let later = now + Duration::from_secs(2);
        assert_eq!(inputs.arm_m(later, Duration::from_secs(1)), None);
        assert!(inputs.seen(later, Duration::from_secs(1)).is_empty());
    }
}
