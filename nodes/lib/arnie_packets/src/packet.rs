//! [`Packet`]: one definition plus one typed value per field; payload bytes and JSON.
use crate::counters::RejectKind;
use crate::definition::Definition;
use crate::error::{Error, Result};
use crate::value::{Value, ValueProblem};
use std::sync::Arc;

/// A packet: its definition, a value for every field (in wire order, each of its field's
/// type) and, for CAN, the device number.
#[derive(Clone, Debug, PartialEq)]
pub struct Packet {
    def: Arc<Definition>,
    values: Vec<Value>,
    /// CAN device (0..=31); ignored on UART.
    pub device: u8,
}

impl Packet {
    /// A packet with every field at its default.
    pub fn new(def: Arc<Definition>) -> Packet {
        let values = def.fields.iter().map(|f| f.default).collect();
        Packet {
            def,
            values,
            device: 0,
        }
    }

    /// From a JSON object of fields; missing fields keep their defaults.
    ///
    /// # Errors
    /// [`Error::FieldsNotObject`], [`Error::UnknownField`], [`Error::WrongType`],
    /// [`Error::OutOfRange`].
    pub fn from_json(def: Arc<Definition>, fields: &serde_json::Value) -> Result<Packet> {
        let obj = fields.as_object().ok_or_else(|| Error::FieldsNotObject {
            packet: def.name.clone(),
        })?;
        let mut p = Packet::new(def);
        for (name, json) in obj {
            p.set_json(name, json)?;
        }
        Ok(p)
    }

    /// As [`from_json`](Self::from_json) from text; empty or blank text means all defaults.
    pub fn from_json_str(def: Arc<Definition>, text: &str) -> Result<Packet> {
        if text.trim().is_empty() {
            return Ok(Packet::new(def));
        }
        let json: serde_json::Value =
            serde_json::from_str(text).map_err(|e| Error::FieldsJson {
                packet: def.name.clone(),
                reason: e.to_string(),
            })?;
        Packet::from_json(def, &json)
    }

    /// Decodes a payload. Its length must be the definition's exactly.
    pub fn decode(def: Arc<Definition>, payload: &[u8]) -> std::result::Result<Packet, RejectKind> {
        if payload.len() != def.payload_len {
            return Err(RejectKind::LengthMismatch);
        }
        let mut values = Vec::with_capacity(def.fields.len());
        let mut at = 0;
        for f in &def.fields {
            let v = payload
                .get(at..)
                .and_then(|rest| f.ty.read(rest))
                .ok_or(RejectKind::BadValue)?;
            values.push(v);
            at += f.ty.size();
        }
        Ok(Packet {
            def,
            values,
            device: 0,
        })
    }

    /// The definition.
    pub fn definition(&self) -> &Arc<Definition> {
        &self.def
    }

    /// Packet name.
    pub fn name(&self) -> &str {
        &self.def.name
    }

    /// Command id.
    pub fn id(&self) -> u8 {
        self.def.id
    }

    /// One field's value.
    pub fn get(&self, field: &str) -> Option<Value> {
        self.def
            .field_index(field)
            .and_then(|i| self.values.get(i).copied())
    }

    /// Sets a field; the value's type must be the field's.
    pub fn set(&mut self, field: &str, value: Value) -> Result<()> {
        let i = self.index(field)?;
        let ty = self.def.fields[i].ty;
        if value.field_type() != ty {
            return Err(Error::WrongType {
                packet: self.def.name.clone(),
                field: field.to_string(),
                expected: ty.name(),
                got: value.field_type().name().to_string(),
            });
        }
        self.values[i] = value;
        Ok(())
    }

    /// Sets a field from JSON, range-checked.
    pub fn set_json(&mut self, field: &str, json: &serde_json::Value) -> Result<()> {
        let i = self.index(field)?;
        let ty = self.def.fields[i].ty;
        let v = ty.from_json(json).map_err(|p| match p {
            ValueProblem::WrongType { expected, got } => Error::WrongType {
                packet: self.def.name.clone(),
                field: field.to_string(),
                expected,
                got,
            },
            ValueProblem::OutOfRange { value } => Error::OutOfRange {
                packet: self.def.name.clone(),
                field: field.to_string(),
                ty: ty.name(),
                value,
            },
        })?;
        self.values[i] = v;
        Ok(())
    }

