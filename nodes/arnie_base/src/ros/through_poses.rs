//! `navigate_through_poses` (`nav2_msgs/action/NavigateThroughPoses`): the poses, in any
//! frame TF knows, become one navigator goal through them (passed in order without
//! stopping, their headings ignored; the last one's heading is the goal's), planned leg
//! by leg by the planner. Feedback as Nav2's (`number_of_poses_remaining` counts the poses
//! not yet passed, the last included); the planner's failures come back with
//! `ComputePathThroughPoses`' codes (300..=309), as Nav2's through-poses tree gives them.
use super::doors::{Pending, Refusal, ThroughRequest};
use super::Control;
use crate::nav2::codes::through_poses as codes;
use crate::Outcome;

impl Control {
    /// A new `navigate_through_poses` goal.
    pub(super) fn on_through_goal(&mut self, req: ThroughRequest) {
        let mut goals = Vec::with_capacity(req.goal.poses.len());
        let mut refusal = None;
        if req.goal.poses.is_empty() {
            refusal = Some(Refusal {
                outcome: Outcome::Rejected,
                code: codes::NO_VIAPOINTS_GIVEN,
                message: "NavigateThroughPoses: no poses given".into(),
            });
        }
        for (i, p) in req.goal.poses.iter().enumerate() {
            if refusal.is_some() {
                break;
            }
            match self.goal_in_map(p) {
                Ok(g) => goals.push(g),
                Err(mut r) => {
                    r.message = format!("pose {i}: {}", r.message);
                    refusal = Some(r);
                }
            }
        }
        if let Some(r) = refusal {
            node_glue::warn_limited!(
                self.logs,
                "goal",
                "refusing NavigateThroughPoses: {}",
                r.message
            );
            let pose = self.nav.pose().unwrap_or_default();
            Pending::Through(req).reject(r, &pose);
            return;
        }
        let Some(goal) = goals.pop() else { return };
        let via: Vec<(f64, f64)> = goals.iter().map(|g| (g.x, g.y)).collect();
        let what = format!(
            "through {} poses to ({:.3}, {:.3})",
            via.len() + 1,
            goal.x,
            goal.y
        );
        let _ = self.begin(Pending::Through(req), what, move |nav, id, now| {
            nav.start_route(id, via, goal, now)
        });
    }
}
