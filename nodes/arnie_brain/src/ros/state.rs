//! The library's values → `arnie_interfaces` messages, at the topic edge: [`Snapshot`] →
//! `BrainState` (published on `/brain/state` and in the `RunTask` feedback), [`Event`] →
//! `BrainEvent`, [`Outcome`] → the `RunTask` result constant. Every position is scaled
//! to metres here (frame `world`): the target, the events' targets and arm positions,
//! and the first three values (x, y, z) of each variable; extra values (a confidence)
//! pass unchanged. The constants are r2r's, generated from the `.msg`/`.action` files:
//! this module is the one place they meet the library's enums.

use nalgebra::Point3;
use node_glue::{time, topics};
use r2r::arnie_interfaces::action::RunTask;
use r2r::arnie_interfaces::msg::{ActiveAction, BrainEvent, BrainState, Variable};
use r2r::geometry_msgs::msg::Point;

use super::Scale;
use crate::{Event, Mismatch, Outcome, ResetCause, Snapshot};

/// The message for `snap`, with the events of the tick that produced it.
pub fn state_msg(task: &str, snap: &Snapshot, events: &[Event], scale: Scale) -> BrainState {
    let target = snap.target_mm.map(|t| scale.to_m(t));
    BrainState {
        header: time::header(topics::WORLD_FRAME),
        task: task.to_owned(),
        tick: snap.tick,
        active: snap
            .active
            .iter()
            .map(|a| ActiveAction {
                name: a.name.clone(),
                step: a.step,
                steps: a.steps,
                retries: a.counted(),
            })
            .collect(),
        variables: snap
            .variables
            .iter()
            .map(|v| Variable {
                name: v.name.clone(),
                values: scale.to_m(v.values.clone()),
            })
            .collect(),
        last_decision: snap.last_decision.clone(),
        events: events.iter().map(|e| event_msg(e, scale)).collect(),
        has_target: target.is_some(),
        target: target.map(point).unwrap_or_default(),
        paused: snap.paused,
    }
}

fn point(p: Point3<f64>) -> Point {
    Point {
        x: p.x,
        y: p.y,
        z: p.z,
    }
}

/// The `RunTask` result `outcome` constant of a library outcome.
pub fn outcome_code(o: Outcome) -> u8 {
    match o {
        Outcome::Finished => RunTask::Result::FINISHED as u8,
        Outcome::Aborted => RunTask::Result::ABORTED as u8,
        Outcome::Preempted => RunTask::Result::PREEMPTED as u8,
        Outcome::Cancelled => RunTask::Result::CANCELLED as u8,
        Outcome::Rejected => RunTask::Result::REJECTED as u8,
    }
}

/// The event the node adds when it stops a run (preempted, shutting down): kind
/// `ABORTED`, `why` in `detail`.
pub fn aborted_msg(why: &str) -> BrainEvent {
    BrainEvent {
        kind: BrainEvent::ABORTED as u8,
        detail: why.to_owned(),
        text: format!("aborted: {why}"),
        ..BrainEvent::default()
    }
}

