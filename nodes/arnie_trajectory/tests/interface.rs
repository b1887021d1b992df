//! The outcome and phase enums map 1:1 onto the constants of MoveTo.action (read from
//! the interface package, so a change there fails here).

use std::collections::BTreeMap;

use arnie_trajectory::{Outcome, Phase};

const ACTION: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../msg/arnie_interfaces/action/MoveTo.action"
);

/// `uint8 NAME=VALUE` constants of one section (0 goal, 1 result, 2 feedback).
fn constants(section: usize) -> BTreeMap<String, u8> {
    let text = std::fs::read_to_string(ACTION).expect("MoveTo.action is readable");
    let part = text.split("\n---").nth(section).expect("section exists");
    part.lines()
        .filter_map(|l| l.trim().strip_prefix("uint8 "))
        .filter_map(|l| l.split_once('='))
        .map(|(name, v)| (name.trim().to_owned(), v.trim().parse().expect("u8 value")))
        .collect()
}

#[test]
fn outcomes_match_the_result_constants() {
    let want = constants(1);
    let got: BTreeMap<String, u8> = Outcome::ALL
        .iter()
        .map(|o| (o.name().to_owned(), o.code()))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn phases_match_the_feedback_constants() {
    let want = constants(2);
    let got: BTreeMap<String, u8> = Phase::ALL
        .iter()
        .map(|p| (p.name().to_owned(), p.code()))
        .collect();
    assert_eq!(got, want);
}
