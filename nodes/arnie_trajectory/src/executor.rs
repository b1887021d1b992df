//! The move as a deterministic state machine: stepped once per period with the latest
//! measured arm position; no clock, no I/O inside.
//!
//! # Protocol (one call of [`Executor::step`] per period)
//! - Step 1 sends point 0 of the path (the measured start) without a check.
//! - Before sending point k > 0, the measured position must lie within
//!   ±`tracking_tolerance_mm` on EVERY axis of point k−1; then point k is sent.
//! - After the last point is sent, each step checks the arm against that last point:
//!   within tolerance → done. The arm may take up to `settle_periods` extra steps
//!   (answered with [`Action::Wait`]) to get there; after that, it is an obstacle.
//! - Obstacle on the forward path: the detecting step and the next
//!   `reverse_wait_periods − 1` steps answer [`Action::Wait`] (hold: nothing new is sent),
//!   i.e. `reverse_wait_periods` periods of holding; the step after that plans a
//!   min-jerk path from the measured position back to the ORIGINAL start and sends its
//!   point 0. With `reverse_wait_periods = 0` the reverse starts on the detecting step.
//! - The reverse path runs with the same checks and settle budget. Success →
//!   [`End::ReversedToStart`]; an obstacle on it → [`End::ReverseBlocked`] at once (the arm
//!   stays; help needed).
//! - `None` (or a non-finite position) as measurement means stale: nothing is sent
//!   ([`Action::Wait`], phase `WAITING`), no counter but the stale one advances; after
//!   `stale_abort_periods` such steps in a row → [`End::PositionStale`].
//! - [`Executor::cancel`] / [`Executor::preempt`] end the move at once. Once ended,
//!   every further step returns the same [`Action::Done`].
//!
//! # Detours ([`Executor::with_detours`])
//! With a [`DetourPlanning`] (the scene: workspace, fixed boxes, remembered obstructions):
//! - The move is planned with [`detour::plan_motion_with`] from the start (a probe
//!   through learned regions allowed when [`DetourPlanning::probe`]): nothing in the way
//!   gives exactly today's straight min-jerk path (phase `FORWARD`); otherwise the move
//!   is a detour from its first set-point (phase `DETOUR`, [`End::ReachedByDetour`]).
//! - The hold after a detection is unchanged. At its end, an arm that moved during the
//!   hold (more than half the tolerance) or caught up with the set-point sent last was
//!   not blocked but late (a slow link, a loaded machine): the move goes on along its path
//!   from the next set-point, nothing remembered ([`Executor::resumes`], at most
//!   [`MAX_RESUMES`] per move; then the stop counts). Otherwise the stop is **confirmed** when
//!   new arm positions arrived during the hold (the arm is seen standing still; see
//!   [`Executor::step_counted`]): a stream that merely stopped (a dead link within
//!   `position_timeout_ms`) looks the same as a blocked arm until then, and must not
//!   leave a phantom obstacle behind. Unconfirmed: nothing is remembered and the move goes
//!   back as without detours ([`TrajectoryError::PositionNotUpdated`] in the result).
//! - A confirmed stop is a [`Contact`]: where the arm stands, the set-point it could not
//!   follow, its approach speed (the fastest it moved over a few periods among the last
//!   [`SPEED_HISTORY`] positions) and the period. It teaches a small region just beyond
//!   the arm ([`Contact::region`], [`DetourPlanning::contact`]), reported once in
//!   [`Step::stopped`] (the node remembers it and names it back,
//!   [`Executor::name_learned`]) and added to the executor's own scene. A stop that
//!   teaches nothing (the set-points did not move, a NaN, the arm outside the workspace)
//!   sends the arm back (planning again would meet the same stop). Then, while fewer than
//!   [`DetourPlanning::max_replans`] detours were planned after a stop, a detour from the
//!   measured position to the target is planned (never a probe) and run (phase
//!   `DETOUR`); when none is found (no path, no approach, budget, motion blocked) or the
//!   replans are used up, the move goes back to its start as without detours, and
//!   [`End::ReversedToStart`] carries why.
//! - Every step the arm followed its path (a fresh position, the check passed, not
//!   holding) is evidence: the way from the previous position is reported in
//!   [`Step::passed`] and clears the executor's own scene
//!   ([`KnownObstruction::free_pass`]); the node clears its memory with it.
//! - The way back is planned around the scene too (the straight line may cross an
//!   obstruction learned on the way); if that fails, the straight min-jerk way back.
//!
//! # Lag model the tests use
//! A perfect arm reaches each set-point within one period: the position passed to step
//! j is the set-point sent by step j−1. Then every check passes, a path of N + 1 points
//! takes N + 2 steps and exactly N + 1 sends, and the last check sees the arm exactly on
//! the goal. A slower arm still passes as long as it stays within the tolerance.