    /// `(field name, value)` in wire order.
    pub fn fields(&self) -> impl Iterator<Item = (&str, Value)> {
        self.def
            .fields
            .iter()
            .map(|f| f.name.as_str())
            .zip(self.values.iter().copied())
    }

    /// The fields as a JSON object, in wire order.
    pub fn to_json(&self) -> serde_json::Value {
        let map: serde_json::Map<String, serde_json::Value> = self
            .fields()
            .map(|(n, v)| (n.to_string(), v.to_json()))
            .collect();
        serde_json::Value::Object(map)
    }

    /// [`to_json`](Self::to_json) as text, e.g. `{"foo":60,"foo2":1}`.
    pub fn fields_json(&self) -> String {
        self.to_json().to_string()
    }

    /// The payload bytes (little-endian, wire order).
    pub fn encode_payload(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.def.payload_len);
        for v in &self.values {
            v.write(&mut out);
        }
        out
    }

    fn index(&self, field: &str) -> Result<usize> {
        self.def
            .field_index(field)
            .ok_or_else(|| Error::UnknownField {
                packet: self.def.name.clone(),
                field: field.to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::definition::Definitions;
    use serde_json::json;

    fn defs() -> Definitions {
        Definitions::from_texts([(
            "m.json",
            r#"{"name":"M","id":7,"data":{"b":{"type":"bool"},"x":{"type":"int16","default":-2},"f":{"type":"float"}}}"#,
        )])
        .expect("valid")
    }

    #[test]
    fn json_in_json_out_in_wire_order() {
        let d = defs();
        let p = d
            .packet_from_json("M", 0, 3, r#"{"f": 0.5, "b": true}"#)
            .expect("valid");
        assert_eq!(p.device, 3);
        assert_eq!(p.fields_json(), r#"{"b":true,"x":-2,"f":0.5}"#);
        assert_eq!(p.encode_payload(), [1, 0xfe, 0xff, 0, 0, 0, 0x3f]);
        let back = Packet::decode(p.definition().clone(), &p.encode_payload()).expect("decodes");
        assert_eq!(back.to_json(), p.to_json());
    }

    #[test]
    fn bad_fields_are_errors() {
        let d = defs();
        let def = d.get(7).expect("M").clone();
        assert!(matches!(
            Packet::from_json(def.clone(), &json!({"y": 1})),
            Err(Error::UnknownField { .. })
        ));
        assert!(matches!(
            Packet::from_json(def.clone(), &json!({"x": 40000})),
            Err(Error::OutOfRange { .. })
        ));
        assert!(matches!(
            Packet::from_json(def.clone(), &json!({"b": "yes"})),
            Err(Error::WrongType { .. })
        ));
        assert!(matches!(
            Packet::from_json(def.clone(), &json!([1])),
            Err(Error::FieldsNotObject { .. })
        ));
        assert!(matches!(
            Packet::from_json_str(def.clone(), "{"),
            Err(Error::FieldsJson { .. })
        ));
        let mut p = Packet::new(def);
        assert!(matches!(
            p.set("x", Value::U8(1)),
            Err(Error::WrongType { .. })
        ));
        assert!(p.set("x", Value::I16(9)).is_ok());
        assert_eq!(p.get("x"), Some(Value::I16(9)));
    }

    #[test]
    fn decode_rejects_wrong_length_and_bad_bool() {
        let d = defs();
        let def = d.get(7).expect("M").clone();
        assert_eq!(
            Packet::decode(def.clone(), &[0; 6]),
            Err(RejectKind::LengthMismatch)
        );
        assert_eq!(
            Packet::decode(def, &[2, 0, 0, 0, 0, 0, 0]),
            Err(RejectKind::BadValue)
        );
    }
}
