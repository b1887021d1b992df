//! The navigator's inputs and outputs: the goal, its outcome and phase (the
//! `NavigateTo.action` constants), feedback, planner replies, the [`Output`]s the glue
//! carries out, known obstacles, and the counters (a pure move out of `navigator.rs`).
use arnie_constants::action::navigate_to::{feedback, result};
use arnie_constants::outcome::PlanCode;
use arnie_constants::srv::plan_path::response as plan_path;

use crate::geom::Pose2;

/// A `NavigateTo` goal (map frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Goal {
    /// [m]
    pub x: f64,
    /// [m]
    pub y: f64,
    /// Final heading [rad], if one is wanted.
    pub heading: Option<f64>,
}

/// How a goal ended (the `NavigateTo` result's `outcome` constants, same order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Outcome {
    /// At the goal (and heading).
    Reached = result::REACHED,
    /// Blocked more than `max_failures` times.
    Blocked = result::BLOCKED,
    /// The planner found no path.
    NoPath = result::NO_PATH,
    /// Cancelled by the client.
    Cancelled = result::CANCELLED,
    /// No odometry for `link_timeout_s`.
    LinkLost = result::LINK_LOST,
    /// Refused before moving.
    Rejected = result::REJECTED,
    /// Replaced by a newer goal.
    Preempted = result::PREEMPTED,
}

impl Outcome {
    /// The result's `outcome` constant.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// Lower-case name for logs and /diagnostics.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Reached => "reached",
            Outcome::Blocked => "blocked",
            Outcome::NoPath => "no_path",
            Outcome::Cancelled => "cancelled",
            Outcome::LinkLost => "link_lost",
            Outcome::Rejected => "rejected",
            Outcome::Preempted => "preempted",
        }
    }

    /// Every outcome, in code order.
    pub const ALL: [Outcome; 7] = [
        Outcome::Reached,
        Outcome::Blocked,
        Outcome::NoPath,
        Outcome::Cancelled,
        Outcome::LinkLost,
        Outcome::Rejected,
        Outcome::Preempted,
    ];
}

/// The feedback's `phase` constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Phase {
    /// Waiting for a path.
    Planning = feedback::PLANNING,
    /// Turning in place.
    Turning = feedback::TURNING,
    /// Driving along the path.
    Driving = feedback::DRIVING,
    /// Stopped after a failure, waiting to re-plan.
    Stopped = feedback::STOPPED,
}

/// The end of a goal.
#[derive(Clone, Debug, PartialEq)]
pub struct Finish {
    /// How it ended.
    pub outcome: Outcome,
    /// Where the robot was (the last odometry; zero if none).
    pub pose: Pose2,
    /// Paths planned after the first one.
    pub replans: u32,
    /// Distance driven for this goal [m].
    pub driven_m: f64,
    /// Why, for a person.
    pub message: String,
    /// The planner's failure when the planner ended the goal (its first answer).
    pub plan_failure: Option<PlanFailure>,
}

/// The feedback of the running goal.
#[derive(Clone, Debug, PartialEq)]
pub struct Feedback {
    /// What the base is doing.
    pub phase: Phase,
    /// Current pose.
    pub pose: Pose2,
    /// Path length left [m] (straight-line distance while there is no path).
    pub distance_left_m: f64,
    /// Paths planned after the first one.
    pub replans: u32,
    /// Poses of the goal not yet passed, the final one included (1 for a single goal;
    /// `NavigateThroughPoses`' `number_of_poses_remaining`).
    pub poses_left: usize,
}

/// Why the planner gave no path: one of the `PlanPath` error codes
/// (`arnie_constants::outcome::PlanCode`, the one list of them), or no answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanFailure {
    /// The planner answered with this error code.
    Planner(PlanCode),
    /// The planner did not answer (not running, timed out), or with a code it does not
    /// define.
    Unavailable,
}

impl PlanFailure {
    /// From a `PlanPath` `error_code` (`OK` is not a failure: `None`).
    pub fn from_code(code: u16) -> Option<PlanFailure> {
        if code == plan_path::OK {
            return None;
        }
        Some(PlanCode::from_code(code).map_or(PlanFailure::Unavailable, PlanFailure::Planner))
    }
}

