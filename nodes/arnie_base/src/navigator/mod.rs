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

    /// The linear speed last commanded [m/s] (0 after a stop or a turn).
    pub fn commanded_speed(&self) -> f64 {
        self.commanded_v
    }

    /// Whether the LiDAR's gate held the last drive step (the zone blocked, or not clear
    /// for long enough).
    pub fn held(&self) -> bool {
        self.held
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

    /// Starts goal `id`. A goal with a non-finite value is refused ([`Outcome::Rejected`]),
    /// and so is any goal while there is no fresh odometry ([`Outcome::LinkLost`]); the
    /// running goal then goes on. Otherwise the running goal ends PREEMPTED and a path is
    /// asked for. Goals off the map or in an obstacle are refused by the planner's
    /// answer (see [`Navigator::on_plan`]).
    ///
    /// # Errors
    /// [`Refused`] with the reason.
    pub fn start(&mut self, id: u64, goal: Goal, now: f64) -> Result<Vec<Output>, Refused> {
        self.start_route(id, Vec::new(), goal, now)
    }

    /// Starts goal `id` through the poses `via` (passed in order, headings ignored) to
    /// `goal` (NavigateThroughPoses); the same checks and answers as [`Navigator::start`],
    /// the path asked for leg by leg ([`Output::PlanRoute`]). After a failure the re-plan
    /// goes through the poses not yet passed.
    ///
    /// # Errors
    /// [`Refused`] with the reason.
    pub fn start_route(
        &mut self,
        id: u64,
        via: Vec<(f64, f64)>,
        goal: Goal,
        now: f64,
    ) -> Result<Vec<Output>, Refused> {
        let finite = goal.x.is_finite()
            && goal.y.is_finite()
            && goal.heading.is_none_or(f64::is_finite)
            && via.iter().all(|p| p.0.is_finite() && p.1.is_finite());
        if !finite {
            self.counters.refused += 1;
            return Err(Refused {
                outcome: Outcome::Rejected,
                message: format!(
                    "goal ({}, {}{}) is not finite",
                    goal.x,
                    goal.y,
                    goal.heading
                        .map(|h| format!(", heading {h}"))
                        .unwrap_or_default()
                ) + &if via.is_empty() {
                    String::new()
                } else {
                    format!(" or a pose to pass {via:?} is not")
                },
            });
        }
        let pose = self.fresh_pose(now)?;
        let mut out = self.preempt();
        let request = self.request_id();
        self.counters.goals += 1;
        let plan = plan_output(request, (pose.x, pose.y), &via, (goal.x, goal.y));
        self.active = Some(Active {
            id,
            goal: Goal {
                heading: goal.heading.map(wrap_angle),
                ..goal
            },
            via,
            leg_ends: Vec::new(),
            given: false,
            state: State::Planning { request },
            failures: 0,
            plans: 1,
            driven_m: 0.0,
            last_feedback: None,
            reapproaches: 0,
        });
        out.push(plan);
        self.feedback(&mut out, now, true);
        Ok(out)
    }

    /// Starts goal `id` along a path the client gives (FollowPath): `points` in the map
    /// frame, driven as the planner's would be, ending at the last one with `heading` (if
    /// any). No plan is asked for; after a failure (obstacle, no progress) the base waits
    /// `replan_delay_s` and drives on along what is left of the same path, BLOCKED after
    /// `max_failures`.
    ///
    /// # Errors
    /// [`Refused`]: no points, a point or the heading not finite ([`Outcome::Rejected`]),
    /// no fresh odometry ([`Outcome::LinkLost`]).
    pub fn start_path(
        &mut self,
        id: u64,
        points: Vec<(f64, f64)>,
        heading: Option<f64>,
        now: f64,
    ) -> Result<Vec<Output>, Refused> {
        let Some(&last) = points.last() else {
            self.counters.refused += 1;
            return Err(Refused {
                outcome: Outcome::Rejected,
                message: "the path has no poses".into(),
            });
        };
        if let Some(bad) = points
            .iter()
            .position(|p| !(p.0.is_finite() && p.1.is_finite()))
        {
            self.counters.refused += 1;
            return Err(Refused {
                outcome: Outcome::Rejected,
                message: format!("pose {bad} of the path {:?} is not finite", points[bad]),
            });
        }
        if heading.is_some_and(|h| !h.is_finite()) {
            self.counters.refused += 1;
            return Err(Refused {
                outcome: Outcome::Rejected,
                message: "the path's final heading is not finite".into(),
            });
        }
        self.fresh_pose(now)?;
        let mut out = self.preempt();
        self.counters.goals += 1;
        let heading = heading.map(wrap_angle);
        self.active = Some(Active {
            id,
            goal: Goal {
                x: last.0,
                y: last.1,
                heading,
            },
            via: Vec::new(),
            leg_ends: Vec::new(),
            given: true,
            state: State::Following {
                follower: Follower::new(points, heading),
                best_left_m: f64::INFINITY,
                best_turn_rad: f64::INFINITY,
                progress_at: now,
            },
            failures: 0,
            plans: 1,
            driven_m: 0.0,
            last_feedback: None,
            reapproaches: 0,
        });
        // The first step comes with the next odometry packet: a path already done ends
        // then, after the caller has made this goal the running one.
        self.feedback(&mut out, now, true);
        Ok(out)
    }

    /// The last odometry pose if it is fresh.
    fn fresh_pose(&mut self, now: f64) -> Result<Pose2, Refused> {
        if let Some(why) = &self.match_over {
            self.counters.refused += 1;
            self.counters.refused_match_over += 1;
            return Err(Refused {
                outcome: Outcome::Rejected,
                message: format!("the match is over ({why}): no more moves"),
            });
        }
        if self.cfg.scan_avoidance && !self.avoid.fresh(&self.cfg, now) {
            self.counters.refused += 1;
            let message = match self.avoid.scan_at() {
                None => "no scan from the LiDAR yet (scan_avoidance needs one)".to_string(),
                Some(t) => format!(
                    "no scan from the LiDAR for {:.2} s (scan_timeout_s {})",
                    now - t,
                    self.cfg.scan_timeout_s
                ),
            };
            return Err(Refused {
                outcome: Outcome::LinkLost,
                message,
            });
        }
        let Some(pose) = self.pose.filter(|_| self.odometry_fresh(now)) else {
            self.counters.refused += 1;
            let message = match self.odom_at {
                None => "no odometry from the motor board yet".to_string(),
                Some(t) => format!(
                    "no odometry from the motor board for {:.2} s (link_timeout_s {})",
                    now - t,
                    self.cfg.link_timeout_s
                ),
            };
            return Err(Refused {
                outcome: Outcome::LinkLost,
                message,
            });
        };
        Ok(pose)
    }

    /// Ends the running goal PREEMPTED (a newer one starts).
    fn preempt(&mut self) -> Vec<Output> {
        let mut out = Vec::new();
        if self.active.is_some() {
            self.finish(
                &mut out,
                Outcome::Preempted,
                "replaced by a newer goal".into(),
            );
        }
        out
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

    /// A LiDAR scan's points (map frame, [`crate::avoid::scan_points`]) at `now`: kept for
    /// the gate; a drive in progress is checked at once (no wait for the next odometry).
    pub fn on_scan(&mut self, points: &[(f64, f64)], now: f64) -> Vec<Output> {
        let mut out = Vec::new();
        let Some(pose) = self.pose else {
            self.avoid
                .on_scan(&[], Pose2::default(), None, &self.cfg, now);
            self.counters.avoid = self.avoid.counters().clone();
            return out;
        };
        self.avoid
            .on_scan(points, pose, self.known.as_ref(), &self.cfg, now);
        if self.cfg.scan_avoidance && self.commanded_v != 0.0 {
            let left = match self.active.as_ref().map(|a| &a.state) {
                Some(State::Following { follower, .. }) => Some(follower.remaining_m(&pose)),
                _ => None,
            };
            if let Some(left) = left {
                let gate = self
                    .avoid
                    .gate(&self.cfg, &pose, self.commanded_v, left, now);
                self.gated(&mut out, gate, now);
            }
        }
        self.counters.avoid = self.avoid.counters().clone();
        out
    }

    /// The match is over (`Some(why)`: stop, end the running goal PREEMPTED, refuse goals)
    /// or a new one begins (`None`: goals are taken again).
    pub fn set_match_over(&mut self, over: Option<String>, now: f64) -> Vec<Output> {
        let _ = now;
        let mut out = Vec::new();
        if let Some(why) = &over {
            if self.match_over.is_none() {
                out.push(Output::Stop);
                self.commanded_v = 0.0;
                if self.active.is_some() {
                    self.counters.stopped_match_over += 1;
                    self.finish(
                        &mut out,
                        Outcome::Preempted,
                        format!("preempted: the match is over ({why}): motors stopped"),
                    );
                }
            }
        }
        self.match_over = over;
        out
    }

    /// Whether the match is over (goals refused).
    pub fn match_over(&self) -> Option<&str> {
        self.match_over.as_deref()
    }

    /// The gate's verdict applied: a new episode is a failure with a mark; holding stops
    /// a robot still moving.
    fn gated(&mut self, out: &mut Vec<Output>, gate: Gate, now: f64) -> bool {
        self.held = gate != Gate::Clear;
        match gate {
            Gate::Clear => false,
            Gate::Blocked {
                points,
                centre,
                new: true,
            } => {
                let Some(pose) = self.pose else { return true };
                let r = self.cfg.obstacle_radius_m;
                let ray = pose.bearing_to(centre);
                let reach = (pose.distance_to(centre) + r).max(r + self.cfg.robot_radius_m + 0.05);
                let at = Pose2::new(pose.x, pose.y, ray).ahead(reach, 0.0);
                self.commanded_v = 0.0;
                self.fail_with_ttl(
                    out,
                    now,
                    format!(
                        "opponent in the zone ahead: {points} scan points around ({:.2}, {:.2})",
                        centre.0, centre.1
                    ),
                    Some(at),
                    self.cfg.scan_mark_ttl_s,
                );
                true
            }
            Gate::Blocked { .. } | Gate::Holding { .. } => {
                let (v, w) = self.speed;
                if self.commanded_v != 0.0
                    || v.abs() > SETTLED_SPEED_MPS
                    || w.abs() > SETTLED_TURN_RPS
                {
                    out.push(Output::Stop);
                    self.commanded_v = 0.0;
                }
                true
            }
        }
    }

    /// The map's own obstacles: sensor hits near them are not marked.
    pub fn set_known_obstacles(&mut self, known: Option<KnownObstacles>) {
        self.known = known;
    }

    /// Time passes: the link watchdog, the progress check, re-planning after a wait.
    pub fn tick(&mut self, now: f64) -> Vec<Output> {
        let mut out = Vec::new();
        if self.active.is_none() {
            return out;
        }
        if !self.odometry_fresh(now) {
            out.push(Output::Stop);
            let since = self
                .odom_at
                .map(|t| format!("{:.2} s", now - t))
                .unwrap_or_else(|| "ever".into());
            self.finish(&mut out, Outcome::LinkLost, format!("no odometry from the motor board for {since} (link_timeout_s {}): motors stopped", self.cfg.link_timeout_s));
            return out;
        }
        if self.cfg.scan_avoidance && !self.avoid.fresh(&self.cfg, now) {
            out.push(Output::Stop);
            self.commanded_v = 0.0;
            self.avoid.lost();
            self.counters.avoid = self.avoid.counters().clone();
            let since = self
                .avoid
                .scan_at()
                .map(|t| format!("{:.2} s", now - t))
                .unwrap_or_else(|| "ever".into());
            self.finish(
                &mut out,
                Outcome::LinkLost,
                format!(
                    "no scan from the LiDAR for {since} (scan_timeout_s {}): motors stopped",
                    self.cfg.scan_timeout_s
                ),
            );
            return out;
        }
        let pose = self.pose.unwrap_or_default();
        let replan = match self.active.as_ref().map(|a| &a.state) {
            Some(State::Waiting {
                until, mark: None, ..
            }) => now >= *until,
            _ => false,
        };
        if replan {
            let request = self.request_id();
            let a = self.active.as_mut().expect("checked above");
            if let State::Waiting {
                resume: Some(points),
                ..
            } = &a.state
            {
                // A given path: drive on along what is left of it.
                let mut points = points.clone();
                if points.is_empty() {
                    points.push((a.goal.x, a.goal.y));
                }
                a.state = State::Following {
                    follower: Follower::new(points, a.goal.heading),
                    best_left_m: f64::INFINITY,
                    best_turn_rad: f64::INFINITY,
                    progress_at: now,
                };
                self.control(&mut out, now);
                return out;
            }
            a.state = State::Planning { request };
            a.plans += 1;
            self.counters.replans += 1;
            out.push(plan_output(
                request,
                (pose.x, pose.y),
                &a.via,
                (a.goal.x, a.goal.y),
            ));
        } else {
            self.check_progress(&mut out, now);
        }
        self.feedback(&mut out, now, false);
        out
    }

    fn check_progress(&mut self, out: &mut Vec<Output>, now: f64) {
        let cfg = &self.cfg;
        let Some(pose) = self.pose else { return };
        let Some(Active {
            state:
                State::Following {
                    follower,
                    best_left_m,
                    best_turn_rad,
                    progress_at,
                },
            ..
        }) = self.active.as_mut()
        else {
            return;
        };
        let left = follower.remaining_m(&pose);
        let turn = follower.aim_error(&pose).abs();
        if left < *best_left_m - cfg.progress_min_m || turn < *best_turn_rad - 0.05 {
            *best_left_m = best_left_m.min(left);
            *best_turn_rad = best_turn_rad.min(turn);
            *progress_at = now;
            return;
        }
        if now - *progress_at > cfg.progress_timeout_s {
            let (t, r) = (
                progress_at.to_owned(),
                cfg.robot_radius_m + cfg.obstacle_radius_m + 0.05,
            );
            self.counters.no_progress += 1;
            let at = pose.ahead(r, 0.0);
            self.fail(
                out,
                now,
                format!(
                    "no progress for {:.2} s (at {:.2} m from the goal)",
                    now - t,
                    left
                ),
                Some(at),
            );
        }
    }

    /// The follower's step from the current pose, or the end of the goal.
    fn control(&mut self, out: &mut Vec<Output>, now: f64) {
        if self.active.is_none() {
            return;
        }
        if !self.odometry_fresh(now) {
            self.tick_into(out, now);
            return;
        }
        let Some(pose) = self.pose else { return };
        let mut cfg = self.cfg.clone();
        if self.active.as_ref().is_some_and(|a| a.reapproaches > 0) {
            cfg.max_speed_mps = cfg.max_speed_mps.min(REAPPROACH_SPEED_MPS);
            cfg.min_speed_mps = cfg.min_speed_mps.min(cfg.max_speed_mps);
        }
        let step = match self.active.as_mut().map(|a| &mut a.state) {
            Some(State::Following { follower, .. }) => follower.step(&pose, &cfg),
            Some(State::Settling { since }) => {
                let since = *since;
                self.settle(out, now, since);
                return;
            }
            _ => {
                self.tick_into(out, now);
                return;
            }
        };
        match step {
            Step::Arrived => {
                if let Some(a) = self.active.as_mut() {
                    a.state = State::Settling { since: now };
                }
                self.settle(out, now, now);
                return;
            }
            Step::Turn { w, .. } => {
                self.commanded_v = 0.0;
                out.push(Output::Motion { v: 0.0, w });
            }
            Step::Drive { v, w } => {
                let mut held = false;
                if self.cfg.scan_avoidance {
                    let left = match self.active.as_ref().map(|a| &a.state) {
                        Some(State::Following { follower, .. }) => follower.remaining_m(&pose),
                        _ => 0.0,
                    };
                    let gate = self.avoid.gate(&self.cfg, &pose, v, left, now);
                    held = self.gated(out, gate, now);
                    self.counters.avoid = self.avoid.counters().clone();
                    if held
                        && !matches!(
                            self.active.as_ref().map(|a| &a.state),
                            Some(State::Following { .. })
                        )
                    {
                        // A new episode: stopped, marked, waiting to re-plan.
                        return;
                    }
                }
                if !held {
                    self.commanded_v = v;
                    out.push(Output::Motion { v, w });
                }
            }
        }
        self.check_progress(out, now);
        self.feedback(out, now, false);
    }

    /// At the goal: REACHED once the board reports it is still (or after
    /// `settle_timeout_s`), else `Stop` again.
    fn settle(&mut self, out: &mut Vec<Output>, now: f64, since: f64) {
        let (v, w) = self.speed;
        let pose = self.pose.unwrap_or_default();
        let off = self
            .active
            .as_ref()
            .map_or(0.0, |a| pose.distance_to((a.goal.x, a.goal.y)));
        if v.abs() <= SETTLED_SPEED_MPS && w.abs() <= SETTLED_TURN_RPS {
            let tolerance = self.cfg.goal_tolerance_m;
            let again = self
                .active
                .as_ref()
                .is_some_and(|a| off > tolerance && a.reapproaches < MAX_REAPPROACHES);
            if let (true, Some(a)) = (again, self.active.as_mut()) {
                a.reapproaches += 1;
                a.via.clear();
                a.leg_ends.clear();
                a.state = State::Following {
                    follower: Follower::new(vec![(a.goal.x, a.goal.y)], a.goal.heading),
                    best_left_m: f64::INFINITY,
                    best_turn_rad: f64::INFINITY,
                    progress_at: now,
                };
                self.counters.reapproaches += 1;
                self.feedback(out, now, true);
                return;
            }
            let tries = self.active.as_ref().map_or(0, |a| a.reapproaches);
            out.push(Output::Stop);
            self.finish(
                out,
                Outcome::Reached,
                if off <= tolerance {
                    format!("reached: stopped {off:.3} m from the goal")
                } else {
                    format!("reached: stopped {off:.3} m from the goal, outside goal_tolerance_m {tolerance} after {tries} re-approaches")
                },
            );
        } else if now - since >= self.cfg.settle_timeout_s {
            self.counters.settle_timeouts += 1;
            out.push(Output::Stop);
            self.finish(
                out,
                Outcome::Reached,
                format!(
                    "reached, but the board still reports {v:.3} m/s, {w:.3} rad/s {:.2} s after Stop (settle_timeout_s {}); {off:.3} m from the goal",
                    now - since,
                    self.cfg.settle_timeout_s
                ),
            );
        } else {
            out.push(Output::Stop);
            self.feedback(out, now, false);
        }
    }

    fn tick_into(&mut self, out: &mut Vec<Output>, now: f64) {
        let more = self.tick(now);
        out.extend(more);
    }

    /// One more failure: stop, mark `mark_at` (if any), wait and re-plan; BLOCKED after
    /// `max_failures`.
    fn fail(&mut self, out: &mut Vec<Output>, now: f64, why: String, mark_at: Option<(f64, f64)>) {
        let ttl = self.cfg.mark_ttl_s;
        self.fail_with_ttl(out, now, why, mark_at, ttl);
    }

    /// [`Navigator::fail`] with the mark's time to live.
    fn fail_with_ttl(
        &mut self,
        out: &mut Vec<Output>,
        now: f64,
        why: String,
        mark_at: Option<(f64, f64)>,
        ttl_s: f64,
    ) {
        self.commanded_v = 0.0;
        let Some(a) = self.active.as_mut() else {
            return;
        };
        a.failures += 1;
        out.push(Output::Stop);
        if a.failures > self.cfg.max_failures {
            let n = a.failures;
            self.finish(
                out,
                Outcome::Blocked,
                format!(
                    "blocked {n} times (max_failures {}); last: {why}",
                    self.cfg.max_failures
                ),
            );
            return;
        }
        let resume = a.passed_on();
        let mark = mark_at.map(|c| {
            let id = self.next_request;
            self.next_request += 1;
            out.push(Output::Mark {
                id,
                centers: vec![c],
                radius_m: self.cfg.obstacle_radius_m,
                ttl_s,
            });
            id
        });
        if let Some(a) = self.active.as_mut() {
            a.state = State::Waiting {
                until: now + self.cfg.replan_delay_s,
                mark,
                last_failure: why,
                resume,
            };
        }
        self.feedback(out, now, true);
    }

    fn feedback(&mut self, out: &mut Vec<Output>, now: f64, force: bool) {
        let pose = self.pose.unwrap_or_default();
        let period = self.cfg.feedback_period_s;
        let Some(a) = self.active.as_mut() else {
            return;
        };
        if !force && matches!(a.last_feedback, Some(t) if now - t < period) {
            return;
        }
        a.last_feedback = Some(now);
        let (phase, left) = match &a.state {
            State::Planning { .. } => (Phase::Planning, pose.distance_to((a.goal.x, a.goal.y))),
            State::Waiting { .. } => (Phase::Stopped, pose.distance_to((a.goal.x, a.goal.y))),
            State::Settling { .. } => (Phase::Driving, pose.distance_to((a.goal.x, a.goal.y))),
            State::Following { follower, .. } => {
                let phase = if follower_turning(follower, &pose, &self.cfg) {
                    Phase::Turning
                } else {
                    Phase::Driving
                };
                (phase, follower.remaining_m(&pose))
            }
        };
        let poses_left = a.via.len() - a.passed() + 1;
        out.push(Output::Feedback {
            goal: a.id,
            feedback: Feedback {
                phase,
                pose,
                distance_left_m: left,
                replans: a.plans.saturating_sub(1),
                poses_left,
            },
        });
    }

    fn finish(&mut self, out: &mut Vec<Output>, outcome: Outcome, message: String) {
        self.finish_planned(out, outcome, message, None);
    }

    fn finish_planned(
        &mut self,
        out: &mut Vec<Output>,
        outcome: Outcome,
        message: String,
        plan_failure: Option<PlanFailure>,
    ) {
        let Some(a) = self.active.take() else { return };
        self.commanded_v = 0.0;
        self.counters.outcomes[outcome.code() as usize] += 1;
        let message = match (&a.state, outcome) {
            (
                State::Waiting { last_failure, .. },
                Outcome::LinkLost | Outcome::Cancelled | Outcome::Preempted,
            ) => format!("{message} (while waiting after: {last_failure})"),
            _ => message,
        };
        out.push(Output::Done {
            goal: a.id,
            finish: Finish {
                outcome,
                pose: self.pose.unwrap_or_default(),
                replans: a.plans.saturating_sub(1),
                driven_m: a.driven_m,
                message,
                plan_failure,
            },
        });
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
