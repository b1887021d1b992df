//! The executor with detours ([`Executor::with_detours`]) against a simulated arm that a
//! box stops on its face, one period at a time (lag model of `tests/executor.rs`: the arm
//! gets to each set-point within one period unless the box is in the way).

use arnie_trajectory::{
    Action, ContactModel, DetourConfig, DetourPlanning, End, Executor, FixedBox, KnownObstruction,
    Outcome, Phase, RawTrajectoryConfig, Scene, Step, TrajectoryConfig, TrajectoryError, Workspace,
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
        contact: ContactModel::default(),
        max_replans: 8,
        probe: true,
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

/// `p` lies on the surface of the arm's box (within 0.1 mm: the test's arm stops at its
/// last point outside, searched in hundredths of a step).
fn on_a_face(arm: &BoxArm, p: Point3<f64>) -> bool {
    const EPS: f64 = 0.1;
    let within = (0..3).all(|i| arm.min[i] - EPS <= p[i] && p[i] <= arm.max[i] + EPS);
    let on = (0..3).any(|i| (p[i] - arm.min[i]).abs() < EPS || (p[i] - arm.max[i]).abs() < EPS);
    within && on
}

/// The issue's box (issue 46) across the move from (0, 30, 0) to (−95, 30, 0) mm.
fn issue_box() -> BoxArm {
    BoxArm {
        min: Point3::new(-62.0, -5.0, -20.0),
        max: Point3::new(-38.0, 70.0, 22.0),
    }
}
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
    // The issue's box across the move to the candle: one stop on its face, then over it.
    let arm = issue_box();
    let (start, target) = (Point3::new(0.0, 30.0, 0.0), Point3::new(-95.0, 30.0, 0.0));
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
    assert!(obstacle.is_some() && (1..=8).contains(replans), "{}", r.end);
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
    let reported: Vec<_> = r.steps.iter().filter_map(|s| s.stopped.clone()).collect();
    assert_eq!(reported.len() as u32, *replans);
    // Each taught a small region just beyond the box's face the arm stood on.
    for stop in &reported {
        let region = stop.learned.as_ref().unwrap();
        assert!(region.size_mm <= ContactModel::default().max_size_mm());
        let m = stop.obstruction.measured_mm;
        assert!((region.contact_mm - m).norm() < 1e-9);
        assert!(on_a_face(&arm, m), "stopped at {m}, not on the box");
    }
    assert_eq!(exec.obstructions().len(), reported.len());
    assert!(r.end.to_string().contains("detour"), "{}", r.end);
}

#[test]
fn the_demo_s_tall_box_is_passed_after_a_few_goals() {
    // The demo's box is 100 mm wide and 110 mm tall: a stop teaches a few centimetres of
    // its face, so it takes several; after a move's re-plans are used up the arm goes
    // back and the goal is sent again (the brain re-sends a failed step), planned from the
    // start around all that was learned.
    let arm = demo_box();
    let (start, target) = (Point3::from(SOURCE), Point3::from(CANDLE));
    let mut known = scene();
    let mut pos = start;
    for attempt in 0..6 {
        let mut exec =
            Executor::with_detours(pos, target, &config(), planning(known.clone())).unwrap();
        let r = run(&mut exec, pos, &arm);
        assert!(
            r.visited.iter().all(|p| !arm.inside(*p)),
            "attempt {attempt}"
        );
        pos = *r.visited.last().unwrap();
        if r.end.outcome() == Outcome::ReachedByDetour {
            assert!((pos - target).norm() < 1e-9);
            return;
        }
        assert_eq!(r.end.outcome(), Outcome::ReversedToStart, "{}", r.end);
        known.obstructions = exec.obstructions().to_vec();
    }
    panic!("the demo box was not passed in 6 goals");
}

