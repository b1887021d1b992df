//! The executor with detours ([`Executor::with_detours`]) against a simulated arm that a
//! box stops on its face, one period at a time (lag model of `tests/executor.rs`: the arm
//! gets to each set-point within one period unless the box is in the way).

use arnie_trajectory::{
    Action, DetourConfig, DetourPlanning, End, Executor, FixedBox, KnownObstruction, Outcome,
    Phase, RawTrajectoryConfig, Scene, Step, TrajectoryConfig, Workspace,
};
use nalgebra::Point3;

fn config() -> TrajectoryConfig {
    TrajectoryConfig::try_from(RawTrajectoryConfig {
        workspace_min_mm: [-200.0, -100.0, -20.0],
        workspace_max_mm: [200.0, 200.0, 200.0],
        ..RawTrajectoryConfig::default()
    })
    .unwrap()
}

fn scene() -> Scene {
    let c = config();
    Scene::new(Workspace::from(&c))
}

fn planning(scene: Scene) -> DetourPlanning {
    DetourPlanning {
        scene,
        config: DetourConfig::default(),
        obstruction_radius_mm: 60.0,
        max_replans: 3,
    }
}

/// An axis-aligned box the arm cannot enter: a move into it stops where it would enter
/// (the arm's last point outside, searched along the commanded step).
struct BoxArm {
    min: Point3<f64>,
    max: Point3<f64>,
}

impl BoxArm {
    fn inside(&self, p: Point3<f64>) -> bool {
        (0..3).all(|i| self.min[i] < p[i] && p[i] < self.max[i])
    }
    fn step(&self, from: Point3<f64>, to: Point3<f64>) -> Point3<f64> {
        let mut last = from;
        for k in 1..=100 {
            let p = from + (to - from) * (f64::from(k) / 100.0);
            if self.inside(p) {
                return last;
            }
            last = p;
        }
        to
    }
}

struct Run {
    steps: Vec<Step>,
    end: End,
    visited: Vec<Point3<f64>>,
}

fn run(exec: &mut Executor, start: Point3<f64>, arm: &BoxArm) -> Run {
    let mut pos = start;
    let mut steps = Vec::new();
    let mut visited = vec![pos];
    for _ in 0..200_000 {
        let step = exec.step(Some(pos));
        steps.push(step.clone());
        match step.action {
            Action::Send(p) => {
                pos = arm.step(pos, p);
                visited.push(pos);
            }
            Action::Wait => {}
            Action::Done(end) => {
                return Run {
                    steps,
                    end,
                    visited,
                }
            }
        }
    }
    panic!("executor never finished");
}

const SOURCE: [f64; 3] = [60.0, 40.0, 30.0];
const CANDLE: [f64; 3] = [-95.0, 30.0, 45.0];

/// The detour demo's box (`params/scenario_detour.json`): between the source flame and
/// the candle, from the table to 90 mm.
fn demo_box() -> BoxArm {
    BoxArm {
        min: Point3::new(-30.0, -10.0, -20.0),
        max: Point3::new(0.0, 90.0, 90.0),
    }
}

#[test]
fn a_box_on_the_straight_line_is_passed_by_a_detour() {
    let arm = demo_box();
    let (start, target) = (Point3::from(SOURCE), Point3::from(CANDLE));
    let mut exec = Executor::with_detours(start, target, &config(), planning(scene())).unwrap();
    assert!(!exec.is_detour(), "nothing known yet: the straight line");
    let r = run(&mut exec, start, &arm);
    assert_eq!(r.end.outcome(), Outcome::ReachedByDetour, "{}", r.end);
    let End::ReachedByDetour {
        obstacle, replans, ..
    } = &r.end
    else {
        unreachable!()
    };
    assert!(obstacle.is_some() && (1..=3).contains(replans), "{}", r.end);
    assert!(r.visited.iter().all(|p| !arm.inside(*p)));
    assert!((r.visited.last().unwrap() - target).norm() < 1e-9);
    let phases: Vec<Phase> = r.steps.iter().map(|s| s.feedback.phase).collect();
    let first_wait = phases.iter().position(|p| *p == Phase::Waiting).unwrap();
    let first_detour = phases.iter().position(|p| *p == Phase::Detour).unwrap();
    assert!(
        first_wait < first_detour,
        "the first detection still pauses"
    );
    assert!(!phases.contains(&Phase::Reversing));
    // Each detection is reported once, and the executor plans around what it learned.
    let reported: Vec<_> = r.steps.iter().filter_map(|s| s.obstructed).collect();
    assert_eq!(reported.len() as u32, *replans);
    assert_eq!(exec.obstructions().len(), reported.len());
    assert!(r.end.to_string().contains("detour"), "{}", r.end);
}

