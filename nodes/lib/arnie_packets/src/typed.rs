//! One Rust type per packet, generated at build time from `packets/*.json` (`build.rs`):
//! `typed::DriveSpeed { seq, linear_mm_s, angular_mrad_s, watchdog_ms }` and so on, each
//! field typed from its definition's `"type"`, `Default` = the definition's defaults.
//!
//! [`TypedPacket`] is the one place such a value is encoded and decoded, in both forms
//! the project speaks:
//! - a [`Packet`] of loaded [`Definitions`] (the device side, `board_sim`):
//!   [`TypedPacket::to_packet`], [`TypedPacket::from_packet`], after
//!   [`TypedPacket::check`] proved the loaded definition has the built-in fields;
//! - the `fields_json` of `arnie_interfaces/Packet` (the host side, through
//!   `comms_bridge`): [`TypedPacket::fields_json`], [`TypedPacket::from_fields_json`],
//!   range-checked as the bridge checks them ([`FieldType::from_json`]).
//!
//! Code names no field as a string: a field renamed or added in a JSON file is a compile
//! error where the code uses it, and [`ALL`] lists the generated fields so a test can
//! compare them with the files.
use crate::definition::{Definition, Definitions};
use crate::packet::Packet;
use crate::value::{FieldType, Value, ValueProblem};

/// Why a typed packet could not be built or read. Never a panic.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PacketError {
    /// The loaded definitions have no packet of this name.
    #[error("no definition of packet {packet}")]
    NotDefined {
        /// The packet's name.
        packet: &'static str,
    },
    /// The loaded definition's fields (name, type, wire order) are not the built-in ones.
    #[error("packet {packet}: loaded fields {loaded:?}, the code was built for {built:?}")]
    Mismatch {
        /// The packet's name.
        packet: &'static str,
        /// `(name, type)` of the loaded definition.
        loaded: Vec<(String, &'static str)>,
        /// `(name, type)` the code was generated from.
        built: Vec<(&'static str, &'static str)>,
    },
    /// A packet of another name was given.
    #[error("expected packet {expected}, got {got}")]
    WrongPacket {
        /// The packet's name.
        expected: &'static str,
        /// The name given.
        got: String,
    },
    /// `fields_json` is not a JSON object.
    #[error("{packet}: fields_json: {reason}")]
    Json {
        /// The packet's name.
        packet: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A field is missing from `fields_json`.
    #[error("{packet}: field {field} missing")]
    Missing {
        /// The packet's name.
        packet: &'static str,
        /// The field.
        field: &'static str,
    },
    /// A field of `fields_json` is of the wrong JSON kind or out of its type's range.
    #[error("{packet}: field {field}: {problem}")]
    BadField {
        /// The packet's name.
        packet: &'static str,
        /// The field.
        field: &'static str,
        /// What is wrong with the value.
        problem: ValueProblem,
    },
}

/// A packet type generated from its JSON definition.
pub trait TypedPacket: Sized + Copy {
    /// The definition's `name`.
    const NAME: &'static str;
    /// The definition's `id` (command byte).
    const ID: u8;
    /// The name of the packet that answers it, if the definition names one.
    const REPLY: Option<&'static str>;
    /// `(name, type)` of every field, in wire order.
    const FIELDS: &'static [(&'static str, FieldType)];

    /// The field values, in wire order.
    fn values(&self) -> Vec<Value>;

    /// From values in wire order; `None` when their number or types are not
    /// [`FIELDS`](Self::FIELDS)'.
    fn from_values(values: &[Value]) -> Option<Self>;

    /// Checks that `defs` define this packet with exactly [`FIELDS`](Self::FIELDS).
    ///
    /// # Errors
    /// [`PacketError::NotDefined`], [`PacketError::Mismatch`].
    fn check(defs: &Definitions) -> Result<(), PacketError> {
        let def = defs
            .by_name(Self::NAME)
            .ok_or(PacketError::NotDefined { packet: Self::NAME })?;
        matches_fields::<Self>(def)
    }

    /// This value as a packet of `defs` (device 0).
    ///
    /// # Errors
    /// As [`check`](Self::check).
    fn to_packet(&self, defs: &Definitions) -> Result<Packet, PacketError> {
        let def = defs
            .by_name(Self::NAME)
            .ok_or(PacketError::NotDefined { packet: Self::NAME })?;
        matches_fields::<Self>(def)?;
        let mut p = Packet::new(def.clone());
        for ((name, _), v) in Self::FIELDS.iter().zip(self.values()) {
            p.set(name, v).map_err(|_| mismatch::<Self>(def))?;
        }
        Ok(p)
    }

    /// The value of a received packet.
    ///
    /// # Errors
    /// [`PacketError::WrongPacket`] for a packet of another name,
    /// [`PacketError::Mismatch`] when its definition's fields are not the built-in ones.
    fn from_packet(p: &Packet) -> Result<Self, PacketError> {
        if p.name() != Self::NAME {
            return Err(PacketError::WrongPacket {
                expected: Self::NAME,
                got: p.name().to_owned(),
            });
        }
        matches_fields::<Self>(p.definition())?;
        let values: Vec<Value> = p.fields().map(|(_, v)| v).collect();
        Self::from_values(&values).ok_or_else(|| mismatch::<Self>(p.definition()))
    }

    /// The fields as a JSON object, in wire order (as [`Packet::to_json`] writes them).
    fn to_json(&self) -> serde_json::Value {
        let map: serde_json::Map<String, serde_json::Value> = Self::FIELDS
            .iter()
            .zip(self.values())
            .map(|((name, _), v)| ((*name).to_owned(), v.to_json()))
            .collect();
        serde_json::Value::Object(map)
    }

    /// [`to_json`](Self::to_json) as text: an `arnie_interfaces/Packet`'s `fields_json`.
    fn fields_json(&self) -> String {
        self.to_json().to_string()
    }

    /// From a JSON object with every field (other keys are ignored), each range-checked
    /// for its type, never clamped.
    ///
    /// # Errors
    /// [`PacketError::Json`], [`PacketError::Missing`], [`PacketError::BadField`].
    fn from_json(json: &serde_json::Value) -> Result<Self, PacketError> {
        let obj = json.as_object().ok_or_else(|| PacketError::Json {
            packet: Self::NAME,
            reason: "not an object".to_owned(),
        })?;
        let mut values = Vec::with_capacity(Self::FIELDS.len());
        for &(field, ty) in Self::FIELDS {
            let j = obj.get(field).ok_or(PacketError::Missing {
                packet: Self::NAME,
                field,
            })?;
            values.push(ty.from_json(j).map_err(|problem| PacketError::BadField {
                packet: Self::NAME,
                field,
                problem,
            })?);
        }
        Self::from_values(&values).ok_or(PacketError::Json {
            packet: Self::NAME,
            reason: "values do not match the fields".to_owned(),
        })
    }

    /// [`from_json`](Self::from_json) from an `arnie_interfaces/Packet`'s `fields_json`.
    ///
    /// # Errors
    /// As [`from_json`](Self::from_json); text that is not JSON is [`PacketError::Json`].
    fn from_fields_json(text: &str) -> Result<Self, PacketError> {
        let json: serde_json::Value =
            serde_json::from_str(text).map_err(|e| PacketError::Json {
                packet: Self::NAME,
                reason: e.to_string(),
            })?;
        Self::from_json(&json)
    }
}

