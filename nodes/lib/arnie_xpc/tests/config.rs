//! The reference Spine config loads unchanged; broken configs give errors naming the field.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::Path;

use arnie_xpc::config::{MsgKind, SourceRule, TopicQos};
use arnie_xpc::{Config, Format, LoadError, LoopbackMap, RawConfig};

const REFERENCE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../../shared/reference/arnie/spine-config.json"
);

fn reference_text() -> String {
    std::fs::read_to_string(REFERENCE).expect("reference spine-config.json is readable")
}

fn err(text: &str) -> LoadError {
    match Config::from_json(text, None) {
        Ok(_) => panic!("expected an error for {text}"),
        Err(e) => e,
    }
}

/// A small valid config, with `patch` applied to its JSON value.
fn patched(patch: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v = serde_json::json!({
        "host": "127.0.0.1",
        "loglevel": "debug",
        "transforms": { "default": "1 0 0 0;0 1 0 0;0 0 1 0;0 0 0 1" },
        "interfaces": {
            "input": { "a": { "port": 25001, "streamed": true, "format": "simulink" } },
            "output": { "b": { "host": "127.0.0.1", "port": 25000, "format": "csv", "threshold": 50 } }
        },
        "connections": [ { "input": "a", "output": "b" } ]
    });
    patch(&mut v);
    v.to_string()
}

#[test]
fn reference_loads_unchanged() {
    let c = Config::load(Path::new(REFERENCE), None).unwrap();
    assert_eq!(c.inputs.len(), 10);
    assert_eq!(c.outputs.len(), 13);
    assert_eq!(c.connections.len(), 14);
    assert_eq!(c.loglevel.as_deref(), Some("debug"));

    let arm_in = &c.inputs[c.input_index("arm").unwrap()];
    assert_eq!(
        arm_in.bind,
        "192.168.1.1:25001".parse::<SocketAddr>().unwrap()
    );
    assert_eq!(arm_in.format, Format::Simulink);
    assert!(arm_in.streamed);
    assert!(arm_in.topic.is_none() && arm_in.allowed_sources.is_none());

    let arm_out = &c.outputs[c.output_index("arm").unwrap()];
    assert_eq!(
        arm_out.addr,
        "192.168.1.80:25000".parse::<SocketAddr>().unwrap()
    );
    assert_eq!(arm_out.threshold_mm, Some(50.0));
    assert_eq!(arm_out.check_elements, 3);
    let pyt = &c.outputs[c.output_index("pyt").unwrap()];
    assert_eq!((pyt.threshold_mm, pyt.format), (None, Format::Csv));

    // Connection names resolve to the right interfaces, in file order.
    let first = c.connections[0];
    assert_eq!(c.inputs[first.input].name, "arm");
    assert_eq!(c.outputs[first.output].name, "pyt");
    let last = c.connections[13];
    assert_eq!(
        (
            c.inputs[last.input].name.as_str(),
            c.outputs[last.output].name.as_str()
        ),
        ("eye-fudge", "eyes-logger")
    );
}

#[test]
fn reference_arm_transform_golden() {
    let c = Config::load(Path::new(REFERENCE), None).unwrap();
    let arm_in = &c.inputs[c.input_index("arm").unwrap()];
    assert_eq!(
        arm_in.to_global.apply(&[1.0, 2.0, 3.0]),
        vec![-2.0, 1.0, 3.0]
    );
    let arm_out = &c.outputs[c.output_index("arm").unwrap()];
    assert_eq!(
        arm_out.to_device.apply(&[-2.0, 1.0, 3.0]),
        vec![1.0, 2.0, 3.0]
    );
    // Interfaces without their own transform use `default` (identity here).
    let pyt_in = &c.inputs[c.input_index("pyt").unwrap()];
    assert_eq!(
        pyt_in.to_global.apply(&[1.0, 2.0, 3.0]),
        vec![1.0, 2.0, 3.0]
    );
    // "kinect" has extra spaces in its matrix string.
    let kinect = &c.inputs[c.input_index("kinect").unwrap()];
    assert_eq!(
        kinect.to_global.apply(&[0.0, 0.0, 0.0]),
        vec![160.0, 240.0, 233.31313131]
    );
}

