//! The loader: the reference instructions.json loads unchanged (read by path), and every
//! kind of fault is rejected with an error naming its path and the problem.

use arnie_brain::model::{Check, Value};
use arnie_brain::vars::Slot;
use arnie_brain::{load, BrainError};
use serde_json::json;

const INSTRUCTIONS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/reference/arnie/instructions.json"
);

fn reference_text() -> String {
    std::fs::read_to_string(INSTRUCTIONS).expect("reference instructions.json")
}

fn reference() -> serde_json::Value {
    serde_json::from_str(&reference_text()).expect("reference is JSON")
}

/// Load the reference with one change; the error's text.
fn error_after(change: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v = reference();
    change(&mut v);
    match load(&v.to_string()) {
        Ok(_) => panic!("mutated file loaded"),
        Err(e) => e.to_string(),
    }
}

fn at<'a>(v: &'a mut serde_json::Value, pointer: &str) -> &'a mut serde_json::Value {
    v.pointer_mut(pointer)
        .unwrap_or_else(|| panic!("no {pointer} in the reference"))
}

#[test]
fn reference_loads_unchanged() {
    let i = load(&reference_text()).expect("reference loads");
    let names: Vec<&str> = i.actions().iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["lightOther", "lightSelf", "start"]);
    assert_eq!(i.name(i.initial_action()), "start");
    let light_self = i.action(i.find("lightSelf").expect("lightSelf"));
    assert_eq!(light_self.trajectory.len(), 4);
    assert!(light_self.verify);
    let Value::Var(var) = &light_self.trajectory[2].axes[0] else {
        panic!("x of step 2 is a variable")
    };
    assert_eq!(
        (var.text.as_str(), var.action, var.decision, var.slot),
        (
            "start,0,0",
            i.find("start").expect("start"),
            0,
            Slot::Object(0)
        )
    );
    let d = &light_self.decisions[0];
    assert_eq!(d.execute_after, 3);
    assert_eq!(
        d.arm[0],
        Check::Within {
            value: Value::Num(0.0),
            tolerance: 15.0
        }
    );
    assert_eq!(d.objects[0].axes[2], Check::Any);
    assert_eq!(d.objects[0].certainty, Some((75.0, 25.0)));
    assert_eq!(
        (i.name(d.success.action), d.success.delay),
        ("lightOther", -1)
    );
    let reset = light_self.reset.expect("reset");
    assert_eq!(
        (reset.max_retries, i.name(reset.next.action)),
        (Some(3), "start")
    );
    let start = i.action(i.find("start").expect("start"));
    assert_eq!(
        start.reset.map(|r| r.max_retries),
        Some(None),
        "timeout -1 = unlimited"
    );
}

