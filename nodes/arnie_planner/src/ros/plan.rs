//! The `PlanPath` service (`/planner/plan_path`): one request answered on the task's
//! planner with the live search settings, the path published on `/planner/path`.
//! A non-finite start or goal is refused first (`INVALID_REQUEST` with the reason, see
//! [`crate::node::Query::check`]); refusals and failed plans are counted by code and
//! logged rate-limited ([`super::counters`]).
use std::sync::atomic::Ordering;
use std::time::Instant;

use node_glue::r2r::{
    arnie_interfaces::srv::PlanPath, geometry_msgs::msg::Point, nav_msgs::msg::Path, ServiceRequest,
};
use node_glue::{time, topics};

use super::counters::Line;
use super::task::PlannerTask;
use crate::node::{self, Answer, Query};
use crate::PlanError;

impl PlannerTask {
    /// Answers one `PlanPath` request.
    pub(crate) fn on_request(&mut self, req: ServiceRequest<PlanPath::Service>) {
        self.counters.requests.inc();
        // Marks whose ttl is up are forgotten before the search.
        if let Some(p) = tokio::task::block_in_place(|| self.map_state.expire()) {
            self.planner = Some(p);
        }
        let m = &req.message;
        let query = Query {
            start_m: (m.start.x, m.start.y),
            goal_m: (m.goal.x, m.goal.y),
            simplify: m.simplify,
            smooth: m.smooth,
        };
        let settings = self
            .params
            .lock()
            .map_err(|_| PlanError::InvalidRequest("parameters poisoned".into()))
            .and_then(|p| {
                p.settings()
                    .map_err(|e| PlanError::InvalidRequest(e.to_string()))
            });
        let frame_id = settings
            .as_ref()
            .map(|s| s.frame_id.clone())
            .unwrap_or_else(|_| topics::WORLD_FRAME.into());
        let t0 = Instant::now();
        let result = settings.and_then(|s| {
            let search = s.search;
            if search.fell_back() != self.fallback_logged {
                if search.fell_back() {
                    node_glue::log_warn!("algorithm jps supports only diagonal_mode only_when_no_obstacles: running astar for {:?}", search.diagonal);
                }
                self.fallback_logged = search.fell_back();
            }
            tokio::task::block_in_place(|| node::answer(self.planner.as_mut(), &search, &query))
        });
        let time_s = t0.elapsed().as_secs_f64();
        self.counters
            .last_plan_time_s
            .store(time_s.to_bits(), Ordering::Relaxed);
        let resp = match result {
            Ok(a) => self.answered(&a, &frame_id, time_s),
            Err(e) => self.failed(&e, &query, &frame_id, time_s),
        };
        if let Err(e) = req.respond(resp) {
            self.counters.answers_lost.inc();
            node_glue::log_warn!("could not answer a PlanPath request: {e}");
        }
    }

    fn answered(&mut self, a: &Answer, frame_id: &str, time_s: f64) -> PlanPath::Response {
        self.counters
            .last_expansions
            .store(a.expansions, Ordering::Relaxed);
        self.counters.count_code(PlanError::OK);
        let path = path_msg(a, frame_id);
        if let Err(e) = self.path_pub.publish(&path) {
            node_glue::log_warn!("could not publish {}: {e}", topics::PLANNER_PATH);
        }
        node_glue::log_debug!(
            "path of {} poses, {:.3} m, {} expansions, {:.6} s",
            a.cells.len(),
            a.length_m,
            a.expansions,
            time_s
        );
        PlanPath::Response {
            error_code: PlanError::OK,
            error_msg: String::new(),
            path,
            length_m: a.length_m,
            length_cells: a.length_cells,
            expansions: a.expansions,
            time_s,
        }
    }

    fn failed(
        &mut self,
        e: &PlanError,
        q: &Query,
        frame_id: &str,
        time_s: f64,
    ) -> PlanPath::Response {
        let expansions = if let PlanError::NoPath { expansions } = e {
            *expansions
        } else {
            0
        };
        self.counters
            .last_expansions
            .store(expansions, Ordering::Relaxed);
        self.counters.count_code(e.code());
        let (s, g) = (q.start_m, q.goal_m);
        if matches!(e, PlanError::InvalidRequest(_)) {
            if let Some(more) = self.gates.pass(Line::PlanRefused, &self.counters) {
                node_glue::log_warn!(
                    "plan_path refused: ({}, {}) -> ({}, {}): {e}{more}",
                    s.0,
                    s.1,
                    g.0,
                    g.1
                );
            }
        } else if let Some(more) = self.gates.pass(Line::PlanFailed, &self.counters) {
            node_glue::log_info!(
                "plan ({}, {}) -> ({}, {}) failed: {e}{more}",
                s.0,
                s.1,
                g.0,
                g.1
            );
        }
        PlanPath::Response {
            error_code: e.code(),
            error_msg: e.to_string(),
            path: Path {
                header: time::header(frame_id),
                poses: vec![],
            },
            length_m: 0.0,
            length_cells: 0.0,
            expansions,
            time_s,
        }
    }
}

/// The answer as a `nav_msgs/Path`: one pose per kept cell, at its centre, z = 0,
/// identity orientation.
fn path_msg(a: &Answer, frame_id: &str) -> Path {
    node_glue::msgs::path(
        time::header(frame_id),
        a.points_m.iter().map(|&(x, y)| Point { x, y, z: 0.0 }),
    )
}