#[test]
fn loopback_maps_every_address() {
    let raw = RawConfig::from_json(&reference_text()).unwrap();
    let c = raw
        .resolve(Some(LoopbackMap { port_offset: 1000 }))
        .unwrap();
    let lo = IpAddr::V4(Ipv4Addr::LOCALHOST);
    assert!(c.inputs.iter().all(|i| i.bind.ip() == lo));
    assert!(c.outputs.iter().all(|o| o.addr.ip() == lo));
    assert_eq!(c.inputs[c.input_index("arm").unwrap()].bind.port(), 26001);
    assert_eq!(c.outputs[c.output_index("arm").unwrap()].addr.port(), 26000);
    // The original file was written for several machines: the clashes are reported.
    let clashes = c.address_clashes();
    assert!(
        clashes
            .iter()
            .any(|w| w.contains("\"arm\"") && w.contains("\"head\"")),
        "{clashes:?}"
    );
    assert!(
        clashes.iter().any(|w| w.contains("input \"kinect\"")),
        "{clashes:?}"
    );
    // Without the map there are none.
    assert!(raw.resolve(None).unwrap().address_clashes().is_empty());
}

#[test]
fn loopback_port_out_of_range() {
    let raw = RawConfig::from_json(&reference_text()).unwrap();
    let e = raw
        .resolve(Some(LoopbackMap {
            port_offset: 40_000,
        }))
        .unwrap_err();
    assert!(
        matches!(e, LoadError::PortOutOfRange { offset: 40_000, .. }),
        "{e}"
    );
    assert!(e.to_string().starts_with("interfaces.input."), "{e}");
    let e = raw
        .resolve(Some(LoopbackMap {
            port_offset: -30_000,
        }))
        .unwrap_err();
    assert!(matches!(e, LoadError::PortOutOfRange { .. }), "{e}");
}

#[test]
fn extensions_are_read() {
    let text = patched(|v| {
        v["interfaces"]["input"]["a"]["topic"] = "/arm/position".into();
        v["interfaces"]["input"]["a"]["kind"] = "point".into();
        v["interfaces"]["input"]["a"]["allowedSources"] =
            serde_json::json!(["127.0.0.1", "10.0.0.2:5000"]);
        v["interfaces"]["output"]["b"]["topic"] = "/arm/command".into();
        v["interfaces"]["output"]["b"]["checkElementsCount"] = 2.into();
    });
    let c = Config::from_json(&text, None).unwrap();
    let a = &c.inputs[0];
    let t = a.topic.as_ref().unwrap();
    assert_eq!((t.name.as_str(), t.kind), ("/arm/position", MsgKind::Point));
    assert_eq!(
        a.allowed_sources.as_deref().unwrap(),
        &[
            SourceRule::Ip("127.0.0.1".parse().unwrap()),
            SourceRule::Addr("10.0.0.2:5000".parse().unwrap())
        ]
    );
    assert!(a.allows("127.0.0.1:4444".parse().unwrap()));
    assert!(a.allows("10.0.0.2:5000".parse().unwrap()));
    assert!(!a.allows("10.0.0.2:5001".parse().unwrap()));
    assert!(!a.allows("10.0.0.3:5000".parse().unwrap()));
    let b = &c.outputs[0];
    assert_eq!(b.topic.as_ref().unwrap().kind, MsgKind::Coordinates);
    assert_eq!(b.check_elements, 2);
}