#[test]
fn unknown_action_names_the_path() {
    let e = error_after(|v| {
        *at(v, "/actions/lightSelf/decisions/0/success/action") = json!("lightSelf2")
    });
    assert_eq!(
        e,
        r#"actions.lightSelf.decisions[0].success.action: unknown action "lightSelf2""#
    );
    let e = error_after(|v| *at(v, "/actions/start/reset/action") = json!("nowhere"));
    assert_eq!(e, r#"actions.start.reset.action: unknown action "nowhere""#);
    let e = error_after(|v| *at(v, "/initialAction") = json!("begin"));
    assert_eq!(e, r#"initialAction: unknown action "begin""#);
}

#[test]
fn variables_must_name_an_existing_action_decision_and_object() {
    let e = error_after(|v| *at(v, "/actions/lightSelf/trajectory/0/y") = json!("stop,0,0"));
    assert_eq!(
        e,
        r#"actions.lightSelf.trajectory[0].y: variable "stop,0,0" names unknown action "stop""#
    );
    let e = error_after(|v| *at(v, "/actions/lightSelf/trajectory/1/z") = json!("start,1,0"));
    assert_eq!(
        e,
        r#"actions.lightSelf.trajectory[1].z: variable "start,1,0" names a missing decision (the action has 1)"#
    );
    let e = error_after(|v| {
        *at(v, "/actions/lightSelf/decisions/0/state/arm/y/0") = json!("start,0,1")
    });
    assert_eq!(
        e,
        r#"actions.lightSelf.decisions[0].state.arm.y: variable "start,0,1" names a missing object check (the decision has 1)"#
    );
    let e = error_after(|v| *at(v, "/actions/lightSelf/trajectory/2/x") = json!("start-0-0"));
    assert!(
        e.starts_with(r#"actions.lightSelf.trajectory[2].x: "start-0-0" is not a variable"#),
        "{e}"
    );
    // "arm" is always there once the decision exists.
    let mut v = reference();
    *at(&mut v, "/actions/lightSelf/trajectory/0/x") = json!("lightOther,0,arm");
    assert!(load(&v.to_string()).is_ok());
}

#[test]
fn checks_are_minus_one_or_value_and_tolerance() {
    for bad in [
        json!(5),
        json!(0),
        json!([1, 2, 3]),
        json!([1]),
        json!("start,0,0"),
        json!({}),
        json!([true, 1]),
        json!([1, "2"]),
    ] {
        let e = error_after(|v| *at(v, "/actions/lightSelf/decisions/0/state/arm/x") = bad.clone());
        assert_eq!(
            e,
            "actions.lightSelf.decisions[0].state.arm.x: a check must be -1 or [value, tolerance]",
            "{bad}"
        );
    }
    let e = error_after(|v| {
        *at(v, "/actions/lightOther/decisions/0/state/objects/0/y") = json!([15, -1])
    });
    assert_eq!(
        e,
        "actions.lightOther.decisions[0].state.objects[0].y: tolerance -1 is negative"
    );
    let e = error_after(|v| {
        *at(v, "/actions/start/decisions/0/state/objects/0/certainty") = json!(["start,0,0", 5])
    });
    assert_eq!(e, "actions.start.decisions[0].state.objects[0].certainty: a check must be -1 or [value, tolerance]");
}

#[test]
fn steps_need_every_axis() {
    let e = error_after(|v| {
        at(v, "/actions/lightSelf/trajectory/1")
            .as_object_mut()
            .expect("step")
            .remove("z");
    });
    assert_eq!(e, r#"actions.lightSelf.trajectory[1]: missing axis "z""#);
    let e = error_after(|v| {
        at(v, "/actions/start/decisions/0/state/arm")
            .as_object_mut()
            .expect("arm")
            .remove("x");
    });
    assert_eq!(
        e,
        r#"actions.start.decisions[0].state.arm: missing axis "x""#
    );
    let e = error_after(|v| *at(v, "/actions/start/trajectory/0/y") = json!(null));
    assert_eq!(
        e,
        "actions.start.trajectory[0].y: expected a number or a variable name, found null"
    );
}

#[test]
fn empty_sets_and_ranges_are_rejected() {
    assert_eq!(
        error_after(|v| *at(v, "/actions") = json!({})),
        "actions: the action set is empty"
    );
    assert_eq!(
        error_after(|v| *at(v, "/actions/start/trajectory") = json!([])),
        "actions.start.trajectory: the trajectory has no steps"
    );
    assert_eq!(
        error_after(|v| *at(v, "/actions/lightOther/decisions/0/executeAfter") = json!(4)),
        "actions.lightOther.decisions[0].executeAfter: executeAfter 4 is past the last step (the trajectory has 4)"
    );
    assert_eq!(
        error_after(|v| *at(v, "/actions/lightOther/decisions/0/executeAfter") = json!(-1)),
        "actions.lightOther.decisions[0].executeAfter: expected an integer >= 0, found -1"
    );
    assert_eq!(
        error_after(|v| *at(v, "/actions/start/decisions/0/fail/delay") = json!(-2)),
        "actions.start.decisions[0].fail.delay: expected an integer >= -1, found -2"
    );
    assert_eq!(
        error_after(|v| *at(v, "/actions/start/decisions/0/fail/delay") = json!(0.5)),
        "actions.start.decisions[0].fail.delay: expected an integer >= -1, found 0.5"
    );
    assert_eq!(
        error_after(|v| *at(v, "/actions/lightSelf/reset/timeout") = json!(-3)),
        "actions.lightSelf.reset.timeout: expected an integer >= -1, found -3"
    );
}

#[test]
fn shape_errors_name_the_field() {
    let e = error_after(|v| {
        let a = at(v, "/actions/start").as_object_mut().expect("action");
        let t = a.remove("trajectoryVerification").expect("key");
        a.insert("trajectoryVerfication".into(), t);
    });
    assert_eq!(e, r#"actions.start: unknown field "trajectoryVerfication""#);
    let e = error_after(|v| {
        at(v, "/actions/lightSelf/decisions/0")
            .as_object_mut()
            .expect("decision")
            .remove("fail");
    });
    assert_eq!(e, r#"actions.lightSelf.decisions[0]: missing field "fail""#);
    let e = error_after(|v| *at(v, "/actions/lightSelf/trajectoryVerification") = json!("yes"));
    assert_eq!(
        e,
        "actions.lightSelf.trajectoryVerification: expected a boolean, found a string"
    );
    let e = error_after(|v| *at(v, "/actions/lightSelf/decisions") = json!({}));
    assert_eq!(
        e,
        "actions.lightSelf.decisions: expected an array, found an object"
    );
    assert_eq!(
        error_after(|v| *v = json!([])),
        "(root): expected an object, found an array"
    );
    assert_eq!(
        error_after(|v| {
            v.as_object_mut().expect("root").remove("initialAction");
        }),
        r#"(root): missing field "initialAction""#
    );
}

#[test]
fn optional_keys_take_brainjs_defaults() {
    let text = json!({
        "initialAction": "a",
        "actions": { "a": { "trajectory": [{"x": 1, "y": 2, "z": 3}] } }
    });
    let i = load(&text.to_string()).expect("minimal file loads");
    let a = &i.actions()[0];
    assert!(!a.verify && a.decisions.is_empty() && a.reset.is_none());
    let with_default_delay = json!({
        "initialAction": "a",
        "actions": { "a": {
            "trajectory": [{"x": 1, "y": 2, "z": 3}],
            "decisions": [{"executeAfter": 0, "state": {"arm": {"x": -1, "y": -1, "z": -1}, "objects": []},
                           "success": {"action": "a"}, "fail": {"action": "a"}}]
        } }
    });
    let i = load(&with_default_delay.to_string()).expect("loads");
    assert_eq!(i.actions()[0].decisions[0].success.delay, 0);
}

#[test]
fn not_json_reports_the_position() {
    let e = load("{\n  \"actions\": ").unwrap_err();
    assert!(matches!(e, BrainError::Json { line: 2, .. }), "{e:?}");
    assert!(e.to_string().starts_with("invalid JSON at line 2"), "{e}");
    assert!(load("").is_err());
    assert!(load("[1e999]").is_err());
}
