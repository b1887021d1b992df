//! The router on the reference config and on small hand-written ones: routing semantics
//! and one test per kind of bad input.

use std::net::SocketAddr;
use std::path::Path;

use arnie_spine::forward::HoldReason;
use arnie_spine::{wire, Config, Format, Item, Limits, Outcome, Rejected, Router, Scale, Verdict};

const REFERENCE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/reference/arnie/spine-config.json"
);

fn peer() -> SocketAddr {
    "127.0.0.1:40000".parse().unwrap()
}

fn le(values: &[f64]) -> Vec<u8> {
    values.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn reference_router() -> Router {
    Router::new(
        Config::load(Path::new(REFERENCE), None).unwrap(),
        Limits::default(),
    )
}

/// One csv input `a` → output `b` (threshold 50), both identity; `b` also has a topic.
fn small_router(extra_input: serde_json::Value) -> Router {
    let mut v = serde_json::json!({
        "host": "127.0.0.1",
        "transforms": { "default": "1 0 0 0;0 1 0 0;0 0 1 0;0 0 0 1" },
        "interfaces": {
            "input": {
                "a": { "port": 25001, "streamed": true, "format": "csv", "topic": "/a" },
                "c": { "port": 25002, "streamed": true, "format": "csv" }
            },
            "output": { "b": { "host": "127.0.0.1", "port": 25000, "format": "csv", "threshold": 50, "topic": "/b" } }
        },
        "connections": [ { "input": "a", "output": "b" }, { "input": "c", "output": "b" } ]
    });
    if let serde_json::Value::Object(extra) = extra_input {
        for (k, val) in extra {
            v["interfaces"]["input"]["a"][k] = val;
        }
    }
    Router::new(
        Config::from_json(&v.to_string(), None).unwrap(),
        Limits { max_datagram: 64 },
    )
}

#[test]
fn arm_fans_out_through_the_transforms() {
    let mut r = reference_router();
    let arm = r.input_id("arm").unwrap();
    let got = r.on_datagram(arm, peer(), &le(&[1.0, 2.0, 3.0]));
    assert_eq!(got.outcome, Outcome::Fresh);
    let mut names: Vec<&str> = got
        .emits
        .iter()
        .map(|e| r.config().outputs[e.output.index()].name.as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["arm-logger", "brain", "nn-brain", "pyt"]);
    for e in &got.emits {
        assert_eq!(e.global, vec![vec![-2.0, 1.0, 3.0]]);
        let name = &r.config().outputs[e.output.index()].name;
        let expect: Vec<u8> = match name.as_str() {
            // arm-logger has the arm transform: back to device coordinates
            "arm-logger" => b"1,2,3".to_vec(),
            "nn-brain" => le(&[-2.0, 1.0, 3.0]),
            _ => b"-2,1,3".to_vec(),
        };
        assert_eq!(e.bytes, expect, "{name}");
    }
    // Same value again: de-duplicated on the input, nothing sent.
    let again = r.on_datagram(arm, peer(), &le(&[1.0, 2.0, 3.0]));
    assert_eq!(again.outcome, Outcome::Duplicate);
    assert!(again.emits.is_empty());
    let c = r.input_counters(arm).unwrap();
    assert_eq!((c.received, c.forwarded, c.deduplicated), (2, 1, 1));
}

#[test]
fn arm_output_radius_check_drops_never_clamps() {
    let mut r = reference_router();
    let pyt = r.input_id("pyt").unwrap();
    let arm = r.output_id("arm").unwrap();
    let sends_to_arm =
        |got: &arnie_spine::Routed| got.emits.iter().find(|e| e.output == arm).cloned();

    // First value: not checked. Global (100,0,0) → arm device (0,-100,0).
    let first = r.on_datagram(pyt, peer(), b"100,0,0");
    assert_eq!(sends_to_arm(&first).unwrap().bytes, le(&[0.0, -100.0, 0.0]));
    // 40 mm away: sent.
    assert!(sends_to_arm(&r.on_datagram(pyt, peer(), b"100,40,0")).is_some());
    // 60 mm from the last sent: dropped and counted, not clamped.
    let far = r.on_datagram(pyt, peer(), b"100,100,0");
    assert!(sends_to_arm(&far).is_none());
    assert!(far.held.iter().any(|h| h.output == arm
        && matches!(h.reason, HoldReason::Gate(Verdict::TooFar { dist_mm, .. }) if (dist_mm - 60.0).abs() < 1e-9)));
    // The logger still gets it (no threshold there).
    assert!(far
        .emits
        .iter()
        .any(|e| r.config().outputs[e.output.index()].name == "mjt-logger"));
    // Within 50 mm of the last SENT value (100,40,0), not of the dropped one: sent.
    assert!(sends_to_arm(&r.on_datagram(pyt, peer(), b"100,80,0")).is_some());
    let c = r.output_counters(arm).unwrap();
    assert_eq!((c.received, c.forwarded, c.rejected_radius), (4, 3, 1));
}

#[test]
fn fan_in_shares_the_gate_and_topic_writes_too() {
    let mut r = small_router(serde_json::json!({}));
    let (a, c) = (r.input_id("a").unwrap(), r.input_id("c").unwrap());
    let b = r.output_id("b").unwrap();
    assert_eq!(r.on_datagram(a, peer(), b"0,0,0").emits.len(), 1);
    // Another input with the same value: fresh on its input, duplicate at the output.
    let dup = r.on_datagram(c, peer(), b"0,0,0");
    assert_eq!(dup.outcome, Outcome::Fresh);
    assert!(dup.emits.is_empty());
    assert_eq!(r.output_counters(b).unwrap().deduplicated, 1);
    // A far value from the other input is dropped by the shared gate.
    assert!(r.on_datagram(c, peer(), b"0,0,51").emits.is_empty());
    // The topic edge goes through the same gate: metres → mm first.
    let far_m: Vec<Item> = vec![vec![1.0, 0.0, 0.0]];
    assert!(r
        .on_topic(b, &[Scale::default().from_m(far_m[0].clone())])
        .emits
        .is_empty());
    let near = r.on_topic(b, &[Scale::default().from_m(vec![0.03, 0.0, 0.0])]);
    assert_eq!(near.emits.len(), 1);
    assert_eq!(
        wire::decode(Format::Csv, &near.emits[0].bytes).unwrap()[0][1],
        0.0
    );
    // Same value again from the topic: de-duplicated.
    assert!(r.on_topic(b, &near.emits[0].global).emits.is_empty());
    let counters = r.output_counters(b).unwrap();
    assert_eq!(
        (
            counters.rejected_radius,
            counters.deduplicated,
            counters.forwarded
        ),
        (2, 2, 2)
    );
}

#[test]
fn accepted_datagrams_are_published_in_the_global_frame() {
    let mut r = small_router(serde_json::json!({}));
    let a = r.input_id("a").unwrap();
    let got = r.on_datagram(a, peer(), b"1,2,3,0.5;4,5,6,0.7");
    assert_eq!(
        got.publish,
        Some(vec![vec![1.0, 2.0, 3.0, 0.5], vec![4.0, 5.0, 6.0, 0.7]])
    );
    // Duplicates are still published (a still arm keeps reporting its position).
    let dup = r.on_datagram(a, peer(), b"1,2,3,0.5;4,5,6,0.7");
    assert_eq!(dup.outcome, Outcome::Duplicate);
    assert!(dup.publish.is_some());
    // An input without a topic publishes nothing.
    let c = r.input_id("c").unwrap();
    assert!(r.on_datagram(c, peer(), b"1,2,3").publish.is_none());
}

/// Every bad datagram is rejected, counted by kind, not forwarded, and leaves the
/// de-duplication state alone.
#[test]
fn bad_datagrams_are_rejected_and_counted() {
    let mut r = small_router(serde_json::json!({}));
    let a = r.input_id("a").unwrap();
    let b = r.output_id("b").unwrap();
    assert_eq!(r.on_datagram(a, peer(), b"1,2,3").emits.len(), 1);
    let cases: Vec<(&[u8], &str)> = vec![
        (b"", "empty"),
        (&[b'1'; 65], "oversized"),
        (b"1,2,x", "non_numeric"),
        (b"1,2,NaN", "not_finite"),
        (b"1,inf,3", "not_finite"),
        (&[0xff, 0xfe], "not_utf8"),
    ];
    for (bytes, kind) in &cases {
        let got = r.on_datagram(a, peer(), bytes);
        match &got.outcome {
            Outcome::Rejected(rej) => assert_eq!(rej.kind(), *kind),
            other => panic!("{kind}: {other:?}"),
        }
        assert!(got.emits.is_empty() && got.publish.is_none());
    }
    let c = r.input_counters(a).unwrap();
    assert_eq!(c.malformed_of("not_finite"), 2);
    assert_eq!(c.malformed_total(), cases.len() as u64);
    assert_eq!(c.received, 1 + cases.len() as u64);
    assert_eq!(r.output_counters(b).unwrap().received, 1);
    // The previous good value is still the de-duplication reference.
    assert_eq!(
        r.on_datagram(a, peer(), b"1,2,3").outcome,
        Outcome::Duplicate
    );
}

#[test]
fn simulink_truncated_is_rejected() {
    let mut r = reference_router();
    let arm = r.input_id("arm").unwrap();
    let got = r.on_datagram(arm, peer(), &le(&[1.0, 2.0, 3.0])[..20]);
    assert_eq!(
        got.outcome,
        Outcome::Rejected(Rejected::NotMultipleOf8 { len: 20 })
    );
    let got = r.on_datagram(arm, peer(), &le(&[1.0, f64::NAN, 3.0]));
    assert_eq!(
        got.outcome,
        Outcome::Rejected(Rejected::NotFinite { item: 0, value: 1 })
    );
    assert!(got.emits.is_empty());
    assert_eq!(r.input_counters(arm).unwrap().malformed_total(), 2);
}

#[test]
fn unlisted_source_is_unauthorised() {
    let mut r =
        small_router(serde_json::json!({ "allowedSources": ["127.0.0.1:5000", "10.1.1.1"] }));
    let a = r.input_id("a").unwrap();
    let stranger: SocketAddr = "127.0.0.1:5001".parse().unwrap();
    let got = r.on_datagram(a, stranger, b"1,2,3");
    assert_eq!(got.outcome, Outcome::Unauthorised(stranger));
    assert!(got.emits.is_empty() && got.publish.is_none());
    assert_eq!(r.input_counters(a).unwrap().unauthorised, 1);
    assert_eq!(
        r.on_datagram(a, "127.0.0.1:5000".parse().unwrap(), b"1,2,3")
            .emits
            .len(),
        1
    );
    assert_eq!(
        r.on_datagram(a, "10.1.1.1:9".parse().unwrap(), b"1,2,4")
            .emits
            .len(),
        1
    );
}

#[test]
fn bad_topic_values_are_rejected() {
    let mut r = small_router(serde_json::json!({}));
    let b = r.output_id("b").unwrap();
    assert_eq!(
        r.on_topic(b, &[]).outcome,
        Outcome::Rejected(Rejected::Empty)
    );
    assert_eq!(
        r.on_topic(b, &[vec![]]).outcome,
        Outcome::Rejected(Rejected::Empty)
    );
    let nan = r.on_topic(b, &[vec![0.0, f64::NAN, 0.0]]);
    assert_eq!(
        nan.outcome,
        Outcome::Rejected(Rejected::NotFinite { item: 0, value: 1 })
    );
    assert!(nan.emits.is_empty());
    let c = r.output_counters(b).unwrap();
    assert_eq!(
        (
            c.malformed_of("empty"),
            c.malformed_of("not_finite"),
            c.forwarded
        ),
        (2, 1, 0)
    );
    // Too short for the radius check (checkElementsCount 3): dropped, counted.
    let short = r.on_topic(b, &[vec![1.0, 2.0]]);
    assert!(short.emits.is_empty());
    assert_eq!(r.output_counters(b).unwrap().rejected_radius, 1);
}

#[test]
fn stale_and_diagnostics() {
    let mut r = reference_router();
    let arm = r.input_id("arm").unwrap();
    r.note_stale(arm, 3);
    let _ = r.on_datagram(arm, peer(), &le(&[1.0, 2.0, 3.0]));
    let d = r.diagnostics();
    let get = |k: &str| d.iter().find(|(key, _)| key == k).map(|(_, v)| *v);
    assert_eq!(get("input.arm.stale_dropped"), Some(3));
    assert_eq!(get("input.arm.received"), Some(4));
    assert_eq!(get("input.arm.forwarded"), Some(1));
    assert_eq!(get("output.pyt.forwarded"), Some(1));
    assert_eq!(get("output.arm.malformed.not_finite"), Some(0));
}