fn mismatch<T: TypedPacket>(def: &Definition) -> PacketError {
    PacketError::Mismatch {
        packet: T::NAME,
        loaded: def
            .fields
            .iter()
            .map(|f| (f.name.clone(), f.ty.name()))
            .collect(),
        built: T::FIELDS.iter().map(|(n, t)| (*n, t.name())).collect(),
    }
}

fn matches_fields<T: TypedPacket>(def: &Definition) -> Result<(), PacketError> {
    let same = def.fields.len() == T::FIELDS.len()
        && def
            .fields
            .iter()
            .zip(T::FIELDS)
            .all(|(f, (n, t))| f.name == *n && f.ty == *t);
    if same {
        Ok(())
    } else {
        Err(mismatch::<T>(def))
    }
}

/// An SI quantity (m, rad, m/s, rad/s) as the packets' milli-unit integer fields (mm,
/// mrad, mm/s, mrad/s): × 1000, rounded, saturated to the i16 range; NaN and infinities
/// → 0 (a command is never a saturated guess). The one conversion into the packets, for
/// the host (`arnie_base`), the simulated board (`arnie_table`) and the benches.
pub fn to_milli(x: f64) -> i16 {
    let x = if x.is_finite() { x } else { 0.0 };
    (x * 1000.0)
        .round()
        .clamp(f64::from(i16::MIN), f64::from(i16::MAX)) as i16
}

/// A packet's milli-unit field (any numeric type) in SI units: ÷ 1000.
pub fn from_milli(x: impl Into<f64>) -> f64 {
    x.into() / 1000.0
}

/// The folder the types were generated from (`nodes/lib/arnie_packets/packets` of the source
/// tree this crate was built from): for tests that load the same definitions.
pub const PACKETS_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/packets");

