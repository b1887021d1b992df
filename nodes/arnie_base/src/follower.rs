//! [`Follower`]: turn-and-drive along a polyline.
//!
//! The chosen controller (documented in README.md): the robot drives each segment of
//! the planner's (smoothed) path toward its end point with a proportional heading
//! correction, and stops to turn in place whenever the heading error exceeds
//! `turn_in_place_above_rad` (at sharp corners, at the start, after a re-plan). The
//! speed follows `v = sqrt(2 · decel · d)` toward the next place where it must stop (a
//! sharp corner or the goal), clamped to `min_speed_mps..=max_speed_mps`. It is simple,
//! never cuts a corner the planner did not cut (it drives the segments), and a
//! differential drive can do exactly this. The board's own acceleration limits smooth
//! the steps.
use crate::config::BaseConfig;
use crate::geom::{wrap_angle, Pose2};

/// What the follower is doing this step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Step {
    /// Turning in place toward the next waypoint or the final heading.
    Turn {
        /// Turn rate [rad/s].
        w: f64,
        /// Heading error left [rad].
        error: f64,
    },
    /// Driving toward the next waypoint.
    Drive {
        /// Linear speed [m/s].
        v: f64,
        /// Turn rate [rad/s].
        w: f64,
    },
    /// At the goal (and at its heading, if one was asked for).
    Arrived,
}

/// Follows one path (see the module doc).
#[derive(Clone, Debug)]
pub struct Follower {
    /// Waypoints, the last one the exact goal.
    points: Vec<(f64, f64)>,
    /// Index of the waypoint being driven to.
    next: usize,
    final_heading: Option<f64>,
    /// Turning in place (hysteresis: started above `turn_in_place_above_rad`, ends near 0).
    turning: bool,
    /// Within the goal tolerance once: only the final heading is left.
    at_goal: bool,
    /// Where the robot stood at the first step (the start of the first segment).
    origin: Option<(f64, f64)>,
}

impl Follower {
    /// A follower for `points` (at least one: the goal) ending at `final_heading`, if any.
    pub fn new(points: Vec<(f64, f64)>, final_heading: Option<f64>) -> Self {
        Follower {
            points,
            next: 0,
            final_heading,
            turning: false,
            at_goal: false,
            origin: None,
        }
    }

    /// The waypoints.
    pub fn points(&self) -> &[(f64, f64)] {
        &self.points
    }

    /// Index of the waypoint being driven to.
    pub fn next_index(&self) -> usize {
        self.next
    }

    /// Path length left from `pose` [m].
    pub fn remaining_m(&self, pose: &Pose2) -> f64 {
        if self.at_goal || self.points.is_empty() {
            return 0.0;
        }
        let mut d = pose.distance_to(self.points[self.next]);
        for w in self.points[self.next..].windows(2) {
            d += (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1);
        }
        d
    }

    /// The heading error the follower works on from `pose`: toward the final heading
    /// once at the goal, else toward the waypoint it drives to [rad].
    pub fn aim_error(&self, pose: &Pose2) -> f64 {
        match (self.at_goal, self.final_heading, self.points.get(self.next)) {
            (true, Some(h), _) => wrap_angle(h - pose.theta),
            (true, None, _) | (_, _, None) => 0.0,
            (false, _, Some(&p)) => wrap_angle(pose.bearing_to(p) - pose.theta),
        }
    }

    fn last(&self) -> usize {
        self.points.len().saturating_sub(1)
    }

    /// Distance from `pose` to the next place where the robot must stop: the goal or a
    /// waypoint whose turn exceeds `turn_in_place_above_rad` [m].
    fn stop_distance(&self, pose: &Pose2, cfg: &BaseConfig) -> f64 {
        let mut d = pose.distance_to(self.points[self.next]);
        let mut i = self.next;
        while i < self.last() {
            let (a, b, c) = (
                self.points
                    .get(i.wrapping_sub(1))
                    .copied()
                    .unwrap_or((pose.x, pose.y)),
                self.points[i],
                self.points[i + 1],
            );
            let a = if i == self.next { (pose.x, pose.y) } else { a };
            let turn = wrap_angle((c.1 - b.1).atan2(c.0 - b.0) - (b.1 - a.1).atan2(b.0 - a.0));
            if turn.abs() > cfg.turn_in_place_above_rad {
                break;
            }
            d += (c.0 - b.0).hypot(c.1 - b.1);
            i += 1;
        }
        d
    }

    /// Passes the waypoints already reached: within `waypoint_tolerance_m`, or overshot
    /// (the pose projects past the end of the segment toward it).
    fn advance(&mut self, pose: &Pose2, cfg: &BaseConfig) {
        while self.next < self.last() {
            let p = self.points[self.next];
            let prev = if self.next > 0 {
                Some(self.points[self.next - 1])
            } else {
                self.origin
            };
            let passed = if let Some(a) = prev {
                let (dx, dy) = (p.0 - a.0, p.1 - a.1);
                let len2 = dx * dx + dy * dy;
                len2 > 0.0 && ((pose.x - a.0) * dx + (pose.y - a.1) * dy) / len2 >= 1.0
            } else {
                false
            };
            if pose.distance_to(p) <= cfg.waypoint_tolerance_m || passed {
                self.next += 1;
                self.turning = false;
            } else {
                break;
            }
        }
    }