/// The planner's answer to an [`Output::Plan`].
#[derive(Clone, Debug, PartialEq)]
pub enum PlanReply {
    /// A path from the start to the goal (cell centres, map frame).
    Path(Vec<(f64, f64)>),
    /// The answer to an [`Output::PlanRoute`]: one path per leg, in order (start → first
    /// pose, first pose → second ...).
    Legs(Vec<Vec<(f64, f64)>>),
    /// No path, and why.
    Failed(PlanFailure, String),
}

/// What the glue must do, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// Command the board: linear speed [m/s] and turn rate [rad/s].
    Motion {
        /// [m/s]
        v: f64,
        /// [rad/s]
        w: f64,
    },
    /// Stop the motors now.
    Stop,
    /// Ask the planner for a path; answer with [`Navigator::on_plan`] and this `id`.
    Plan {
        /// Request id.
        id: u64,
        /// From [m].
        start: (f64, f64),
        /// To [m].
        goal: (f64, f64),
    },
    /// Ask the planner for a path through `points` (the start, the poses to pass, the
    /// goal), leg by leg; answer with [`Navigator::on_plan`] ([`PlanReply::Legs`], or the
    /// first leg's failure) and this `id`.
    PlanRoute {
        /// Request id.
        id: u64,
        /// The start, then every pose in order [m].
        points: Vec<(f64, f64)>,
    },
    /// Mark discs on the planner's map; answer with [`Navigator::on_marked`] and `id`.
    Mark {
        /// Request id.
        id: u64,
        /// Disc centres [m].
        centers: Vec<(f64, f64)>,
        /// Disc radius [m].
        radius_m: f64,
        /// Forget after [s] (0 = never).
        ttl_s: f64,
    },
    /// Publish feedback for goal `goal`.
    Feedback {
        /// The goal's id (given to [`Navigator::start`]).
        goal: u64,
        /// The feedback.
        feedback: Feedback,
    },
    /// Goal `goal` is over.
    Done {
        /// The goal's id.
        goal: u64,
        /// Its result.
        finish: Finish,
    },
}

/// The map's own obstacles (walls, fixed obstacles), to tell a sensor hit on them from
/// one on an unknown obstacle (the opponent). Cells row-major, row 0 = TOP (the
/// planner's and the scenario raster's layout), origin = lower-left corner.
#[derive(Clone, Debug, PartialEq)]
pub struct KnownObstacles {
    /// [cells]
    pub width: usize,
    /// [cells]
    pub height: usize,
    /// [m/cell]
    pub resolution_m: f64,
    /// Lower-left corner [m].
    pub origin_m: (f64, f64),
    /// `blocked[row * width + col]`, row 0 = top.
    pub blocked: Vec<bool>,
}

impl KnownObstacles {
    /// Whether a blocked cell's centre lies within `margin_m` of `p`, or `p` is off the
    /// map (the table's edge is a wall).
    pub fn near(&self, p: (f64, f64), margin_m: f64) -> bool {
        let res = self.resolution_m;
        let col = ((p.0 - self.origin_m.0) / res).floor();
        let row_up = ((p.1 - self.origin_m.1) / res).floor();
        if !(col >= 0.0 && row_up >= 0.0 && col < self.width as f64 && row_up < self.height as f64)
        {
            return true;
        }
        let reach = (margin_m / res).ceil() as i64 + 1;
        let (c, r) = (col as i64, self.height as i64 - 1 - row_up as i64);
        for y in (r - reach).max(0)..=(r + reach).min(self.height as i64 - 1) {
            for x in (c - reach).max(0)..=(c + reach).min(self.width as i64 - 1) {
                if !self.blocked[y as usize * self.width + x as usize] {
                    continue;
                }
                let cx = self.origin_m.0 + (x as f64 + 0.5) * res;
                let cy = self.origin_m.1 + ((self.height as i64 - 1 - y) as f64 + 0.5) * res;
                if (cx - p.0).hypot(cy - p.1) <= margin_m + res * 0.5 {
                    return true;
                }
            }
        }
        false
    }
}

/// A goal refused before it started (the running goal, if any, goes on).
#[derive(Clone, Debug, PartialEq)]
pub struct Refused {
    /// [`Outcome::Rejected`] or [`Outcome::LinkLost`].
    pub outcome: Outcome,
    /// Why.
    pub message: String,
}

