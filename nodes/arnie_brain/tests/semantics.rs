//! Tick semantics on small hand-written files: summing of concurrent actions, delays,
//! decision timing, and the bound on fan-out.

use arnie_brain::{Brain, Event, Status, MAX_ACTIONS};
use nalgebra::Point3;
use serde_json::json;

fn any3() -> serde_json::Value {
    json!({"x": -1, "y": -1, "z": -1})
}

fn decision(k: usize, success: &str, s_delay: i64, fail: &str) -> serde_json::Value {
    json!({"executeAfter": k, "state": {"arm": any3(), "objects": []},
           "success": {"action": success, "delay": s_delay}, "fail": {"action": fail, "delay": 0}})
}

fn step(x: f64, y: f64, z: f64) -> serde_json::Value {
    json!({"x": x, "y": y, "z": z})
}

fn p(x: f64, y: f64, z: f64) -> Option<Point3<f64>> {
    Some(Point3::new(x, y, z))
}

fn brain(v: serde_json::Value) -> Brain {
    Brain::from_json(&v.to_string()).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn concurrent_actions_are_summed_per_axis_and_decisions_run_mid_trajectory() {
    // "main" decides after its step 0 (evaluated on tick 1) and starts "wiggle" in the same
    // tick, while it goes on with its own steps: the targets add up.
    let mut b = brain(json!({
        "initialAction": "main",
        "actions": {
            "main": {"trajectory": [step(100.0, 0.0, 0.0), step(100.0, 50.0, 0.0), step(0.0, 0.0, 0.0)],
                     "decisions": [decision(0, "wiggle", -1, "main")]},
            "wiggle": {"trajectory": [step(1.0, 2.0, 3.0), step(-1.0, -2.0, -3.0)]}
        }
    }));
    let arm = Some(Point3::origin());
    let targets: Vec<_> = (0..5).map(|_| b.tick(arm, &[]).target_mm).collect();
    assert_eq!(
        targets,
        vec![
            p(100.0, 0.0, 0.0),
            p(101.0, 52.0, 3.0),
            p(-1.0, -2.0, -3.0),
            None,
            None
        ]
    );
    assert_eq!(b.status(), Status::Finished);
}

#[test]
fn delay_d_starts_d_plus_one_ticks_later() {
    for delay in [0i64, 1, 3] {
        let mut b = brain(json!({
            "initialAction": "a",
            "actions": {
                "a": {"trajectory": [step(1.0, 1.0, 1.0)], "decisions": [decision(0, "b", delay, "b")]},
                "b": {"trajectory": [step(2.0, 2.0, 2.0)]}
            }
        }));
        let mut started = None;
        for t in 0..10u64 {
            let out = b.tick(Some(Point3::origin()), &[]);
            if out.events.contains(&Event::ActionStarted {
                action: "b".into(),
                repeats: 0,
            }) {
                started = Some(t);
                assert_eq!(out.target_mm, p(2.0, 2.0, 2.0));
            }
        }
        // The decision is taken on tick 1; delay d → tick 1 + d + 1.
        assert_eq!(started, Some(2 + delay as u64), "delay {delay}");
        assert_eq!(b.status(), Status::Finished);
    }
}

#[test]
fn idle_ticks_send_no_target() {
    // BrainJS sent "0,0,0" on a tick without any step; here the target is None.
    let mut b = brain(json!({
        "initialAction": "a",
        "actions": {
            "a": {"trajectory": [step(10.0, 20.0, 30.0)], "decisions": [decision(0, "a", 2, "a")]}
        }
    }));
    let outs: Vec<_> = (0..6)
        .map(|_| b.tick(Some(Point3::origin()), &[]))
        .collect();
    let targets: Vec<_> = outs.iter().map(|o| o.target_mm).collect();
    assert_eq!(
        targets,
        vec![
            p(10.0, 20.0, 30.0),
            None,
            None,
            None,
            p(10.0, 20.0, 30.0),
            None
        ]
    );
    assert!(outs[2].events.contains(&Event::Idle));
}

#[test]
fn fan_out_is_bounded() {
    // Two decisions after step 0, both restarting the action now: doubles every tick.
    let mut b = brain(json!({
        "initialAction": "a",
        "actions": {
            "a": {"trajectory": [step(0.0, 0.0, 0.0), step(0.0, 0.0, 0.0), step(0.0, 0.0, 0.0)],
                  "decisions": [decision(0, "a", -1, "a"), decision(0, "a", -1, "a")]}
        }
    }));
    let mut refused = 0;
    for _ in 0..20 {
        let out = b.tick(Some(Point3::origin()), &[]);
        refused += out
            .events
            .iter()
            .filter(|e| matches!(e, Event::TooManyActions { .. }))
            .count();
        let s = b.state();
        assert!(s.active.len() + s.scheduled.len() <= MAX_ACTIONS);
    }
    assert!(refused > 0);
}

#[test]
fn missing_variable_reset_with_delay_minus_one_does_not_loop_in_one_tick() {
    let mut b = brain(json!({
        "initialAction": "a",
        "actions": {
            "a": {"trajectory": [{"x": "a,0,arm", "y": 0, "z": 0}],
                  "decisions": [decision(0, "a", 0, "a")],
                  "reset": {"timeout": 0, "action": "a", "delay": -1}}
        }
    }));
    for _ in 0..5 {
        let out = b.tick(Some(Point3::origin()), &[]);
        assert_eq!(out.target_mm, None);
        assert_eq!(
            out.events
                .iter()
                .filter(|e| matches!(e, Event::Reset { .. }))
                .count(),
            1
        );
    }
}