    fn turn(&mut self, error: f64, cfg: &BaseConfig) -> Step {
        let w = (cfg.turn_gain * error.abs()).clamp(cfg.min_turn_rps, cfg.max_turn_rps);
        Step::Turn {
            w: w.copysign(error),
            error,
        }
    }

    /// One control step from `pose`.
    pub fn step(&mut self, pose: &Pose2, cfg: &BaseConfig) -> Step {
        if self.points.is_empty() {
            return Step::Arrived;
        }
        self.origin.get_or_insert((pose.x, pose.y));
        self.advance(pose, cfg);
        if !self.at_goal
            && self.next == self.last()
            && pose.distance_to(self.points[self.next]) <= cfg.goal_tolerance_m
        {
            self.at_goal = true;
        }
        if self.at_goal {
            return match self.final_heading {
                Some(h) => {
                    let error = wrap_angle(h - pose.theta);
                    if error.abs() <= cfg.heading_tolerance_rad {
                        Step::Arrived
                    } else {
                        self.turn(error, cfg)
                    }
                }
                None => Step::Arrived,
            };
        }
        let target = self.points[self.next];
        let error = wrap_angle(pose.bearing_to(target) - pose.theta);
        let done_turning = cfg
            .heading_tolerance_rad
            .max(0.25 * cfg.turn_in_place_above_rad);
        if self.turning && error.abs() <= done_turning {
            self.turning = false;
        } else if !self.turning && error.abs() > cfg.turn_in_place_above_rad {
            self.turning = true;
        }
        if self.turning {
            return self.turn(error, cfg);
        }
        let d = self.stop_distance(pose, cfg);
        let v = (2.0 * cfg.decel_mps2 * d)
            .sqrt()
            .clamp(cfg.min_speed_mps, cfg.max_speed_mps);
        let w = (cfg.heading_gain * error).clamp(-cfg.max_turn_rps, cfg.max_turn_rps);
        Step::Drive { v, w }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_first_then_drives_and_slows_down() {
        let cfg = BaseConfig::default();
        let mut f = Follower::new(vec![(0.0, 1.0)], None);
        // Facing +x, goal straight up: turn left in place.
        match f.step(&Pose2::new(0.0, 0.0, 0.0), &cfg) {
            Step::Turn { w, .. } => assert_eq!(w, cfg.max_turn_rps),
            s => panic!("{s:?}"),
        }
        match f.step(&Pose2::new(0.0, 0.0, 1.55), &cfg) {
            Step::Drive { v, w } => {
                assert_eq!(v, cfg.max_speed_mps);
                assert!(w > 0.0 && w < 0.1, "{w}");
            }
            s => panic!("{s:?}"),
        }
        match f.step(&Pose2::new(0.0, 0.95, std::f64::consts::FRAC_PI_2), &cfg) {
            Step::Drive { v, .. } => assert!(
                (v - (2.0 * cfg.decel_mps2 * 0.05).sqrt()).abs() < 1e-9,
                "{v}"
            ),
            s => panic!("{s:?}"),
        }
        assert_eq!(
            f.step(&Pose2::new(0.0, 0.98, std::f64::consts::FRAC_PI_2), &cfg),
            Step::Arrived
        );
    }

    #[test]
    fn final_heading_is_turned_to_after_the_position() {
        let cfg = BaseConfig::default();
        let mut f = Follower::new(vec![(1.0, 0.0)], Some(std::f64::consts::PI));
        assert!(matches!(
            f.step(&Pose2::new(0.99, 0.0, 0.0), &cfg),
            Step::Turn { .. }
        ));
        // Once at the goal, a small drift does not restart driving.
        assert!(
            matches!(f.step(&Pose2::new(0.95, 0.0, 1.0), &cfg), Step::Turn { w, .. } if w > 0.0)
        );
        assert_eq!(f.step(&Pose2::new(0.95, 0.0, 3.12), &cfg), Step::Arrived);
    }

    #[test]
    fn gentle_corners_do_not_stop_the_robot_and_overshoot_passes_a_waypoint() {
        let cfg = BaseConfig::default();
        let mut f = Follower::new(vec![(1.0, 0.0), (2.0, 0.1), (2.0, 1.0)], None);
        // 0.1 rad corner at (1, 0): plan to stop only at the sharp corner (2, 0.1).
        let d = f.stop_distance(&Pose2::new(0.0, 0.0, 0.0), &cfg);
        assert!((d - (1.0 + 1.0f64.hypot(0.1))).abs() < 1e-9, "{d}");
        // Slightly past (1, 0) but not within tolerance: the waypoint counts as passed.
        f.step(&Pose2::new(0.0, 0.0, 0.0), &cfg);
        f.step(&Pose2::new(1.06, 0.06, 0.0), &cfg);
        assert_eq!(f.next_index(), 1);
        assert!((f.remaining_m(&Pose2::new(2.0, 0.1, 0.0)) - 0.9).abs() < 1e-9);
    }
}
