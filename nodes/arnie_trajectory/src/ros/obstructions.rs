//! The remembered obstructions on the graph: the library's [`ObstructionMemory`] with the
//! node's ROS clock, published on `trajectory/obstructions`
//! (`arnie_interfaces/KnownObstructions`) and `trajectory/obstruction_markers`
//! (`visualization_msgs/MarkerArray`), both latched, whenever the set changes; forgotten
//! by `trajectory/clear_obstructions` (`arnie_interfaces/srv/ClearObstructions`).
use arnie_markers::{Marker, Rgba, Tracker};
use nalgebra::Point3;
use node_glue::lifecycle::LifecyclePublisher;
use node_glue::r2r::{
    self,
    arnie_interfaces::msg::{KnownObstruction as ObstructionMsg, KnownObstructions},
    arnie_interfaces::srv::ClearObstructions,
    visualization_msgs::msg::MarkerArray,
    ServiceRequest,
};
use node_glue::{time, topics};

use super::convert::to_point;
use super::counters::Counters;
use crate::units::SCALE;
use crate::{KnownObstruction, ObstructionConfig, ObstructionMemory};

/// `arnie_interfaces/KnownObstructions`, latched.
pub(crate) const OBSTRUCTIONS: &str = "trajectory/obstructions";
/// `visualization_msgs/MarkerArray`, latched: one sphere per obstruction.
pub(crate) const OBSTRUCTION_MARKERS: &str = "trajectory/obstruction_markers";
/// `arnie_interfaces/srv/ClearObstructions`.
pub(crate) const CLEAR_OBSTRUCTIONS: &str = "trajectory/clear_obstructions";

const MARKER_NS: &str = "obstructions";
/// Orange, half transparent: the clearance sphere.
const COLOUR: Rgba = Rgba {
    r: 1.0,
    g: 0.5,
    b: 0.0,
    a: 0.4,
};

/// The memory and its two latched publishers.
pub(crate) struct Memory {
    memory: ObstructionMemory,
    topic: LifecyclePublisher<KnownObstructions>,
    markers: LifecyclePublisher<MarkerArray>,
    tracker: Tracker,
}

/// Milliseconds on the node's ROS clock (with `use_sim_time`, `/clock`).
fn now_ms() -> u64 {
    u64::try_from(time::now_duration().as_millis()).unwrap_or(u64::MAX)
}

fn stamp_ms(ms: u64) -> r2r::builtin_interfaces::msg::Time {
    time::stamp(std::time::Duration::from_millis(ms))
}

impl Memory {
    pub(crate) fn new(
        config: ObstructionConfig,
        topic: LifecyclePublisher<KnownObstructions>,
        markers: LifecyclePublisher<MarkerArray>,
    ) -> Self {
        Self {
            memory: ObstructionMemory::new(config),
            topic,
            markers,
            tracker: Tracker::new(),
        }
    }

    /// Clearance radius of the next obstruction [mm].
    pub(crate) fn radius_mm(&self) -> f64 {
        self.memory.config().radius_mm()
    }

    /// The obstructions alive now (expired ones are removed first).
    pub(crate) fn current(&mut self, counters: &Counters) -> Vec<KnownObstruction> {
        self.expire(counters);
        self.memory.iter().copied().collect()
    }

    /// Remembers a stop at `centre_mm` (the obstructed set-point).
    pub(crate) fn record(&mut self, centre_mm: Point3<f64>, counters: &Counters) {
        match self.memory.record(centre_mm, now_ms()) {
            Ok(r) => {
                counters.obstructions_recorded.inc();
                let o = r.obstruction;
                node_glue::log_warn!(
                    "remembering obstruction {} at {:?} mm (clearance {} mm, for {} s)",
                    o.id,
                    o.centre_mm.coords.as_slice(),
                    o.radius_mm,
                    (o.expires_at_ms - o.recorded_at_ms) as f64 / 1000.0
                );
                if let Some(d) = r.dropped {
                    counters.obstructions_dropped.inc();
                    node_glue::log_warn!(
                        "max_obstructions reached: forgot the oldest obstruction {}",
                        d.id
                    );
                }
            }
            Err(e) => {
                counters.obstructions_not_finite.inc();
                node_glue::log_warn!("obstruction not remembered: {e}");
            }
        }
        self.publish(counters);
    }

