//! Every generated constant equals r2r's constant of the same interface, section and
//! name (r2r's come from the same files through rosidl and bindgen): a constant edited
//! in `msg/` without rebuilding the interfaces, or a parser mistake, fails here.
#![cfg(feature = "ros")]

include!(concat!(env!("OUT_DIR"), "/r2r_check.rs"));

#[test]
fn every_constant_equals_r2rs() {
    let mut failures = Vec::new();
    let n = compare(&mut failures);
    assert!(n >= 75, "only {n} constants compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
