//! The planner task: owns the [`Planner`] and the [`MapState`], and takes maps (`/map`),
//! `PlanPath` requests ([`super::plan`]) and `UpdateMap` requests in turn, so there is no
//! lock around them; searches and map building run in `block_in_place`, off the spin
//! thread and without stalling the runtime's other tasks (/diagnostics).
use std::sync::{Arc, Mutex};

use futures::{Stream, StreamExt};
use node_glue::lifecycle::{Lifecycle, LifecyclePublisher};
use node_glue::r2r::{
    arnie_interfaces::srv::{PlanPath, UpdateMap},
    nav_msgs::msg::{OccupancyGrid, Path},
    ServiceRequest,
};
use node_glue::Shutdown;

use super::counters::{Counters, Gates, Line};
use super::map_state::MapState;
use super::nav2::Nav2Request;
use super::params::PlannerParams;
use crate::node::{self, MapOptions, OccupancyMap};
use crate::Planner;

/// Why the live map options cannot be read (a map received then is not used).
#[derive(Debug, thiserror::Error)]
enum OptionsError {
    /// The parameter struct's lock was poisoned (a thread panicked holding it).
    #[error("parameters poisoned")]
    Poisoned,
    /// A parameter refused by the node's check.
    #[error("{0}")]
    Params(#[from] crate::node::ParamError),
}

/// Owns the planner: every map and every request passes through [`PlannerTask::run`].
pub(crate) struct PlannerTask {
    pub(crate) planner: Option<Planner>,
    /// The map as drawn and its marks (`planner/update_map`); rebuilds `planner` on a change.
    pub(crate) map_state: MapState,
    /// The live parameters (read at each request and each map).
    pub(crate) params: Arc<Mutex<PlannerParams>>,
    pub(crate) counters: Arc<Counters>,
    /// Rate limits of the input-driven log lines.
    pub(crate) gates: Gates,
    pub(crate) path_pub: LifecyclePublisher<Path>,
    /// The JPS → A* fallback was logged for the current settings (log once per change).
    pub(crate) fallback_logged: bool,
    /// The robot's pose and other frames (Nav2's requests).
    pub(crate) tf: node_glue::tf::Listener,
    /// The node's lifecycle: requests are served only while active.
    pub(crate) lc: Lifecycle,
}

impl PlannerTask {
    /// Serves until shutdown (or the `PlanPath` service stream ends).
    pub(crate) async fn run(
        mut self,
        maps: Option<impl Stream<Item = OccupancyGrid> + Unpin>,
        mut requests: impl Stream<Item = ServiceRequest<PlanPath::Service>> + Unpin,
        mut updates: impl Stream<Item = ServiceRequest<UpdateMap::Service>> + Unpin,
        mut nav2: impl Stream<Item = Nav2Request> + Unpin,
        shutdown: Shutdown,
    ) {
        let mut maps = maps.map(|m| m.fuse());
        loop {
            let next_map = async {
                match maps.as_mut() {
                    Some(m) => m.next().await,
                    None => futures::future::pending().await,
                }
            };
            tokio::select! {
                _ = shutdown.wait() => break,
                Some(map) = next_map => self.on_map(&map),
                req = requests.next() => match req {
                    Some(req) if !self.lc.is_active() => self.refuse_plan(req),
                    Some(req) => self.on_request(req),
                    None => break,
                },
                Some(r) = nav2.next() => self.on_nav2(r),
                Some(req) = updates.next() => {
                    if !self.lc.is_active() {
                        self.refuse_update(req);
                        continue;
                    }
                    let (state, gates) = (&mut self.map_state, &self.gates);
                    if let Some(p) = tokio::task::block_in_place(|| state.on_update(req, gates)) {
                        self.planner = Some(p);
                    }
                }
            }
        }
    }

    /// A `PlanPath` request while the node is not active: `INVALID_REQUEST`, the reason.
    fn refuse_plan(&mut self, req: ServiceRequest<PlanPath::Service>) {
        self.counters.inactive_refused.inc();
        let reason = self.lc.inactive_reason();
        self.counters
            .count_code(arnie_constants::srv::plan_path::response::INVALID_REQUEST);
        let resp = PlanPath::Response {
            error_code: arnie_constants::srv::plan_path::response::INVALID_REQUEST,
            error_msg: reason,
            ..Default::default()
        };
        if req.respond(resp).is_err() {
            self.counters.answers_lost.inc();
        }
    }

    /// An `UpdateMap` request while the node is not active: `INVALID_REQUEST`, the reason.
    fn refuse_update(&mut self, req: ServiceRequest<UpdateMap::Service>) {
        self.counters.inactive_refused.inc();
        let resp = UpdateMap::Response {
            outcome: arnie_constants::srv::update_map::response::INVALID_REQUEST,
            message: self.lc.inactive_reason(),
            cells_changed: 0,
        };
        if req.respond(resp).is_err() {
            self.counters.answers_lost.inc();
        }
    }

    /// The live map options (`occupied_above`, `unknown_is_blocked`, `robot_radius_m`).
    fn map_options(&self) -> Result<MapOptions, OptionsError> {
        let p = self.params.lock().map_err(|_| OptionsError::Poisoned)?;
        Ok(p.settings()?.map)
    }

    fn on_map(&mut self, msg: &OccupancyGrid) {
        self.counters.maps_received.inc();
        let opts = match self.map_options() {
            Ok(o) => o,
            Err(e) => return self.reject_map(format!("map not used: {e}")),
        };
        let o = &msg.info.origin;
        let map = OccupancyMap {
            width: msg.info.width,
            height: msg.info.height,
            resolution_m: node::f32_as_decimal(msg.info.resolution),
            origin_x_m: o.position.x,
            origin_y_m: o.position.y,
            orientation: (
                o.orientation.x,
                o.orientation.y,
                o.orientation.z,
                o.orientation.w,
            ),
            data: &msg.data,
        };
        // Inflating and indexing a large map takes a while: keep the runtime's other
        // tasks running meanwhile. The map as drawn (no inflation) is kept for the marks;
        // the planner searches it inflated.
        let raw_opts = MapOptions {
            robot_radius_m: 0.0,
            ..opts.clone()
        };
        let built = tokio::task::block_in_place(|| {
            let raw = node::grid_from_occupancy(&map, &raw_opts)?;
            let g = opts.inflate(raw.clone()).map_err(node::MapRejected::from)?;
            Ok::<_, node::MapRejected>((Planner::new(&g), g, raw))
        });
        match built {
            Ok((planner, grid, raw)) => {
                self.map_state
                    .set_map(raw, grid.clone(), opts.robot_radius_m);
                node_glue::log_info!("new map {}x{} at {} m/cell, origin ({}, {}): {} cells blocked (after inflation by {} m)",
                    grid.width(),
                    grid.height(),
                    grid.frame().resolution_m,
                    grid.frame().origin_x_m,
                    grid.frame().origin_y_m,
                    grid.blocked_count(),
                    opts.robot_radius_m
                );
                self.counters.map_updates.inc();
                self.counters.set_map_size(grid.width(), grid.height());
                self.planner = Some(planner);
            }
            Err(e) => self.reject_map(format!("map rejected, keeping the previous one: {e}")),
        }
    }

    /// Counts a refused map, keeps the reason for /diagnostics, logs it (rate-limited).
    fn reject_map(&mut self, why: String) {
        self.counters.maps_rejected.inc();
        if let Some(more) = self.gates.pass(Line::MapRejected, &self.counters) {
            node_glue::log_error!("{why}{more}");
        }
        if let Ok(mut last) = self.counters.last_map_error.lock() {
            *last = why;
        }
    }
}
