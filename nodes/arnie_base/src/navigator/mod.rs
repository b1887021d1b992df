//! [`Navigator`]: the base's state machine. Every input comes in as a method call with
//! the time `now` [s, any monotonic clock]; every effect goes out as [`Output`]s that the
//! glue carries out (packets to the board, planner and map requests, action feedback and
//! results). Nothing here reads a clock or does I/O, so tests drive it to the tick.
//!
//! ```text
//!  goal ──► Planning ──path──► Following ──arrived──► Settling ──stopped──► REACHED
//!              │                   │ obstacle ahead / no progress
//!              │no path            ▼
//!              ▼               Stop + mark ──► Waiting (replan_delay_s, mark answered)
//!      REJECTED / NO_PATH          ▲   │ > max_failures: BLOCKED
//!                                  └───┘ re-plan (a failed re-plan is one more failure)
//!  any state: no odometry for link_timeout_s → Stop, LINK_LOST; cancel → Stop, CANCELLED;
//!  a newer goal → PREEMPTED.
//! ```
//!
//! With `scan_avoidance`, every drive step goes through the LiDAR's gate ([`crate::avoid`]):
//! the opponent in the zone ahead → Stop, one failure, its mark, a re-plan (as an obstacle
//! report); then the robot only turns until the zone has been clear for
//! `scan_clear_hold_s`. No scan for `scan_timeout_s` → Stop, LINK_LOST (as the board's
//! link). The end of the match ([`Navigator::set_match_over`]) stops the robot, ends the
//! goal PREEMPTED and refuses goals until a new match.
//!
//! Settling: at the goal the base sends `Stop` and repeats it with every odometry sample
//! until the board reports itself still (|v| ≤ [`SETTLED_SPEED_MPS`], |w| ≤
//! [`SETTLED_TURN_RPS`]); only then is the goal REACHED, so whoever acts next (an
//! actuator that takes an element) acts where the robot stands, not where it was still
//! rolling. A lost `Stop` (a corrupted serial frame) is repeated 20 ms later instead of
//! leaving the robot coasting until the board's watchdog. After `settle_timeout_s` the
//! goal is REACHED anyway, with the motion left in the message and `settle_timeouts`
//! counted. Stopped farther than `goal_tolerance_m` from the goal (it rolled past), the
//! base drives back at [`REAPPROACH_SPEED_MPS`] at most, up to [`MAX_REAPPROACHES`] times
//! (`reapproaches` counted), then reports REACHED with the distance in the message.
mod goals;
mod progress;
mod scan;
mod types;
pub use types::*;

use crate::avoid::{Avoid, Gate};
use crate::config::BaseConfig;
use crate::follower::{Follower, Step};
use crate::geom::{wrap_angle, Pose2};
use arnie_constants::outcome::PlanCode;

/// The board counts as stopped at or below this linear speed [m/s] (its odometry
/// reports whole mm/s).
pub const SETTLED_SPEED_MPS: f64 = 0.005;
/// ... and at or below this turn rate [rad/s] (whole mrad/s in the packet).
pub const SETTLED_TURN_RPS: f64 = 0.02;
/// Stopped farther than `goal_tolerance_m` from the goal (it rolled past: a lost
/// `DriveSpeed` left the board at an older, faster speed), the base drives back at most
/// this many times before it reports REACHED with the distance left.
pub const MAX_REAPPROACHES: u32 = 2;
/// Top speed of a re-approach [m/s].
pub const REAPPROACH_SPEED_MPS: f64 = 0.1;

#[derive(Clone, Debug)]
enum State {
    Planning {
        request: u64,
    },
    Following {
        follower: Follower,
        best_left_m: f64,
        best_turn_rad: f64,
        progress_at: f64,
    },
    Waiting {
        until: f64,
        mark: Option<u64>,
        last_failure: String,
        /// A given path (FollowPath): the points left to drive, resumed after the wait
        /// instead of a new plan.
        resume: Option<Vec<(f64, f64)>>,
    },
    /// At the goal, `Stop` sent (and repeated) until the board reports it is still.
    Settling {
        since: f64,
    },
}

#[derive(Clone, Debug)]
struct Active {
    id: u64,
    goal: Goal,
    /// Poses to pass before the goal, not yet passed (NavigateThroughPoses).
    via: Vec<(f64, f64)>,
    /// While following a planned route: the index in the follower's points of each pose
    /// of `via`.
    leg_ends: Vec<usize>,
    /// A path given by the client (FollowPath): never planned, resumed after a failure.
    given: bool,
    state: State,
    failures: u32,
    /// Plans asked for (the first one included).
    plans: u32,
    driven_m: f64,
    last_feedback: Option<f64>,
    /// Re-approaches after stopping outside the goal tolerance (driven at
    /// [`REAPPROACH_SPEED_MPS`] at most).
    reapproaches: u32,
}