mod learning;

use nalgebra::Point3;

use crate::config::TrajectoryConfig;
use crate::detour::{self, DetourConfig, PlanOptions, Scene};
use crate::error::TrajectoryError;
use crate::minjerk;
use crate::obstructions::{ContactModel, KnownObstruction, Region};
use crate::outcome::{Approached, End, Obstruction, Phase};

/// Holds per move that may turn out to be no obstacle ([`Executor::resumes`]).
pub const MAX_RESUMES: u32 = 10;
/// Fresh positions kept for the approach speed: a stop is confirmed some periods after the
/// arm was stopped (the set-points must first run the tolerance ahead, then the hold),
/// so the speed before it is looked for this far back.
const SPEED_HISTORY: usize = 96;
/// The approach speed is measured over this many periods (the arm's positions may arrive
/// less often than once a period).
const SPEED_SPAN: usize = 3;

/// What a move with detours plans in ([`Executor::with_detours`]).
#[derive(Debug, Clone, PartialEq)]
pub struct DetourPlanning {
    /// The workspace, the fixed boxes and the obstructions remembered when the goal came.
    pub scene: Scene,
    /// The planner's parameters.
    pub config: DetourConfig,
    /// How a stop becomes a region learned during the move.
    pub contact: ContactModel,
    /// Detours planned after stops, at most, in one move (0: never re-plan after a stop).
    pub max_replans: u32,
    /// The plan from the start may probe through learned regions when there is no way
    /// around them ([`PlanOptions::probe`]); re-plans after a stop never do.
    pub probe: bool,
}

/// A stop confirmed on the way to the target ([`Step::stopped`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Stop {
    /// Where the arm failed the check.
    pub obstruction: Obstruction,
    /// The region learned from it, or why nothing was (a stop while the set-points were
    /// not moving, a NaN, the arm outside the workspace).
    pub learned: Result<Region, TrajectoryError>,
}

/// What the node must do this period.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Publish this set-point [mm] on the arm command topic.
    Send(Point3<f64>),
    /// Publish nothing new (the arm holds / settles / the position is stale).
    Wait,
    /// The move is over; answer the goal with `End::outcome()` and `End`'s text.
    Done(End),
}

/// Data for the MoveTo feedback (all lengths in mm; the node converts to metres).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Feedback {
    /// Current phase.
    pub phase: Phase,
    /// The last set-point sent (the start before anything was sent) [mm].
    pub setpoint_mm: Point3<f64>,
    /// The last valid measured position [mm].
    pub measured_mm: Point3<f64>,
    /// Consecutive steps without a fresh position (0 = fresh this step).
    pub stale_periods: u32,
    /// Fraction of the current path sent, 0..=1.
    pub progress: f32,
    /// Index of the last point sent on the current path.
    pub index: u32,
    /// Points in the current path.
    pub count: u32,
    /// Largest per-axis error at the latest check [mm] (0 before any check).
    pub tracking_error_mm: f64,
}

/// One period's answer: what to do and what to report.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// What to do.
    pub action: Action,
    /// What to publish as feedback.
    pub feedback: Feedback,
    /// A stop confirmed on this step on the way to the target (reported once per stop):
    /// the node remembers [`Stop::learned`] (and tells the executor its id,
    /// [`Executor::name_learned`]).
    pub stopped: Option<Stop>,
    /// The arm moved from the first point to the second since the last step without
    /// being stopped: evidence that the way is free (the node clears its memory with it,
    /// [`crate::ObstructionMemory::free_pass`]; the executor has cleared its own scene).
    pub passed: Option<(Point3<f64>, Point3<f64>)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Leg {
    Forward,
    Detour,
    Reverse,
}