#[test]
fn a_later_goal_is_planned_around_the_remembered_obstruction_from_the_start() {
    let arm = issue_box();
    let (start, target) = (Point3::new(0.0, 30.0, 0.0), Point3::new(-95.0, 30.0, 0.0));
    let mut first = Executor::with_detours(start, target, &config(), planning(scene())).unwrap();
    run(&mut first, start, &arm);
    let mut known = scene();
    known.obstructions = first.obstructions().to_vec();
    let mut exec = Executor::with_detours(start, target, &config(), planning(known)).unwrap();
    assert!(exec.is_detour());
    let r = run(&mut exec, start, &arm);
    assert!(r.steps.iter().all(|s| s.stopped.is_none()), "no stop");
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
fn a_target_inside_a_learned_region_is_approached_but_a_box_refuses_it() {
    let (start, target) = (Point3::from(SOURCE), Point3::from(CANDLE));
    // A learned guess around the candle, touched moving −x: reached from another side.
    let mut known = scene();
    let mut guess =
        KnownObstruction::permanent(1, target + nalgebra::Vector3::new(-10.0, 0.0, 0.0), 30.0);
    guess.direction = nalgebra::Vector3::new(-1.0, 0.0, 0.0);
    known.obstructions = vec![guess];
    let free = BoxArm {
        min: Point3::new(1e6, 1e6, 1e6),
        max: Point3::new(2e6, 2e6, 2e6),
    };
    let mut exec = Executor::with_detours(start, target, &config(), planning(known)).unwrap();
    let r = run(&mut exec, start, &free);
    let End::ReachedByDetour { approach, .. } = &r.end else {
        panic!("{}", r.end)
    };
    let a = approach.as_ref().unwrap();
    assert!(
        a.side.x <= 0.5,
        "not from the side it was touched from: {a:?}"
    );
    assert!(r.end.to_string().contains("approached from"), "{}", r.end);
    // ... and the pass through it shrank the guess to what the evidence leaves (the
    // target itself, 10 mm from its centre, is free): at most 10 − 5 mm (the taper).
    assert!(
        exec.obstructions().iter().all(|o| o.size_mm <= 5.0 + 1e-9),
        "{:?}",
        exec.obstructions()
    );
    // A fixed box around the candle refuses it.
    let mut boxed = scene();
    boxed.boxes = vec![FixedBox::new(
        "table",
        Point3::new(-200.0, -100.0, -20.0),
        Point3::new(200.0, 200.0, 50.0),
    )
    .unwrap()];
    let e = Executor::with_detours(start, target, &config(), planning(boxed)).unwrap_err();
    assert!(matches!(e, TrajectoryError::TargetBlocked { .. }), "{e}");
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
        assert!(step.stopped.is_none());
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
        assert!(step.stopped.is_none());
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

/// A lagging arm (three periods late, 200 mm/s) stopped by the issue's box: the stop is
/// placed at the box's face where the arm stands, not around the set-point 25 mm inside
/// the box, and the target behind the box stays outside what is learned.
#[test]
fn a_lagging_arm_s_stop_is_placed_at_the_box_face_not_the_set_point() {
    use arnie_scenes::arm::FollowingArm;
    let b = arnie_scenes::BoxSpec {
        min_mm: [-62.0, -5.0, -20.0],
        max_mm: [-38.0, 70.0, 22.0],
    };
    let (start, target) = (Point3::new(0.0, 30.0, 0.0), Point3::new(-95.0, 30.0, 0.0));
    let mut arm = FollowingArm::new(start, 3, 2.0, vec![b]);
    let mut exec = Executor::with_detours(start, target, &config(), planning(scene())).unwrap();
    let mut first_stop = None;
    let end = loop {
        let step = exec.step(Some(arm.position()));
        if first_stop.is_none() {
            first_stop = step.stopped.clone();
        }
        match step.action {
            Action::Send(p) => arm.step(Some(p)),
            Action::Wait => arm.step(None),
            Action::Done(end) => break end,
        };
        assert!(!arm.inside_a_box());
    };
    assert_eq!(end.outcome(), Outcome::ReachedByDetour, "{end}");
    let stop = first_stop.expect("the box stopped the arm");
    let region = stop.learned.clone().unwrap();
    let model = ContactModel::default();
    // The arm stood on the face x = −38; its set-point was ≥ 25 mm further, inside.
    assert!(
        (stop.obstruction.measured_mm.x - -38.0).abs() < 1e-9,
        "{stop:?}"
    );
    assert!(stop.obstruction.expected_mm.x < -38.0 - 25.0, "{stop:?}");
    // What is believed solid begins at the taper's edge beyond the face, lies within the
    // box's thickness, and is not centred on the set-point.
    let near = region.centre_mm.x + region.size_mm;
    assert!(
        (near - (-38.0 - model.tool_radius_mm())).abs() < 1e-6,
        "{region:?}"
    );
    assert!(region.centre_mm.x > -62.0, "{region:?}");
    assert!((region.centre_mm - stop.obstruction.expected_mm).norm() > 5.0);
    // The approach speed of the lagging arm (~100 mm/s) is in its size.
    assert!(region.size_mm > 25.0 / 2.0 && region.size_mm <= model.max_size_mm());
    assert!((target - region.centre_mm).norm() > region.radius_mm);
}

/// A wrong guess (learned regions walling off the target, nothing really there) does not
/// block the goal: with no way around, the goal from the start probes through them, is not
/// stopped, and the passes clear them.
#[test]
fn a_wrong_guess_is_probed_and_cleared_by_the_pass() {
    let (start, target) = (Point3::new(0.0, 30.0, 0.0), Point3::new(-95.0, 30.0, 0.0));
    let mut known = scene();
    known.boxes = vec![];
    // A wall of guesses across the whole workspace at x = −50.
    let mut id = 0;
    for y in (-100..=200).step_by(20) {
        for z in (-20..=200).step_by(20) {
            id += 1;
            let mut o = KnownObstruction::permanent(
                id,
                Point3::new(-50.0, f64::from(y), f64::from(z)),
                16.0,
            );
            o.size_mm = 6.0;
            known.obstructions.push(o);
        }
    }
    let mut no_probe = planning(known.clone());
    no_probe.probe = false;
    let e = Executor::with_detours(start, target, &config(), no_probe).unwrap_err();
    assert!(matches!(e, TrajectoryError::NoDetour { .. }), "{e}");
    let mut exec = Executor::with_detours(start, target, &config(), planning(known)).unwrap();
    let free = BoxArm {
        min: Point3::new(1e6, 1e6, 1e6),
        max: Point3::new(2e6, 2e6, 2e6),
    };
    let r = run(&mut exec, start, &free);
    assert_eq!(r.end, End::Reached, "{}", r.end);
    // The guesses the arm went through are gone (or shrunk).
    let on_the_line = exec
        .obstructions()
        .iter()
        .filter(|o| (o.centre_mm - Point3::new(-50.0, 30.0, 0.0)).norm() < 1.0)
        .count();
    assert_eq!(on_the_line, 0, "the guess on the way was not cleared");
    assert!(r.steps.iter().any(|s| s.passed.is_some()));
}

/// A "contact" while the set-points were not moving (a zero-length goal, the arm pushed
/// off it): no direction, nothing learned; the reason is reported and the arm goes back.
#[test]
fn a_stop_while_the_set_points_stand_still_teaches_nothing() {
    let start = Point3::new(0.0, 30.0, 0.0);
    let mut exec = Executor::with_detours(start, start, &config(), planning(scene())).unwrap();
    let mut pos = start;
    let mut stops = Vec::new();
    let mut end = None;
    for k in 0..400 {
        // Someone pushes the arm 30 mm along +y and holds it there until the stop is
        // reported, then lets go: the arm follows the way back.
        if k == 1 {
            pos.y += 30.0;
        }
        let step = exec.step(Some(pos));
        stops.extend(step.stopped);
        match step.action {
            Action::Done(e) => {
                end = Some(e);
                break;
            }
            Action::Send(p) if !stops.is_empty() => pos = p,
            Action::Send(_) | Action::Wait => {}
        }
    }
    assert_eq!(stops.len(), 1, "{stops:?}");
    assert!(
        matches!(
            stops[0].learned,
            Err(TrajectoryError::ContactNotMoving { .. })
        ),
        "{stops:?}"
    );
    assert!(exec.contact_refused().is_some());
    assert!(exec.obstructions().is_empty());
    let end = end.expect("the move ended");
    assert!(end.to_string().contains("not moving"), "{end}");
}
