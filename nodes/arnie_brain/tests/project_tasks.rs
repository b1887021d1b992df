//! The task files the project ships (`params/tasks/*.json`, run by `cargo xtask demo`)
//! load, and our flame-passing task runs through lightSelf and lightOther when the arm
//! reaches every target and the flames are where the simulator puts them
//! (`params/scenario_flame.json`: source (60, 40, 30), candle (-95, 30, 45) mm).
use arnie_brain::{Brain, Observation};
use nalgebra::Point3;
use std::path::Path;

const TASKS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../params/tasks");

#[test]
fn every_shipped_task_loads() {
    let mut n = 0;
    for entry in std::fs::read_dir(TASKS).expect("params/tasks") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("readable");
        if let Err(e) = arnie_brain::load(&text) {
            panic!("{}: {e}", path.display());
        }
        n += 1;
    }
    assert!(n >= 1, "no task files found in {TASKS}");
}

#[test]
fn our_flame_passing_task_reaches_the_candle() {
    let text =
        std::fs::read_to_string(Path::new(TASKS).join("flame_passing.json")).expect("readable");
    let mut brain = Brain::from_json(&text).expect("loads");
    let (source, candle) = (
        Point3::new(60.0, 40.0, 30.0),
        Point3::new(-95.0, 30.0, 45.0),
    );
    let (mut arm, mut taper_lit, mut candle_lit) = (Point3::origin(), false, false);
    let mut visited = Vec::new();
    for _ in 0..40 {
        let mut seen = vec![Observation {
            position_mm: source,
            confidence: Some(90.0),
        }];
        if taper_lit {
            seen.push(Observation {
                position_mm: arm,
                confidence: Some(90.0),
            });
        }
        if candle_lit {
            seen.push(Observation {
                position_mm: candle,
                confidence: Some(90.0),
            });
        }
        let out = brain.tick(Some(arm), &seen);
        if let Some(t) = out.target_mm {
            arm = t; // a perfect arm, one tick per step
            visited.push(t);
        }
        taper_lit |= (arm - source).norm() < 1.0;
        candle_lit |= taper_lit && (arm - candle).norm() < 1.0;
        let decided = brain.state().last_decision;
        if decided.starts_with("lightOther.decisions[0]: success") {
            break;
        }
        assert!(
            !decided.contains("fail"),
            "a decision failed: {decided} (visited {visited:?})"
        );
    }
    assert!(candle_lit, "the candle was never reached: {visited:?}");
    let decided = brain.state().last_decision;
    assert!(
        decided.starts_with("lightOther.decisions[0]: success -> start"),
        "{decided}"
    );
}
