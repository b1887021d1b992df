//! `motion: navigate_to`: the Eurobot base's `NavigateTo` (`base/navigate_to`) instead of
//! the arm's `MoveTo`. One goal per approach (the base plans, re-plans around what it
//! senses and reports BLOCKED / NO_PATH itself); the robot's position is `base/pose`.

use arnie_constants::action::navigate_to::result as nav;
use r2r::arnie_interfaces::action::NavigateTo;
use r2r::GoalStatus;

use crate::error::{Error, MoveOutcome};
use crate::task::Point;

/// The base's action (relative: resolves in the node's namespace).
pub const NAVIGATE_TO: &str = "base/navigate_to";
/// The base's pose (`geometry_msgs/PoseStamped`, map frame, reliable).
pub const BASE_POSE: &str = "base/pose";

/// How the strategy moves the robot (parameter `motion`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Motion {
    /// `move_to`: the arm's `MoveTo` on `trajectory/move_to`, through each turning point of
    /// a path planned by the strategy; position from `arm/position`.
    MoveTo,
    /// `navigate_to`: the base's `NavigateTo` on `base/navigate_to`, one goal per
    /// approach; position from `base/pose`.
    NavigateTo,
}

impl Motion {
    /// Parses the `motion` parameter.
    ///
    /// # Errors
    /// Anything but `move_to` or `navigate_to`.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s.trim() {
            "move_to" => Ok(Self::MoveTo),
            "navigate_to" => Ok(Self::NavigateTo),
            other => Err(format!(
                "motion must be \"move_to\" or \"navigate_to\", got {other:?}"
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
        assert!(Motion::parse("fly").unwrap_err().contains("\"fly\""));
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
}