#[derive(Debug, Clone, PartialEq)]
enum Stage {
    /// `next` is the index of the next point to send.
    Running {
        next: usize,
    },
    /// All points sent; `waited` settle periods used.
    Settling {
        waited: u32,
    },
    /// Holding after a forward obstacle; `waited` hold periods done.
    Holding {
        waited: u32,
        obstacle: Obstruction,
    },
    Finished(End),
}

/// One MoveTo goal in progress. See the module doc for the rules.
#[derive(Debug, Clone)]
pub struct Executor {
    tolerance_mm: f64,
    sample_factor: u32,
    reverse_wait_periods: u32,
    settle_periods: u32,
    stale_abort_periods: u32,
    original_start: Point3<f64>,
    path: Vec<Point3<f64>>,
    leg: Leg,
    stage: Stage,
    /// The forward obstruction, kept for the final message.
    obstacle: Option<Obstruction>,
    last_sent: Point3<f64>,
    last_index: usize,
    measured: Point3<f64>,
    stale_periods: u32,
    tracking_error_mm: f64,
    sends: usize,
    goal: Point3<f64>,
    planning: Option<DetourPlanning>,
    /// Detours planned after a stop.
    replans: u32,
    /// Via-points of the detour being run.
    via_points: usize,
    /// Why the last attempt at a detour failed.
    no_detour: Option<TrajectoryError>,
    /// Set by the step that confirms an obstacle on the way there.
    just_stopped: Option<Stop>,
    /// The way the arm went this step without being stopped.
    just_passed: Option<(Point3<f64>, Point3<f64>)>,
    /// The last fresh positions (newest last), for the approach speed.
    recent: std::collections::VecDeque<Point3<f64>>,
    /// Period between two steps [ms].
    period_ms: u64,
    /// Index (in the scene) of the region learned at the last stop, until the node names it.
    unnamed: Option<usize>,
    /// Why the last stop taught nothing.
    contact_refused: Option<TrajectoryError>,
    /// Arm positions received so far (the caller's count, [`Executor::step_counted`]).
    samples: u64,
    /// `samples` when the hold began.
    hold_samples: u64,
    /// The forward obstruction before the one being held for (restored when the hold
    /// turns out to be no obstacle).
    obstacle_before_hold: Option<Obstruction>,
    /// Holds that turned out to be no obstacle (the arm moved or caught up).
    resumes: u32,
    /// The path being run enters learned regions from another side.
    approach: Option<Approached>,
    /// The path being run probes these learned regions.
    probed: Vec<u64>,
    /// Bumped each time the path is replaced (the node republishes the plan).
    generation: u32,
}

fn finite(p: &Point3<f64>) -> bool {
    p.iter().all(|v| v.is_finite())
}

/// A move's start and goal are finite.
fn check_inputs(start_mm: Point3<f64>, goal_mm: Point3<f64>) -> Result<(), TrajectoryError> {
    if !finite(&start_mm) {
        return Err(TrajectoryError::ArmPositionNotFinite {
            position_mm: start_mm,
        });
    }
    if !finite(&goal_mm) {
        return Err(TrajectoryError::TargetNotFinite { target_mm: goal_mm });
    }
    Ok(())
}

/// Largest per-axis absolute difference [mm].
pub fn max_axis_error_mm(a: &Point3<f64>, b: &Point3<f64>) -> f64 {
    (a - b).abs().max()
}