#[test]
fn topic_qos_by_kind_unless_written() {
    let c = Config::from_json(
        &patched(|v| {
            v["interfaces"]["input"]["a"]["topic"] = "eyes/observations".into();
            v["interfaces"]["input"]["t"] = serde_json::json!({"port": 1, "format": "csv", "topic": "arm/target"});
            v["interfaces"]["input"]["n"] = serde_json::json!({"port": 2, "format": "csv", "topic": "/left/arm/target"});
            v["interfaces"]["input"]["s"] =
                serde_json::json!({"port": 3, "format": "csv", "topic": "arm/target", "qos": "sensor"});
            v["interfaces"]["input"]["l"] = serde_json::json!({"port": 4, "format": "csv", "topic": "x", "qos": "latched"});
            v["interfaces"]["input"]["r"] = serde_json::json!({"port": 5, "format": "csv", "topic": "x2", "qos": "reliable"});
            v["interfaces"]["output"]["b"]["topic"] = "arm/command".into();
            v["interfaces"]["output"]["o"] =
                serde_json::json!({"host": "127.0.0.1", "port": 6, "format": "csv", "topic": "y", "qos": "sensor"});
        }),
        None,
    )
    .unwrap();
    let qos = |name: &str| {
        let i = c.inputs.iter().find(|i| i.name == name).map(|i| &i.topic);
        let o = c.outputs.iter().find(|o| o.name == name).map(|o| &o.topic);
        i.or(o).unwrap().as_ref().unwrap().qos
    };
    assert_eq!(qos("a"), TopicQos::Sensor); // a measurement
    assert_eq!(qos("t"), TopicQos::Command); // a legacy target: reliable
    assert_eq!(qos("n"), TopicQos::Command); // the same, namespaced
    assert_eq!(qos("s"), TopicQos::Sensor); // as written
    assert_eq!(qos("l"), TopicQos::Latched);
    assert_eq!(qos("r"), TopicQos::Command);
    assert_eq!(qos("b"), TopicQos::Command); // an output subscribes to commands
    assert_eq!(qos("o"), TopicQos::Sensor);
    assert_err(
        &patched(|v| {
            v["interfaces"]["input"]["a"]["topic"] = "x".into();
            v["interfaces"]["input"]["a"]["qos"] = "fast".into();
        }),
        "interfaces.input.a.qos: unknown qos \"fast\", expected \"sensor\", \"command\" (or \"reliable\") or \"latched\"",
    );
}

#[test]
fn resend_interval_is_off_unless_set() {
    let c = Config::from_json(&reference_text(), None).unwrap();
    assert!(c.outputs.iter().all(|o| o.resend_interval_ms.is_none()));
    let with = |ms: i64| {
        Config::from_json(
            &patched(|v| v["interfaces"]["output"]["b"]["resendIntervalMs"] = ms.into()),
            None,
        )
    };
    assert_eq!(with(500).unwrap().outputs[0].resend_interval_ms, Some(500));
    assert_eq!(with(0).unwrap().outputs[0].resend_interval_ms, None);
    for bad in [-1, 5, 3_600_001] {
        assert_eq!(
            with(bad).unwrap_err().to_string(),
            format!("interfaces.output.b.resendIntervalMs: expected 0 (off) or an integer 10..3600000 [ms], got {bad}")
        );
    }
    // Inputs have no such key.
    let e = err(&patched(|v| {
        v["interfaces"]["input"]["a"]["resendIntervalMs"] = 500.into()
    }));
    assert_eq!(e.field(), "interfaces.input.a.resendIntervalMs", "{e}");
}

fn assert_err(text: &str, expect: &str) {
    let e = err(text);
    assert_eq!(e.to_string(), expect);
}

