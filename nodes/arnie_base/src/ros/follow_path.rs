//! `follow_path` (`nav2_msgs/action/FollowPath`, Nav2's controller server): a client's
//! `nav_msgs/Path` driven as it is, never re-planned ([`crate::Navigator::start_path`]):
//! its poses in any frame TF knows, brought into `map`; turn-and-drive along them, the last
//! pose's heading at the end. An obstacle or no progress stops the base; after
//! `replan_delay_s` it drives on along what is left of the path, `FAILED_TO_MAKE_PROGRESS`
//! (105) after `max_failures`. Feedback `distance_to_goal` (along the path) and `speed`
//! (the board's). Refused with Nav2's codes: an empty or non-finite path `INVALID_PATH`
//! (103), a frame with no transform to `map` `TF_ERROR` (102), a `controller_id` other
//! than "" or [`CONTROLLER_ID`] `INVALID_CONTROLLER` (101), a `goal_checker_id` or
//! `progress_checker_id` the base does not have `UNKNOWN` (100), as Nav2's controller
//! server answers them.
use super::doors::{PathRequest, Pending, Refusal};
use super::Control;
use crate::nav2::codes::follow_path as codes;
use crate::Outcome;

/// The one controller (Nav2's default plugin name in its shipped configuration).
pub const CONTROLLER_ID: &str = "FollowPath";
/// The one goal checker (Nav2's default name).
pub const GOAL_CHECKER_ID: &str = "general_goal_checker";
/// The one progress checker (Nav2's default name).
pub const PROGRESS_CHECKER_ID: &str = "progress_checker";

impl Control {
    /// A new `follow_path` goal.
    pub(super) fn on_path_goal(&mut self, req: PathRequest) {
        let g = &req.goal;
        let refuse = |code: u16, message: String| Refusal {
            outcome: Outcome::Rejected,
            code,
            message,
        };
        let mut refusal = if !(g.controller_id.is_empty() || g.controller_id == CONTROLLER_ID) {
            Some(refuse(
                codes::INVALID_CONTROLLER,
                format!(
                    "Failed to find controller name: {} (this base has \"{CONTROLLER_ID}\")",
                    g.controller_id
                ),
            ))
        } else if !(g.goal_checker_id.is_empty() || g.goal_checker_id == GOAL_CHECKER_ID) {
            Some(refuse(
                codes::UNKNOWN,
                format!(
                    "Failed to find goal checker name: {} (this base has \"{GOAL_CHECKER_ID}\")",
                    g.goal_checker_id
                ),
            ))
        } else if !(g.progress_checker_id.is_empty()
            || g.progress_checker_id == PROGRESS_CHECKER_ID)
        {
            Some(refuse(
                codes::UNKNOWN,
                format!(
                    "Failed to find progress checker name: {} (this base has \"{PROGRESS_CHECKER_ID}\")",
                    g.progress_checker_id
                ),
            ))
        } else {
            None
        };
        let mut points = Vec::with_capacity(g.path.poses.len());
        let mut heading = None;
        if refusal.is_none() {
            let frame = g.path.header.frame_id.clone();
            for (i, p) in g.path.poses.iter().enumerate() {
                // A pose without a frame of its own is in the path's.
                let mut p = p.clone();
                if p.header.frame_id.is_empty() {
                    p.header.frame_id = frame.clone();
                }
                match self.goal_in_map(&p) {
                    Ok(goal) => {
                        points.push((goal.x, goal.y));
                        heading = goal.heading;
                    }
                    Err(r) => {
                        let code = if r.code == crate::nav2::TF_ERROR {
                            codes::TF_ERROR
                        } else {
                            codes::INVALID_PATH
                        };
                        refusal = Some(refuse(code, format!("path pose {i}: {}", r.message)));
                        break;
                    }
                }
            }
        }
        if let Some(r) = refusal {
            node_glue::warn_limited!(self.logs, "goal", "refusing FollowPath: {}", r.message);
            let pose = self.nav.pose().unwrap_or_default();
            Pending::Path(req).reject(r, &pose);
            return;
        }
        let what = format!(
            "a path of {} poses to {:?}",
            points.len(),
            points.last().copied().unwrap_or_default()
        );
        let _ = self.begin(Pending::Path(req), what, move |nav, id, now| {
            nav.start_path(id, points, heading, now)
        });
    }
}
