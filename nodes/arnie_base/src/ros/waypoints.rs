//! `follow_waypoints` (`nav2_msgs/action/FollowWaypoints`, Nav2's waypoint follower):
//! each waypoint is a navigator goal through this door, one after the other; the library's
//! [`crate::waypoints::WaypointRun`] says which comes next and which were missed.
//!
//! Feedback `current_waypoint` at each waypoint's start and with its navigation feedback.
//! Result: `missed_waypoints` (index, pose, the waypoint goal's NavigateToPose error
//! code). SUCCEEDED once every waypoint was tried (misses listed, `stop_on_failure`
//! false); ABORTED `UNKNOWN` (600) at the first miss with `stop_on_failure`, when every
//! waypoint of a whole pass was refused at its start (a run that could only spin), when
//! preempted (a newer goal, a manual command) or at shutdown; CANCELED on cancel.
use node_glue::action::{self, Accepted, End};
use node_glue::r2r::{
    self, geometry_msgs::msg::PoseStamped, nav2_msgs::action::FollowWaypoints,
    nav2_msgs::msg::MissedWaypoint, ActionServerGoalRequest,
};

use super::Control;
use crate::nav2::codes::follow_waypoints as codes;
use crate::waypoints::{Next, WaypointRun};
use crate::{Finish, Outcome};

/// A FollowWaypoints goal request.
pub(super) type WaypointsRequest = ActionServerGoalRequest<FollowWaypoints::Action>;

/// A running `follow_waypoints` goal: its action handle, the run, the poses.
pub(super) struct WaypointsDoor {
    pub(super) run: Accepted<FollowWaypoints::Action>,
    seq: WaypointRun,
    poses: Vec<PoseStamped>,
    /// Waypoints refused at their start in a row (a whole pass of them ends the run).
    refused_in_row: usize,
}

/// A waypoint the navigator refused at its start: its run goes on from here.
pub(super) struct WaypointRefused {
    pub(super) door: Box<WaypointsDoor>,
    pub(super) code: u16,
    pub(super) message: String,
}

impl WaypointsDoor {
    fn missed(&self) -> Vec<MissedWaypoint> {
        self.seq
            .missed()
            .iter()
            .map(|m| MissedWaypoint {
                index: m.index as u32,
                goal: self.poses.get(m.index).cloned().unwrap_or_default(),
                error_code: m.error_code,
            })
            .collect()
    }

    /// Publishes `current_waypoint`.
    pub(super) fn feedback(&mut self) -> Result<(), r2r::Error> {
        self.run.goal.publish_feedback(FollowWaypoints::Feedback {
            current_waypoint: self.seq.current() as u32,
        })
    }

    fn finish(mut self, how: End, error_code: u16, error_msg: String) {
        let missed_waypoints = self.missed();
        action::end(
            &mut self.run.goal,
            how,
            FollowWaypoints::Result {
                missed_waypoints,
                error_code,
                error_msg,
            },
        );
    }

    /// The run ends with its current waypoint's goal (cancelled, preempted, shutdown).
    pub(super) fn end_with(self, f: &Finish) {
        match f.outcome {
            Outcome::Cancelled => self.finish(End::Cancelled, codes::NONE, String::new()),
            _ => {
                let msg = format!(
                    "waypoint {} of {}: {}",
                    self.seq.current(),
                    self.poses.len(),
                    f.message
                );
                self.finish(End::Aborted, codes::UNKNOWN, msg);
            }
        }
    }
}

impl Control {
    /// A new `follow_waypoints` goal: checked, accepted, its first waypoint started.
    pub(super) fn on_waypoints_goal(&mut self, req: WaypointsRequest) {
        let g = req.goal.clone();
        let stop = self
            .params
            .lock()
            .map(|p| p.stop_on_failure)
            .unwrap_or(false);
        let seq = match WaypointRun::new(g.poses.len(), g.goal_index, g.number_of_loops, stop) {
            Ok(s) => s,
            Err(e) => {
                node_glue::warn_limited!(self.logs, "goal", "refusing FollowWaypoints: {e}");
                action::reject(
                    req,
                    FollowWaypoints::Result {
                        missed_waypoints: vec![],
                        error_code: codes::UNKNOWN,
                        error_msg: e.to_string(),
                    },
                );
                return;
            }
        };
        let Some(run) = action::accept(req) else {
            return;
        };
        node_glue::log_info!(
            "FollowWaypoints: {} waypoints from {} ({} more loops)",
            g.poses.len(),
            g.goal_index,
            g.number_of_loops
        );
        let door = Box::new(WaypointsDoor {
            run,
            seq,
            poses: g.poses,
            refused_in_row: 0,
        });
        let first = door.seq.current();
        if let Some(r) = self.waypoint_go(door, first) {
            self.waypoint_done(r.door, Err((r.code, r.message)), true);
        }
    }

    /// Starts waypoint `index` of `door`'s run; `Some` when it was refused at once.
    fn waypoint_go(
        &mut self,
        mut door: Box<WaypointsDoor>,
        index: usize,
    ) -> Option<WaypointRefused> {
        let pose = door.poses[index].clone();
        if let Err(e) = door.feedback() {
            node_glue::log_debug!("could not publish feedback: {e}");
        }
        match self.goal_in_map(&pose) {
            Err(r) => Some(WaypointRefused {
                door,
                code: r.code,
                message: r.message,
            }),
            Ok(goal) => self.begin(
                super::doors::Pending::Waypoint(door),
                format!("waypoint {index} ({:.3}, {:.3})", goal.x, goal.y),
                move |nav, id, now| nav.start(id, goal, now),
            ),
        }
    }

    /// The current waypoint's goal ended (`Err((code, why))`: failed; `immediate`: refused
    /// at its start): the next one starts, or the run ends. A loop, not a recursion, so a
    /// long run of refusals cannot grow the stack.
    pub(super) fn waypoint_done(
        &mut self,
        mut door: Box<WaypointsDoor>,
        mut result: Result<(), (u16, String)>,
        mut immediate: bool,
    ) {
        loop {
            if let Err((_, why)) = &result {
                node_glue::log_warn!(
                    "FollowWaypoints: waypoint {} missed: {why}",
                    door.seq.current()
                );
            }
            door.refused_in_row = if immediate {
                door.refused_in_row + 1
            } else {
                0
            };
            match door.seq.on_done(result.map_err(|(code, _)| code)) {
                Next::Finished => {
                    node_glue::log_info!(
                        "FollowWaypoints: done, {} of {} missed",
                        door.seq.missed().len(),
                        door.poses.len()
                    );
                    door.finish(End::Succeeded, codes::NONE, String::new());
                    return;
                }
                Next::Stopped => {
                    let msg = format!("Failed to process waypoint {} in waypoint list and stop on failure is enabled. Terminating action.", door.seq.current());
                    door.finish(End::Aborted, codes::UNKNOWN, msg);
                    return;
                }
                Next::Go(index) => {
                    if door.refused_in_row >= door.poses.len() {
                        let msg = format!("every one of the {} waypoints was refused at its start in a row: stopped", door.poses.len());
                        door.finish(End::Aborted, codes::UNKNOWN, msg);
                        return;
                    }
                    match self.waypoint_go(door, index) {
                        None => return,
                        Some(r) => {
                            door = r.door;
                            result = Err((r.code, r.message));
                            immediate = true;
                        }
                    }
                }
            }
        }
    }
}
