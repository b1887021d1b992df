//! The brain: a deterministic state machine stepped by [`Brain::tick`].
//!
//! Each tick takes the arm position (`None` when stale) and the objects seen, and returns
//! the target to command (`None` when no action sends a step) and the events of the tick.
//! No clock and no I/O: the glue calls `tick` on its timer.
//!
//! One tick, in order:
//! 1. Scheduled actions whose start tick has come become active (step 0 is sent below).
//! 2. Each active action, in activation order (actions started during this tick with
//!    `delay: -1` are appended and run in this same tick):
//!    - a fresh action sends step 0;
//!    - otherwise, with the step sent last tick: if it needs the arm (verification, or a
//!      decision whose `executeAfter` is that step) and the arm is stale, it holds (its
//!      last target is sent again, nothing is verified, decided or counted);
//!      if verification is on and the arm is not within the tolerance (25 mm) of that
//!      step's target on every axis, the step is re-sent, up to `reset.timeout` times in a
//!      row, after which the action is dropped for `reset.action`;
//!      then the decisions of that step are taken, then the next step is sent, or, after
//!      the last one, the action finishes.
//! 3. The target is the per-axis sum of the steps sent this tick.
//!
//! A decision schedules `success` or `fail` (`delay -1`: this tick; `d ≥ 0`: `d + 1` ticks
//! later). An action selecting itself counts a repeat; more than `reset.timeout` repeats in
//! a row run `reset.action` instead. The task finishes when nothing is active or scheduled
//! (the flame-passing task never does: it loops, so the glue stops it with a tick limit or
//! a cancel).

use std::sync::Arc;

use nalgebra::{Point3, Vector3};

use crate::decide::{evaluate, Observation};
use crate::error::BrainError;
use crate::event::{Event, ResetCause, TickOutput};
use crate::model::{ActionId, Instructions, Next, Reset};
use crate::snapshot::{ActiveSnapshot, ScheduledSnapshot, Snapshot, VariableSnapshot};
pub use crate::status::{Outcome, Status};
use crate::vars::{Slot, Variables};

/// Default tolerance of trajectory verification, per axis (BrainJS's threshold).
pub const VERIFY_TOLERANCE_MM: f64 = 25.0;

/// Most ticks in a row a step's verification waits for a move still working around an
/// obstacle ([`Brain::tick_with`]); then it counts again (a move that never ends must
/// not hold the task for ever).
pub const MAX_MOVE_WAIT_TICKS: u32 = 30;

/// Most actions active or scheduled at once. A file whose decisions fan out (two decisions
/// of one step both re-starting their action) would otherwise grow without bound; starts
/// beyond this are refused with [`Event::TooManyActions`].
pub const MAX_ACTIONS: usize = 256;

/// What an active action does next.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// Send this step this tick (`retry`: after a failed verification).
    Send { step: usize, retry: bool },
    /// This step was sent last tick: verify it and take its decisions.
    Check { step: usize, target_mm: Point3<f64> },
}

#[derive(Debug, Clone)]
struct Running {
    action: ActionId,
    phase: Phase,
    /// Consecutive failures of the current step (verification, or missing variable).
    retries: u32,
    /// Consecutive ticks the current step's verification waited for its move.
    waits: u32,
    /// Consecutive self-selections that led to this instance.
    repeats: u32,
    /// Last step index sent (for snapshots).
    last_step: usize,
    done: bool,
}

#[derive(Debug, Clone)]
struct Scheduled {
    action: ActionId,
    start_tick: u64,
    repeats: u32,
}

/// Runs one instructions file. See the module doc for the tick semantics.
#[derive(Debug, Clone)]
pub struct Brain {
    /// Shared so a tick can read it while mutating the run state.
    instructions: Arc<Instructions>,
    /// Index of the next tick.
    tick: u64,
    active: Vec<Running>,
    scheduled: Vec<Scheduled>,
    vars: Variables,
    status: Status,
    /// `None` = no limit.
    max_ticks: Option<u64>,
    tolerance_mm: f64,
    last_decision: String,
    last_target_mm: Option<Point3<f64>>,
    paused: bool,
}