/// One event as a `BrainEvent`: kind and cause constants, fields in metres, and `text`,
/// the event's log line (in the instructions' units). The fields events share (action,
/// index, next action and delay) come from [`Event`]'s accessors; each kind adds its own.
pub fn event_msg(ev: &Event, scale: Scale) -> BrainEvent {
    let (next, delay) = ev.next().unwrap_or_default();
    let mut m = BrainEvent {
        text: ev.to_string(),
        action: ev.action().unwrap_or_default().to_owned(),
        index: ev
            .index()
            .map_or(0, |i| u32::try_from(i).unwrap_or(u32::MAX)),
        next: next.to_owned(),
        delay,
        ..BrainEvent::default()
    };
    let target = |t: &Point3<f64>, m: &mut BrainEvent| {
        m.has_target = true;
        m.target = point(scale.to_m(*t));
    };
    m.kind = match ev {
        Event::ActionStarted { repeats, .. } => {
            m.count = u64::from(*repeats);
            BrainEvent::ACTION_STARTED as u8
        }
        Event::StepSent {
            target_mm, retry, ..
        } => {
            target(target_mm, &mut m);
            m.retry = *retry;
            BrainEvent::STEP_SENT as u8
        }
        Event::VerificationFailed {
            arm_mm,
            target_mm,
            retries,
            ..
        } => {
            m.has_arm = true;
            m.arm = point(scale.to_m(*arm_mm));
            target(target_mm, &mut m);
            m.count = u64::from(*retries);
            BrainEvent::VERIFICATION_FAILED as u8
        }
        Event::WaitingForMove {
            arm_mm,
            target_mm,
            ticks,
            ..
        } => {
            m.has_arm = true;
            m.arm = point(scale.to_m(*arm_mm));
            target(target_mm, &mut m);
            m.count = u64::from(*ticks);
            BrainEvent::WAITING_FOR_MOVE as u8
        }
        Event::DecisionPassed { .. } => BrainEvent::DECISION_PASSED as u8,
        Event::DecisionFailed { why, .. } => {
            m.cause = mismatch_code(why);
            m.detail = why.to_string();
            BrainEvent::DECISION_FAILED as u8
        }
        Event::Reset { cause, .. } => {
            m.cause = reset_code(*cause);
            m.detail = cause.to_string();
            BrainEvent::RESET as u8
        }
        Event::MissingVariable { variable, .. } => {
            m.detail = variable.clone();
            BrainEvent::MISSING_VARIABLE as u8
        }
        Event::Paused { .. } => BrainEvent::PAUSED as u8,
        Event::ActionFinished { .. } => BrainEvent::ACTION_FINISHED as u8,
        Event::Idle => BrainEvent::IDLE as u8,
        Event::TooManyActions { .. } => BrainEvent::TOO_MANY_ACTIONS as u8,
        Event::TaskFinished => BrainEvent::TASK_FINISHED as u8,
        Event::TickLimitReached { ticks } => {
            m.count = *ticks;
            BrainEvent::TICK_LIMIT_REACHED as u8
        }
        Event::Cancelled => BrainEvent::CANCELLED as u8,
    };
    m
}

fn mismatch_code(why: &Mismatch) -> u8 {
    match why {
        Mismatch::Arm { .. } => BrainEvent::CAUSE_ARM_OUTSIDE as u8,
        Mismatch::NoObject { .. } => BrainEvent::CAUSE_NO_OBJECT as u8,
        Mismatch::MissingVariable { .. } => BrainEvent::CAUSE_MISSING_VARIABLE as u8,
    }
}

