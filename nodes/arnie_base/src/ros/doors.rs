//! The front doors of the one navigator: `base/navigate_to` (`arnie_interfaces`
//! NavigateTo, the strategy's), `navigate_to_pose` (`nav2_msgs` NavigateToPose, Nav2's
//! clients) and `goal_pose` (rviz's *2D Goal Pose*, no client to answer). A goal from any
//! door becomes a [`crate::Goal`] in `map`; its feedback and end go back through the door
//! it came from, in that door's own terms ([`crate::nav2`] for Nav2's error codes).
use std::time::Instant;

use node_glue::action::{self, Accepted, End};
use node_glue::r2r::{
    arnie_interfaces::action::NavigateTo, builtin_interfaces::msg::Duration as RosDuration,
    geometry_msgs::msg::PoseStamped, nav2_msgs::action::NavigateToPose, std_msgs::msg::Header,
    ActionServerCancelRequest, ActionServerGoalRequest,
};

use super::frames::pose_msg;
use crate::{Feedback, Finish, Outcome, Pose2};

/// A NavigateTo goal request.
pub(super) type BaseRequest = ActionServerGoalRequest<NavigateTo::Action>;
/// A NavigateToPose goal request.
pub(super) type Nav2Request = ActionServerGoalRequest<NavigateToPose::Action>;

/// A goal not yet accepted, by door.
pub(super) enum Pending {
    Base(BaseRequest),
    Nav2(Nav2Request),
    /// From `goal_pose`.
    Topic,
}

/// The running goal's door.
pub(super) enum Door {
    Base(Accepted<NavigateTo::Action>),
    Nav2 {
        run: Accepted<NavigateToPose::Action>,
        started: Instant,
    },
    Topic,
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
            Pending::Topic => {}
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
        }
    }
}

fn duration(secs: f64) -> RosDuration {
    let secs = if secs.is_finite() { secs.max(0.0) } else { 0.0 };
    let whole = secs.floor();
    RosDuration {
        sec: whole.min(f64::from(i32::MAX)) as i32,
        nanosec: ((secs - whole) * 1e9) as u32,
    }
}

impl Door {
    /// The running goal's feedback; `map` is the map frame, `speed` the top speed (for
    /// Nav2's estimated time remaining).
    pub(super) fn feedback(&mut self, fb: &Feedback, map: &str, speed: f64) {
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
            Door::Topic => {}
        }
    }

    /// The next cancel request of the running goal; pending forever when there is none
    /// (or it came from `goal_pose`).
    pub(super) async fn next_cancel(door: Option<&mut Door>) -> ActionServerCancelRequest {
        match door {
            Some(Door::Base(run)) => action::next_cancel(Some(run)).await,
            Some(Door::Nav2 { run, .. }) => action::next_cancel(Some(run)).await,
            Some(Door::Topic) | None => std::future::pending().await,
        }
    }
}
