//! The sample of the original Decypher (`decypher/sample.txt`, read by path) compiles to the
//! instructions its English describes (`tests/golden/sample.json`, written by hand from the
//! English), with exactly the two documented readings; every difference from the reference
//! `instructions.json` is listed in README.md. (That the brain runs the compiled sample is
//! the brain's test: `nodes/arnie_brain/tests/english.rs`.)
mod common;

use arnie_english::{compile_with, Options, Severity};

const GOLDEN: &str = include_str!("golden/sample.json");

#[test]
fn sample_compiles_to_the_golden_instructions() {
    let compiled = compile_with(&common::sample(), Options::default());
    let got = compiled.instructions.expect("the sample compiles");
    let want = arnie_instructions::load(GOLDEN).expect("the golden file loads");
    assert_eq!(got, want);
    // The JSON the CLI writes loads back to the same instructions.
    assert_eq!(
        arnie_instructions::load(&arnie_english::to_json(&got)),
        Ok(want)
    );
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
