//! The reference test vector (RobotikUTT firmware spec) and the shipped definitions.
//! Reference files are read in place from `shared/reference/robotikutt`.
use arnie_packets::uart::{encode_packet, Decoder, DecoderConfig};
use arnie_packets::{Definitions, Packet, Value};
use std::path::Path;

const REFERENCE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../../shared/reference/robotikutt"
);
const PACKETS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/packets");

const PAYLOAD: [u8; 11] = [
    0x3c, 0x01, 0xff, 0xff, 0x01, 0x00, 0x00, 0x9a, 0x99, 0x19, 0x3f,
];
const FRAME: [u8; 14] = [
    0x0c, 0x00, 0x3c, 0x01, 0xff, 0xff, 0x01, 0x00, 0x00, 0x9a, 0x99, 0x19, 0x3f, 0x15,
];

fn reference() -> Definitions {
    Definitions::load_dir(Path::new(REFERENCE)).expect("reference definitions load")
}

#[test]
fn reference_definition_loads_in_file_order() {
    let defs = reference();
    assert_eq!(defs.len(), 1);
    let def = defs.by_name("TestPacket").expect("TestPacket");
    assert_eq!(def.id, 0);
    let fields: Vec<_> = def
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.ty.name(), f.default))
        .collect();
    assert_eq!(
        fields,
        [
            ("foo", "int8", Value::I8(-1)),
            ("foo2", "uint8", Value::U8(1)),
            ("foo3", "int16", Value::I16(-1)),
            ("foo4", "uint16", Value::U16(1)),
            ("foo5", "bool", Value::Bool(false)),
            ("foo6", "float", Value::F32(0.6)),
        ]
    );
}

#[test]
fn reference_vector_encodes_exactly() {
    let defs = reference();
    let packet = defs
        .packet_from_json("TestPacket", 0, 0, r#"{"foo": 60}"#)
        .expect("valid fields");
    assert_eq!(packet.encode_payload(), PAYLOAD);
    assert_eq!(encode_packet(&packet).expect("fits"), FRAME);
    // Selecting by id gives the same packet.
    assert_eq!(
        defs.packet_from_json("", 0, 0, r#"{"foo": 60}"#)
            .expect("valid"),
        packet
    );
}

#[test]
fn reference_vector_decodes_exactly_from_any_split() {
    let defs = reference();
    for split in 0..=FRAME.len() {
        let mut d = Decoder::new(DecoderConfig::default()).with_lengths(defs.payload_lengths());
        d.push(&[0, 0], 0); // idle zeros before the frame are skipped
        d.push(&FRAME[..split], 0);
        d.push(&FRAME[split..], 0);
        let frame = d.next(0).expect("a frame").expect("a good frame");
        assert!(d.next(0).is_none());
        assert_eq!(
            (frame.command, frame.raw.as_slice(), frame.offset),
            (0, &FRAME[..], 2)
        );
        let def = defs.get(frame.command).expect("known").clone();
        let packet = Packet::decode(def, frame.payload()).expect("decodes");
        assert_eq!(
            packet.fields_json(),
            r#"{"foo":60,"foo2":1,"foo3":-1,"foo4":1,"foo5":false,"foo6":0.6}"#
        );
    }
}

#[test]
fn reference_out_of_range_is_an_error_not_a_clamp() {
    let defs = reference();
    let e = defs
        .packet_from_json("TestPacket", 0, 0, r#"{"foo": 200}"#)
        .expect_err("int8 overflow");
    assert!(
        e.to_string().contains("foo") && e.to_string().contains("200"),
        "{e}"
    );
    assert!(defs
        .packet_from_json("TestPacket", 0, 0, r#"{"foo7": 1}"#)
        .is_err());
}

#[test]
fn shipped_definitions_load_with_ping_pong_reply() {
    let defs = Definitions::load_dir(Path::new(PACKETS)).expect("shipped definitions load");
    let names: Vec<_> = defs
        .iter()
        .map(|d| (d.id, d.name.as_str(), d.payload_len))
        .collect();
    assert_eq!(
        names,
        [
            (1, "Ping", 6),
            (2, "Pong", 6),
            (10, "SetLed", 3),
            (20, "ArmStatus", 15),
            (21, "MotorTarget", 14),
            // The Eurobot motor/actuator board (packets/README.md).
            (30, "DriveSpeed", 8),
            (31, "Stop", 2),
            (32, "SetPose", 14),
            (33, "Odometry", 15),
            (34, "ObstacleReport", 15),
            (35, "Actuator", 5),
            (36, "ActuatorDone", 8),
            (37, "Ack", 4),
            // The start cord and the match (issue 47).
            (38, "StartCord", 8),
            (39, "MatchReady", 5),
        ]
    );
    assert_eq!(defs.by_name("Ping").and_then(|d| d.reply), Some(2));
    // All fit a CAN id; ArmStatus and MotorTarget need extended (paged) frames.
    assert!(defs.iter().all(|d| d.id <= arnie_packets::can::MAX_COMMAND));
}

#[test]
fn missing_folder_is_an_error_naming_it() {
    let e = Definitions::load_dir(Path::new("/nonexistent/packets")).expect_err("no folder");
    assert!(e.to_string().contains("/nonexistent/packets"), "{e}");
}