/// The state machine (see the module doc).
#[derive(Clone, Debug)]
pub struct Navigator {
    cfg: BaseConfig,
    pose: Option<Pose2>,
    /// The last odometry's linear speed [m/s] and turn rate [rad/s].
    speed: (f64, f64),
    /// Time of the last odometry.
    odom_at: Option<f64>,
    active: Option<Active>,
    next_request: u64,
    counters: NavCounters,
    known: Option<KnownObstacles>,
    /// The LiDAR's gate.
    avoid: Avoid,
    /// The last linear speed commanded [m/s] (0 after a Stop).
    commanded_v: f64,
    /// Why goals are refused: the match is over.
    match_over: Option<String>,
    /// The gate held the last drive step.
    held: bool,
}

impl Navigator {
    /// A navigator with `cfg` (checked by the caller with [`BaseConfig::check`]).
    pub fn new(cfg: BaseConfig) -> Self {
        Navigator {
            cfg,
            pose: None,
            speed: (0.0, 0.0),
            odom_at: None,
            active: None,
            next_request: 1,
            counters: NavCounters::default(),
            known: None,
            avoid: Avoid::default(),
            commanded_v: 0.0,
            match_over: None,
            held: false,
        }
    }

    /// The settings.
    pub fn config(&self) -> &BaseConfig {
        &self.cfg
    }

    /// New settings (applied from the next step on).
    pub fn set_config(&mut self, cfg: BaseConfig) {
        self.cfg = cfg;
    }

    /// The last odometry pose.
    pub fn pose(&self) -> Option<Pose2> {
        self.pose
    }

    /// The running goal's id.
    pub fn active_goal(&self) -> Option<u64> {
        self.active.as_ref().map(|a| a.id)
    }

    /// The counters.
    pub fn counters(&self) -> &NavCounters {
        &self.counters
    }

    fn request_id(&mut self) -> u64 {
        let id = self.next_request;
        self.next_request += 1;
        id
    }

    fn odometry_fresh(&self, now: f64) -> bool {
        matches!(self.odom_at, Some(t) if now - t <= self.cfg.link_timeout_s)
    }

    /// The last odometry's linear speed [m/s] and turn rate [rad/s].
    pub fn speed(&self) -> (f64, f64) {
        self.speed
    }

    /// Whether the last odometry is within `link_timeout_s` of `now`.
    pub fn fresh(&self, now: f64) -> bool {
        self.odometry_fresh(now)
    }

    /// Cancels the running goal: Stop, CANCELLED.
    pub fn cancel(&mut self, now: f64) -> Vec<Output> {
        let _ = now;
        let mut out = Vec::new();
        if self.active.is_some() {
            out.push(Output::Stop);
            self.finish(&mut out, Outcome::Cancelled, "cancelled".into());
        }
        out
    }

    /// The planner's answer to request `id`.
    pub fn on_plan(&mut self, id: u64, reply: PlanReply, now: f64) -> Vec<Output> {
        let mut out = Vec::new();
        let Some(a) = self.active.as_mut() else {
            self.counters.stale_replies += 1;
            return out;
        };
        if !matches!(a.state, State::Planning { request } if request == id) {
            self.counters.stale_replies += 1;
            return out;
        }
        let first = a.plans == 1;
        let legs = match reply {
            PlanReply::Path(p) => Ok(vec![p]),
            PlanReply::Legs(legs) => Ok(legs),
            PlanReply::Failed(why, message) => Err((why, message)),
        };
        match legs {
            Ok(legs) => {
                // Each leg runs between cell centres: drop its start cell's, end exactly
                // at its pose (the goal for the last).
                let ends: Vec<(f64, f64)> = a
                    .via
                    .iter()
                    .copied()
                    .chain([(a.goal.x, a.goal.y)])
                    .collect();
                let mut points = Vec::new();
                a.leg_ends.clear();
                for (i, end) in ends.iter().enumerate() {
                    let mut leg = legs.get(i).cloned().unwrap_or_default();
                    if leg.len() >= 2 {
                        leg.remove(0);
                    }
                    match leg.last_mut() {
                        Some(last) => *last = *end,
                        None => leg.push(*end),
                    }
                    points.extend(leg);
                    if i + 1 < ends.len() {
                        a.leg_ends.push(points.len() - 1);
                    }
                }
                a.state = State::Following {
                    follower: Follower::new(points, a.goal.heading),
                    best_left_m: f64::INFINITY,
                    best_turn_rad: f64::INFINITY,
                    progress_at: now,
                };
                self.control(&mut out, now);
            }
            Err((why, message)) => {
                let message = if message.is_empty() {
                    format!("{why:?}")
                } else {
                    message
                };
                if first {
                    let outcome = match why {
                        PlanFailure::Planner(
                            PlanCode::GoalOutside
                            | PlanCode::GoalBlocked
                            | PlanCode::InvalidRequest,
                        ) => Outcome::Rejected,
                        _ => Outcome::NoPath,
                    };
                    self.finish_planned(
                        &mut out,
                        outcome,
                        format!("planner: {message}"),
                        Some(why),
                    );
                } else {
                    self.fail(&mut out, now, format!("re-plan failed: {message}"), None);
                }
            }
        }
        out
    }

