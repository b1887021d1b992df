//! Strategy files (nodes/arnie_strategy `task`): any text is a checked `Strategy` or an
//! `Error` naming the field, never a panic; parsing is deterministic; and a checked
//! strategy has only finite coordinates.
#![no_main]
use arnie_strategy::Strategy;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Some(s) = arnie_fuzz::parse_twice(text, Strategy::from_json) else {
        return;
    };
    assert!(!s.tasks.is_empty(), "a strategy without tasks");
    let finite = |p: &arnie_strategy::Point| p.x.is_finite() && p.y.is_finite() && p.z.is_finite();
    assert!(finite(&s.start), "start not finite");
    assert!(
        s.min_cost_m.is_finite() && s.min_cost_m > 0.0,
        "min_cost_m {}",
        s.min_cost_m
    );
    for t in &s.tasks {
        assert!(
            finite(&t.approach) && t.points.is_finite(),
            "task {} not finite",
            t.name
        );
    }
});
