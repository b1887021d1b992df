//! The executor driven one period at a time against simulated arms.
//!
//! Lag model: the arm reaches each commanded set-point within one period, so the
//! position passed to step j is where the set-point of step j−1 (possibly limited by an
//! obstacle) took the arm. See `executor` module doc.

use arnie_trajectory::{
    minjerk, Action, End, Executor, Outcome, Phase, RawTrajectoryConfig, Step, TrajectoryConfig,
};
use nalgebra::Point3;
use proptest::prelude::*;

/// Runs to the end. `arm(current, command) -> new position` models the arm; a `None`
/// from `measure(step_index, position)` models a stale position.
struct Run {
    steps: Vec<Step>,
    end: End,
    arm: Point3<f64>,
}

impl Run {
    fn sends(&self) -> Vec<Point3<f64>> {
        self.steps
            .iter()
            .filter_map(|s| match s.action {
                Action::Send(p) => Some(p),
                _ => None,
            })
            .collect()
    }
    fn waits(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| s.action == Action::Wait)
            .count()
    }
}

fn run_with(
    exec: &mut Executor,
    start: Point3<f64>,
    mut arm: impl FnMut(Point3<f64>, Point3<f64>) -> Point3<f64>,
    mut measure: impl FnMut(usize, Point3<f64>) -> Option<Point3<f64>>,
) -> Run {
    let mut pos = start;
    let mut steps = Vec::new();
    for i in 0..100_000 {
        let step = exec.step(measure(i, pos));
        steps.push(step.clone());
        match step.action {
            Action::Send(p) => pos = arm(pos, p),
            Action::Wait => {}
            Action::Done(end) => {
                return Run {
                    steps,
                    end,
                    arm: pos,
                }
            }
        }
    }
    panic!("executor never finished");
}

fn run(
    exec: &mut Executor,
    start: Point3<f64>,
    arm: impl FnMut(Point3<f64>, Point3<f64>) -> Point3<f64>,
) -> Run {
    run_with(exec, start, arm, |_, p| Some(p))
}

fn perfect(_: Point3<f64>, cmd: Point3<f64>) -> Point3<f64> {
    cmd
}

fn cfg(f: impl FnOnce(&mut RawTrajectoryConfig)) -> TrajectoryConfig {
    let mut raw = RawTrajectoryConfig::default();
    f(&mut raw);
    TrajectoryConfig::try_from(raw).expect("valid test config")
}

#[test]
fn reached_with_exactly_n_plus_one_setpoints() {
    let c = TrajectoryConfig::default();
    let (s, g) = (
        Point3::new(10.0, 20.0, 30.0),
        Point3::new(130.0, -30.0, 60.0),
    );
    let mut e = Executor::new(s, g, &c).unwrap();
    let r = run(&mut e, s, perfect);
    assert_eq!(r.end, End::Reached);
    assert_eq!(r.end.outcome(), Outcome::Reached);
    let plan = minjerk::plan(s, g, 1);
    assert_eq!(r.sends(), plan, "every set-point, in order, each once");
    assert_eq!(
        r.steps.len(),
        plan.len() + 1,
        "N + 1 sends then the arrival check"
    );
    assert_eq!(r.waits(), 0);
    assert_eq!(r.arm, g);
    // Feedback follows the path.
    let last_send = &r.steps[r.steps.len() - 2].feedback;
    assert_eq!(last_send.progress, 1.0);
    assert_eq!(last_send.index as usize, plan.len() - 1);
    assert_eq!(last_send.count as usize, plan.len());
    assert!(r.steps.iter().all(|s| s.feedback.phase == Phase::Forward));
    assert!(r.steps.iter().all(|s| s.feedback.tracking_error_mm == 0.0));
    assert_eq!(r.steps[0].feedback.progress, 1.0 / plan.len() as f32);
}

#[test]
fn zero_length_move_sends_the_goal_once() {
    let p = Point3::new(1.0, 2.0, 3.0);
    let mut e = Executor::new(p, p, &TrajectoryConfig::default()).unwrap();
    let r = run(&mut e, p, perfect);
    assert_eq!(r.sends(), vec![p]);
    assert_eq!(r.end, End::Reached);
}

#[test]
fn a_slower_arm_within_tolerance_still_reaches() {
    // The arm shows, at step i, the set-point sent at step i − 3 (three periods behind).
    let c = TrajectoryConfig::default();
    let (s, g) = (Point3::origin(), Point3::new(0.0, 200.0, 0.0));
    let mut e = Executor::new(s, g, &c).unwrap();
    let mut issued: Vec<Option<Point3<f64>>> = Vec::new();
    let mut pos = s;
    let end = loop {
        let i = issued.len();
        if let Some(Some(p)) = i.checked_sub(3).map(|j| issued[j]) {
            pos = p;
        }
        match e.step(Some(pos)).action {
            Action::Send(p) => issued.push(Some(p)),
            Action::Wait => issued.push(None),
            Action::Done(end) => break end,
        }
        assert!(i < 10_000);
    };
    assert_eq!(end, End::Reached);
    assert_eq!(issued.iter().flatten().count(), 201);
    assert!(issued.iter().all(Option::is_some), "never held");
}

