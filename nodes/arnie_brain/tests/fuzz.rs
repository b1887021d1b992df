//! Property tests: loading never panics on any input, and the core never panics, stays
//! bounded and is deterministic on any loadable file and any inputs.

use arnie_brain::{load, Brain, Event, Observation, MAX_ACTIONS};
use nalgebra::Point3;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

const INSTRUCTIONS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/reference/arnie/instructions.json"
);

fn reference() -> Value {
    let text = std::fs::read_to_string(INSTRUCTIONS).expect("reference instructions.json");
    serde_json::from_str(&text).expect("reference is JSON")
}

/// Keys of the schema (and a typo), so random objects reach deep into the loader.
const KEYS: &[&str] = &[
    "initialAction",
    "actions",
    "start",
    "trajectory",
    "trajectoryVerification",
    "decisions",
    "reset",
    "executeAfter",
    "state",
    "arm",
    "objects",
    "x",
    "y",
    "z",
    "certainty",
    "success",
    "fail",
    "action",
    "delay",
    "timeout",
    "zz",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-200i64..200).prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        Just(json!(-1)),
        Just(json!("start")),
        Just(json!("start,0,0")),
        Just(json!("start,0,arm")),
        "[a-z0-9,]{0,12}".prop_map(Value::String),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(5, 96, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..6).prop_map(|kv| {
                Value::Object(
                    kv.into_iter()
                        .map(|(k, v)| (k.to_owned(), v))
                        .collect::<Map<_, _>>(),
                )
            }),
        ]
    })
}

/// Every JSON pointer of a value.
fn pointers(v: &Value, here: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                let p = format!("{here}/{k}");
                out.push(p.clone());
                pointers(c, p, out);
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate() {
                let p = format!("{here}/{i}");
                out.push(p.clone());
                pointers(c, p, out);
            }
        }
        _ => {}
    }
}

fn arm() -> impl Strategy<Value = Option<Point3<f64>>> {
    prop_oneof![
        1 => Just(None),
        1 => Just(Some(Point3::new(f64::NAN, 0.0, 0.0))),
        8 => (-150.0f64..150.0, -150.0f64..150.0, -150.0f64..150.0).prop_map(|(x, y, z)| Some(Point3::new(x, y, z))),
    ]
}

fn observations() -> impl Strategy<Value = Vec<Observation>> {
    prop::collection::vec(
        (
            -150.0f64..150.0,
            -150.0f64..150.0,
            -150.0f64..150.0,
            prop::option::of(0.0f64..100.0),
        )
            .prop_map(|(x, y, z, c)| Observation {
                position_mm: Point3::new(x, y, z),
                confidence: c,
            }),
        0..4,
    )
}

/// Run `ticks` ticks; check the invariants of every tick; return the outputs.
fn run(
    text: &str,
    inputs: &[(Option<Point3<f64>>, Vec<Observation>)],
) -> Option<Vec<arnie_brain::TickOutput>> {
    let instructions = load(text).ok()?;
    let mut b = Brain::new(instructions);
    let mut outs = Vec::new();
    for (arm, seen) in inputs {
        let out = b.tick(*arm, seen);
        let sent = out
            .events
            .iter()
            .any(|e| matches!(e, Event::StepSent { .. }));
        assert!(
            !sent || out.target_mm.is_some(),
            "a step was sent but no target: {:?}",
            out.events
        );
        assert_eq!(
            out.target_mm.is_none(),
            out.events.contains(&Event::Idle)
                || b.status() != arnie_brain::Status::Running && out.events.is_empty()
        );
        let s = b.state();
        assert!(s.active.len() + s.scheduled.len() <= MAX_ACTIONS);
        outs.push(out);
    }
    Some(outs)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn loading_arbitrary_text_never_panics(text in ".{0,200}") {
        let _ = load(&text);
    }

    #[test]
    fn loading_arbitrary_json_never_panics(v in json_value()) {
        let _ = load(&v.to_string());
        let _ = load(&json!({"initialAction": "start", "actions": {"start": v}}).to_string());
    }

    /// Replace or remove one value of the reference file; load; if it loads, run it.
    #[test]
    fn mutated_reference_never_panics(pick in any::<prop::sample::Index>(), remove in any::<bool>(),
                                      with in json_value(),
                                      inputs in prop::collection::vec((arm(), observations()), 0..40)) {
        let mut v = reference();
        let mut ptrs = Vec::new();
        pointers(&v, String::new(), &mut ptrs);
        let ptr = pick.get(&ptrs).clone();
        let (parent, key) = ptr.rsplit_once('/').expect("pointer has a slash");
        if remove {
            match v.pointer_mut(parent) {
                Some(Value::Object(m)) => { m.remove(key); }
                Some(Value::Array(a)) => { if let Ok(i) = key.parse::<usize>() { if i < a.len() { a.remove(i); } } }
                _ => {}
            }
        } else if let Some(slot) = v.pointer_mut(&ptr) {
            *slot = with;
        }
        let text = v.to_string();
        let first = run(&text, &inputs);
        // Deterministic: the same inputs give the same outputs.
        prop_assert_eq!(first, run(&text, &inputs));
    }
}

