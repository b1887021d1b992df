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
//! # Lag model the tests use
//! A perfect arm reaches each set-point within one period: the position passed to step
//! j is the set-point sent by step j−1. Then every check passes, a path of N + 1 points
//! takes N + 2 steps and exactly N + 1 sends, and the last check sees the arm exactly on
//! the goal. A slower arm still passes as long as it stays within the tolerance.

use nalgebra::Point3;

use crate::config::TrajectoryConfig;
use crate::error::TrajectoryError;
use crate::minjerk;
use crate::outcome::{End, Obstruction, Phase};

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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Leg {
    Forward,
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
}

fn finite(p: &Point3<f64>) -> bool {
    p.iter().all(|v| v.is_finite())
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
        if !finite(&start_mm) {
            return Err(TrajectoryError::ArmPositionNotFinite {
                position_mm: start_mm,
            });
        }
        if !finite(&goal_mm) {
            return Err(TrajectoryError::TargetNotFinite { target_mm: goal_mm });
        }
        let path = minjerk::try_plan(start_mm, goal_mm, config.sample_factor())?;
        Ok(Self {
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
        })
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

    /// True while the way back is being run (or held for); the node may republish the plan.
    pub fn is_reversing(&self) -> bool {
        self.leg == Leg::Reverse
    }

    /// One period. `measured_mm`: the latest arm position, or `None` if it is stale.
    pub fn step(&mut self, measured_mm: Option<Point3<f64>>) -> Step {
        let action = self.advance(measured_mm);
        Step {
            action,
            feedback: self.feedback(),
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
        }
    }

    /// Current feedback (also returned by every step).
    pub fn feedback(&self) -> Feedback {
        let phase = match (&self.stage, self.leg) {
            (Stage::Holding { .. }, _) => Phase::Waiting,
            (_, _) if self.stale_periods > 0 => Phase::Waiting,
            (_, Leg::Forward) => Phase::Forward,
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
            Stage::Running { next } => {
                if next > 0 {
                    if let Err(ob) = self.check(next - 1, m) {
                        return self.obstructed(ob, m);
                    }
                }
                self.send(next)
            }
            Stage::Settling { waited } => {
                let last = self.path.len().saturating_sub(1);
                match self.check(last, m) {
                    Ok(()) => {
                        let end = match (self.leg, self.obstacle) {
                            (Leg::Reverse, Some(obstacle)) => End::ReversedToStart { obstacle },
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
                    self.start_reverse(obstacle, m)
                }
            }
        }
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
                self.obstacle = Some(ob);
                if self.reverse_wait_periods == 0 {
                    self.start_reverse(ob, m)
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

    fn start_reverse(&mut self, obstacle: Obstruction, m: Point3<f64>) -> Action {
        match minjerk::try_plan(m, self.original_start, self.sample_factor) {
            Ok(path) => {
                self.path = path;
                self.leg = Leg::Reverse;
                self.obstacle = Some(obstacle);
                self.send(0)
            }
            Err(error) => self.finish(End::ReversePlanFailed { obstacle, error }),
        }
    }

    fn finish(&mut self, end: End) -> Action {
        self.stage = Stage::Finished(end.clone());
        Action::Done(end)
    }
}
