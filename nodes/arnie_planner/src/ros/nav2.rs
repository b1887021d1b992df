//! Nav2's planner server and global costmap, served by the planner task (every decision in
//! the ROS-free [`crate::node::nav2`]):
//!
//! - actions `compute_path_to_pose` and `compute_path_through_poses`
//!   (`nav2_msgs/action/ComputePathToPose`, `ComputePathThroughPoses`): `use_start` false
//!   takes the robot's pose from TF (`frame_id` → `robot_base_frame`, the latest
//!   transform), as Nav2's planner server takes it from its costmap; poses in another
//!   frame than `frame_id` come through TF; `planner_id` selects the search; the answer
//!   is the path the base would drive (the `PlanPath` answer with `simplify` and `smooth`,
//!   ends at the exact start and goal, poses heading along it), with `planning_time`;
//!   failures are ABORTED with Nav2's codes (200..=208, 300..=309) and the reason in
//!   `error_msg`; each success is also published on `planner/path`.
//! - `global_costmap/costmap` (`nav_msgs/OccupancyGrid`, latched): 100 lethal, 99
//!   inscribed (the inflation), 0 free, republished with every change of the map or its
//!   marks (see [`super::map_state`]);
//! - services `global_costmap/clear_entirely_global_costmap` and
//!   `local_costmap/clear_entirely_local_costmap` (`nav2_msgs/srv/ClearEntireCostmap`):
//!   forget every learned mark (the base's marks of obstacles it met); the map's own
//!   obstacles stay.
use std::sync::atomic::Ordering;
use std::time::Instant;

use node_glue::action::{self, End};
use node_glue::r2r::{
    geometry_msgs::msg::{Point, Pose, PoseStamped, Quaternion},
    nav2_msgs::{
        action::{ComputePathThroughPoses, ComputePathToPose},
        srv::ClearEntireCostmap,
    },
    nav_msgs::msg::Path,
    ActionServerGoalRequest, ServiceRequest,
};
use node_glue::{time, topics};

use super::task::PlannerTask;
use crate::node::nav2::{
    join_legs, oriented, resolve_planner_id, through_poses_code, to_pose_code,
};
use crate::node::{self, Query};
use crate::PlanError;
use arnie_constants::nav2::action::{
    compute_path_through_poses::result as through_codes,
    compute_path_to_pose::result as to_pose_codes,
};

/// `compute_path_to_pose`.
pub(crate) const COMPUTE_PATH_TO_POSE: &str = "compute_path_to_pose";
/// `compute_path_through_poses`.
pub(crate) const COMPUTE_PATH_THROUGH_POSES: &str = "compute_path_through_poses";
/// The global costmap topic.
pub(crate) const GLOBAL_COSTMAP: &str = "global_costmap/costmap";
/// Clears the marks (Nav2's global costmap service).
pub(crate) const CLEAR_GLOBAL: &str = "global_costmap/clear_entirely_global_costmap";
/// Clears the marks (Nav2's local costmap service).
pub(crate) const CLEAR_LOCAL: &str = "local_costmap/clear_entirely_local_costmap";

/// One Nav2 request for the planner task.
pub(crate) enum Nav2Request {
    ToPose(ActionServerGoalRequest<ComputePathToPose::Action>),
    Through(ActionServerGoalRequest<ComputePathThroughPoses::Action>),
    Clear(ServiceRequest<ClearEntireCostmap::Service>, &'static str),
}

/// A failure: its `ComputePathToPose` code and the reason.
type Failed = (u16, String);

fn yaw(p: &Pose) -> f64 {
    let q = &p.orientation;
    let n = (q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w).sqrt();
    if !(n.is_finite() && n > 1e-9) {
        return 0.0;
    }
    (2.0 * (q.w * q.z + q.x * q.y)).atan2(1.0 - 2.0 * (q.y * q.y + q.z * q.z))
}

fn pose_stamped(header: &node_glue::r2r::std_msgs::msg::Header, p: (f64, f64, f64)) -> PoseStamped {
    let (s, c) = (p.2 / 2.0).sin_cos();
    PoseStamped {
        header: header.clone(),
        pose: Pose {
            position: Point {
                x: p.0,
                y: p.1,
                z: 0.0,
            },
            orientation: Quaternion {
                x: 0.0,
                y: 0.0,
                z: s,
                w: c,
            },
        },
    }
}

impl PlannerTask {
    /// Answers one Nav2 request.
    pub(crate) fn on_nav2(&mut self, r: Nav2Request) {
        if !self.lc.is_active() {
            return self.refuse_nav2(r);
        }
        match r {
            Nav2Request::ToPose(req) => self.on_to_pose(req),
            Nav2Request::Through(req) => self.on_through(req),
            Nav2Request::Clear(req, which) => self.on_clear(req, which),
        }
    }