impl Executor {
    /// Plans the forward path from the measured `start_mm` to `goal_mm`.
    ///
    /// # Errors
    /// [`TrajectoryError::ArmPositionNotFinite`] / [`TrajectoryError::TargetNotFinite`] for
    /// NaN/∞ input, [`TrajectoryError::TooManySamples`] for an absurdly long path.
    /// (Workspace and staleness are checked by [`crate::goal::validate_goal`].)
    pub fn new(
        start_mm: Point3<f64>,
        goal_mm: Point3<f64>,
        config: &TrajectoryConfig,
    ) -> Result<Self, TrajectoryError> {
        check_inputs(start_mm, goal_mm)?;
        let path = minjerk::try_plan(start_mm, goal_mm, config.sample_factor())?;
        Ok(Self::build(start_mm, goal_mm, config, path))
    }

    /// Like [`new`](Self::new), with detours (see the module doc): the path is planned
    /// around the scene from the start.
    ///
    /// # Errors
    /// As [`new`](Self::new), and [`detour::plan_motion`]'s: a target inside a clearance
    /// or a box ([`TrajectoryError::TargetBlocked`]), no way around the remembered
    /// obstructions ([`TrajectoryError::NoDetour`],
    /// [`TrajectoryError::DetourBudgetExceeded`], [`TrajectoryError::DetourMotionBlocked`]).
    pub fn with_detours(
        start_mm: Point3<f64>,
        goal_mm: Point3<f64>,
        config: &TrajectoryConfig,
        planning: DetourPlanning,
    ) -> Result<Self, TrajectoryError> {
        check_inputs(start_mm, goal_mm)?;
        let motion = detour::plan_motion_with(
            &planning.scene,
            &planning.config,
            start_mm,
            goal_mm,
            config.sample_factor(),
            PlanOptions {
                probe: planning.probe,
            },
        )?;
        let straight = motion.path.is_straight();
        let via_points = motion.path.via_points().len();
        let mut exec = Self::build(start_mm, goal_mm, config, motion.samples);
        if !straight {
            exec.leg = Leg::Detour;
            exec.via_points = via_points;
        }
        exec.approach = motion.path.approach.map(|a| Approached {
            side: a.side,
            into: a.into,
        });
        exec.probed = motion.path.probe;
        exec.planning = Some(planning);
        Ok(exec)
    }

    fn build(
        start_mm: Point3<f64>,
        goal_mm: Point3<f64>,
        config: &TrajectoryConfig,
        path: Vec<Point3<f64>>,
    ) -> Self {
        Self {
            tolerance_mm: config.tracking_tolerance_mm(),
            sample_factor: config.sample_factor(),
            reverse_wait_periods: config.reverse_wait_periods(),
            settle_periods: config.settle_periods(),
            stale_abort_periods: config.stale_abort_periods(),
            original_start: start_mm,
            path,
            leg: Leg::Forward,
            stage: Stage::Running { next: 0 },
            obstacle: None,
            last_sent: start_mm,
            last_index: 0,
            measured: start_mm,
            stale_periods: 0,
            tracking_error_mm: 0.0,
            sends: 0,
            goal: goal_mm,
            planning: None,
            replans: 0,
            via_points: 0,
            no_detour: None,
            just_stopped: None,
            just_passed: None,
            recent: std::collections::VecDeque::with_capacity(SPEED_HISTORY),
            period_ms: config.period_ms(),
            unnamed: None,
            contact_refused: None,
            samples: 0,
            hold_samples: 0,
            obstacle_before_hold: None,
            resumes: 0,
            approach: None,
            probed: Vec::new(),
            generation: 0,
        }
    }

    /// Increases each time the path is replaced (a detour, the way back): the node
    /// republishes the plan when it changes.
    pub fn generation(&self) -> u32 {
        self.generation
    }

    /// The remembered obstructions the move plans around, with those learned during it
    /// (empty without detours).
    pub fn obstructions(&self) -> &[KnownObstruction] {
        self.planning
            .as_ref()
            .map_or(&[], |p| p.scene.obstructions.as_slice())
    }

    /// The current path (forward, or the way back once reversing) [mm].
    pub fn path(&self) -> &[Point3<f64>] {
        &self.path
    }

    /// Set-points sent so far, over both legs.
    pub fn sends(&self) -> usize {
        self.sends
    }