    /// The planner's answer to mark request `id` (`ok` false: refused or no answer).
    pub fn on_marked(&mut self, id: u64, ok: bool, now: f64) -> Vec<Output> {
        if !ok {
            self.counters.mark_failures += 1;
        }
        if let Some(Active {
            state: State::Waiting { mark, .. },
            ..
        }) = self.active.as_mut()
        {
            if *mark == Some(id) {
                *mark = None;
            }
        }
        self.tick(now)
    }

    /// An odometry sample received at `now`: the pose (map frame), the linear speed `v`
    /// [m/s] and turn rate `w` [rad/s] the board reports; the control step.
    pub fn on_odometry(&mut self, pose: Pose2, v: f64, w: f64, now: f64) -> Vec<Output> {
        let mut out = Vec::new();
        if !(pose.is_finite() && v.is_finite() && w.is_finite()) {
            self.counters.odometry_rejected += 1;
            return out;
        }
        self.counters.odometry += 1;
        if let (Some(prev), Some(a)) = (self.pose, self.active.as_mut()) {
            a.driven_m += prev.distance_to((pose.x, pose.y));
        }
        self.pose = Some(pose);
        self.speed = (v, w);
        self.odom_at = Some(now);
        self.control(&mut out, now);
        out
    }

    /// The board reports an obstacle: `distance_m` from the robot's EDGE along a sensor
    /// ray at `bearing_rad` from its heading, hitting the world point `hit` (map frame).
    /// Hits on the known map (walls, fixed obstacles: [`KnownObstacles`]) are ignored.
    /// Only while driving, only ahead (within `obstacle_cone_rad`) and closer than
    /// `obstacle_stop_distance_m` does it stop the robot; the mark's disc is centred
    /// `obstacle_radius_m` behind the hit point along the ray.
    pub fn on_obstacle(
        &mut self,
        distance_m: f64,
        bearing_rad: f64,
        hit: (f64, f64),
        now: f64,
    ) -> Vec<Output> {
        let mut out = Vec::new();
        let (Some(pose), Some(a)) = (self.pose, self.active.as_ref()) else {
            return out;
        };
        if !(distance_m.is_finite()
            && bearing_rad.is_finite()
            && hit.0.is_finite()
            && hit.1.is_finite())
        {
            self.counters.obstacles_rejected += 1;
            return out;
        }
        if self
            .known
            .as_ref()
            .is_some_and(|k| k.near(hit, self.cfg.known_obstacle_margin_m))
        {
            self.counters.obstacles_known += 1;
            return out;
        }
        let driving = matches!(&a.state, State::Following { follower, .. } if !follower_turning(follower, &pose, &self.cfg));
        if !driving
            || distance_m > self.cfg.obstacle_stop_distance_m
            || wrap_angle(bearing_rad).abs() > self.cfg.obstacle_cone_rad
        {
            return out;
        }
        self.counters.obstacle_stops += 1;
        let r = self.cfg.obstacle_radius_m;
        let ray = pose.bearing_to(hit);
        let centre = (pose.distance_to(hit) + r).max(r + self.cfg.robot_radius_m + 0.05);
        let at = Pose2::new(pose.x, pose.y, ray).ahead(centre, 0.0);
        self.fail(
            &mut out,
            now,
            format!(
                "obstacle {distance_m:.2} m ahead at ({:.2}, {:.2})",
                hit.0, hit.1
            ),
            Some(at),
        );
        out
    }

    /// The map's own obstacles: sensor hits near them are not marked.
    pub fn set_known_obstacles(&mut self, known: Option<KnownObstacles>) {
        self.known = known;
    }
}

/// The request for a path from `start` through `via` to `goal`.
fn plan_output(id: u64, start: (f64, f64), via: &[(f64, f64)], goal: (f64, f64)) -> Output {
    if via.is_empty() {
        Output::Plan { id, start, goal }
    } else {
        let mut points = vec![start];
        points.extend_from_slice(via);
        points.push(goal);
        Output::PlanRoute { id, points }
    }
}

impl Active {
    /// Poses of `via` already passed (while following a planned route).
    fn passed(&self) -> usize {
        match &self.state {
            State::Following { follower, .. } => self
                .leg_ends
                .iter()
                .filter(|&&i| i < follower.next_index())
                .count(),
            State::Settling { .. } => self.via.len(),
            _ => 0,
        }
        .min(self.via.len())
    }

    /// Before the state leaves Following after a failure: forgets the poses already
    /// passed, and for a given path returns the points left to drive.
    fn passed_on(&mut self) -> Option<Vec<(f64, f64)>> {
        let passed = self.passed();
        self.via.drain(..passed);
        self.leg_ends.clear();
        if !self.given {
            return None;
        }
        match &self.state {
            State::Following { follower, .. } => {
                Some(follower.points()[follower.next_index()..].to_vec())
            }
            State::Waiting { resume, .. } => resume.clone(),
            _ => None,
        }
    }
}

/// Whether the follower turns in place from `pose` (without stepping it).
fn follower_turning(f: &Follower, pose: &Pose2, cfg: &BaseConfig) -> bool {
    let mut probe = f.clone();
    matches!(probe.step(pose, cfg), Step::Turn { .. })
}