fn over_cap(reset: Option<Reset>, count: u32) -> Option<Next> {
    match reset {
        Some(Reset {
            max_retries: Some(max),
            next,
        }) if count > max => Some(next),
        _ => None,
    }
}

impl Brain {
    /// A brain about to run `instructions` from their `initialAction` (sent on tick 0).
    pub fn new(instructions: Instructions) -> Self {
        let first = instructions.initial_action();
        let mut brain = Brain {
            instructions: Arc::new(instructions),
            tick: 0,
            active: Vec::new(),
            scheduled: Vec::new(),
            vars: Variables::default(),
            status: Status::Running,
            max_ticks: None,
            tolerance_mm: VERIFY_TOLERANCE_MM,
            last_decision: String::new(),
            last_target_mm: None,
            paused: false,
        };
        brain.scheduled.push(Scheduled {
            action: first,
            start_tick: 0,
            repeats: 0,
        });
        brain
    }

    /// Load and check an instructions file, then [`Brain::new`].
    ///
    /// # Errors
    /// Any [`BrainError`] of [`crate::load`].
    pub fn from_json(text: &str) -> Result<Self, BrainError> {
        crate::load(text).map(Brain::new)
    }

    /// Start from `initial` instead of the file's `initialAction` (`RunTask.initial_action`).
    ///
    /// # Errors
    /// [`BrainError::UnknownInitialAction`] when no action has that name.
    pub fn starting_at(instructions: Instructions, initial: &str) -> Result<Self, BrainError> {
        let id = instructions
            .find(initial)
            .ok_or_else(|| BrainError::UnknownInitialAction {
                name: initial.to_owned(),
            })?;
        let mut brain = Brain::new(instructions);
        brain.scheduled = vec![Scheduled {
            action: id,
            start_tick: 0,
            repeats: 0,
        }];
        Ok(brain)
    }

    /// Stop (status [`Status::TickLimit`]) once `max_ticks` ticks have run; 0 = no limit,
    /// as `RunTask.max_ticks`.
    pub fn with_max_ticks(mut self, max_ticks: u64) -> Self {
        self.max_ticks = (max_ticks > 0).then_some(max_ticks);
        self
    }

    /// Change the verification tolerance (default [`VERIFY_TOLERANCE_MM`]).
    pub fn with_verify_tolerance_mm(mut self, tolerance_mm: f64) -> Self {
        if tolerance_mm.is_finite() && tolerance_mm >= 0.0 {
            self.tolerance_mm = tolerance_mm;
        }
        self
    }

    /// The instructions being run.
    pub fn instructions(&self) -> &Instructions {
        &self.instructions
    }

    /// Variables captured so far.
    pub fn variables(&self) -> &Variables {
        &self.vars
    }

    /// Where the run stands.
    pub fn status(&self) -> Status {
        self.status
    }

    /// Stop the task: nothing active or scheduled, later ticks output nothing.
    /// Returns the `Cancelled` event, or `None` if the run had already ended.
    pub fn cancel(&mut self) -> Option<Event> {
        if self.status != Status::Running {
            return None;
        }
        self.active.clear();
        self.scheduled.clear();
        self.status = Status::Cancelled;
        self.last_target_mm = None;
        Some(Event::Cancelled)
    }

    /// Run one tick. `arm_mm`: latest arm position, `None` if stale or missing (a
    /// non-finite one counts as missing). `seen`: the objects observed (non-finite ones
    /// are ignored). After the run ended, returns no target and no events.
    pub fn tick(&mut self, arm_mm: Option<Point3<f64>>, seen: &[Observation]) -> TickOutput {
        self.tick_with(arm_mm, seen, false)
    }