    /// The ending, once the move is over.
    pub fn end(&self) -> Option<&End> {
        match &self.stage {
            Stage::Finished(end) => Some(end),
            _ => None,
        }
    }

    /// True while the way back is being run (or held for).
    pub fn is_reversing(&self) -> bool {
        self.leg == Leg::Reverse
    }

    /// Holds after which the arm turned out not to be blocked (it moved or caught up during
    /// the hold) and the move went on along its path (detours on only).
    pub fn resumes(&self) -> u32 {
        self.resumes
    }

    /// Why the last attempt at a detour after a stop found none (the arm goes back).
    pub fn no_detour(&self) -> Option<&TrajectoryError> {
        self.no_detour.as_ref()
    }

    /// True while a detour is being run.
    pub fn is_detour(&self) -> bool {
        self.leg == Leg::Detour
    }

    /// One period. `measured_mm`: the latest arm position, or `None` if it is stale. Every
    /// `Some` counts as a newly received position ([`step_counted`](Self::step_counted)).
    pub fn step(&mut self, measured_mm: Option<Point3<f64>>) -> Step {
        let received = self.samples + u64::from(measured_mm.is_some());
        self.step_counted(measured_mm, received)
    }

    /// One period, with `received`: how many arm positions the caller has received so far
    /// (a count that never decreases). It tells a blocked arm (positions keep coming,
    /// unchanged) from a lost stream (the same old position, still within its timeout).
    pub fn step_counted(&mut self, measured_mm: Option<Point3<f64>>, received: u64) -> Step {
        self.samples = self.samples.max(received);
        let previous = self.recent.back().copied();
        let action = self.advance(measured_mm);
        self.evidence(previous, measured_mm);
        Step {
            action,
            feedback: self.feedback(),
            stopped: self.just_stopped.take(),
            passed: self.just_passed.take(),
        }
    }

    /// Ends the move at once with [`End::Cancelled`] (the node holds the measured
    /// position). No effect if already ended.
    pub fn cancel(&mut self) -> Step {
        self.finish_external(End::Cancelled)
    }

    /// Ends the move at once with [`End::Preempted`]. No effect if already ended.
    pub fn preempt(&mut self) -> Step {
        self.finish_external(End::Preempted)
    }

    fn finish_external(&mut self, end: End) -> Step {
        let end = match &self.stage {
            Stage::Finished(done) => done.clone(),
            _ => {
                self.stage = Stage::Finished(end.clone());
                end
            }
        };
        Step {
            action: Action::Done(end),
            feedback: self.feedback(),
            stopped: None,
            passed: None,
        }
    }

    /// Current feedback (also returned by every step).
    pub fn feedback(&self) -> Feedback {
        let phase = match (&self.stage, self.leg) {
            (Stage::Holding { .. }, _) => Phase::Waiting,
            (_, _) if self.stale_periods > 0 => Phase::Waiting,
            (_, Leg::Forward) => Phase::Forward,
            (_, Leg::Detour) => Phase::Detour,
            (_, Leg::Reverse) => Phase::Reversing,
        };
        let count = self.path.len();
        let sent = match &self.stage {
            Stage::Running { next } => *next,
            Stage::Holding { .. } => self.last_index + 1,
            Stage::Settling { .. } | Stage::Finished(_) => {
                if self.sends == 0 {
                    0
                } else {
                    self.last_index + 1
                }
            }
        };
        Feedback {
            phase,
            setpoint_mm: self.last_sent,
            measured_mm: self.measured,
            stale_periods: self.stale_periods,
            progress: if count == 0 {
                0.0
            } else {
                sent as f32 / count as f32
            },
            index: u32::try_from(self.last_index).unwrap_or(u32::MAX),
            count: u32::try_from(count).unwrap_or(u32::MAX),
            tracking_error_mm: self.tracking_error_mm,
        }
    }

