//! The learned obstructions on the graph: the library's [`ObstructionMemory`] with the
//! node's ROS clock, published on `trajectory/obstructions`
//! (`arnie_interfaces/KnownObstructions`) and `trajectory/obstruction_markers`
//! (`visualization_msgs/MarkerArray`), both latched, whenever the set changes (learned,
//! merged, shrunk or cleared by a pass, expired, forgotten, dropped); forgotten by
//! `trajectory/clear_obstructions` (`arnie_interfaces/srv/ClearObstructions`).
use arnie_markers::{Kind, Marker, Rgba, Tracker};
use nalgebra::Point3;
use node_glue::lifecycle::LifecyclePublisher;
use node_glue::r2r::{
    self,
    arnie_interfaces::msg::{KnownObstruction as ObstructionMsg, KnownObstructions},
    arnie_interfaces::srv::ClearObstructions,
    geometry_msgs::msg::Vector3,
    visualization_msgs::msg::MarkerArray,
    ServiceRequest,
};
use node_glue::{time, topics};

use super::convert::to_point;
use super::counters::Counters;
use crate::units::SCALE;
use crate::{KnownObstruction, ObstructionConfig, ObstructionMemory, PassEffect, Region};

/// `arnie_interfaces/KnownObstructions`, latched.
pub(crate) const OBSTRUCTIONS: &str = "trajectory/obstructions";
/// `visualization_msgs/MarkerArray`, latched: each learned region drawn.
pub(crate) const OBSTRUCTION_MARKERS: &str = "trajectory/obstruction_markers";
/// `arnie_interfaces/srv/ClearObstructions`.
pub(crate) const CLEAR_OBSTRUCTIONS: &str = "trajectory/clear_obstructions";

/// Namespace of the clearance balls (one per region, id = the region's id).
const MARKER_NS: &str = "obstructions";
/// Namespace of what is believed solid (one per region).
const CORE_NS: &str = "obstruction_cores";
/// Namespace of the contacts: one line list, from where the arm stood along the way it
/// was moving to the region's centre.
const CONTACT_NS: &str = "obstruction_contacts";
/// Orange, half transparent: the clearance ball.
const COLOUR: Rgba = Rgba {
    r: 1.0,
    g: 0.5,
    b: 0.0,
    a: 0.35,
};
/// Red, nearly opaque: what is believed solid.
const CORE_COLOUR: Rgba = Rgba {
    r: 0.85,
    g: 0.1,
    b: 0.05,
    a: 0.85,
};
/// Dark red: the contacts.
const CONTACT_COLOUR: Rgba = Rgba::rgb(0.5, 0.0, 0.0);

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

    /// The parameters.
    pub(crate) fn config(&self) -> &ObstructionConfig {
        self.memory.config()
    }

    /// The obstructions alive now (expired ones are removed first).
    pub(crate) fn current(&mut self, counters: &Counters) -> Vec<KnownObstruction> {
        self.expire(counters);
        self.memory.iter().copied().collect()
    }

    /// Remembers the region a stop taught (or merges it into the one known at that place):
    /// its id, `None` when refused.
    pub(crate) fn learn(&mut self, region: &Region, counters: &Counters) -> Option<u64> {
        let id = match self.memory.learn(region, now_ms()) {
            Ok(r) => {
                let o = r.obstruction;
                let c = o.contact_mm;
                if r.merged {
                    counters.obstructions_merged.inc();
                    node_glue::log_warn!(
                        "stopped again at learned obstruction {} (hit {} times); kept for {} s more",
                        o.id,
                        o.hits,
                        (o.expires_at_ms - o.recorded_at_ms) as f64 / 1000.0
                    );
                } else {
                    counters.obstructions_recorded.inc();
                    node_glue::log_warn!(
                        "learned obstruction {}: the arm was stopped at ({:.1}, {:.1}, {:.1}) mm \
                         moving ({:.2}, {:.2}, {:.2}); believed solid {:.1} mm around ({:.1}, \
                         {:.1}, {:.1}) mm, kept out of within {:.1} mm, for {} s",
                        o.id,
                        c.x,
                        c.y,
                        c.z,
                        o.direction.x,
                        o.direction.y,
                        o.direction.z,
                        o.size_mm,
                        o.centre_mm.x,
                        o.centre_mm.y,
                        o.centre_mm.z,
                        o.radius_mm,
                        (o.expires_at_ms - o.recorded_at_ms) as f64 / 1000.0
                    );
                }
                if let Some(d) = r.dropped {
                    counters.obstructions_dropped.inc();
                    node_glue::log_warn!(
                        "max_obstructions reached: forgot the oldest obstruction {}",
                        d.id
                    );
                }
                Some(o.id)
            }
            Err(e) => {
                counters.obstructions_not_finite.inc();
                node_glue::log_warn!("obstruction not remembered: {e}");
                None
            }
        };
        self.publish(counters);
        id
    }

    /// The arm went from `a` to `b` unhindered: regions it passed through shrink or go
    /// (counted, logged, published).
    pub(crate) fn free_pass(&mut self, a: Point3<f64>, b: Point3<f64>, counters: &Counters) {
        let changed = self.memory.free_pass(a, b);
        if changed.is_empty() {
            return;
        }
        for p in &changed {
            match p.effect {
                PassEffect::Cleared => {
                    counters.obstructions_cleared_by_pass.inc();
                    node_glue::log_info!(
                        "learned obstruction {} cleared: the arm passed through it unhindered",
                        p.before.id
                    );
                }
                PassEffect::Shrunk { from_mm, to_mm } => {
                    counters.obstructions_shrunk.inc();
                    node_glue::log_info!(
                        "learned obstruction {} shrunk from {from_mm:.1} to {to_mm:.1} mm: the arm \
                         passed through part of it unhindered",
                        p.before.id
                    );
                }
                PassEffect::None => {}
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
                    size: SCALE.to_m(o.size_mm),
                    contact: to_point(o.contact_mm),
                    direction: Vector3 {
                        x: o.direction.x,
                        y: o.direction.y,
                        z: o.direction.z,
                    },
                    hits: o.hits,
                    recorded_at: stamp_ms(o.recorded_at_ms),
                    expires_at: stamp_ms(o.expires_at_ms),
                })
                .collect(),
            dropped_total: self.memory.dropped_total(),
        };
        let markers = self.drawn();
        let markers = arnie_markers::ros::array_msg(&header, &self.tracker.update(markers));
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

    /// Every region: its clearance ball, what is believed solid, and its contact.
    fn drawn(&self) -> Vec<Marker> {
        let mut out = Vec::new();
        let mut contacts = Vec::new();
        for o in self.memory.iter() {
            let id = i32::try_from(o.id % (i32::MAX as u64)).unwrap_or(0);
            let c = to_point(o.centre_mm);
            let c = [c.x, c.y, c.z];
            out.push(Marker::sphere(
                MARKER_NS,
                id,
                c,
                2.0 * SCALE.to_m(o.radius_mm),
                COLOUR,
            ));
            out.push(Marker::sphere(
                CORE_NS,
                id,
                c,
                2.0 * SCALE.to_m(o.size_mm),
                CORE_COLOUR,
            ));
            let a = to_point(o.contact_mm);
            contacts.push([a.x, a.y, a.z]);
            contacts.push(c);
        }
        if !contacts.is_empty() {
            out.push(Marker {
                scale: [0.002, 0.0, 0.0],
                colour: CONTACT_COLOUR,
                points: contacts,
                ..Marker::new(CONTACT_NS, 0, Kind::LineList)
            });
        }
        out
    }
}