#[test]
fn settle_budget_is_exact() {
    // After the last send the arm reports 30 mm short for `late` periods, then arrives.
    let (s, g) = (Point3::origin(), Point3::new(0.0, 40.0, 0.0));
    for (settle, late, reached) in [(3, 3, true), (3, 4, false), (0, 0, true), (0, 1, false)] {
        let c = cfg(|r| r.settle_periods = settle);
        let mut e = Executor::new(s, g, &c).unwrap();
        let n_points = e.path().len();
        let sent = std::cell::Cell::new(0);
        let mut after_last = 0;
        let r = run_with(
            &mut e,
            s,
            |_, cmd| {
                sent.set(sent.get() + 1);
                cmd
            },
            |_, pos| {
                if sent.get() == n_points && after_last < late {
                    after_last += 1;
                    Some(Point3::new(0.0, 10.0, 0.0))
                } else {
                    Some(pos)
                }
            },
        );
        if reached {
            assert_eq!(r.end, End::Reached, "settle {settle} late {late}");
            assert_eq!(r.waits(), late);
        } else {
            assert_eq!(
                r.end.outcome(),
                Outcome::ReversedToStart,
                "settle {settle} late {late}"
            );
        }
    }
}

/// A wall at y = 100 mm stops the arm; the target is at y = 300.
fn wall(_: Point3<f64>, cmd: Point3<f64>) -> Point3<f64> {
    Point3::new(cmd.x, cmd.y.min(100.0), cmd.z)
}

#[test]
fn obstacle_holds_ten_periods_then_reverses_to_start() {
    let c = TrajectoryConfig::default();
    let (s, g) = (Point3::new(0.0, 0.0, 50.0), Point3::new(0.0, 300.0, 50.0));
    let mut e = Executor::new(s, g, &c).unwrap();
    let forward = minjerk::plan(s, g, 1);
    let r = run(&mut e, s, wall);

    let End::ReversedToStart { obstacle, .. } = r.end.clone() else {
        panic!("expected ReversedToStart, got {:?}", r.end);
    };
    assert_eq!(r.end.outcome(), Outcome::ReversedToStart);
    // Detected before sending the first point k whose predecessor is > 25 mm past the wall.
    let k = forward.iter().position(|p| p.y > 125.0).unwrap() + 1;
    assert_eq!(obstacle.index, k - 1);
    assert_eq!(obstacle.measured_mm, Point3::new(0.0, 100.0, 50.0));
    assert!(obstacle.error_mm > 25.0);

    // Forward sends 0..k−1, then exactly 10 holds, then the way back.
    let sends = r.sends();
    assert_eq!(&sends[..k], &forward[..k]);
    let first_wait = r
        .steps
        .iter()
        .position(|s| s.action == Action::Wait)
        .unwrap();
    assert_eq!(first_wait, k);
    assert_eq!(r.waits(), 10);
    assert!(r.steps[k..k + 10]
        .iter()
        .all(|s| s.action == Action::Wait && s.feedback.phase == Phase::Waiting));
    let back = minjerk::plan(Point3::new(0.0, 100.0, 50.0), s, 1);
    assert_eq!(&sends[k..], &back[..]);
    assert!(r.steps[k + 10..]
        .iter()
        .all(|s| s.feedback.phase == Phase::Reversing));
    assert_eq!(r.arm, s, "back at the original start");
    assert!(
        r.end.to_string().contains("reversed to the start"),
        "{}",
        r.end
    );
}

#[test]
fn zero_reverse_wait_reverses_on_the_detecting_step() {
    let c = cfg(|r| r.reverse_wait_periods = 0);
    let (s, g) = (Point3::origin(), Point3::new(0.0, 300.0, 0.0));
    let mut e = Executor::new(s, g, &c).unwrap();
    let r = run(&mut e, s, wall);
    assert_eq!(r.end.outcome(), Outcome::ReversedToStart);
    assert_eq!(r.waits(), 0);
}

#[test]
fn blocked_reverse_aborts_and_the_arm_stays() {
    // The arm jams at the wall: once there it cannot move at all.
    let c = TrajectoryConfig::default();
    let (s, g) = (Point3::origin(), Point3::new(0.0, 300.0, 0.0));
    let mut e = Executor::new(s, g, &c).unwrap();
    let r = run(
        &mut e,
        s,
        |cur, cmd| if cur.y >= 100.0 { cur } else { wall(cur, cmd) },
    );
    let End::ReverseBlocked { obstacle, reverse } = r.end.clone() else {
        panic!("expected ReverseBlocked, got {:?}", r.end);
    };
    assert_eq!(r.end.outcome(), Outcome::AbortedHelpNeeded);
    assert_eq!(obstacle.measured_mm.y, 100.0);
    assert_eq!(reverse.measured_mm.y, 100.0);
    assert!(reverse.expected_mm.y < 75.0);
    assert_eq!(r.arm.y, 100.0, "arm stays where it is");
    // Only the forward hold: the obstruction on the way back ends the move at once.
    assert_eq!(r.waits(), 10);
    assert!(r.end.to_string().contains("help needed"));
    // Ended means ended: no more set-points.
    let after = e.step(Some(r.arm));
    assert_eq!(after.action, Action::Done(r.end.clone()));
}