    /// [`tick`](Self::tick), told whether the move to the target sent last is still
    /// working around an obstacle (`moving_around`: the trajectory server holds after a
    /// stop, plans, or drives a detour or an approach). Then a step whose verification
    /// fails waits for that move's result instead ([`Event::WaitingForMove`]: nothing
    /// counted, its target held), at most [`MAX_MOVE_WAIT_TICKS`] ticks in a row.
    pub fn tick_with(
        &mut self,
        arm_mm: Option<Point3<f64>>,
        seen: &[Observation],
        moving_around: bool,
    ) -> TickOutput {
        let t = self.tick;
        let mut ev = Vec::new();
        if self.status != Status::Running {
            return TickOutput {
                tick: t,
                target_mm: None,
                events: ev,
            };
        }
        let arm = arm_mm.filter(|p| p.iter().all(|v| v.is_finite()));
        let seen: Vec<Observation> = seen
            .iter()
            .copied()
            .filter(Observation::is_finite)
            .collect();
        let instr = Arc::clone(&self.instructions);
        self.paused = false;

        let (due, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.scheduled)
            .into_iter()
            .partition(|s| s.start_tick <= t);
        self.scheduled = later;
        for s in due {
            self.start(&instr, s.action, s.repeats, &mut ev);
        }

        let mut sum: Option<Vector3<f64>> = None;
        let mut i = 0;
        while i < self.active.len() {
            if let Some(p) = self.run_action(&instr, i, t, arm, &seen, moving_around, &mut ev) {
                sum = Some(sum.unwrap_or_else(Vector3::zeros) + p.coords);
            }
            i += 1;
        }
        self.active.retain(|r| !r.done);

        let target_mm = sum.map(Point3::from);
        if target_mm.is_none() {
            ev.push(Event::Idle);
        }
        self.last_target_mm = target_mm;
        self.tick += 1;
        if self.active.is_empty() && self.scheduled.is_empty() {
            self.status = Status::Finished;
            ev.push(Event::TaskFinished);
        } else if self.max_ticks.is_some_and(|m| self.tick >= m) {
            self.status = Status::TickLimit;
            ev.push(Event::TickLimitReached { ticks: self.tick });
        }
        TickOutput {
            tick: t,
            target_mm,
            events: ev,
        }
    }

    fn start(&mut self, instr: &Instructions, action: ActionId, repeats: u32, ev: &mut Vec<Event>) {
        if self.crowded() {
            ev.push(Event::TooManyActions {
                action: instr.name(action).to_owned(),
            });
            return;
        }
        ev.push(Event::ActionStarted {
            action: instr.name(action).to_owned(),
            repeats,
        });
        self.active.push(Running {
            action,
            phase: Phase::Send {
                step: 0,
                retry: false,
            },
            retries: 0,
            waits: 0,
            repeats,
            last_step: 0,
            done: false,
        });
    }

    /// True when no further action may start or be scheduled ([`MAX_ACTIONS`]).
    fn crowded(&self) -> bool {
        self.active.iter().filter(|r| !r.done).count() + self.scheduled.len() >= MAX_ACTIONS
    }

    /// Start `next` now (delay −1, appended to this tick's loop) or schedule it.
    fn schedule(
        &mut self,
        instr: &Instructions,
        next: Next,
        repeats: u32,
        t: u64,
        ev: &mut Vec<Event>,
    ) {
        match u64::try_from(next.delay) {
            Ok(_) if self.crowded() => {
                ev.push(Event::TooManyActions {
                    action: instr.name(next.action).to_owned(),
                });
            }
            Ok(d) => self.scheduled.push(Scheduled {
                action: next.action,
                start_tick: t.saturating_add(d).saturating_add(1),
                repeats,
            }),
            Err(_) => self.start(instr, next.action, repeats, ev),
        }
    }

    /// Drop active action `i` for its `reset.action`. A reset for a missing variable never
    /// starts in the same tick (`delay -1` acts as 0): the new action could hit the same
    /// missing variable at once, and the tick would never end.
    fn reset(
        &mut self,
        instr: &Instructions,
        i: usize,
        mut next: Next,
        cause: ResetCause,
        t: u64,
        ev: &mut Vec<Event>,
    ) {
        let name = instr.name(self.active[i].action).to_owned();
        self.active[i].done = true;
        ev.push(Event::Reset {
            action: name,
            cause,
            next: instr.name(next.action).to_owned(),
            delay: next.delay,
        });
        if cause == ResetCause::MissingVariable {
            next.delay = next.delay.max(0);
        }
        self.schedule(instr, next, 0, t, ev);
    }

