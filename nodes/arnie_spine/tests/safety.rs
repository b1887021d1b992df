//! Safety property: whatever arrives (including NaN / ±inf, garbage, far jumps, from
//! several inputs and the topic), an output with a threshold never emits a value farther
//! than the threshold from the previous value it emitted, and never a non-finite one.

use std::net::SocketAddr;

use arnie_spine::gate::distance;
use arnie_spine::{wire, Config, Format, Item, Limits, Router};
use proptest::prelude::*;

const THRESHOLD_MM: f64 = 50.0;

fn config() -> Config {
    let text = serde_json::json!({
        "host": "127.0.0.1",
        "transforms": {
            "default": "1 0 0 0;0 1 0 0;0 0 1 0;0 0 0 1",
            "arm": "0 -1 0 0;1 0 0 0;0 0 1 0;0 0 0 1",
            "s": "-0.5 0 0 160;0 -0.5 0 240; 0 0 -0.333333 233.31313131;0 0 0 1"
        },
        "interfaces": {
            "input": {
                "p": { "port": 25050, "streamed": true, "format": "csv" },
                "s": { "port": 25001, "streamed": true, "format": "simulink" }
            },
            "output": { "arm": { "host": "127.0.0.1", "port": 25000, "format": "simulink",
                                 "threshold": THRESHOLD_MM, "topic": "/arm/command" } }
        },
        "connections": [ { "input": "p", "output": "arm" }, { "input": "s", "output": "arm" } ]
    });
    Config::from_json(&text.to_string(), None).unwrap()
}

#[derive(Debug, Clone)]
enum Cmd {
    Csv(String),
    Simulink(Vec<u8>),
    Topic(Vec<Item>),
}

fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        8 => -150.0..150.0f64,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        1 => any::<f64>(),
    ]
}

fn values() -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(value(), 0..7)
}

fn cmd() -> impl Strategy<Value = Cmd> {
    prop_oneof![
        values().prop_map(|v| Cmd::Csv(
            v.iter()
                .map(|x| format!("{x}"))
                .collect::<Vec<_>>()
                .join(",")
        )),
        "[0-9,;. a-zN]{0,20}".prop_map(Cmd::Csv),
        values().prop_map(|v| Cmd::Simulink(v.iter().flat_map(|x| x.to_le_bytes()).collect())),
        prop::collection::vec(any::<u8>(), 0..40).prop_map(Cmd::Simulink),
        prop::collection::vec(values(), 0..3).prop_map(Cmd::Topic),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn output_never_jumps_past_threshold(cmds in prop::collection::vec(cmd(), 1..60)) {
        let mut r = Router::new(config(), Limits::default());
        let (p, s) = (r.input_id("p").unwrap(), r.input_id("s").unwrap());
        let arm = r.output_id("arm").unwrap();
        let to_global = r.config().outputs[arm.index()].to_global;
        let from: SocketAddr = "127.0.0.1:9".parse().unwrap();
        let mut previous: Option<Item> = None;
        let mut sent = 0u64;
        for c in &cmds {
            let routed = match c {
                Cmd::Csv(text) => r.on_datagram(p, from, text.as_bytes()),
                Cmd::Simulink(bytes) => r.on_datagram(s, from, bytes),
                Cmd::Topic(items) => r.on_topic(arm, items),
            };
            for e in routed.emits.iter().filter(|e| e.output == arm) {
                sent += 1;
                prop_assert!(e.global.iter().flatten().all(|x| x.is_finite()));
                let first = e.global[0].clone();
                prop_assert!(first.len() >= 3);
                if let Some(prev) = &previous {
                    let d = distance(&first, prev, 3);
                    prop_assert!(d <= THRESHOLD_MM, "jump of {} mm", d);
                }
                // The bytes are the same value in the device frame.
                let device = wire::decode(Format::Simulink, &e.bytes).unwrap();
                let back = to_global.apply(&device[0]);
                prop_assert!(distance(&back, &first, 3) < 1e-6);
                previous = Some(first);
            }
        }
        prop_assert_eq!(r.output_counters(arm).unwrap().forwarded, sent);
    }
}
