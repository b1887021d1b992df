//! Board packets ⇄ comms packets, by name through the loaded definitions
//! (`nodes/arnie_comms/packets`): [`decode`] a received [`Packet`] into an [`Input`],
//! [`encode`] an [`Output`] into a [`Packet`].
use crate::board::{Input, Output};
use arnie_comms::{Definitions, Packet, Value};

/// The packets the board needs, each with its fields and their types, checked once.
pub const BOARD_PACKETS: &[(&str, &[(&str, &str)])] = &[
    (
        "DriveSpeed",
        &[
            ("seq", "uint16"),
            ("linear_mm_s", "int16"),
            ("angular_mrad_s", "int16"),
            ("watchdog_ms", "uint16"),
        ],
    ),
    ("Stop", &[("seq", "uint16")]),
    (
        "SetPose",
        &[
            ("seq", "uint16"),
            ("x_mm", "float"),
            ("y_mm", "float"),
            ("theta_mrad", "float"),
        ],
    ),
    (
        "Odometry",
        &[
            ("seq", "uint16"),
            ("x_mm", "int16"),
            ("y_mm", "int16"),
            ("theta_mrad", "int16"),
            ("linear_mm_s", "int16"),
            ("angular_mrad_s", "int16"),
            ("cmd_seq", "uint16"),
            ("flags", "uint8"),
        ],
    ),
    (
        "ObstacleReport",
        &[
            ("seq", "uint16"),
            ("sensor", "uint8"),
            ("distance_mm", "uint16"),
            ("bearing_mrad", "int16"),
            ("x_mm", "float"),
            ("y_mm", "float"),
        ],
    ),
    (
        "Actuator",
        &[
            ("seq", "uint16"),
            ("actuator", "uint8"),
            ("action", "uint8"),
            ("element", "uint8"),
        ],
    ),
    (
        "ActuatorDone",
        &[
            ("seq", "uint16"),
            ("actuator", "uint8"),
            ("action", "uint8"),
            ("element", "uint8"),
            ("status", "uint8"),
            ("duration_ms", "uint16"),
        ],
    ),
    (
        "Ack",
        &[("command", "uint8"), ("seq", "uint16"), ("status", "uint8")],
    ),
];

/// Checks that `defs` define every board packet with exactly these fields and types,
/// in this order.
///
/// # Errors
/// The first missing packet or mismatching field.
pub fn check(defs: &Definitions) -> Result<(), String> {
    for (name, fields) in BOARD_PACKETS {
        let def = defs
            .by_name(name)
            .ok_or_else(|| format!("no definition of packet {name}"))?;
        let got: Vec<(&str, &str)> = def
            .fields
            .iter()
            .map(|f| (f.name.as_str(), f.ty.name()))
            .collect();
        if got != *fields {
            return Err(format!(
                "packet {name}: fields {got:?}, the board needs {fields:?}"
            ));
        }
    }
    Ok(())
}

/// A received packet as a board command; `None` for packets the board does not take
/// (they are counted by the caller).
pub fn decode(p: &Packet) -> Option<Input> {
    let u16_ = |f| match p.get(f) {
        Some(Value::U16(v)) => Some(v),
        _ => None,
    };
    let i16_ = |f| match p.get(f) {
        Some(Value::I16(v)) => Some(v),
        _ => None,
    };
    let u8_ = |f| match p.get(f) {
        Some(Value::U8(v)) => Some(v),
        _ => None,
    };
    let f32_ = |f| match p.get(f) {
        Some(Value::F32(v)) => Some(v),
        _ => None,
    };
    Some(match p.name() {
        "DriveSpeed" => Input::Drive {
            seq: u16_("seq")?,
            linear_mm_s: i16_("linear_mm_s")?,
            angular_mrad_s: i16_("angular_mrad_s")?,
            watchdog_ms: u16_("watchdog_ms")?,
        },
        "Stop" => Input::Stop { seq: u16_("seq")? },
        "SetPose" => Input::SetPose {
            seq: u16_("seq")?,
            x_mm: f32_("x_mm")?,
            y_mm: f32_("y_mm")?,
            theta_mrad: f32_("theta_mrad")?,
        },
        "Actuator" => Input::Actuator {
            seq: u16_("seq")?,
            actuator: u8_("actuator")?,
            action: u8_("action")?,
            element: u8_("element")?,
        },
        _ => return None,
    })
}

