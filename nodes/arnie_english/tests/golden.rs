//! The sample of the original Decypher (`decypher/sample.txt`, read by path) compiles to the
//! instructions its English describes (`tests/golden/sample.json`, written by hand from the
//! English), with exactly the two documented readings; every difference from the reference
//! `instructions.json` is listed in README.md; and the brain runs the compiled sample.
mod common;

use arnie_brain::{Brain, Observation};
use arnie_english::{compile_with, Options, Severity};
use nalgebra::Point3;

const GOLDEN: &str = include_str!("golden/sample.json");

#[test]
fn sample_compiles_to_the_golden_instructions() {
    let compiled = compile_with(&common::sample(), Options::default());
    let got = compiled.instructions.expect("the sample compiles");
    let want = arnie_brain::load(GOLDEN).expect("the golden file loads");
    assert_eq!(got, want);
    // The JSON the CLI writes loads back to the same instructions.
    assert_eq!(arnie_brain::load(&arnie_english::to_json(&got)), Ok(want));
}

#[test]
fn sample_needs_exactly_the_two_documented_readings() {
    let compiled = compile_with(&common::sample(), Options::default());
    let shown: Vec<String> = compiled
        .diagnostics
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        shown,
        [
            "line 35, column 98: warning: read `posision` as `position` in \"The arm's y position \
             must be the position of the object found in start action testLit decision y posision \
             (threshold 10) for testLit.\"",
            "line 37, column 140: warning: missing `)`: read as closed after the threshold in \
             \"There must be one object, at x position 0 (threshold 10), y position equal to the \
             object found in start action testLit decision y position (threshold 10, z position 0 \
             (threshold 10), with a certainty of 75 (threshold 25) for testLit.\"",
        ]
    );
    // Strictly, both are errors, and nothing else is.
    let strict = compile_with(&common::sample(), Options { strict: true });
    assert!(strict.instructions.is_none());
    assert_eq!(strict.diagnostics.len(), 2);
    assert!(strict
        .diagnostics
        .iter()
        .all(|d| d.severity == Severity::Error));
}

#[test]
fn every_difference_from_the_reference_is_documented() {
    let english = arnie_english::compile(&common::sample()).expect("compiles");
    let left: serde_json::Value =
        serde_json::from_str(&arnie_english::to_json(&english)).expect("json");
    let right: serde_json::Value = serde_json::from_str(&common::read(
        &common::reference().join("instructions.json"),
    ))
    .expect("reference json");
    let diffs = common::differences(&left, &right);
    let readme = common::read(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"));
    let missing: Vec<&String> = diffs
        .iter()
        .filter(|d| !readme.contains(d.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "README.md lacks these rows:\n{}",
        missing
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert_eq!(diffs.len(), 22, "{}", diffs.join("\n"));
}

/// A perfect arm (at each target by the next tick), the source flame where the simulator
/// puts it, the taper lit when the arm passes the source, the candle lit when the lit taper
/// reaches it. The English puts the candle at (-50, 50, 50) (its third lightOther step).
#[test]
fn the_brain_passes_the_flame_with_the_compiled_sample() {
    let instructions = arnie_english::compile(&common::sample()).expect("compiles");
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