fn reset_code(cause: ResetCause) -> u8 {
    match cause {
        ResetCause::Verification => BrainEvent::CAUSE_VERIFICATION as u8,
        ResetCause::Repeats => BrainEvent::CAUSE_REPEATS as u8,
        ResetCause::MissingVariable => BrainEvent::CAUSE_MISSING_VARIABLE as u8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markers::tests::TASK;
    use crate::{Brain, Observation};

    fn near(a: &Point, b: [f64; 3]) -> bool {
        (a.x - b[0]).abs() < 1e-12 && (a.y - b[1]).abs() < 1e-12 && (a.z - b[2]).abs() < 1e-12
    }

    #[test]
    fn everything_in_metres_events_structured() {
        let mut b = Brain::from_json(TASK).unwrap();
        let scale = Scale::new(0.001).unwrap();
        let out = b.tick(Some(Point3::origin()), &[]);
        let msg = state_msg("inline", &b.state(), &out.events, scale);
        assert!(msg.has_target);
        assert!(near(&msg.target, [0.01, 0.02, 0.03]));
        assert_eq!(msg.header.frame_id, "world");
        assert_eq!(msg.active[0].name, "a");
        assert_eq!((msg.active[0].step, msg.active[0].steps), (0, 2));
        let kinds: Vec<u8> = msg.events.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            [
                BrainEvent::ACTION_STARTED as u8,
                BrainEvent::STEP_SENT as u8
            ]
        );
        let texts: Vec<&str> = msg.events.iter().map(|e| e.text.as_str()).collect();
        assert_eq!(texts, ["a: started", "a: step 0 -> (10, 20, 30)"]);
        let step = &msg.events[1];
        assert_eq!(
            (step.action.as_str(), step.index, step.retry),
            ("a", 0, false)
        );
        assert!(step.has_target && near(&step.target, [0.01, 0.02, 0.03]));
        assert!(!step.has_arm);

        let seen = [Observation::at(5.0, 6.0, 7.0).with_confidence(80.0)];
        let out = b.tick(Some(Point3::new(10.0, 20.0, 30.0)), &seen);
        let msg = state_msg("inline", &b.state(), &out.events, scale);
        let var = msg.variables.iter().find(|v| v.name == "a,0,0").unwrap();
        let want = [0.005, 0.006, 0.007, 80.0];
        assert_eq!(var.values.len(), 4);
        assert!(var
            .values
            .iter()
            .zip(want)
            .all(|(v, w)| (v - w).abs() < 1e-12));
        assert!(near(&msg.target, [0.005, 0.0, 0.0]));
        assert!(msg.last_decision.starts_with("a.decisions[0]: success"));
        let passed = msg
            .events
            .iter()
            .find(|e| e.kind == BrainEvent::DECISION_PASSED as u8)
            .unwrap();
        assert_eq!(
            (passed.index, passed.next.as_str(), passed.delay),
            (0, "a", 5)
        );
        assert!(!msg.paused);
    }

    #[test]
    fn every_event_kind_maps_to_its_constant() {
        let s = Scale::new(0.001).unwrap();
        let p = Point3::new(1000.0, -2000.0, 500.0);
        let a = || "act".to_owned();
        let failed = event_msg(
            &Event::VerificationFailed {
                action: a(),
                step: 2,
                arm_mm: p,
                target_mm: Point3::origin(),
                retries: 3,
            },
            s,
        );
        assert_eq!(failed.kind, BrainEvent::VERIFICATION_FAILED as u8);
        assert!(failed.has_arm && near(&failed.arm, [1.0, -2.0, 0.5]));
        assert_eq!((failed.index, failed.count), (2, 3));
        let reset = event_msg(
            &Event::Reset {
                action: a(),
                cause: ResetCause::Verification,
                next: "start".into(),
                delay: -1,
            },
            s,
        );
        assert_eq!(
            (reset.kind, reset.cause),
            (
                BrainEvent::RESET as u8,
                BrainEvent::CAUSE_VERIFICATION as u8
            )
        );
        assert_eq!((reset.next.as_str(), reset.delay), ("start", -1));
        assert_eq!(reset.detail, "verification retries exhausted");
        let missing = event_msg(
            &Event::MissingVariable {
                action: a(),
                step: 1,
                variable: "v,0,0".into(),
            },
            s,
        );
        assert_eq!(missing.kind, BrainEvent::MISSING_VARIABLE as u8);
        assert_eq!(missing.detail, "v,0,0");
        let limit = event_msg(&Event::TickLimitReached { ticks: 40 }, s);
        assert_eq!(
            (limit.kind, limit.count),
            (BrainEvent::TICK_LIMIT_REACHED as u8, 40)
        );
        let aborted = aborted_msg("preempted");
        assert_eq!(aborted.kind, BrainEvent::ABORTED as u8);
        assert_eq!(
            (aborted.detail.as_str(), aborted.text.as_str()),
            ("preempted", "aborted: preempted")
        );
        assert_eq!(
            outcome_code(Outcome::Rejected),
            RunTask::Result::REJECTED as u8
        );
    }
}