    /// Removes expired obstructions; publishes when some went.
    pub(crate) fn expire(&mut self, counters: &Counters) {
        let gone = self.memory.expire(now_ms());
        if gone.is_empty() {
            return;
        }
        for o in &gone {
            counters.obstructions_expired.inc();
            node_glue::log_info!("obstruction {} expired", o.id);
        }
        self.publish(counters);
    }

    /// New parameters (radius and TTL for the next ones; a lower cap drops at once).
    pub(crate) fn reconfigure(&mut self, config: ObstructionConfig, counters: &Counters) {
        if *self.memory.config() == config {
            return;
        }
        let dropped = self.memory.reconfigure(config);
        if !dropped.is_empty() {
            counters.obstructions_dropped.add(dropped.len() as u64);
            node_glue::log_warn!(
                "max_obstructions lowered to {}: forgot the {} oldest obstruction(s)",
                config.max_obstructions(),
                dropped.len()
            );
            self.publish(counters);
        }
    }

    /// The clear service.
    pub(crate) fn on_clear(
        &mut self,
        req: ServiceRequest<ClearObstructions::Service>,
        counters: &Counters,
    ) {
        let ids = req.message.ids.clone();
        let (cleared, unknown_ids) = if ids.is_empty() {
            (self.memory.clear(), Vec::new())
        } else {
            let (gone, unknown) = self.memory.forget(&ids);
            (gone.len(), unknown)
        };
        counters.obstructions_cleared.add(cleared as u64);
        let message = match (cleared, unknown_ids.is_empty()) {
            (n, true) => format!("forgot {n} obstruction(s)"),
            (n, false) => format!("forgot {n} obstruction(s); not remembered: {unknown_ids:?}"),
        };
        node_glue::log_info!("{CLEAR_OBSTRUCTIONS}: {message}");
        if cleared > 0 {
            self.publish(counters);
        }
        let response = ClearObstructions::Response {
            cleared: u32::try_from(cleared).unwrap_or(u32::MAX),
            unknown_ids,
            message,
        };
        if let Err(e) = req.respond(response) {
            node_glue::log_warn!("could not answer {CLEAR_OBSTRUCTIONS}: {e}");
        }
    }

    /// Publishes the whole set on both topics (also at start: an empty set).
    pub(crate) fn publish(&mut self, counters: &Counters) {
        counters
            .remembered
            .store(self.memory.len(), std::sync::atomic::Ordering::Relaxed);
        let header = time::header(topics::WORLD_FRAME);
        let msg = KnownObstructions {
            header: header.clone(),
            obstructions: self
                .memory
                .iter()
                .map(|o| ObstructionMsg {
                    id: o.id,
                    centre: to_point(o.centre_mm),
                    radius: SCALE.to_m(o.radius_mm),
                    recorded_at: stamp_ms(o.recorded_at_ms),
                    expires_at: stamp_ms(o.expires_at_ms),
                })
                .collect(),
            dropped_total: self.memory.dropped_total(),
        };
        let spheres = self
            .memory
            .iter()
            .map(|o| {
                let c = to_point(o.centre_mm);
                Marker::sphere(
                    MARKER_NS,
                    i32::try_from(o.id % (i32::MAX as u64)).unwrap_or(0),
                    [c.x, c.y, c.z],
                    2.0 * SCALE.to_m(o.radius_mm),
                    COLOUR,
                )
            })
            .collect();
        let markers = arnie_markers::ros::array_msg(&header, &self.tracker.update(spheres));
        for result in [
            self.topic.publish(&msg).map_err(|e| (OBSTRUCTIONS, e)),
            self.markers
                .publish(&markers)
                .map_err(|e| (OBSTRUCTION_MARKERS, e)),
        ] {
            if let Err((topic, e)) = result {
                counters.publish_errors.inc();
                node_glue::log_warn!("could not publish {topic}: {e}");
            }
        }
    }
}
