//! Golden traces of the flame-passing task (the reference instructions.json, read by path),
//! tick by tick, with a scripted arm and scripted observations.

use arnie_brain::{Brain, Event, Observation, ResetCause, Status, TickOutput, MAX_MOVE_WAIT_TICKS};
use nalgebra::Point3;

const INSTRUCTIONS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/reference/arnie/instructions.json"
);

fn brain() -> Brain {
    let text = std::fs::read_to_string(INSTRUCTIONS).expect("reference instructions.json");
    Brain::from_json(&text).expect("reference instructions load")
}

fn p(x: f64, y: f64, z: f64) -> Point3<f64> {
    Point3::new(x, y, z)
}

/// The source flame, first seen from `start`.
const F: [f64; 3] = [-40.0, 60.0, 20.0];

fn flame() -> Observation {
    Observation::at(F[0], F[1], F[2]).with_confidence(90.0)
}

/// The lit taper, held at (0, F.y, 0) by lightSelf's last step.
fn taper() -> Observation {
    Observation::at(4.0, F[1] + 3.0, 5.0).with_confidence(80.0)
}

/// The second candle, lit by lightOther.
fn candle() -> Observation {
    Observation::at(-98.0, 22.0, 40.0).with_confidence(85.0)
}

/// A scripted run: the arm reaches each commanded target by the next tick (and stays put
/// on idle ticks), unless `arm_override` says otherwise for that tick.
struct Run {
    brain: Brain,
    arm: Point3<f64>,
    outs: Vec<TickOutput>,
}

impl Run {
    fn new() -> Self {
        Run {
            brain: brain(),
            arm: Point3::origin(),
            outs: Vec::new(),
        }
    }

    fn tick(&mut self, seen: &[Observation]) -> TickOutput {
        self.tick_with(Some(self.arm), seen)
    }

    fn tick_with(&mut self, arm: Option<Point3<f64>>, seen: &[Observation]) -> TickOutput {
        let out = self.brain.tick(arm, seen);
        if let Some(t) = out.target_mm {
            self.arm = t;
        }
        self.outs.push(out.clone());
        out
    }
}

fn texts(out: &TickOutput) -> Vec<String> {
    out.events.iter().map(ToString::to_string).collect()
}

fn has(out: &TickOutput, text: &str) -> bool {
    texts(out).iter().any(|t| t == text)
}