#[test]
fn a_later_goal_is_planned_around_the_remembered_obstruction_from_the_start() {
    let arm = demo_box();
    let (start, target) = (Point3::from(SOURCE), Point3::from(CANDLE));
    let mut first = Executor::with_detours(start, target, &config(), planning(scene())).unwrap();
    run(&mut first, start, &arm);
    let mut known = scene();
    known.obstructions = first.obstructions().to_vec();
    let mut exec = Executor::with_detours(start, target, &config(), planning(known)).unwrap();
    assert!(exec.is_detour());
    let r = run(&mut exec, start, &arm);
    assert!(r.steps.iter().all(|s| s.obstructed.is_none()), "no stop");
    let End::ReachedByDetour {
        obstacle, replans, ..
    } = &r.end
    else {
        panic!("{}", r.end)
    };
    assert_eq!((obstacle.is_none(), *replans), (true, 0));
    assert!(r.steps.iter().all(|s| s.feedback.phase == Phase::Detour));
}

#[test]
fn nothing_in_the_way_is_exactly_todays_move() {
    let (start, target) = (Point3::from(SOURCE), Point3::from(CANDLE));
    let mut plain = Executor::new(start, target, &config()).unwrap();
    let mut with = Executor::with_detours(start, target, &config(), planning(scene())).unwrap();
    assert_eq!(plain.path(), with.path());
    let free = BoxArm {
        min: Point3::new(1e6, 1e6, 1e6),
        max: Point3::new(2e6, 2e6, 2e6),
    };
    let (a, b) = (run(&mut plain, start, &free), run(&mut with, start, &free));
    assert_eq!(a.end, End::Reached);
    assert_eq!(a.steps, b.steps);
}

#[test]
fn a_box_closing_the_workspace_sends_the_arm_back_with_the_reason() {
    // A wall across the whole workspace in x: no way round.
    let wall = BoxArm {
        min: Point3::new(-45.0, -1000.0, -1000.0),
        max: Point3::new(-15.0, 1000.0, 1000.0),
    };
    let mut known = scene();
    known.boxes = vec![];
    let (start, target) = (Point3::from(SOURCE), Point3::from(CANDLE));
    let mut exec = Executor::with_detours(start, target, &config(), planning(known)).unwrap();
    let r = run(&mut exec, start, &wall);
    let End::ReversedToStart { no_detour, .. } = &r.end else {
        panic!("{}", r.end)
    };
    assert!(no_detour.is_some());
    assert!(r.visited.iter().all(|p| !wall.inside(*p)));
    assert!((r.visited.last().unwrap() - start).norm() < 1e-9);
    assert!(r.end.to_string().contains("no detour"), "{}", r.end);
}

#[test]
fn a_target_inside_a_remembered_obstruction_or_a_box_is_refused() {
    let (start, target) = (Point3::from(SOURCE), Point3::from(CANDLE));
    let mut known = scene();
    known.obstructions = vec![KnownObstruction::permanent(1, target, 30.0)];
    let e = Executor::with_detours(start, target, &config(), planning(known)).unwrap_err();
    assert!(e.to_string().contains("target"), "{e}");
    let mut boxed = scene();
    boxed.boxes = vec![FixedBox::new(
        "table",
        Point3::new(-200.0, -100.0, -20.0),
        Point3::new(200.0, 200.0, 50.0),
    )
    .unwrap()];
    assert!(Executor::with_detours(start, target, &config(), planning(boxed)).is_err());
}

#[test]
fn a_stop_without_new_positions_during_the_hold_is_not_remembered() {
    // The position stream stops (the count no longer grows) while the last position is
    // still fresh: the set-points run away from it and that looks like an obstacle.
    let (start, target) = (Point3::from(SOURCE), Point3::from(CANDLE));
    let mut exec = Executor::with_detours(start, target, &config(), planning(scene())).unwrap();
    let mut received = 0;
    let mut pos = start;
    let end = loop {
        if received < 20 {
            received += 1;
        }
        let step = exec.step_counted(Some(pos), received);
        assert!(step.obstructed.is_none());
        match step.action {
            Action::Send(p) if received < 20 => pos = p,
            Action::Send(_) | Action::Wait => {}
            Action::Done(end) => break end,
        }
    };
    let End::ReversedToStart { no_detour, .. } = &end else {
        panic!("{end}")
    };
    assert!(
        matches!(
            no_detour,
            Some(arnie_trajectory::TrajectoryError::PositionNotUpdated { .. })
        ),
        "{end}"
    );
    assert!(exec.obstructions().is_empty());
}

#[test]
fn an_arm_that_was_late_not_blocked_goes_on_and_nothing_is_remembered() {
    // The arm stalls for 30 periods (a slow link), then follows again: the detection's
    // hold sees it catch up, and the move goes on to the target.
    let (start, target) = (Point3::from(SOURCE), Point3::from(CANDLE));
    let mut exec = Executor::with_detours(start, target, &config(), planning(scene())).unwrap();
    let mut pos = start;
    let mut pending = Vec::new();
    let mut i = 0;
    let end = loop {
        i += 1;
        let step = exec.step(Some(pos));
        assert!(step.obstructed.is_none());
        if let Action::Send(p) = step.action {
            pending.push(p);
        }
        if let Action::Done(end) = step.action {
            break end;
        }
        // Stalled from period 30 to 60; then everything sent arrives at once.
        if !(30..60).contains(&i) {
            if let Some(last) = pending.drain(..).next_back() {
                pos = last;
            }
        }
    };
    assert_eq!(end, End::Reached);
    assert!(exec.resumes() >= 1);
    assert!(exec.obstructions().is_empty());
}