    /// One tick of active action `i`; returns the target it sends, if any.
    #[allow(clippy::too_many_arguments)]
    fn run_action(
        &mut self,
        instr: &Instructions,
        i: usize,
        t: u64,
        arm: Option<Point3<f64>>,
        seen: &[Observation],
        moving_around: bool,
        ev: &mut Vec<Event>,
    ) -> Option<Point3<f64>> {
        let run = self.active[i].clone();
        let action = instr.action(run.action);
        let (step, target_mm) = match run.phase {
            Phase::Send { step, retry } => return self.send(instr, i, step, retry, t, ev),
            Phase::Check { step, target_mm } => (step, target_mm),
        };
        let decisions: Vec<usize> = (0..action.decisions.len())
            .filter(|&d| action.decisions[d].execute_after == step)
            .collect();
        if action.verify || !decisions.is_empty() {
            let Some(arm) = arm else {
                self.paused = true;
                ev.push(Event::Paused {
                    action: action.name.clone(),
                });
                return Some(target_mm);
            };
            if action.verify && !self.reached(arm, target_mm) {
                if moving_around && run.waits < MAX_MOVE_WAIT_TICKS {
                    let waits = run.waits + 1;
                    self.active[i].waits = waits;
                    ev.push(Event::WaitingForMove {
                        action: action.name.clone(),
                        step,
                        arm_mm: arm,
                        target_mm,
                        ticks: waits,
                    });
                    return Some(target_mm);
                }
                let retries = run.retries.saturating_add(1);
                self.active[i].retries = retries;
                if let Some(next) = over_cap(action.reset, retries) {
                    self.reset(instr, i, next, ResetCause::Verification, t, ev);
                    return None;
                }
                ev.push(Event::VerificationFailed {
                    action: action.name.clone(),
                    step,
                    arm_mm: arm,
                    target_mm,
                    retries,
                });
                return self.send(instr, i, step, true, t, ev);
            }
            self.active[i].retries = 0;
            self.active[i].waits = 0;
            for d in decisions {
                self.decide(instr, i, d, arm, seen, t, ev);
            }
        }
        if step + 1 < action.trajectory.len() {
            self.send(instr, i, step + 1, false, t, ev)
        } else {
            self.active[i].done = true;
            ev.push(Event::ActionFinished {
                action: action.name.clone(),
            });
            None
        }
    }

    /// True when the arm is within the tolerance of `target` on every axis.
    fn reached(&self, arm: Point3<f64>, target: Point3<f64>) -> bool {
        (arm - target).iter().all(|d| d.abs() <= self.tolerance_mm)
    }

    /// Send `step` of active action `i`, or hold it if a variable is missing.
    fn send(
        &mut self,
        instr: &Instructions,
        i: usize,
        step: usize,
        retry: bool,
        t: u64,
        ev: &mut Vec<Event>,
    ) -> Option<Point3<f64>> {
        let action = instr.action(self.active[i].action);
        let Some(s) = action.trajectory.get(step) else {
            self.active[i].done = true;
            ev.push(Event::ActionFinished {
                action: action.name.clone(),
            });
            return None;
        };
        match self.vars.resolve_point(&s.axes) {
            Ok(target_mm) => {
                let run = &mut self.active[i];
                run.phase = Phase::Check { step, target_mm };
                run.last_step = step;
                run.waits = 0;
                if !retry {
                    run.retries = 0;
                }
                ev.push(Event::StepSent {
                    action: action.name.clone(),
                    step,
                    target_mm,
                    retry,
                });
                Some(target_mm)
            }
            Err(var) => {
                let retries = self.active[i].retries.saturating_add(1);
                self.active[i].retries = retries;
                self.active[i].phase = Phase::Send { step, retry };
                if let Some(next) = over_cap(action.reset, retries) {
                    self.reset(instr, i, next, ResetCause::MissingVariable, t, ev);
                } else {
                    ev.push(Event::MissingVariable {
                        action: action.name.clone(),
                        step,
                        variable: var.text,
                    });
                }
                None
            }
        }
    }