    fn advance(&mut self, measured_mm: Option<Point3<f64>>) -> Action {
        if let Stage::Finished(end) = &self.stage {
            return Action::Done(end.clone());
        }
        let m = match measured_mm.filter(finite) {
            Some(m) => m,
            None => {
                self.stale_periods = self.stale_periods.saturating_add(1);
                if self.stale_periods >= self.stale_abort_periods {
                    return self.finish(End::PositionStale {
                        periods: self.stale_periods,
                    });
                }
                return Action::Wait;
            }
        };
        self.stale_periods = 0;
        self.measured = m;
        match self.stage.clone() {
            Stage::Finished(end) => Action::Done(end),
            Stage::Running { .. } => self.advance_running(m),
            Stage::Settling { waited } => {
                let last = self.path.len().saturating_sub(1);
                match self.check(last, m) {
                    Ok(()) => {
                        let end = match (self.leg, self.obstacle) {
                            (Leg::Reverse, Some(obstacle)) => End::ReversedToStart {
                                obstacle,
                                no_detour: self.no_detour.clone(),
                            },
                            (Leg::Detour, obstacle) => End::ReachedByDetour {
                                obstacle,
                                replans: self.replans,
                                via_points: self.via_points,
                                approach: self.approach.clone(),
                                probed: self.probed.clone(),
                            },
                            _ => End::Reached,
                        };
                        self.finish(end)
                    }
                    Err(_) if waited < self.settle_periods => {
                        self.stage = Stage::Settling { waited: waited + 1 };
                        Action::Wait
                    }
                    Err(ob) => self.obstructed(ob, m),
                }
            }
            Stage::Holding { waited, obstacle } => {
                if waited < self.reverse_wait_periods {
                    self.stage = Stage::Holding {
                        waited: waited + 1,
                        obstacle,
                    };
                    Action::Wait
                } else {
                    self.after_hold(obstacle, m)
                }
            }
        }
    }

    /// A `Running` step: check the arm against the previous point, then send the next.
    fn advance_running(&mut self, m: Point3<f64>) -> Action {
        let Stage::Running { next } = self.stage else {
            return Action::Wait;
        };
        if next > 0 {
            if let Err(ob) = self.check(next - 1, m) {
                return self.obstructed(ob, m);
            }
        }
        self.send(next)
    }

    /// Checks the arm against point `index` of the current path.
    fn check(&mut self, index: usize, m: Point3<f64>) -> Result<(), Obstruction> {
        let expected = self.path.get(index).copied().unwrap_or(self.last_sent);
        let err = max_axis_error_mm(&m, &expected);
        self.tracking_error_mm = err;
        if err <= self.tolerance_mm {
            Ok(())
        } else {
            Err(Obstruction {
                index,
                expected_mm: expected,
                measured_mm: m,
                error_mm: err,
            })
        }
    }

    fn send(&mut self, index: usize) -> Action {
        let Some(p) = self.path.get(index).copied() else {
            // Cannot happen (paths have at least one point); settle instead of panicking.
            self.stage = Stage::Settling { waited: 0 };
            return Action::Wait;
        };
        self.last_sent = p;
        self.last_index = index;
        self.sends += 1;
        self.stage = if index + 1 >= self.path.len() {
            Stage::Settling { waited: 0 }
        } else {
            Stage::Running { next: index + 1 }
        };
        Action::Send(p)
    }

    fn obstructed(&mut self, ob: Obstruction, m: Point3<f64>) -> Action {
        match (self.leg, self.obstacle) {
            (Leg::Reverse, Some(obstacle)) => self.finish(End::ReverseBlocked {
                obstacle,
                reverse: ob,
            }),
            _ => {
                self.obstacle_before_hold = self.obstacle;
                self.obstacle = Some(ob);
                self.hold_samples = self.samples;
                if self.reverse_wait_periods == 0 {
                    self.after_hold(ob, m)
                } else {
                    self.stage = Stage::Holding {
                        waited: 1,
                        obstacle: ob,
                    };
                    Action::Wait
                }
            }
        }
    }

    fn new_path(&mut self, path: Vec<Point3<f64>>, leg: Leg) {
        self.path = path;
        self.leg = leg;
        self.generation += 1;
    }

    fn finish(&mut self, end: End) -> Action {
        self.stage = Stage::Finished(end.clone());
        Action::Done(end)
    }
}