    /// While not active: each goal ends ABORTED (UNKNOWN) with the lifecycle's reason; a
    /// clear is answered (its response is empty) without clearing, and logged. Counted.
    fn refuse_nav2(&mut self, r: Nav2Request) {
        self.counters.inactive_refused.inc();
        let reason = self.lc.inactive_reason();
        let sent = match r {
            Nav2Request::ToPose(req) => action::reject(
                req,
                ComputePathToPose::Result {
                    error_code: to_pose_codes::UNKNOWN,
                    error_msg: reason,
                    ..Default::default()
                },
            ),
            Nav2Request::Through(req) => action::reject(
                req,
                ComputePathThroughPoses::Result {
                    error_code: through_codes::UNKNOWN,
                    error_msg: reason,
                    ..Default::default()
                },
            ),
            Nav2Request::Clear(req, which) => {
                node_glue::log_warn!("{which}: nothing cleared: {reason}");
                req.respond(ClearEntireCostmap::Response::default()).is_ok()
            }
        };
        if !sent {
            self.counters.answers_lost.inc();
        }
    }

    /// `pose` (in its frame) in the map frame: (x, y, yaw).
    fn in_map(&self, p: &PoseStamped, map: &str) -> Result<(f64, f64, f64), Failed> {
        let frame = if p.header.frame_id.is_empty() {
            map
        } else {
            p.header.frame_id.as_str()
        };
        let pos = &p.pose.position;
        if !(pos.x.is_finite() && pos.y.is_finite()) {
            return Err((
                to_pose_codes::UNKNOWN,
                format!("pose ({}, {}) in '{frame}' is not finite", pos.x, pos.y),
            ));
        }
        if frame == map {
            return Ok((pos.x, pos.y, yaw(&p.pose)));
        }
        let tf = self.tf.lookup(map, frame, None).map_err(|e| {
            (
                to_pose_codes::TF_ERROR,
                format!("Could not transform the pose from '{frame}' to '{map}': {e}"),
            )
        })?;
        let q = &p.pose.orientation;
        let rot = nalgebra::UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
            q.w, q.x, q.y, q.z,
        ));
        let local =
            nalgebra::Isometry3::from_parts(nalgebra::Translation3::new(pos.x, pos.y, pos.z), rot);
        let m = tf * local;
        let x_axis = m.rotation * nalgebra::Vector3::x();
        Ok((m.translation.x, m.translation.y, x_axis.y.atan2(x_axis.x)))
    }

    /// The start: the goal's `start` with `use_start`, else the robot in TF.
    fn start_pose(
        &self,
        use_start: bool,
        start: &PoseStamped,
        map: &str,
    ) -> Result<(f64, f64, f64), Failed> {
        if use_start {
            return self.in_map(start, map);
        }
        let base = self
            .params
            .lock()
            .map(|p| p.robot_base_frame().to_string())
            .unwrap_or_else(|_| "base_link".into());
        let tf = self.tf.lookup(map, &base, None).map_err(|e| {
            (
                to_pose_codes::TF_ERROR,
                format!("Could not get the robot's pose ('{map}' -> '{base}'): {e}"),
            )
        })?;
        let x_axis = tf.rotation * nalgebra::Vector3::x();
        Ok((tf.translation.x, tf.translation.y, x_axis.y.atan2(x_axis.x)))
    }

    /// Plans `start` → each of `goals` in turn with `planner_id`: the joined path (x, y).
    fn plan_legs(
        &mut self,
        planner_id: &str,
        start: (f64, f64),
        goals: &[(f64, f64)],
    ) -> Result<Vec<(f64, f64)>, Failed> {
        if let Some(p) = tokio::task::block_in_place(|| self.map_state.expire()) {
            self.planner = Some(p);
        }
        let search = self
            .params
            .lock()
            .map_err(|_| (to_pose_codes::UNKNOWN, "parameters poisoned".to_string()))?
            .settings()
            .map_err(|e| (to_pose_codes::UNKNOWN, e.to_string()))?
            .search;
        let search = resolve_planner_id(planner_id, &search)?;
        let mut legs = Vec::with_capacity(goals.len());
        let mut from = start;
        for (i, &to) in goals.iter().enumerate() {
            let query = Query {
                start_m: from,
                goal_m: to,
                simplify: true,
                smooth: true,
            };
            let answer = tokio::task::block_in_place(|| {
                node::answer(self.planner.as_mut(), &search, &query)
            })
            .map_err(|e: PlanError| {
                let why = if goals.len() > 1 {
                    format!("leg {} of {}: {e}", i + 1, goals.len())
                } else {
                    e.to_string()
                };
                (to_pose_code(&e), why)
            })?;
            legs.push(answer.points_m);
            from = to;
        }
        Ok(join_legs(legs))
    }

    fn path_msg(
        &self,
        header: &node_glue::r2r::std_msgs::msg::Header,
        poses: &[(f64, f64, f64)],
    ) -> Path {
        Path {
            header: header.clone(),
            poses: poses.iter().map(|&p| pose_stamped(header, p)).collect(),
        }
    }

    fn map_frame(&self) -> String {
        self.params
            .lock()
            .ok()
            .and_then(|p| p.settings().ok())
            .map(|s| s.frame_id)
            .unwrap_or_else(|| topics::WORLD_FRAME.into())
    }

    fn on_to_pose(&mut self, req: ActionServerGoalRequest<ComputePathToPose::Action>) {
        self.counters.compute_path_requests.inc();
        let t0 = Instant::now();
        let map = self.map_frame();
        let g = req.goal.clone();
        let planned = self.start_pose(g.use_start, &g.start, &map).and_then(|s| {
            let goal = self.in_map(&g.goal, &map)?;
            let points = self.plan_legs(&g.planner_id, (s.0, s.1), &[(goal.0, goal.1)])?;
            Ok(oriented(points, (s.0, s.1), (goal.0, goal.1), goal.2))
        });
        let planning_time = node_glue::time::duration_msg(t0.elapsed().as_secs_f64());
        let Some(mut run) = action::accept(req) else {
            return;
        };
        match planned {
            Ok(poses) => {
                let path = self.path_msg(&time::header(&map), &poses);
                self.publish_path(&path);
                action::end(
                    &mut run.goal,
                    End::Succeeded,
                    ComputePathToPose::Result {
                        path,
                        planning_time,
                        error_code: to_pose_codes::NONE,
                        error_msg: String::new(),
                    },
                );
            }
            Err((code, msg)) => {
                self.counters.compute_path_failed.inc();
                self.log_nav2_failure("compute_path_to_pose", code, &msg);
                action::end(
                    &mut run.goal,
                    End::Aborted,
                    ComputePathToPose::Result {
                        path: Path {
                            header: time::header(&map),
                            poses: vec![],
                        },
                        planning_time,
                        error_code: code,
                        error_msg: msg,
                    },
                );
            }
        }
    }

    fn on_through(&mut self, req: ActionServerGoalRequest<ComputePathThroughPoses::Action>) {
        self.counters.compute_path_requests.inc();
        let t0 = Instant::now();
        let map = self.map_frame();
        let g = req.goal.clone();
        let planned = if g.goals.is_empty() {
            Err((
                through_codes::NO_VIAPOINTS_GIVEN,
                "No viapoints given".to_string(),
            ))
        } else {
            self.start_pose(g.use_start, &g.start, &map)
                .and_then(|s| {
                    let goals = g
                        .goals
                        .iter()
                        .map(|p| self.in_map(p, &map))
                        .collect::<Result<Vec<_>, _>>()?;
                    let xy: Vec<(f64, f64)> = goals.iter().map(|p| (p.0, p.1)).collect();
                    let last = goals[goals.len() - 1];
                    let points = self.plan_legs(&g.planner_id, (s.0, s.1), &xy)?;
                    Ok(oriented(points, (s.0, s.1), (last.0, last.1), last.2))
                })
                .map_err(|(code, msg)| (through_poses_code(code), msg))
        };
        let planning_time = node_glue::time::duration_msg(t0.elapsed().as_secs_f64());
        let Some(mut run) = action::accept(req) else {
            return;
        };
        match planned {
            Ok(poses) => {
                let path = self.path_msg(&time::header(&map), &poses);
                self.publish_path(&path);
                action::end(
                    &mut run.goal,
                    End::Succeeded,
                    ComputePathThroughPoses::Result {
                        path,
                        planning_time,
                        error_code: through_codes::NONE,
                        error_msg: String::new(),
                    },
                );
            }
            Err((code, msg)) => {
                self.counters.compute_path_failed.inc();
                self.log_nav2_failure("compute_path_through_poses", code, &msg);
                action::end(
                    &mut run.goal,
                    End::Aborted,
                    ComputePathThroughPoses::Result {
                        path: Path {
                            header: time::header(&map),
                            poses: vec![],
                        },
                        planning_time,
                        error_code: code,
                        error_msg: msg,
                    },
                );
            }
        }
    }

    fn publish_path(&self, path: &Path) {
        if let Err(e) = self.path_pub.publish(path) {
            node_glue::log_warn!("could not publish {}: {e}", topics::PLANNER_PATH);
        }
    }

    fn log_nav2_failure(&self, what: &str, code: u16, msg: &str) {
        if let Some(more) = self
            .gates
            .pass(super::counters::Line::PlanFailed, &self.counters)
        {
            node_glue::log_info!("{what} failed ({code}): {msg}{more}");
        }
    }

    fn on_clear(&mut self, req: ServiceRequest<ClearEntireCostmap::Service>, which: &str) {
        self.counters.costmap_clears.inc();
        let (cleared, planner) = tokio::task::block_in_place(|| self.map_state.clear_marks());
        if let Some(p) = planner {
            self.planner = Some(p);
        }
        node_glue::log_info!("{which}: {cleared} learned mark(s) forgotten");
        self.counters.marks.store(0, Ordering::Relaxed);
        if let Err(e) = req.respond(ClearEntireCostmap::Response::default()) {
            self.counters.answers_lost.inc();
            node_glue::log_warn!("could not answer {which}: {e}");
        }
    }
}
