//! The original Decypher sample (`decypher/sample.txt` of the reference files, read by
//! path), compiled by `arnie_english` as the node compiles an English task file, passes
//! the flame in the brain: the compiled instructions are not only well formed, they run.

use arnie_brain::{Brain, Observation};
use nalgebra::Point3;

fn sample() -> String {
    let dir = match std::env::var("ARNIE_REFERENCE") {
        Ok(p) => std::path::PathBuf::from(p),
        Err(_) => {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/reference/arnie")
        }
    };
    let path = dir.join("decypher/sample.txt");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A perfect arm (at each target by the next tick), the source flame where the simulator
/// puts it, the taper lit when the arm passes the source, the candle lit when the lit taper
/// reaches it. The English puts the candle at (-50, 50, 50) (its third lightOther step).
#[test]
fn the_brain_passes_the_flame_with_the_compiled_sample() {
    let instructions = arnie_english::compile(&sample()).expect("compiles");
    let mut brain = Brain::new(instructions).with_max_ticks(60);
    let source = Point3::new(60.0, 40.0, 30.0);
    let candle = Point3::new(-50.0, 50.0, 50.0);
    let (mut arm, mut taper_lit, mut candle_lit) = (Point3::origin(), false, false);
    let mut visited = Vec::new();
    for _ in 0..60 {
        let mut seen = vec![Observation::at(source.x, source.y, source.z).with_confidence(90.0)];
        if taper_lit {
            seen.push(Observation::at(arm.x, arm.y, arm.z).with_confidence(90.0));
        }
        if candle_lit {
            seen.push(Observation::at(candle.x, candle.y, candle.z).with_confidence(90.0));
        }
        let out = brain.tick(Some(arm), &seen);
        if let Some(t) = out.target_mm {
            arm = t;
            visited.push(t);
        }
        taper_lit |= (arm - source).norm() < 1.0;
        candle_lit |= taper_lit && (arm - candle).norm() < 1.0;
        let decided = brain.state().last_decision;
        assert!(
            !decided.contains("fail"),
            "a decision failed: {decided} (visited {visited:?})"
        );
        if decided.starts_with("lightOther.decisions[0]: success") {
            break;
        }
    }
    assert!(candle_lit, "the candle was never reached: {visited:?}");
    assert!(brain
        .state()
        .last_decision
        .starts_with("lightOther.decisions[0]: success -> start"));
    // lightSelf went x first (its second step), then z, as the English says.
    let i = visited
        .iter()
        .position(|p| *p == Point3::new(60.0, 40.0, 0.0))
        .expect("x first");
    assert_eq!(visited[i + 1], source);
}
