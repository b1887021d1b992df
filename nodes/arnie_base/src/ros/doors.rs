//! The front doors of the one navigator: `base/navigate_to` (`arnie_interfaces`
//! NavigateTo, the strategy's), `navigate_to_pose` (`nav2_msgs` NavigateToPose, Nav2's
//! clients), `goal_pose` (rviz's *2D Goal Pose*, no client to answer), and Nav2's
//! `navigate_through_poses` ([`super::through_poses`]), `follow_path`
//! ([`super::follow_path`]) and `follow_waypoints` ([`super::waypoints`]). A goal from any
//! door becomes a navigator goal in `map`; its feedback and end go back through the door
//! it came from, in that door's own terms ([`crate::nav2`] for Nav2's error codes).
use std::time::Instant;

use node_glue::action::{self, Accepted, End};
use node_glue::r2r::{
    arnie_interfaces::action::NavigateTo,
    builtin_interfaces::msg::Duration as RosDuration,
    geometry_msgs::msg::PoseStamped,
    nav2_msgs::action::{FollowPath, NavigateThroughPoses, NavigateToPose},
    std_msgs::msg::Header,
    ActionServerCancelRequest, ActionServerGoalRequest,
};

use super::frames::pose_msg;
use super::waypoints::{WaypointRefused, WaypointsDoor};
use super::{ActiveGoal, Control, CMD_VEL};
use crate::{Feedback, Finish, Navigator, Outcome, Pose2, Refused};

/// A NavigateTo goal request.
pub(super) type BaseRequest = ActionServerGoalRequest<NavigateTo::Action>;
/// A NavigateToPose goal request.
pub(super) type Nav2Request = ActionServerGoalRequest<NavigateToPose::Action>;

/// A NavigateThroughPoses goal request.
pub(super) type ThroughRequest = ActionServerGoalRequest<NavigateThroughPoses::Action>;
/// A FollowPath goal request.
pub(super) type PathRequest = ActionServerGoalRequest<FollowPath::Action>;

/// A goal not yet accepted, by door.
pub(super) enum Pending {
    Base(BaseRequest),
    Nav2(Nav2Request),
    /// From `goal_pose`.
    Topic,
    Through(ThroughRequest),
    Path(PathRequest),
    /// One waypoint of a running `follow_waypoints` goal (already accepted).
    Waypoint(Box<WaypointsDoor>),
}

/// The running goal's door.
pub(super) enum Door {
    Base(Accepted<NavigateTo::Action>),
    Nav2 {
        run: Accepted<NavigateToPose::Action>,
        started: Instant,
    },
    Topic,
    Through {
        run: Accepted<NavigateThroughPoses::Action>,
        started: Instant,
    },
    Path(Accepted<FollowPath::Action>),
    Waypoints(Box<WaypointsDoor>),
}

/// How a refusal reads: the navigator's outcome, Nav2's code, the reason.
pub(super) struct Refusal {
    pub outcome: Outcome,
    pub code: u16,
    pub message: String,
}

