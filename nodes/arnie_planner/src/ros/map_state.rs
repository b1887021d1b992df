//! The map with its run-time marks ([`MapState`]), the `planner/update_map` service and
//! the `map` republication. The planner task ([`super::task`]) owns one [`MapState`], next
//! to the [`Planner`], so maps, marks and plans are handled in turn without a lock.
//!
//! - `planner/update_map` (`arnie_interfaces/srv/UpdateMap`): mark (or with `clear`,
//!   unmark) discs, optional `ttl_s`; answered `OK` with `cells_changed`, `NO_MAP`, or
//!   `INVALID_REQUEST` with the reason (the bounds are the library's:
//!   [`crate::marks::MAX_CENTERS`], [`crate::marks::MAX_RADIUS_M`],
//!   [`crate::marks::MAX_TTL_S`]). Each answer is counted by outcome; a refusal is logged
//!   rate-limited. A change rebuilds the planner and republishes `map`.
//! - Marks expire when their time is up; expiry is checked before each plan (and at each
//!   update), time being the node's monotonic clock since start.
//! - `map` (`nav_msgs/OccupancyGrid`, reliable + transient-local, so rviz draws it): with
//!   a map FILE only (a map received on `map` is not echoed back onto it): 100 = the
//!   file's obstacles, 99 = marks, 0 = free; frame `frame_id`.
use node_glue::lifecycle::LifecyclePublisher;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use node_glue::r2r::{
    arnie_interfaces::srv::UpdateMap,
    geometry_msgs::msg::{Point, Pose, Quaternion},
    nav_msgs::msg::{MapMetaData, OccupancyGrid},
    ServiceRequest,
};
use node_glue::time;

use super::counters::{Counters, Gates, Line};
use crate::{Grid, MarkedMap, Planner};

// `UpdateMap.srv` outcome constants (r2r gives them as bindgen types; these are generated
// from the same file by arnie_constants).
use arnie_constants::srv::update_map::response::{INVALID_REQUEST, NO_MAP, OK};

/// The planner's service name for map updates.
pub(crate) use node_glue::topics::UPDATE_MAP;

/// The map with its marks, and where it is republished.
pub(crate) struct MapState {
    map: Option<MarkedMap>,
    publisher: Option<LifecyclePublisher<OccupancyGrid>>,
    /// `global_costmap/costmap` (Nav2's costmap topic), every map, file or `/map`.
    costmap: Option<LifecyclePublisher<OccupancyGrid>>,
    frame_id: String,
    t0: Instant,
    counters: Arc<Counters>,
}

impl MapState {
    /// No map yet; `publisher` = republish on `map` (file maps), in `frame_id`.
    pub fn new(
        publisher: Option<LifecyclePublisher<OccupancyGrid>>,
        frame_id: &str,
        counters: Arc<Counters>,
    ) -> Self {
        MapState {
            map: None,
            publisher,
            costmap: None,
            frame_id: frame_id.into(),
            t0: Instant::now(),
            counters,
        }
    }

    fn now(&self) -> f64 {
        self.t0.elapsed().as_secs_f64()
    }

    /// Publishes the costmap too (`global_costmap/costmap`), from now on.
    pub fn with_costmap(mut self, costmap: LifecyclePublisher<OccupancyGrid>) -> Self {
        self.costmap = Some(costmap);
        self
    }

    /// Forgets every mark: how many there were, and the planner for the changed map.
    pub fn clear_marks(&mut self) -> (usize, Option<Planner>) {
        let Some(map) = self.map.as_mut() else {
            return (0, None);
        };
        let n = map.clear_all();
        if n == 0 {
            return (0, None);
        }
        let planner = Planner::new(&map.grid());
        self.publish();
        (n, Some(planner))
    }

    /// A new map (`raw` as drawn, `base` inflated): marks are dropped; republished.
    pub fn set_map(&mut self, raw: Grid, base: Grid, robot_radius_m: f64) {
        self.map = Some(MarkedMap::new(raw, base, robot_radius_m));
        self.publish();
    }

    /// Number of live marks.
    pub fn marks(&self) -> usize {
        self.map.as_ref().map_or(0, |m| m.marks().len())
    }