/// Observations of a tick, the expected target, events expected among the tick's.
type Tick = (Vec<Observation>, Option<Point3<f64>>, Vec<&'static str>);

#[test]
fn golden_trace_flame_passing() {
    let mut run = Run::new();
    let [fx, fy, fz] = F;
    // (observations this tick, expected target, events expected among this tick's)
    let script: Vec<Tick> = vec![
        // t0: start at home.
        (
            vec![],
            Some(p(0.0, 0.0, 0.0)),
            vec!["start: started", "start: step 0 -> (0, 0, 0)"],
        ),
        // t1: start's step 0 verified; its decision sees F and passes: lightSelf next tick.
        (
            vec![flame()],
            None,
            vec![
                "start.decisions[0]: success -> lightSelf (delay 0)",
                "start: finished",
                "idle: no target",
            ],
        ),
        // t2..t5: lightSelf visits (0,F.y,0), (0,F.y,F.z), (F.x,F.y,F.z), (0,F.y,0).
        (vec![], Some(p(0.0, fy, 0.0)), vec!["lightSelf: started"]),
        (vec![], Some(p(0.0, fy, fz)), vec![]),
        (vec![], Some(p(fx, fy, fz)), vec![]),
        (vec![], Some(p(0.0, fy, 0.0)), vec![]),
        // t6: the taper is lit: success with delay -1, lightOther sends its step 0 now.
        (
            vec![taper(), flame()],
            Some(p(0.0, 30.0, 0.0)),
            vec![
                "lightSelf.decisions[0]: success -> lightOther (delay -1)",
                "lightOther: started",
                "lightOther: step 0 -> (0, 30, 0)",
                "lightSelf: finished",
            ],
        ),
        (vec![], Some(p(-95.0, 30.0, 0.0)), vec![]),
        (vec![], Some(p(-95.0, 30.0, 45.0)), vec![]),
        (vec![], Some(p(0.0, 30.0, 0.0)), vec![]),
        // t10: the candle burns: back to start.
        (
            vec![candle(), taper(), flame()],
            None,
            vec![
                "lightOther.decisions[0]: success -> start (delay 0)",
                "lightOther: finished",
            ],
        ),
        // t11: start again, at home.
        (
            vec![flame()],
            Some(p(0.0, 0.0, 0.0)),
            vec!["start: started"],
        ),
    ];
    for (t, (seen, target, events)) in script.iter().enumerate() {
        let out = run.tick(seen);
        assert_eq!(out.tick, t as u64);
        assert_eq!(
            out.target_mm,
            *target,
            "target at tick {t}: {:?}",
            texts(&out)
        );
        for e in events {
            assert!(has(&out, e), "tick {t}: missing {e:?} in {:?}", texts(&out));
        }
        if target.is_some() {
            assert!(!out.events.contains(&Event::Idle), "tick {t}");
        }
    }
    // Variables: start,0,arm (home) and start,0,0 (F) captured at t1; lightSelf's at t6.
    let state = run.brain.state();
    let var = |name: &str| {
        state
            .variables
            .iter()
            .find(|v| v.name == name)
            .map(|v| v.values.clone())
    };
    assert_eq!(var("start,0,0"), Some(vec![fx, fy, fz, 90.0]));
    assert_eq!(var("start,0,arm"), Some(vec![0.0, 0.0, 0.0]));
    assert_eq!(var("lightSelf,0,0"), Some(vec![4.0, fy + 3.0, 5.0, 80.0]));
    assert_eq!(var("lightOther,0,arm"), Some(vec![0.0, 30.0, 0.0]));
    assert_eq!(state.status, Status::Running);
    assert_eq!(state.active.len(), 1);
    assert_eq!(state.active[0].name, "start");
    assert_eq!(
        state.last_decision,
        "lightOther.decisions[0]: success -> start (delay 0)"
    );
}

/// BrainJS wrote the first resolved value of a variable back into the instructions, so a
/// second loop reused the first flame position. Here every pass re-captures.
#[test]
fn brainjs_froze_variables_each_loop_recaptures() {
    let mut run = Run::new();
    let second = Observation::at(30.0, 70.0, 10.0).with_confidence(90.0);
    let taper_at = |y: f64| Observation::at(0.0, y, 0.0).with_confidence(80.0);
    let mut visited = Vec::new();
    for t in 0..22 {
        let seen = match t {
            1 => vec![flame()],
            6 => vec![taper_at(F[1])],
            10 | 21 => vec![candle()],
            12 => vec![second],
            17 => vec![taper_at(70.0)],
            _ => vec![],
        };
        let out = run.tick(&seen);
        visited.push(out.target_mm);
    }
    // Second loop: start at t11, decision t12, lightSelf t13..t16 around the new flame.
    assert_eq!(visited[13], Some(p(0.0, 70.0, 0.0)));
    assert_eq!(visited[15], Some(p(30.0, 70.0, 10.0)));
    assert_eq!(
        visited[17],
        Some(p(0.0, 30.0, 0.0)),
        "second lightSelf passed against the new y"
    );
}

#[test]
fn no_observation_keeps_rerunning_start() {
    let mut run = Run::new();
    for t in 0..40u64 {
        // A flame seen with too low a confidence does not count either.
        let weak = [Observation::at(1.0, 2.0, 3.0).with_confidence(30.0)];
        let out = run.tick(if t % 4 == 1 { &weak } else { &[] });
        if t % 2 == 0 {
            assert_eq!(out.target_mm, Some(p(0.0, 0.0, 0.0)), "tick {t}");
            assert!(
                has(&out, "start: started")
                    || has(&out, &format!("start: started (repeat {})", t / 2))
            );
        } else {
            assert_eq!(out.target_mm, None, "tick {t}");
            let why = if t % 4 == 1 {
                "no observation matches object 0 (1 seen)"
            } else {
                "no observation matches object 0 (0 seen)"
            };
            let expected = format!("start.decisions[0]: fail ({why}) -> start (delay 0)");
            assert!(has(&out, &expected), "tick {t}: {:?}", texts(&out));
        }
        assert!(!texts(&out)
            .iter()
            .any(|e| e.contains("lightSelf") || e.contains("reset")));
    }
    assert_eq!(run.brain.state().scheduled[0].name, "start");
}

#[test]
fn verification_failure_retries_then_resets_to_start() {
    let mut run = Run::new();
    run.tick(&[]);
    run.tick(&[flame()]);
    let out = run.tick(&[]); // t2: lightSelf step 0 -> (0, F.y, 0)
    assert_eq!(out.target_mm, Some(p(0.0, F[1], 0.0)));
    // The arm is blocked at home: 60 mm short on y.
    let home = Some(p(0.0, 0.0, 0.0));
    for (t, failure) in (3..6).zip(1..) {
        let out = run.tick_with(home, &[]);
        assert_eq!(
            out.target_mm,
            Some(p(0.0, F[1], 0.0)),
            "tick {t}: step 0 re-sent"
        );
        assert!(out.events.iter().any(|e| matches!(e,
            Event::VerificationFailed { action, step: 0, retries, .. } if action == "lightSelf" && *retries == failure)));
        assert!(out.events.iter().any(|e| matches!(
            e,
            Event::StepSent {
                step: 0,
                retry: true,
                ..
            }
        )));
        assert_eq!(run.brain.state().active[0].retries, failure);
    }
    // Fourth failure > reset.timeout 3: lightSelf is dropped, start runs next tick.
    let out = run.tick_with(home, &[]);
    assert_eq!(out.target_mm, None);
    assert!(out.events.contains(&Event::Reset {
        action: "lightSelf".into(),
        cause: ResetCause::Verification,
        next: "start".into(),
        delay: 0,
    }));
    let out = run.tick_with(home, &[]);
    assert_eq!(out.target_mm, Some(p(0.0, 0.0, 0.0)));
    assert!(has(&out, "start: started"));
}

/// While the move to a step's target is still working around an obstacle (a detour, an
/// approach), its verification waits for the result: no failure counted, the target held;
/// once the move is over, the arm at the target passes; an arm still short fails as usual.
#[test]
fn verification_waits_for_a_move_working_around_an_obstacle() {
    let mut run = Run::new();
    run.tick(&[]);
    run.tick(&[flame()]);
    let out = run.tick(&[]); // t2: lightSelf step 0 -> (0, F.y, 0)
    let target = p(0.0, F[1], 0.0);
    assert_eq!(out.target_mm, Some(target));
    let short = Some(p(0.0, 10.0, 40.0)); // on its way round
    for k in 1..=5u32 {
        let out = run.brain.tick_with(short, &[], true);
        assert_eq!(out.target_mm, Some(target), "held, not re-sent as a retry");
        assert!(
            out.events.iter().any(|e| matches!(e,
                Event::WaitingForMove { action, step: 0, ticks, .. } if action == "lightSelf" && *ticks == k)),
            "{:?}",
            texts(&out)
        );
        assert!(!out
            .events
            .iter()
            .any(|e| matches!(e, Event::VerificationFailed { .. } | Event::StepSent { .. })));
        assert_eq!(run.brain.state().active[0].retries, 0);
    }
    // The detour arrived: verified, step 1 sent.
    let out = run.brain.tick_with(Some(target), &[], false);
    assert!(out.events.iter().any(|e| matches!(
        e,
        Event::StepSent {
            step: 1,
            retry: false,
            ..
        }
    )));
    // A move that is over and short: a failure, as before.
    let out = run.brain.tick_with(Some(p(0.0, 0.0, 0.0)), &[], false);
    assert!(out
        .events
        .iter()
        .any(|e| matches!(e, Event::VerificationFailed { retries: 1, .. })));
}

/// A move that works around forever does not hold the task for ever.
#[test]
fn waiting_for_a_move_is_bounded() {
    let mut run = Run::new();
    run.tick(&[]);
    run.tick(&[flame()]);
    run.tick(&[]);
    let short = Some(p(0.0, 10.0, 40.0));
    for _ in 0..MAX_MOVE_WAIT_TICKS {
        let out = run.brain.tick_with(short, &[], true);
        assert!(out
            .events
            .iter()
            .any(|e| matches!(e, Event::WaitingForMove { .. })));
    }
    let out = run.brain.tick_with(short, &[], true);
    assert!(
        out.events
            .iter()
            .any(|e| matches!(e, Event::VerificationFailed { retries: 1, .. })),
        "{:?}",
        texts(&out)
    );
}

#[test]
fn decision_failing_four_times_falls_back_to_reset_action() {
    let mut run = Run::new();
    run.tick(&[]);
    run.tick(&[flame()]);
    // lightSelf runs t2..t5 and decides at t6; nothing lights: fail -> lightSelf again.
    let mut decided = Vec::new();
    for t in 2..23u64 {
        let out = run.tick(&[]);
        if let Some(e) = out
            .events
            .iter()
            .find(|e| matches!(e, Event::DecisionFailed { .. }))
        {
            decided.push((t, e.to_string()));
        }
        if t == 21 {
            assert!(
                out.events.contains(&Event::Reset {
                    action: "lightSelf".into(),
                    cause: ResetCause::Repeats,
                    next: "start".into(),
                    delay: 0,
                }),
                "{:?}",
                texts(&out)
            );
            assert!(run
                .brain
                .state()
                .last_decision
                .ends_with("lightSelf: reset (repeat limit exceeded) -> start (delay 0)"));
        }
        if t == 22 {
            assert!(has(&out, "start: started"), "{:?}", texts(&out));
            assert_eq!(out.target_mm, Some(p(0.0, 0.0, 0.0)));
        }
        if (7..=17).contains(&t) && (t - 7) % 5 == 0 {
            let repeat = (t - 7) / 5 + 1;
            assert!(
                has(&out, &format!("lightSelf: started (repeat {repeat})")),
                "tick {t}: {:?}",
                texts(&out)
            );
        }
    }
    let ticks: Vec<u64> = decided.iter().map(|(t, _)| *t).collect();
    assert_eq!(ticks, vec![6, 11, 16, 21]);
    assert!(
        decided[0]
            .1
            .starts_with("lightSelf.decisions[0]: fail (arm y = 60 outside")
            || decided[0].1.contains("no observation"),
        "{}",
        decided[0].1
    );
}

#[test]
fn stale_arm_pauses_decisions_instead_of_passing_them() {
    let mut run = Run::new();
    run.tick(&[]);
    // t1: no arm position: start holds its target, its decision waits.
    let out = run.tick_with(None, &[flame()]);
    assert_eq!(out.target_mm, Some(p(0.0, 0.0, 0.0)));
    assert!(out.events.contains(&Event::Paused {
        action: "start".into()
    }));
    assert!(!out.events.iter().any(|e| matches!(
        e,
        Event::DecisionPassed { .. } | Event::DecisionFailed { .. }
    )));
    assert!(run.brain.state().paused);
    assert!(run.brain.variables().is_empty());
    // Still stale, a non-finite position counts as stale too.
    let out = run.tick_with(Some(p(f64::NAN, 0.0, 0.0)), &[flame()]);
    assert!(out.events.contains(&Event::Paused {
        action: "start".into()
    }));
    // Fresh again: the decision is taken now.
    let out = run.tick(&[flame()]);
    assert!(has(
        &out,
        "start.decisions[0]: success -> lightSelf (delay 0)"
    ));
    assert!(!run.brain.state().paused);
}

#[test]
fn cancel_stops_the_task() {
    let mut run = Run::new();
    for _ in 0..4 {
        run.tick(&[flame()]);
    }
    assert_eq!(run.brain.cancel(), Some(Event::Cancelled));
    assert_eq!(run.brain.cancel(), None);
    let state = run.brain.state();
    assert_eq!(state.status, Status::Cancelled);
    assert!(state.active.is_empty() && state.scheduled.is_empty());
    let out = run.tick(&[flame()]);
    assert_eq!(out.target_mm, None);
    assert!(out.events.is_empty());
    assert_eq!(
        Status::Cancelled.outcome(),
        Some(arnie_brain::Outcome::Cancelled)
    );
}

#[test]
fn tick_limit_and_initial_action_override() {
    let text = std::fs::read_to_string(INSTRUCTIONS).expect("reference");
    let instructions = arnie_brain::load(&text).expect("loads");
    assert!(Brain::starting_at(instructions.clone(), "lightSelf2").is_err());
    let mut b = Brain::starting_at(instructions, "lightOther")
        .expect("known")
        .with_max_ticks(3);
    let first = b.tick(Some(Point3::origin()), &[]);
    assert_eq!(first.target_mm, Some(p(0.0, 30.0, 0.0)));
    b.tick(Some(p(0.0, 30.0, 0.0)), &[]);
    let out = b.tick(Some(p(-95.0, 30.0, 0.0)), &[]);
    assert!(out.events.contains(&Event::TickLimitReached { ticks: 3 }));
    assert_eq!(b.status(), Status::TickLimit);
    assert_eq!(b.tick(None, &[]).target_mm, None);
}

/// lightSelf started before start ever captured `start,0,0`: BrainJS threw a TypeError.
#[test]
fn missing_variable_holds_then_resets() {
    let text = std::fs::read_to_string(INSTRUCTIONS).expect("reference");
    let mut b =
        Brain::starting_at(arnie_brain::load(&text).expect("loads"), "lightSelf").expect("known");
    for t in 0..3 {
        let out = b.tick(Some(Point3::origin()), &[]);
        assert_eq!(out.target_mm, None);
        assert!(
            out.events.contains(&Event::MissingVariable {
                action: "lightSelf".into(),
                step: 0,
                variable: "start,0,0".into()
            }),
            "tick {t}"
        );
    }
    let out = b.tick(Some(Point3::origin()), &[]);
    assert!(out.events.iter().any(|e| matches!(
        e,
        Event::Reset {
            cause: ResetCause::MissingVariable,
            ..
        }
    )));
    let out = b.tick(Some(Point3::origin()), &[]);
    assert_eq!(out.target_mm, Some(Point3::origin()));
    assert!(has(&out, "start: started"));
}