/// Counters for /diagnostics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NavCounters {
    /// Goals accepted (started).
    pub goals: u64,
    /// Goals refused before they started.
    pub refused: u64,
    /// Finished goals by outcome (index = outcome code).
    pub outcomes: [u64; 7],
    /// Obstacle reports that stopped the robot.
    pub obstacle_stops: u64,
    /// Times the robot made no progress.
    pub no_progress: u64,
    /// Plans asked for after the first of a goal.
    pub replans: u64,
    /// Mark requests the planner refused or did not answer.
    pub mark_failures: u64,
    /// Odometry samples received.
    pub odometry: u64,
    /// Odometry samples with a non-finite field (ignored).
    pub odometry_rejected: u64,
    /// Obstacle reports with a non-finite value (ignored).
    pub obstacles_rejected: u64,
    /// Obstacle reports on the known map (walls, fixed obstacles: ignored).
    pub obstacles_known: u64,
    /// Plan answers that came for an old request (ignored).
    pub stale_replies: u64,
    /// Goals that ended REACHED while the board still reported motion after
    /// `settle_timeout_s`.
    pub settle_timeouts: u64,
    /// Times the robot stopped outside `goal_tolerance_m` and drove back.
    pub reapproaches: u64,
    /// The LiDAR gate's counts ([`crate::avoid`]).
    pub avoid: crate::avoid::AvoidCounters,
    /// Goals refused because the match is over.
    pub refused_match_over: u64,
    /// Goals stopped by the end of the match.
    pub stopped_match_over: u64,
}

impl NavCounters {
    /// Every counter as `(name, value)` for `/diagnostics` (one per outcome, by its name).
    pub fn pairs(&self) -> Vec<(&'static str, u64)> {
        let mut out = vec![
            ("odometry", self.odometry),
            ("odometry_rejected", self.odometry_rejected),
            ("goals", self.goals),
            ("goals_refused", self.refused),
        ];
        out.extend(Outcome::ALL.map(|o| (o.name(), self.outcomes[o.code() as usize])));
        out.extend([
            ("obstacle_stops", self.obstacle_stops),
            ("obstacles_known", self.obstacles_known),
            ("obstacles_rejected", self.obstacles_rejected),
            ("no_progress", self.no_progress),
            ("replans", self.replans),
            ("mark_failures", self.mark_failures),
            ("stale_replies", self.stale_replies),
            ("settle_timeouts", self.settle_timeouts),
            ("reapproaches", self.reapproaches),
            ("scans", self.avoid.scans),
            ("scan_points_known", self.avoid.scan_points_known),
            ("scan_points_kept", self.avoid.scan_points_kept),
            ("scan_stops", self.avoid.scan_stops),
            ("scan_holds", self.avoid.scan_holds),
            ("scan_lost", self.avoid.scan_lost),
            ("refused_match_over", self.refused_match_over),
            ("stopped_match_over", self.stopped_match_over),
        ]);
        out
    }
}

#[cfg(test)]
mod interface_constants {
    use super::*;

    #[test]
    fn every_outcome_and_phase_of_the_action_has_its_variant() {
        let codes: Vec<u8> = Outcome::ALL.iter().map(|o| o.code()).collect();
        let want: Vec<u8> = result::ALL.iter().map(|(_, v)| *v).collect();
        assert_eq!(codes, want);
        let phases = [
            Phase::Planning,
            Phase::Turning,
            Phase::Driving,
            Phase::Stopped,
        ];
        let codes: Vec<u8> = phases.iter().map(|p| *p as u8).collect();
        let want: Vec<u8> = feedback::ALL.iter().map(|(_, v)| *v).collect();
        assert_eq!(codes, want);
    }

    #[test]
    fn every_plan_path_error_code_maps_to_its_failure() {
        assert_eq!(PlanFailure::from_code(plan_path::OK), None);
        for (name, code) in plan_path::ALL.iter().filter(|(_, c)| *c != plan_path::OK) {
            let f = PlanFailure::from_code(*code);
            assert!(
                matches!(f, Some(f) if f != PlanFailure::Unavailable),
                "{name}: {f:?}"
            );
        }
        assert_eq!(PlanFailure::from_code(200), Some(PlanFailure::Unavailable));
    }
}