    /// Forgets expired marks; `Some(planner)` for the changed map.
    pub fn expire(&mut self) -> Option<Planner> {
        let now = self.now();
        let map = self.map.as_mut()?;
        let before = map.marks().len();
        if !map.expire(now) {
            return None;
        }
        self.counters
            .marks_expired
            .add((before - map.marks().len()) as u64);
        self.counters
            .marks
            .store(map.marks().len() as u64, Ordering::Relaxed);
        let planner = Planner::new(&map.grid());
        self.publish();
        Some(planner)
    }

    /// Answers one `UpdateMap` request; `Some(planner)` when the searched grid changed.
    /// A refusal is logged through `gates` (rate-limited).
    pub fn on_update(
        &mut self,
        req: ServiceRequest<UpdateMap::Service>,
        gates: &Gates,
    ) -> Option<Planner> {
        let now = self.now();
        let rebuilt = self.expire();
        let m = &req.message;
        let centers: Vec<(f64, f64)> = m.centers.iter().map(|c| (c.x, c.y)).collect();
        let (resp, planner) = match self.map.as_mut() {
            None => (
                UpdateMap::Response {
                    outcome: NO_MAP,
                    message: "no map loaded".into(),
                    cells_changed: 0,
                },
                None,
            ),
            Some(map) => {
                match map.update(&centers, m.radius_m, m.clear, m.ttl_s, now) {
                    Err(e) => (
                        UpdateMap::Response {
                            outcome: INVALID_REQUEST,
                            message: e.to_string(),
                            cells_changed: 0,
                        },
                        None,
                    ),
                    Ok(n) => {
                        let what = if m.clear { "cleared" } else { "marked" };
                        node_glue::log_debug!("{what} {} disc(s) of {} m (ttl {} s): {n} cells changed, {} marks live", centers.len(), m.radius_m, m.ttl_s, map.marks().len());
                        let planner = (n > 0).then(|| Planner::new(&map.grid()));
                        (
                            UpdateMap::Response {
                                outcome: OK,
                                message: String::new(),
                                cells_changed: n,
                            },
                            planner,
                        )
                    }
                }
            }
        };
        self.counters.count_update(resp.outcome);
        self.counters
            .marks
            .store(self.marks() as u64, Ordering::Relaxed);
        if resp.outcome != OK {
            if let Some(more) = gates.pass(Line::UpdateRefused, &self.counters) {
                node_glue::log_warn!("update_map refused: {}{more}", resp.message);
            }
        }
        if let Err(e) = req.respond(resp) {
            self.counters.answers_lost.inc();
            node_glue::log_warn!("could not answer an UpdateMap request: {e}");
        }
        let changed = planner.is_some();
        if changed {
            self.publish();
        }
        planner.or(rebuilt)
    }

    fn publish(&self) {
        let Some(map) = &self.map else {
            return;
        };
        let msg = occupancy_msg(map, &self.frame_id);
        if let Some(costmap) = &self.costmap {
            let grid = map.grid();
            let data =
                crate::node::nav2::costmap_data(&msg.data, grid.blocked_cells(), grid.width());
            let cost = OccupancyGrid {
                data,
                ..msg.clone()
            };
            if let Err(e) = costmap.publish(&cost) {
                node_glue::log_warn!("could not publish the costmap: {e}");
            }
        }
        let Some(publisher) = &self.publisher else {
            return;
        };
        if let Err(e) = publisher.publish(&msg) {
            node_glue::log_warn!("could not publish map: {e}");
        }
    }
}

/// The map as drawn (see [`MarkedMap::occupancy_data`]) as a `nav_msgs/OccupancyGrid`.
pub(crate) fn occupancy_msg(map: &MarkedMap, frame_id: &str) -> OccupancyGrid {
    let g = map.raw();
    let f = g.frame();
    OccupancyGrid {
        header: time::header(frame_id),
        info: MapMetaData {
            map_load_time: time::now(),
            resolution: f.resolution_m as f32,
            width: g.width() as u32,
            height: g.height() as u32,
            origin: Pose {
                position: Point {
                    x: f.origin_x_m,
                    y: f.origin_y_m,
                    z: 0.0,
                },
                orientation: Quaternion {
                    x: 0.0,
                    y: 0.0,
                    z: 0.0,
                    w: 1.0,
                },
            },
        },
        data: map.occupancy_data(),
    }
}