impl Pending {
    /// The door's name for logs.
    pub(super) fn name(&self) -> &'static str {
        match self {
            Pending::Base(_) => "NavigateTo",
            Pending::Nav2(_) => "NavigateToPose",
            Pending::Topic => "goal_pose",
            Pending::Through(_) => "NavigateThroughPoses",
            Pending::Path(_) => "FollowPath",
            Pending::Waypoint(_) => "FollowWaypoints",
        }
    }

    /// The door's error code for a goal the navigator refused before it moved.
    pub(super) fn refusal_code(&self, outcome: Outcome) -> u16 {
        match (self, outcome) {
            (_, Outcome::LinkLost) => crate::nav2::NO_VALID_CONTROL,
            (Pending::Path(_), _) => crate::nav2::INVALID_PATH,
            _ => crate::nav2::UNKNOWN,
        }
    }

    /// Answers a goal refused before it moved (accepted and at once aborted, so the
    /// client reads the reason: node_glue's bad-goal policy).
    pub(super) fn reject(self, r: Refusal, pose: &Pose2) {
        match self {
            Pending::Base(req) => {
                action::reject(
                    req,
                    NavigateTo::Result {
                        outcome: r.outcome.code(),
                        pose: pose_msg(pose),
                        replans: 0,
                        driven_m: 0.0,
                        message: r.message,
                    },
                );
            }
            Pending::Nav2(req) => {
                action::reject(
                    req,
                    NavigateToPose::Result {
                        error_code: r.code,
                        error_msg: r.message,
                    },
                );
            }
            Pending::Through(req) => {
                action::reject(
                    req,
                    NavigateThroughPoses::Result {
                        error_code: r.code,
                        error_msg: r.message,
                    },
                );
            }
            Pending::Path(req) => {
                action::reject(
                    req,
                    FollowPath::Result {
                        error_code: r.code,
                        error_msg: r.message,
                        ..Default::default()
                    },
                );
            }
            // A waypoint's refusal is handled by its run (Control::begin).
            Pending::Topic | Pending::Waypoint(_) => {}
        }
    }

    /// Accepts the goal; `None` when rcl refused (logged by node_glue).
    pub(super) fn accept(self) -> Option<Door> {
        match self {
            Pending::Base(req) => action::accept(req).map(Door::Base),
            Pending::Nav2(req) => action::accept(req).map(|run| Door::Nav2 {
                run,
                started: Instant::now(),
            }),
            Pending::Topic => Some(Door::Topic),
            Pending::Through(req) => action::accept(req).map(|run| Door::Through {
                run,
                started: Instant::now(),
            }),
            Pending::Path(req) => action::accept(req).map(Door::Path),
            Pending::Waypoint(w) => Some(Door::Waypoints(w)),
        }
    }
}

pub(super) fn duration(secs: f64) -> RosDuration {
    node_glue::time::duration_msg(secs)
}

/// A finish's message, `preempted: ...` first when it was preempted (Nav2 has no code
/// for it; the strategy's navigate_to_pose mode reads the word).
fn preempted_first(f: &Finish) -> String {
    match f.outcome {
        Outcome::Preempted if !f.message.starts_with("preempted") => {
            format!("preempted: {}", f.message)
        }
        _ => f.message.clone(),
    }
}

impl Door {
    /// The running goal's feedback; `map` is the map frame, `speed` the top speed (for
    /// Nav2's estimated time remaining), `now_speed` the board's linear speed.
    pub(super) fn feedback(&mut self, fb: &Feedback, map: &str, speed: f64, now_speed: f64) {
        let current_pose = || PoseStamped {
            header: Header {
                stamp: node_glue::time::now(),
                frame_id: map.to_string(),
            },
            pose: pose_msg(&fb.pose),
        };
        let sent = match self {
            Door::Base(run) => run.goal.publish_feedback(NavigateTo::Feedback {
                phase: fb.phase as u8,
                pose: pose_msg(&fb.pose),
                distance_left_m: fb.distance_left_m,
                replans: fb.replans,
            }),
            Door::Nav2 { run, started } => run.goal.publish_feedback(NavigateToPose::Feedback {
                current_pose: PoseStamped {
                    header: Header {
                        stamp: node_glue::time::now(),
                        frame_id: map.to_string(),
                    },
                    pose: pose_msg(&fb.pose),
                },
                navigation_time: duration(started.elapsed().as_secs_f64()),
                estimated_time_remaining: duration(fb.distance_left_m / speed.max(1e-3)),
                number_of_recoveries: i16::try_from(fb.replans).unwrap_or(i16::MAX),
                distance_remaining: fb.distance_left_m as f32,
            }),
            Door::Topic => Ok(()),
            Door::Through { run, started } => {
                run.goal.publish_feedback(NavigateThroughPoses::Feedback {
                    current_pose: current_pose(),
                    navigation_time: duration(started.elapsed().as_secs_f64()),
                    estimated_time_remaining: duration(fb.distance_left_m / speed.max(1e-3)),
                    number_of_recoveries: i16::try_from(fb.replans).unwrap_or(i16::MAX),
                    distance_remaining: fb.distance_left_m as f32,
                    number_of_poses_remaining: i16::try_from(fb.poses_left).unwrap_or(i16::MAX),
                })
            }
            Door::Path(run) => run.goal.publish_feedback(FollowPath::Feedback {
                distance_to_goal: fb.distance_left_m as f32,
                speed: now_speed as f32,
            }),
            Door::Waypoints(w) => w.feedback(),
        };
        if let Err(e) = sent {
            node_glue::log_debug!("could not publish feedback: {e}");
        }
    }