/// A board output as a packet (device 0).
///
/// # Errors
/// A definition missing or of other field types than [`BOARD_PACKETS`] (run [`check`] first).
pub fn encode(defs: &Definitions, out: &Output) -> Result<Packet, String> {
    let (name, values): (&str, Vec<(&str, Value)>) = match *out {
        Output::Odometry {
            seq,
            x_mm,
            y_mm,
            theta_mrad,
            linear_mm_s,
            angular_mrad_s,
            cmd_seq,
            flags,
        } => (
            "Odometry",
            vec![
                ("seq", Value::U16(seq)),
                ("x_mm", Value::I16(x_mm)),
                ("y_mm", Value::I16(y_mm)),
                ("theta_mrad", Value::I16(theta_mrad)),
                ("linear_mm_s", Value::I16(linear_mm_s)),
                ("angular_mrad_s", Value::I16(angular_mrad_s)),
                ("cmd_seq", Value::U16(cmd_seq)),
                ("flags", Value::U8(flags)),
            ],
        ),
        Output::Obstacle {
            seq,
            sensor,
            distance_mm,
            bearing_mrad,
            x_mm,
            y_mm,
        } => (
            "ObstacleReport",
            vec![
                ("seq", Value::U16(seq)),
                ("sensor", Value::U8(sensor)),
                ("distance_mm", Value::U16(distance_mm)),
                ("bearing_mrad", Value::I16(bearing_mrad)),
                ("x_mm", Value::F32(x_mm)),
                ("y_mm", Value::F32(y_mm)),
            ],
        ),
        Output::Ack {
            command,
            seq,
            status,
        } => (
            "Ack",
            vec![
                ("command", Value::U8(command)),
                ("seq", Value::U16(seq)),
                ("status", Value::U8(status)),
            ],
        ),
        Output::ActuatorDone {
            seq,
            actuator,
            action,
            element,
            status,
            duration_ms,
        } => (
            "ActuatorDone",
            vec![
                ("seq", Value::U16(seq)),
                ("actuator", Value::U8(actuator)),
                ("action", Value::U8(action)),
                ("element", Value::U8(element)),
                ("status", Value::U8(status)),
                ("duration_ms", Value::U16(duration_ms)),
            ],
        ),
    };
    let def = defs
        .by_name(name)
        .ok_or_else(|| format!("no definition of packet {name}"))?;
    let mut p = Packet::new(def.clone());
    for (f, v) in values {
        p.set(f, v).map_err(|e| e.to_string())?;
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn defs() -> Definitions {
        Definitions::load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../arnie_comms/packets"))
            .expect("packets load")
    }

    #[test]
    fn the_project_packets_are_the_boards() {
        check(&defs()).expect("every board packet defined as the board needs");
    }

    /// UART frame = 1 size byte (while 1 + payload < 128) + command + payload + XOR; CAN:
    /// one standard frame up to 8 bytes, else 8-byte pages. The README's table says these.
    #[test]
    fn packets_fit_the_wire() {
        let d = defs();
        let want = [
            ("DriveSpeed", 30, 8, 1),
            ("Stop", 31, 2, 1),
            ("SetPose", 32, 14, 2),
            ("Odometry", 33, 15, 2),
            ("ObstacleReport", 34, 15, 2),
            ("Actuator", 35, 5, 1),
            ("ActuatorDone", 36, 8, 1),
            ("Ack", 37, 4, 1),
        ];
        for (name, id, payload, can_frames) in want {
            let def = d.by_name(name).expect(name);
            assert_eq!((def.id, def.payload_len), (id, payload), "{name}");
            let p = Packet::new(def.clone());
            let frame = arnie_comms::uart::encode_packet(&p).expect("encodes");
            assert_eq!(frame.len(), payload + 3, "{name}: one size byte");
            let frames = arnie_comms::can::encode_packet(&p).expect("fits CAN (id <= 63)");
            assert_eq!(frames.len(), can_frames, "{name}");
        }
        let replies: Vec<(&str, Option<&str>)> = ["Stop", "SetPose", "Actuator", "DriveSpeed"]
            .iter()
            .map(|n| {
                (
                    *n,
                    d.by_name(n)
                        .and_then(|x| x.reply)
                        .and_then(|id| d.get(id))
                        .map(|r| r.name.as_str()),
                )
            })
            .collect();
        assert_eq!(
            replies,
            [
                ("Stop", Some("Ack")),
                ("SetPose", Some("Ack")),
                ("Actuator", Some("Ack")),
                ("DriveSpeed", None)
            ]
        );
    }

    #[test]
    fn round_trips() {
        let d = defs();
        let outs = [
            Output::Odometry {
                seq: 1,
                x_mm: 3,
                y_mm: -4,
                theta_mrad: 5,
                linear_mm_s: 6,
                angular_mrad_s: 7,
                cmd_seq: 8,
                flags: 9,
            },
            Output::Obstacle {
                seq: 1,
                sensor: 2,
                distance_mm: 300,
                bearing_mrad: -500,
                x_mm: 1.0,
                y_mm: 2.0,
            },
            Output::Ack {
                command: 31,
                seq: 4,
                status: 0,
            },
            Output::ActuatorDone {
                seq: 1,
                actuator: 0,
                action: 1,
                element: 3,
                status: 0,
                duration_ms: 600,
            },
        ];
        for o in outs {
            let p = encode(&d, &o).expect("encodes");
            assert!(decode(&p).is_none(), "outputs are not inputs");
        }
        let p = d
            .packet_from_json(
                "DriveSpeed",
                0,
                0,
                r#"{"seq":3,"linear_mm_s":-200,"angular_mrad_s":100}"#,
            )
            .expect("ok");
        assert_eq!(
            decode(&p),
            Some(Input::Drive {
                seq: 3,
                linear_mm_s: -200,
                angular_mrad_s: 100,
                watchdog_ms: 0
            })
        );
        let p = d
            .packet_from_json(
                "Actuator",
                0,
                0,
                r#"{"seq":3,"actuator":1,"action":2,"element":5}"#,
            )
            .expect("ok");
        assert_eq!(
            decode(&p),
            Some(Input::Actuator {
                seq: 3,
                actuator: 1,
                action: 2,
                element: 5
            })
        );
        let p = d.packet_from_json("Ping", 0, 0, "").expect("ok");
        assert_eq!(decode(&p), None);
    }
}
