//! `nav2_msgs/action/NavigateToPose`'s error codes for the navigator's outcomes, without
//! ROS.
//!
//! Jazzy's `NavigateToPose` result declares only `NONE = 0`; Nav2's navigator passes on
//! the code of the behaviour-tree node that failed: the planner's (`ComputePathToPose`,
//! 200..=208) or the controller's (`FollowPath`, 100..=107), and its own for what is
//! neither (`UNKNOWN = 9000`, `TF_ERROR = 9002` in later releases). The same codes here,
//! so a client written for Nav2 reads them as it would from Nav2:
//!
//! | outcome | status | `error_code` |
//! |---|---|---|
//! | reached | SUCCEEDED | 0 `NONE` |
//! | cancelled | CANCELED | 0 `NONE` |
//! | no path | ABORTED | 208 `NO_VALID_PATH` |
//! | goal off the map / in an obstacle | ABORTED | 204 `GOAL_OUTSIDE_MAP` / 206 `GOAL_OCCUPIED` |
//! | start off the map / in an obstacle | ABORTED | 203 `START_OUTSIDE_MAP` / 205 `START_OCCUPIED` |
//! | planner without a map / not answering | ABORTED | 201 `INVALID_PLANNER` / 207 `TIMEOUT` |
//! | blocked (`max_failures`) | ABORTED | 105 `FAILED_TO_MAKE_PROGRESS` |
//! | link lost (no odometry) | ABORTED | 106 `NO_VALID_CONTROL` |
//! | goal frame with no TF path to `map` | ABORTED | 9002 `TF_ERROR` |
//! | goal not finite, preempted (new goal, manual command), shutdown | ABORTED | 9000 `UNKNOWN` |
//!
//! The reason is always in `error_msg`.
//!
//! `NavigateThroughPoses` passes on `ComputePathThroughPoses`' codes (300..=309) for the
//! planner's failures, as Nav2's through-poses tree does ([`through_poses_code`]). The
//! other actions' codes are their own ([`codes`]), generated from `msg/nav2_msgs` by
//! `arnie_constants` (never copied).
use crate::navigator::{Finish, Outcome, PlanFailure};
use arnie_constants::nav2::action as n2;
use arnie_constants::outcome::PlanCode;

/// Every action's `error_code` constants, as `nav2_msgs` defines them (Jazzy, 1.3.13).
pub mod codes {
    pub use arnie_constants::nav2::action::{
        back_up::result as back_up, compute_path_through_poses::result as through_poses,
        compute_path_to_pose::result as to_pose, drive_on_heading::result as drive_on_heading,
        follow_path::result as follow_path, follow_waypoints::result as follow_waypoints,
        spin::result as spin,
    };
}

/// Success, or a cancelled goal.
pub const NONE: u16 = 0;
/// `FollowPath`: no valid path (empty, not finite, or not in the map frame).
pub const INVALID_PATH: u16 = n2::follow_path::result::INVALID_PATH;
/// `FollowPath`: blocked more than `max_failures` times.
pub const FAILED_TO_MAKE_PROGRESS: u16 = n2::follow_path::result::FAILED_TO_MAKE_PROGRESS;
/// `FollowPath`: no odometry, the base cannot be controlled.
pub const NO_VALID_CONTROL: u16 = n2::follow_path::result::NO_VALID_CONTROL;
/// `ComputePathToPose`: the planner has no map.
pub const INVALID_PLANNER: u16 = n2::compute_path_to_pose::result::INVALID_PLANNER;
/// `ComputePathToPose`: the start is off the map.
pub const START_OUTSIDE_MAP: u16 = n2::compute_path_to_pose::result::START_OUTSIDE_MAP;
/// `ComputePathToPose`: the goal is off the map.
pub const GOAL_OUTSIDE_MAP: u16 = n2::compute_path_to_pose::result::GOAL_OUTSIDE_MAP;
/// `ComputePathToPose`: the start is in an obstacle.
pub const START_OCCUPIED: u16 = n2::compute_path_to_pose::result::START_OCCUPIED;
/// `ComputePathToPose`: the goal is in an obstacle.
pub const GOAL_OCCUPIED: u16 = n2::compute_path_to_pose::result::GOAL_OCCUPIED;
/// `ComputePathToPose`: the planner did not answer in time.
pub const TIMEOUT: u16 = n2::compute_path_to_pose::result::TIMEOUT;
/// `ComputePathToPose`: no path.
pub const NO_VALID_PATH: u16 = n2::compute_path_to_pose::result::NO_VALID_PATH;
/// `NavigateToPose`: anything else (the message says what).
pub const UNKNOWN: u16 = 9000;
/// `NavigateToPose`: the goal's frame has no transform to the map frame.
pub const TF_ERROR: u16 = 9002;