    /// Ends the goal with the navigator's finish.
    pub(super) fn end(self, f: Finish) {
        let how = match f.outcome {
            Outcome::Reached => End::Succeeded,
            Outcome::Cancelled => End::Cancelled,
            _ => End::Aborted,
        };
        match self {
            Door::Base(mut run) => {
                action::end(
                    &mut run.goal,
                    how,
                    NavigateTo::Result {
                        outcome: f.outcome.code(),
                        pose: pose_msg(&f.pose),
                        replans: f.replans,
                        driven_m: f.driven_m,
                        message: f.message,
                    },
                );
            }
            Door::Nav2 { mut run, .. } => {
                let error_code = crate::nav2::error_code(&f);
                // Nav2 has no "preempted" code: the word leads the message (the strategy's
                // navigate_to_pose mode reads it so).
                let message = match f.outcome {
                    Outcome::Preempted if !f.message.starts_with("preempted") => {
                        format!("preempted: {}", f.message)
                    }
                    _ => f.message,
                };
                action::end(
                    &mut run.goal,
                    how,
                    NavigateToPose::Result {
                        error_code,
                        error_msg: if how == End::Succeeded {
                            String::new()
                        } else {
                            message
                        },
                    },
                );
            }
            Door::Through { mut run, .. } => {
                let error_code = crate::nav2::through_poses_code(&f);
                action::end(
                    &mut run.goal,
                    how,
                    NavigateThroughPoses::Result {
                        error_code,
                        error_msg: if how == End::Succeeded {
                            String::new()
                        } else {
                            preempted_first(&f)
                        },
                    },
                );
            }
            Door::Path(mut run) => {
                let error_code = crate::nav2::follow_path_code(&f);
                action::end(
                    &mut run.goal,
                    how,
                    FollowPath::Result {
                        error_code,
                        error_msg: if how == End::Succeeded {
                            String::new()
                        } else {
                            preempted_first(&f)
                        },
                        ..Default::default()
                    },
                );
            }
            // A run's own end (cancelled, preempted, shutdown).
            Door::Waypoints(w) => w.end_with(&f),
            Door::Topic => {}
        }
    }

    /// The next cancel request of the running goal; pending forever when there is none
    /// (or it came from `goal_pose`).
    pub(super) async fn next_cancel(door: Option<&mut Door>) -> ActionServerCancelRequest {
        match door {
            Some(Door::Base(run)) => action::next_cancel(Some(run)).await,
            Some(Door::Nav2 { run, .. }) => action::next_cancel(Some(run)).await,
            Some(Door::Through { run, .. }) => action::next_cancel(Some(run)).await,
            Some(Door::Path(run)) => action::next_cancel(Some(run)).await,
            Some(Door::Waypoints(w)) => action::next_cancel(Some(&mut w.run)).await,
            Some(Door::Topic) | None => std::future::pending().await,
        }
    }
}

/// Goals from every door into the navigator.
impl Control {
    pub(super) fn on_base_goal(&mut self, req: BaseRequest) {
        let g = req.goal.clone();
        let goal = crate::Goal {
            x: g.x,
            y: g.y,
            heading: g.use_heading.then_some(g.theta),
        };
        self.start(goal, Pending::Base(req));
    }

    pub(super) fn on_nav2_goal(&mut self, req: Nav2Request) {
        match self.goal_in_map(&req.goal.pose) {
            Ok(goal) => self.start(goal, Pending::Nav2(req)),
            Err(r) => {
                node_glue::warn_limited!(
                    self.logs,
                    "goal",
                    "refusing NavigateToPose: {}",
                    r.message
                );
                let pose = self.nav.pose().unwrap_or_default();
                Pending::Nav2(req).reject(r, &pose);
            }
        }
    }