#[test]
fn errors_name_the_field() {
    assert_err(
        &patched(|v| v["interfaces"]["output"]["b"]["port"] = 70000.into()),
        "interfaces.output.b.port: expected integer 0..65535, got 70000",
    );
    assert_err(
        &patched(|v| v["connections"][0]["output"] = "foo".into()),
        "connections[0].output: unknown output \"foo\"",
    );
    assert_err(
        &patched(|v| v["connections"][0]["input"] = "bar".into()),
        "connections[0].input: unknown input \"bar\"",
    );
    assert_err(
        &patched(|v| v["transforms"]["b"] = "1 0 0 0;0 1 0 0;0 0 1;0 0 0 1".into()),
        "transforms.b: row 3 has 3 values, expected 4",
    );
    assert_err(
        &patched(|v| v["transforms"]["b"] = "1 0 0 0;0 1 0 0;0 0 0 0;0 0 0 1".into()),
        "transforms.b: singular (non-invertible) matrix, but output \"b\" needs its inverse",
    );
    assert_err(
        &patched(|v| v["interfaces"]["input"]["a"]["format"] = "xml".into()),
        "interfaces.input.a.format: unknown format \"xml\", expected \"csv\" or \"simulink\"",
    );
    assert_err(
        &patched(|v| v["host"] = "spine.local".into()),
        "host: expected an IP address, got \"spine.local\"",
    );
    assert_err(
        &patched(|v| v["interfaces"]["output"]["b"]["threshold"] = (-1).into()),
        "interfaces.output.b.threshold: expected a finite number >= 0 [mm], got -1",
    );
    assert_err(
        &patched(|v| v["interfaces"]["output"]["b"]["checkElementsCount"] = 0.into()),
        "interfaces.output.b.checkElementsCount: expected an integer >= 1, got 0",
    );
    assert_err(
        &patched(|v| {
            v["interfaces"]["input"]["a"]["allowedSources"] = serde_json::json!(["nowhere"])
        }),
        "interfaces.input.a.allowedSources[0]: expected \"ip\" or \"ip:port\", got \"nowhere\"",
    );
    assert_err(
        &patched(|v| v["interfaces"]["input"]["a"]["kind"] = "pose".into()),
        "interfaces.input.a.kind: unknown kind \"pose\", expected \"point\" or \"coordinates\"",
    );
    assert_err(
        &patched(|v| {
            let dup = v["connections"][0].clone();
            v["connections"].as_array_mut().unwrap().push(dup);
        }),
        "connections[1]: duplicate of connections[0]",
    );
    assert_err(
        &patched(|v| {
            v["interfaces"]["input"]["c"] = serde_json::json!({"port": 25001, "format": "csv"})
        }),
        "interfaces.input.c.port: port 25001 is already bound by input \"a\"",
    );
    assert_err(
        &patched(|v| {
            v["transforms"].as_object_mut().unwrap().remove("default");
        }),
        "transforms.default: missing (it is required)",
    );
}

#[test]
fn serde_errors_name_the_field() {
    let e = err(&patched(|v| {
        v["interfaces"]["output"]["b"]["port"] = "25000".into()
    }));
    assert_eq!(e.field(), "interfaces.output.b.port", "{e}");
    let e = err(&patched(|v| {
        v["interfaces"]["output"]["b"]["treshold"] = 50.into()
    }));
    assert_eq!(e.field(), "interfaces.output.b.treshold", "{e}");
    assert!(e.to_string().contains("treshold"), "{e}");
    let e = err(&patched(|v| {
        v["interfaces"]["input"]["a"]
            .as_object_mut()
            .unwrap()
            .remove("format");
    }));
    assert_eq!(e.field(), "interfaces.input.a", "{e}");
    assert!(e.to_string().contains("format"), "{e}");
    let e = err("{ \"host\": \"127.0.0.1\", ");
    assert_eq!(e.field(), "(file)", "{e}");
    assert!(e.to_string().contains("line 1"), "{e}");
}

#[test]
fn missing_file_is_an_io_error() {
    let e = Config::load(Path::new("/nonexistent/spine.json"), None).unwrap_err();
    assert!(matches!(e, LoadError::Io { .. }));
    assert!(
        e.to_string()
            .starts_with("/nonexistent/spine.json: cannot read"),
        "{e}"
    );
}
