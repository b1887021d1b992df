//! Board packets ⇄ comms packets, through the types generated from the definitions
//! (`nodes/lib/arnie_packets/packets`, [`arnie_packets::typed`]): [`check`] the loaded
//! definitions once, [`decode`] a received [`Packet`] into an [`Input`], [`encode`] an
//! [`Output`] into a [`Packet`].
use crate::board::{Input, Output};
use arnie_packets::typed::{
    Ack, Actuator, ActuatorDone, DriveSpeed, MatchReady, ObstacleReport, Odometry, SetPose,
    StartCord, Stop,
};
use arnie_packets::{Definitions, Packet, PacketError, TypedPacket};

/// Checks that `defs` define every board packet with exactly the fields and types the
/// code was generated from, in that order.
///
/// # Errors
/// The first missing packet or mismatching field.
pub fn check(defs: &Definitions) -> Result<(), PacketError> {
    DriveSpeed::check(defs)?;
    Stop::check(defs)?;
    SetPose::check(defs)?;
    Odometry::check(defs)?;
    ObstacleReport::check(defs)?;
    Actuator::check(defs)?;
    ActuatorDone::check(defs)?;
    StartCord::check(defs)?;
    MatchReady::check(defs)?;
    Ack::check(defs)
}

/// A received packet as a board command; `None` for packets the board does not take,
/// or whose definition is not the built one (run [`check`] first); the caller counts
/// them.
pub fn decode(p: &Packet) -> Option<Input> {
    Some(match p.name() {
        DriveSpeed::NAME => Input::Drive(DriveSpeed::from_packet(p).ok()?),
        Stop::NAME => Input::Stop(Stop::from_packet(p).ok()?),
        SetPose::NAME => Input::SetPose(SetPose::from_packet(p).ok()?),
        Actuator::NAME => Input::Actuator(Actuator::from_packet(p).ok()?),
        MatchReady::NAME => Input::MatchReady(MatchReady::from_packet(p).ok()?),
        _ => return None,
    })
}

/// A board output as a packet (device 0).
///
/// # Errors
/// A definition missing or of other fields than the built ones (run [`check`] first).
pub fn encode(defs: &Definitions, out: &Output) -> Result<Packet, PacketError> {
    match out {
        Output::Odometry(o) => o.to_packet(defs),
        Output::Obstacle(o) => o.to_packet(defs),
        Output::Ack(o) => o.to_packet(defs),
        Output::ActuatorDone(o) => o.to_packet(defs),
        Output::StartCord(o) => o.to_packet(defs),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defs() -> Definitions {
        Definitions::load_dir(arnie_packets::typed::PACKETS_DIR.as_ref()).expect("packets load")
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
            ("StartCord", 38, 8, 1),
            ("MatchReady", 39, 5, 1),
        ];
        for (name, id, payload, can_frames) in want {
            let def = d.by_name(name).expect(name);
            assert_eq!((def.id, def.payload_len), (id, payload), "{name}");
            let p = Packet::new(def.clone());
            let frame = arnie_packets::uart::encode_packet(&p).expect("encodes");
            assert_eq!(frame.len(), payload + 3, "{name}: one size byte");
            let frames = arnie_packets::can::encode_packet(&p).expect("fits CAN (id <= 63)");
            assert_eq!(frames.len(), can_frames, "{name}");
        }
        let replies: Vec<(&str, Option<&str>)> =
            ["Stop", "SetPose", "Actuator", "DriveSpeed", "MatchReady"]
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
                ("DriveSpeed", None),
                ("MatchReady", Some("Ack"))
            ]
        );
    }

    #[test]
    fn round_trips() {
        let d = defs();
        let outs = [
            Output::Odometry(Odometry {
                seq: 1,
                x_mm: 3,
                y_mm: -4,
                theta_mrad: 5,
                linear_mm_s: 6,
                angular_mrad_s: 7,
                cmd_seq: 8,
                flags: 9,
            }),
            Output::Obstacle(ObstacleReport {
                seq: 1,
                sensor: 2,
                distance_mm: 300,
                bearing_mrad: -500,
                x_mm: 1.0,
                y_mm: 2.0,
            }),
            Output::Ack(Ack {
                command: 31,
                seq: 4,
                status: 0,
            }),
            Output::ActuatorDone(ActuatorDone {
                seq: 1,
                actuator: 0,
                action: 1,
                element: 3,
                status: 0,
                duration_ms: 600,
            }),
        ];
        for o in outs {
            let p = encode(&d, &o).expect("encodes");
            assert!(decode(&p).is_none(), "outputs are not inputs");
        }
        let drive = DriveSpeed {
            seq: 3,
            linear_mm_s: -200,
            angular_mrad_s: 100,
            ..DriveSpeed::default()
        };
        let p = drive.to_packet(&d).expect("ok");
        assert_eq!(
            decode(&p),
            Some(Input::Drive(DriveSpeed {
                seq: 3,
                linear_mm_s: -200,
                angular_mrad_s: 100,
                watchdog_ms: 0
            }))
        );
        let act = Actuator {
            seq: 3,
            actuator: 1,
            action: 2,
            element: 5,
        };
        let p = act.to_packet(&d).expect("ok");
        assert_eq!(decode(&p), Some(Input::Actuator(act)));
        let p = d.packet_from_json("Ping", 0, 0, "").expect("ok");
        assert_eq!(decode(&p), None);
    }
}