    /// A pose in any frame as a goal in the map frame (through TF; the latest transform).
    pub(super) fn goal_in_map(&mut self, p: &PoseStamped) -> Result<crate::Goal, Refusal> {
        let map = self.frames.map_frame().to_string();
        let frame = if p.header.frame_id.is_empty() {
            map.clone()
        } else {
            p.header.frame_id.clone()
        };
        let (pos, q) = (&p.pose.position, &p.pose.orientation);
        let values = [pos.x, pos.y, pos.z, q.x, q.y, q.z, q.w];
        let norm = (q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w).sqrt();
        if values.iter().any(|v| !v.is_finite()) || norm < 1e-9 {
            return Err(Refusal {
                outcome: Outcome::Rejected,
                code: crate::nav2::UNKNOWN,
                message: format!(
                    "goal pose ({}, {}, {}) orientation ({}, {}, {}, {}) in '{frame}' is not finite or has a zero quaternion",
                    pos.x, pos.y, pos.z, q.x, q.y, q.z, q.w
                ),
            });
        }
        let rotation = nalgebra::UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
            q.w, q.x, q.y, q.z,
        ));
        let pose = nalgebra::Isometry3::from_parts(
            nalgebra::Translation3::new(pos.x, pos.y, pos.z),
            rotation,
        );
        let in_map = if frame == map {
            pose
        } else {
            match self.tf.lookup(&map, &frame, None) {
                Ok(t) => t * pose,
                Err(e) => {
                    self.counters.goals_tf_refused.inc();
                    return Err(Refusal {
                        outcome: Outcome::Rejected,
                        code: crate::nav2::TF_ERROR,
                        message: format!("goal in '{frame}': no transform to '{map}': {e}"),
                    });
                }
            }
        };
        // The heading: the goal's x axis projected on the map's plane.
        let x_axis = in_map.rotation * nalgebra::Vector3::x();
        Ok(crate::Goal {
            x: in_map.translation.x,
            y: in_map.translation.y,
            heading: Some(x_axis.y.atan2(x_axis.x)),
        })
    }

    /// Starts a goal from any door: the navigator checks it (refused: answered through
    /// the door), a manual drive ends, a running goal is preempted.
    pub(super) fn start(&mut self, goal: crate::Goal, pending: Pending) {
        let what = format!(
            "({:.3}, {:.3}){}",
            goal.x,
            goal.y,
            goal.heading
                .map(|h| format!(" heading {h:.3}"))
                .unwrap_or_default()
        );
        // Not a waypoint: nothing comes back.
        let _ = self.begin(pending, what, |nav, id, now| nav.start(id, goal, now));
    }

    /// Starts a navigator goal made by `start` (given the goal id and the time) through
    /// `pending`'s door; `what` describes it for the log. A waypoint of a
    /// `follow_waypoints` run refused at once comes back (its run decides what follows).
    #[must_use]
    pub(super) fn begin(
        &mut self,
        pending: Pending,
        what: String,
        start: impl FnOnce(&mut Navigator, u64, f64) -> Result<Vec<crate::Output>, Refused>,
    ) -> Option<WaypointRefused> {
        self.refresh_config();
        let id = self.next_goal;
        self.next_goal += 1;
        let now = self.now();
        let door = pending.name();
        match start(&mut self.nav, id, now) {
            Err(refused) => {
                node_glue::warn_limited!(
                    self.logs,
                    "goal",
                    "refusing {door} {what}: {}",
                    refused.message
                );
                let code = pending.refusal_code(refused.outcome);
                if let Pending::Waypoint(door) = pending {
                    return Some(WaypointRefused {
                        door,
                        code,
                        message: refused.message,
                    });
                }
                let pose = self.nav.pose().unwrap_or_default();
                pending.reject(
                    Refusal {
                        outcome: refused.outcome,
                        code,
                        message: refused.message,
                    },
                    &pose,
                );
            }
            Ok(outs) => {
                self.end_behavior(&format!("preempted by a {door} goal"));
                let Some(door_run) = pending.accept() else {
                    let outs = self.nav.cancel(now);
                    self.apply(outs);
                    return None;
                };
                if self.teleop.active() {
                    node_glue::log_info!("{door} takes over from manual driving ({CMD_VEL})");
                    self.teleop.release();
                }
                node_glue::log_info!("{door} {what}");
                // Ends the previous goal (PREEMPTED) before the new one is the active one.
                self.apply(outs);
                self.active = Some(ActiveGoal { id, door: door_run });
            }
        }
        None
    }
}