/// A generated packet's shape: `(name, id, (field, type) in wire order)`, as in [`ALL`].
pub type Shape = (&'static str, u8, &'static [(&'static str, FieldType)]);

include!(concat!(env!("OUT_DIR"), "/typed_packets.rs"));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milli_units_round_saturate_and_refuse_non_finite() {
        assert_eq!(to_milli(0.2505), 251);
        assert_eq!(to_milli(-1.5), -1500);
        assert_eq!((to_milli(40.0), to_milli(-40.0)), (i16::MAX, i16::MIN));
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(to_milli(bad), 0);
        }
        assert_eq!(from_milli(-250i16), -0.25);
        assert_eq!(from_milli(1500u16), 1.5);
        assert_eq!(from_milli(to_milli(0.123)), 0.123);
    }

    fn defs() -> Definitions {
        Definitions::load_dir(PACKETS_DIR.as_ref()).expect("the project's packets load")
    }

    /// The generated types are the JSON files: every file has its type with its fields
    /// (name, type, wire order), id and reply, and nothing else was generated. A field
    /// added to a file shows up here until the build regenerates the types.
    #[test]
    fn generated_types_are_the_json_files() {
        let d = defs();
        type Owned = (String, u8, Vec<(String, &'static str)>);
        let files: Vec<Owned> = d
            .iter()
            .map(|def| {
                let fields = def
                    .fields
                    .iter()
                    .map(|f| (f.name.clone(), f.ty.name()))
                    .collect();
                (def.name.clone(), def.id, fields)
            })
            .collect();
        let mut generated: Vec<Owned> = ALL
            .iter()
            .map(|(name, id, fields)| {
                let fields = fields
                    .iter()
                    .map(|(n, t)| ((*n).to_owned(), t.name()))
                    .collect();
                ((*name).to_owned(), *id, fields)
            })
            .collect();
        generated.sort_by_key(|g| g.1);
        assert_eq!(generated, files);
        let reply = |id: Option<u8>| id.and_then(|i| d.get(i)).map(|r| r.name.clone());
        assert_eq!(
            Actuator::REPLY.map(str::to_owned),
            reply(d.by_name("Actuator").and_then(|a| a.reply))
        );
        assert_eq!(DriveSpeed::REPLY, None);
        // Defaults are the files' (SetLed: on = true, brightness = 255).
        let led = SetLed::default();
        let p = Packet::new(d.by_name("SetLed").expect("SetLed").clone());
        assert_eq!(SetLed::from_packet(&p), Ok(led));
        assert_eq!((led.on, led.brightness), (true, 255));
    }

    #[test]
    fn a_packet_round_trips_through_bytes_and_json() {
        // Signed fields negative, an unsigned one at its maximum.
        let odo = Odometry {
            seq: 7,
            x_mm: -1500,
            y_mm: 1000,
            theta_mrad: 3141,
            linear_mm_s: -250,
            angular_mrad_s: 1200,
            cmd_seq: 65535,
            flags: 0b1_0001,
        };
        let d = defs();
        let p = odo.to_packet(&d).expect("encodes");
        assert_eq!(p.id(), Odometry::ID);
        let back = Packet::decode(p.definition().clone(), &p.encode_payload()).expect("bytes");
        assert_eq!(Odometry::from_packet(&back), Ok(odo));
        assert_eq!(odo.fields_json(), p.fields_json(), "the bridge's JSON");
        assert_eq!(Odometry::from_fields_json(&p.fields_json()), Ok(odo));
        let hit = ObstacleReport {
            seq: 1,
            sensor: 2,
            distance_mm: 300,
            bearing_mrad: -500,
            x_mm: 0.6,
            y_mm: 1234.5,
        };
        let p = hit.to_packet(&d).expect("encodes");
        let back = Packet::decode(p.definition().clone(), &p.encode_payload()).expect("bytes");
        assert_eq!(ObstacleReport::from_packet(&back), Ok(hit));
        assert_eq!(
            ObstacleReport::from_fields_json(&hit.fields_json()),
            Ok(hit)
        );
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        let d = defs();
        assert_eq!(
            Stop::from_fields_json(r#"{"seq": 70000}"#),
            Err(PacketError::BadField {
                packet: "Stop",
                field: "seq",
                problem: ValueProblem::OutOfRange {
                    value: "70000".into()
                }
            })
        );
        assert_eq!(
            Odometry::from_fields_json(r#"{"seq":1}"#),
            Err(PacketError::Missing {
                packet: "Odometry",
                field: "x_mm"
            })
        );
        for text in ["not json", "[1]"] {
            let e = Ack::from_fields_json(text);
            assert!(matches!(e, Err(PacketError::Json { .. })), "{text}: {e:?}");
        }
        let ping = Packet::new(d.by_name("Ping").expect("Ping").clone());
        assert!(matches!(
            Pong::from_packet(&ping),
            Err(PacketError::WrongPacket { .. })
        ));
        // A loaded definition that is not the built one: refused, named.
        let other = Definitions::from_texts([(
            "stop.json",
            r#"{"name":"Stop","id":31,"data":{"seq":{"type":"uint8"}}}"#,
        )])
        .expect("valid");
        assert!(matches!(
            Stop::check(&other),
            Err(PacketError::Mismatch { .. })
        ));
        assert!(matches!(
            Stop { seq: 1 }.to_packet(&other),
            Err(PacketError::Mismatch { .. })
        ));
        let p = Packet::new(other.by_name("Stop").expect("Stop").clone());
        assert!(matches!(
            Stop::from_packet(&p),
            Err(PacketError::Mismatch { .. })
        ));
        assert_eq!(
            Ack::check(&other),
            Err(PacketError::NotDefined { packet: "Ack" })
        );
    }
}