#[test]
fn cancel_ends_at_once_and_stays_ended() {
    let c = TrajectoryConfig::default();
    let (s, g) = (Point3::origin(), Point3::new(100.0, 0.0, 0.0));
    let mut e = Executor::new(s, g, &c).unwrap();
    let mut pos = s;
    let mut last_measured = s;
    for _ in 0..20 {
        last_measured = pos;
        if let Action::Send(p) = e.step(Some(pos)).action {
            pos = p;
        }
    }
    let step = e.cancel();
    assert_eq!(step.action, Action::Done(End::Cancelled));
    assert_eq!(End::Cancelled.outcome(), Outcome::Cancelled);
    // The position to hold: the last one measured.
    assert_eq!(step.feedback.measured_mm, last_measured);
    assert_eq!(e.sends(), 20);
    assert_eq!(e.step(Some(pos)).action, Action::Done(End::Cancelled));
    // A later preempt does not rewrite history.
    assert_eq!(e.preempt().action, Action::Done(End::Cancelled));
    assert_eq!(e.end(), Some(&End::Cancelled));
}

#[test]
fn preempt_ends_with_preempted() {
    let mut e = Executor::new(
        Point3::origin(),
        Point3::new(0.0, 0.0, 80.0),
        &TrajectoryConfig::default(),
    )
    .unwrap();
    e.step(Some(Point3::origin()));
    assert_eq!(e.preempt().action, Action::Done(End::Preempted));
    assert_eq!(End::Preempted.outcome(), Outcome::Preempted);
}

#[test]
fn stale_position_pauses_then_resumes() {
    let c = TrajectoryConfig::default(); // stale_abort_periods = 20
    let (s, g) = (Point3::origin(), Point3::new(60.0, 0.0, 0.0));
    let mut e = Executor::new(s, g, &c).unwrap();
    // Steps 5..24 (19 periods) have no position: under the limit.
    let r = run_with(&mut e, s, perfect, |i, p| {
        if (5..24).contains(&i) {
            None
        } else {
            Some(p)
        }
    });
    assert_eq!(r.end, End::Reached);
    assert_eq!(r.sends(), minjerk::plan(s, g, 1));
    assert_eq!(r.waits(), 19);
    assert!(r.steps[5..24]
        .iter()
        .all(|s| s.feedback.phase == Phase::Waiting && s.feedback.stale_periods > 0));
}

#[test]
fn stale_position_too_long_aborts() {
    let c = TrajectoryConfig::default();
    let (s, g) = (Point3::origin(), Point3::new(60.0, 0.0, 0.0));
    let mut e = Executor::new(s, g, &c).unwrap();
    let r = run_with(&mut e, s, perfect, |i, p| {
        if i >= 5 {
            None
        } else if i == 3 {
            Some(Point3::new(f64::NAN, 0.0, 0.0)) // non-finite counts as stale too
        } else {
            Some(p)
        }
    });
    assert_eq!(r.end, End::PositionStale { periods: 20 });
    assert_eq!(r.end.outcome(), Outcome::AbortedHelpNeeded);
    assert_eq!(r.steps.len(), 5 + 20);
    assert_eq!(r.sends().len(), 4);
}

#[test]
fn bad_construction_is_an_error() {
    let c = TrajectoryConfig::default();
    let nan = Point3::new(f64::NAN, 0.0, 0.0);
    assert!(Executor::new(nan, Point3::origin(), &c).is_err());
    assert!(Executor::new(Point3::origin(), nan, &c).is_err());
    assert!(Executor::new(Point3::origin(), Point3::new(1e15, 0.0, 0.0), &c).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn perfect_arm_always_reaches(
        s in prop::array::uniform3(-500.0f64..500.0),
        g in prop::array::uniform3(-500.0f64..500.0),
        factor in 1u32..3,
    ) {
        let c = cfg(|r| r.sample_factor = factor);
        let (s, g) = (Point3::from(s), Point3::from(g));
        let mut e = Executor::new(s, g, &c).unwrap();
        let n = e.path().len();
        let r = run(&mut e, s, perfect);
        prop_assert_eq!(&r.end, &End::Reached);
        prop_assert_eq!(r.sends().len(), n);
        prop_assert_eq!(r.arm, g);
    }
}