/// The same finish with the planner's codes moved to `ComputePathThroughPoses`' range
/// (300..=309; `NavigateThroughPoses`).
pub fn through_poses_code(f: &Finish) -> u16 {
    let code = error_code(f);
    if (n2::compute_path_to_pose::result::UNKNOWN..=NO_VALID_PATH).contains(&code) {
        code + (n2::compute_path_through_poses::result::UNKNOWN
            - n2::compute_path_to_pose::result::UNKNOWN)
    } else {
        code
    }
}

/// The error code of a finished goal (see the module doc).
pub fn error_code(f: &Finish) -> u16 {
    match f.outcome {
        Outcome::Reached | Outcome::Cancelled => NONE,
        Outcome::Blocked => FAILED_TO_MAKE_PROGRESS,
        Outcome::LinkLost => NO_VALID_CONTROL,
        Outcome::NoPath | Outcome::Rejected => match f.plan_failure {
            Some(p) => plan_code(p),
            None if f.outcome == Outcome::NoPath => NO_VALID_PATH,
            None => UNKNOWN,
        },
        Outcome::Preempted => UNKNOWN,
    }
}

/// `FollowPath`'s code for a finished given-path goal: reached or cancelled 0, blocked
/// 105, link lost 106, a path refused 103 `INVALID_PATH`, preempted 100 `UNKNOWN`.
pub fn follow_path_code(f: &Finish) -> u16 {
    match f.outcome {
        Outcome::Reached | Outcome::Cancelled => NONE,
        Outcome::Blocked => FAILED_TO_MAKE_PROGRESS,
        Outcome::LinkLost => NO_VALID_CONTROL,
        Outcome::Rejected | Outcome::NoPath => INVALID_PATH,
        Outcome::Preempted => n2::follow_path::result::UNKNOWN,
    }
}

/// The planner's failure as `ComputePathToPose`'s code.
pub fn plan_code(p: PlanFailure) -> u16 {
    match p {
        PlanFailure::Planner(code) => match code {
            PlanCode::NoMap => INVALID_PLANNER,
            PlanCode::StartOutside => START_OUTSIDE_MAP,
            PlanCode::GoalOutside => GOAL_OUTSIDE_MAP,
            PlanCode::StartBlocked => START_OCCUPIED,
            PlanCode::GoalBlocked => GOAL_OCCUPIED,
            PlanCode::NoPath => NO_VALID_PATH,
            PlanCode::InvalidRequest => UNKNOWN,
        },
        PlanFailure::Unavailable => TIMEOUT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Pose2;

    fn finish(outcome: Outcome, plan_failure: Option<PlanFailure>) -> Finish {
        Finish {
            outcome,
            pose: Pose2::default(),
            replans: 0,
            driven_m: 0.0,
            message: String::new(),
            plan_failure,
        }
    }

    #[test]
    fn outcomes_map_to_nav2_codes() {
        assert_eq!(error_code(&finish(Outcome::Reached, None)), NONE);
        assert_eq!(error_code(&finish(Outcome::Blocked, None)), 105);
        assert_eq!(error_code(&finish(Outcome::LinkLost, None)), 106);
        assert_eq!(error_code(&finish(Outcome::NoPath, None)), 208);
        assert_eq!(
            error_code(&finish(
                Outcome::Rejected,
                Some(PlanFailure::Planner(PlanCode::GoalBlocked))
            )),
            206
        );
        assert_eq!(
            error_code(&finish(
                Outcome::Rejected,
                Some(PlanFailure::Planner(PlanCode::GoalOutside))
            )),
            204
        );
        assert_eq!(
            error_code(&finish(Outcome::NoPath, Some(PlanFailure::Unavailable))),
            207
        );
        assert_eq!(error_code(&finish(Outcome::Preempted, None)), UNKNOWN);
        assert_eq!(error_code(&finish(Outcome::Rejected, None)), UNKNOWN);
        assert_eq!(
            through_poses_code(&finish(
                Outcome::Rejected,
                Some(PlanFailure::Planner(PlanCode::GoalBlocked))
            )),
            306
        );
        assert_eq!(through_poses_code(&finish(Outcome::Blocked, None)), 105);
        assert_eq!(codes::spin::TIMEOUT, 701);
        assert_eq!(follow_path_code(&finish(Outcome::Rejected, None)), 103);
        assert_eq!(follow_path_code(&finish(Outcome::Blocked, None)), 105);
        assert_eq!(follow_path_code(&finish(Outcome::Preempted, None)), 100);
    }
}