    /// Take decision `d` of active action `i` and schedule what it leads to.
    #[allow(clippy::too_many_arguments)]
    fn decide(
        &mut self,
        instr: &Instructions,
        i: usize,
        d: usize,
        arm: Point3<f64>,
        seen: &[Observation],
        t: u64,
        ev: &mut Vec<Event>,
    ) {
        let run = self.active[i].clone();
        let action = instr.action(run.action);
        let Some(decision) = action.decisions.get(d) else {
            return;
        };
        let (next, event) = match evaluate(decision, arm, seen, &self.vars) {
            Ok(captures) => {
                for (slot, value) in captures {
                    let name = match slot {
                        Slot::Arm => format!("{},{d},arm", action.name),
                        Slot::Object(k) => format!("{},{d},{k}", action.name),
                    };
                    self.vars.set(run.action, d, slot, name, value);
                }
                let next = decision.success;
                let event = Event::DecisionPassed {
                    action: action.name.clone(),
                    decision: d,
                    next: instr.name(next.action).to_owned(),
                    delay: next.delay,
                };
                (next, event)
            }
            Err(why) => {
                let next = decision.fail;
                let event = Event::DecisionFailed {
                    action: action.name.clone(),
                    decision: d,
                    why,
                    next: instr.name(next.action).to_owned(),
                    delay: next.delay,
                };
                (next, event)
            }
        };
        self.last_decision = event.to_string();
        ev.push(event);
        let repeats = if next.action == run.action {
            run.repeats.saturating_add(1)
        } else {
            0
        };
        match over_cap(action.reset, repeats) {
            Some(reset) => {
                let event = Event::Reset {
                    action: action.name.clone(),
                    cause: ResetCause::Repeats,
                    next: instr.name(reset.action).to_owned(),
                    delay: reset.delay,
                };
                self.last_decision = format!("{}; {event}", self.last_decision);
                ev.push(event);
                self.schedule(instr, reset, 0, t, ev);
            }
            None => self.schedule(instr, next, repeats, t, ev),
        }
    }

    /// A copy of the state for `/brain/state` (see [`Snapshot`]).
    pub fn state(&self) -> Snapshot {
        let instr = &self.instructions;
        Snapshot {
            tick: self.tick,
            status: self.status,
            active: self
                .active
                .iter()
                .map(|r| ActiveSnapshot {
                    name: instr.name(r.action).to_owned(),
                    step: u32::try_from(r.last_step).unwrap_or(u32::MAX),
                    steps: u32::try_from(instr.action(r.action).trajectory.len())
                        .unwrap_or(u32::MAX),
                    retries: r.retries,
                    repeats: r.repeats,
                })
                .collect(),
            scheduled: self
                .scheduled
                .iter()
                .map(|s| ScheduledSnapshot {
                    name: instr.name(s.action).to_owned(),
                    start_tick: s.start_tick,
                })
                .collect(),
            variables: self
                .vars
                .iter()
                .map(|(name, c)| {
                    let mut values = vec![c.point_mm.x, c.point_mm.y, c.point_mm.z];
                    values.extend(c.confidence);
                    VariableSnapshot {
                        name: name.to_owned(),
                        values,
                    }
                })
                .collect(),
            last_decision: self.last_decision.clone(),
            paused: self.paused,
            target_mm: self.last_target_mm,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ActionId;

    fn reset(max_retries: Option<u32>) -> Option<Reset> {
        Some(Reset {
            max_retries,
            next: Next {
                action: ActionId(0),
                delay: 0,
            },
        })
    }

    #[test]
    fn cap_allows_timeout_retries_then_fires() {
        assert_eq!(over_cap(reset(Some(3)), 3), None);
        assert!(over_cap(reset(Some(3)), 4).is_some());
        assert!(over_cap(reset(Some(0)), 1).is_some(), "timeout 0: no retry");
        assert_eq!(
            over_cap(reset(None), u32::MAX),
            None,
            "timeout -1: unlimited"
        );
        assert_eq!(over_cap(None, u32::MAX), None, "no reset: unlimited");
    }
}
