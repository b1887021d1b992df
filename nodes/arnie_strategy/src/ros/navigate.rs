//! `motion: navigate_to`: the Eurobot base's `NavigateTo` (`base/navigate_to`) instead of
//! the arm's `MoveTo`. One goal per approach (the base plans, re-plans around what it
//! senses and reports BLOCKED / NO_PATH itself); the robot's position is `base/pose`.
//!
//! `motion: navigate_to_pose`: Nav2's `NavigateToPose` (this base's `navigate_to_pose`, or
//! a real Nav2's bt_navigator: the action's name is a parameter), one goal per approach,
//! in `map`; the robot's position is TF's `map` → `robot_frame`, as Nav2 robots have it.

use arnie_constants::action::navigate_to::result as nav;
use r2r::arnie_interfaces::action::NavigateTo;
use r2r::nav2_msgs::action::NavigateToPose;
use r2r::GoalStatus;

use node_glue::ConfigError;

use crate::error::{Error, MoveOutcome};
use crate::task::Point;

/// The base's action and pose (relative: they resolve in the node's namespace).
pub use node_glue::topics::{BASE_POSE, NAVIGATE_TO};

/// How the strategy moves the robot (parameter `motion`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Motion {
    /// `move_to`: the arm's `MoveTo` on `trajectory/move_to`, through each turning point of
    /// a path planned by the strategy; position from `arm/position`.
    MoveTo,
    /// `navigate_to`: the base's `NavigateTo` on `base/navigate_to`, one goal per
    /// approach; position from `base/pose`.
    NavigateTo,
    /// `navigate_to_pose`: Nav2's `NavigateToPose`, one goal per approach; position from
    /// TF.
    NavigateToPose,
}

impl Motion {
    /// Parses the `motion` parameter.
    ///
    /// # Errors
    /// Anything but `move_to` or `navigate_to`.
    pub fn parse(s: &str) -> Result<Self, ConfigError> {
        match s.trim() {
            "move_to" => Ok(Self::MoveTo),
            "navigate_to" => Ok(Self::NavigateTo),
            "navigate_to_pose" => Ok(Self::NavigateToPose),
            other => Err(ConfigError::new(
                "motion",
                format!(
                    "must be \"move_to\", \"navigate_to\" or \"navigate_to_pose\", got {other:?}"
                ),
            )),
        }
    }
}

/// The goal for a target point (map frame; `z` ignored, no final heading).
pub fn nav_goal(target: &Point) -> NavigateTo::Goal {
    NavigateTo::Goal {
        x: target.x,
        y: target.y,
        theta: 0.0,
        use_heading: false,
    }
}

/// The frame of NavigateToPose goals: the strategy's points are in the planner's frame.
pub const GLOBAL_FRAME: &str = "map";

/// The NavigateToPose goal for a target point (`map`; `z` ignored). A point has no
/// heading but a pose has one: the direction of travel from `from` (where the robot is),
/// so arriving needs no extra turn; +x when the robot's position is unknown or it is
/// already there.
pub fn nav2_goal(target: &Point, from: Option<Point>) -> NavigateToPose::Goal {
    let yaw = match from {
        Some(f) if (target.x - f.x).hypot(target.y - f.y) > 1e-6 => {
            (target.y - f.y).atan2(target.x - f.x)
        }
        _ => 0.0,
    };
    let mut g = NavigateToPose::Goal::default();
    g.pose.header.frame_id = GLOBAL_FRAME.into();
    g.pose.pose.position.x = target.x;
    g.pose.pose.position.y = target.y;
    g.pose.pose.orientation.z = (yaw / 2.0).sin();
    g.pose.pose.orientation.w = (yaw / 2.0).cos();
    g
}

/// A NavigateToPose result: SUCCEEDED → `target` (Nav2 reached it within its tolerance;
/// the result carries no pose); CANCELED → [`Error::Move`] cancelled; ABORTED with a goal
/// Nav2 refuses (off the map or in an obstacle: 203..=206, a TF error: 9002, a goal that
/// is not finite) → rejected; preempted → preempted; any other code → [`Error::Robot`]
/// with the code and `error_msg`.
pub fn nav2_result(
    status: GoalStatus,
    r: &NavigateToPose::Result,
    target: &Point,
) -> Result<Point, Error> {
    match status {
        GoalStatus::Succeeded => Ok(*target),
        GoalStatus::Canceled => Err(Error::Move {
            outcome: MoveOutcome::Cancelled,
            message: r.error_msg.clone(),
        }),
        _ if matches!(r.error_code, 203..=206 | 9002)
            || (r.error_code == 9000 && r.error_msg.contains("not finite")) =>
        {
            Err(Error::Move {
                outcome: MoveOutcome::Rejected,
                message: format!("NavigateToPose error {}: {}", r.error_code, r.error_msg),
            })
        }
        _ if r.error_msg.contains("preempted") => Err(Error::Move {
            outcome: MoveOutcome::Preempted,
            message: r.error_msg.clone(),
        }),
        _ => Err(Error::Robot {
            message: format!(
                "NavigateToPose {status:?}, error {}: {}",
                r.error_code, r.error_msg
            ),
        }),
    }
}

fn outcome_name(code: u8) -> &'static str {
    arnie_constants::name_of(nav::ALL, code).unwrap_or("unknown outcome")
}