/// Generated, mostly valid instructions: up to 3 actions whose steps, checks and
/// variables point at each other, with delays from -1 to 2 and small reset caps.
fn instructions() -> impl Strategy<Value = String> {
    let value = || {
        prop_oneof![
            (-100i64..100).prop_map(Value::from),
            (0usize..3, prop::bool::ANY).prop_map(|(a, arm)| Value::from(if arm {
                format!("a{a},0,arm")
            } else {
                format!("a{a},0,0")
            })),
        ]
    };
    let check = move || {
        prop_oneof![
            Just(json!(-1)),
            (value(), 0u32..60).prop_map(|(v, t)| json!([v, t]))
        ]
    };
    let next =
        || (0usize..3, -1i64..3).prop_map(|(a, d)| json!({"action": format!("a{a}"), "delay": d}));
    let step =
        move || (value(), value(), value()).prop_map(|(x, y, z)| json!({"x": x, "y": y, "z": z}));
    let object = move || {
        (
            check(),
            check(),
            check(),
            prop::option::of((0u32..100, 0u32..50)),
        )
            .prop_map(|(x, y, z, c)| match c {
                Some((v, t)) => json!({"x": x, "y": y, "z": z, "certainty": [v, t]}),
                None => json!({"x": x, "y": y, "z": z}),
            })
    };
    let decision = move |steps: usize| {
        (0..steps, check(), check(), check(), prop::collection::vec(object(), 1..3), next(), next())
        .prop_map(|(k, x, y, z, objects, s, f)| json!({
            "executeAfter": k, "state": {"arm": {"x": x, "y": y, "z": z}, "objects": objects},
            "success": s, "fail": f,
        }))
    };
    let action = move || {
        (1usize..5).prop_flat_map(move |steps| (
        prop::collection::vec(step(), steps),
        any::<bool>(),
        prop::collection::vec(decision(steps), 1..3),
        (-1i64..4, next()),
    )).prop_map(|(trajectory, verify, decisions, (timeout, reset))| {
        let mut reset = reset;
        reset["timeout"] = json!(timeout);
        json!({"trajectory": trajectory, "trajectoryVerification": verify, "decisions": decisions, "reset": reset})
    })
    };
    prop::collection::vec(action(), 3).prop_map(|actions| {
        let map: Map<String, Value> = actions
            .into_iter()
            .enumerate()
            .map(|(i, a)| (format!("a{i}"), a))
            .collect();
        json!({"initialAction": "a0", "actions": map}).to_string()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn generated_instructions_run_bounded_and_deterministic(
        text in instructions(),
        inputs in prop::collection::vec((arm(), observations()), 1..60),
    ) {
        prop_assert!(load(&text).is_ok(), "{}", load(&text).unwrap_err());
        let first = run(&text, &inputs);
        prop_assert_eq!(first, run(&text, &inputs));
    }
}