/// A `NavigateTo` result: `REACHED` → where the base stopped; `CANCELLED`, `REJECTED`,
/// `PREEMPTED` → [`Error::Move`] with that outcome; `BLOCKED`, `NO_PATH`, `LINK_LOST` and
/// unknown codes → [`Error::Robot`] naming the outcome, with the base's message.
pub fn nav_result(status: GoalStatus, r: &NavigateTo::Result) -> Result<Point, Error> {
    let p = &r.pose.position;
    let name = outcome_name(r.outcome);
    match r.outcome {
        nav::REACHED if status != GoalStatus::Succeeded => Err(Error::Robot {
            message: format!(
                "NavigateTo goal ended {status:?} without an outcome: {}",
                r.message
            ),
        }),
        nav::REACHED if p.x.is_finite() && p.y.is_finite() && p.z.is_finite() => {
            Ok(Point::new(p.x, p.y, p.z))
        }
        nav::REACHED => Err(Error::Robot {
            message: "NavigateTo: non-finite final pose".into(),
        }),
        nav::CANCELLED => Err(Error::Move {
            outcome: MoveOutcome::Cancelled,
            message: r.message.clone(),
        }),
        nav::REJECTED => Err(Error::Move {
            outcome: MoveOutcome::Rejected,
            message: r.message.clone(),
        }),
        nav::PREEMPTED => Err(Error::Move {
            outcome: MoveOutcome::Preempted,
            message: r.message.clone(),
        }),
        code => Err(Error::Robot {
            message: format!("NavigateTo {name} ({code}): {}", r.message),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn motion_parses() {
        assert_eq!(Motion::parse("move_to"), Ok(Motion::MoveTo));
        assert_eq!(Motion::parse(" navigate_to "), Ok(Motion::NavigateTo));
        assert_eq!(
            Motion::parse("navigate_to_pose"),
            Ok(Motion::NavigateToPose)
        );
        assert!(Motion::parse("fly")
            .unwrap_err()
            .to_string()
            .contains("\"fly\""));
    }

    #[test]
    fn nav_results() {
        let mut r = NavigateTo::Result::default();
        r.pose.position.x = 1.5;
        r.pose.position.y = 0.6;
        assert_eq!(
            nav_result(GoalStatus::Succeeded, &r),
            Ok(Point::new(1.5, 0.6, 0.0))
        );
        assert!(matches!(
            nav_result(GoalStatus::Aborted, &r),
            Err(Error::Robot { .. })
        ));
        r.outcome = NavigateTo::Result::BLOCKED as u8;
        r.message = "blocked 3 times".into();
        match nav_result(GoalStatus::Aborted, &r) {
            Err(Error::Robot { message }) => {
                assert_eq!(message, "NavigateTo BLOCKED (1): blocked 3 times")
            }
            other => panic!("{other:?}"),
        }
        r.outcome = NavigateTo::Result::NO_PATH as u8;
        assert!(
            matches!(nav_result(GoalStatus::Aborted, &r), Err(Error::Robot { message }) if message.contains("NO_PATH"))
        );
        r.outcome = NavigateTo::Result::LINK_LOST as u8;
        assert!(
            matches!(nav_result(GoalStatus::Aborted, &r), Err(Error::Robot { message }) if message.contains("LINK_LOST"))
        );
        r.outcome = NavigateTo::Result::CANCELLED as u8;
        assert!(matches!(
            nav_result(GoalStatus::Canceled, &r),
            Err(Error::Move {
                outcome: MoveOutcome::Cancelled,
                ..
            })
        ));
        r.outcome = NavigateTo::Result::REJECTED as u8;
        assert!(matches!(
            nav_result(GoalStatus::Aborted, &r),
            Err(Error::Move {
                outcome: MoveOutcome::Rejected,
                ..
            })
        ));
        r.outcome = 42;
        assert!(matches!(
            nav_result(GoalStatus::Aborted, &r),
            Err(Error::Robot { .. })
        ));
    }

    #[test]
    fn nav2_results() {
        let target = Point::new(1.0, 0.5, 0.0);
        let mut r = NavigateToPose::Result::default();
        assert_eq!(nav2_result(GoalStatus::Succeeded, &r, &target), Ok(target));
        assert!(matches!(
            nav2_result(GoalStatus::Canceled, &r, &target),
            Err(Error::Move {
                outcome: MoveOutcome::Cancelled,
                ..
            })
        ));
        r.error_code = 206;
        r.error_msg = "planner: goal blocked".into();
        assert!(matches!(
            nav2_result(GoalStatus::Aborted, &r, &target),
            Err(Error::Move {
                outcome: MoveOutcome::Rejected,
                ..
            })
        ));
        r.error_code = 105;
        r.error_msg = "blocked 3 times".into();
        match nav2_result(GoalStatus::Aborted, &r, &target) {
            Err(Error::Robot { message }) => assert!(
                message.contains("105") && message.contains("blocked 3 times"),
                "{message}"
            ),
            other => panic!("{other:?}"),
        }
        r.error_code = 9000;
        r.error_msg = "preempted by a manual command on cmd_vel".into();
        assert!(matches!(
            nav2_result(GoalStatus::Aborted, &r, &target),
            Err(Error::Move {
                outcome: MoveOutcome::Preempted,
                ..
            })
        ));
        let g = nav2_goal(&target, None);
        assert_eq!(
            (
                g.pose.header.frame_id.as_str(),
                g.pose.pose.position.x,
                g.pose.pose.orientation.w
            ),
            ("map", 1.0, 1.0)
        );
        // Facing the direction of travel: from (1, 0) to (1, 0.5) is +y.
        let g = nav2_goal(&target, Some(Point::new(1.0, 0.0, 0.0)));
        let yaw = 2.0 * g.pose.pose.orientation.z.atan2(g.pose.pose.orientation.w);
        assert!((yaw - std::f64::consts::FRAC_PI_2).abs() < 1e-12, "{yaw}");
    }
}
