//! Packet definitions: one JSON file per packet, read raw then checked into [`Definitions`].
//!
//! ```json
//! { "name": "Ping", "id": 1, "reply": "Pong",
//!   "data": { "seq": { "type": "uint16", "default": 0 } } }
//! ```
//! `data` is an ordered object: its order is the wire order. `default` may be omitted
//! (zero / false). `reply` (optional, an arnie extension) names the packet the send
//! service waits for. `reliable` (optional, an arnie extension, see [`crate::reliable`]):
//! `{"attempts": 10, "interval_ms": 100}` makes the sender repeat the packet until its
//! `reply` acknowledges it, and the receiver de-duplicate it by `seq`; such a definition
//! needs a `reply` and an unsigned `seq` field, and so does its reply. Unknown keys,
//! duplicate field names, duplicate ids or names, ids over 255 and defaults that do not
//! fit their type are errors naming the file.
use crate::error::{Error, Result};
use crate::packet::Packet;
use crate::value::{FieldType, Value, TYPE_NAMES};
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Largest payload a UART frame can carry: the 15-bit size counts the command byte too.
pub const MAX_PAYLOAD_LEN: usize = 0x7fff - 1;

/// A definition file exactly as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDefinition {
    /// The packet's name (unique among the definitions).
    pub name: String,
    /// The command id as written (checked: 0..=255).
    pub id: i64,
    /// The fields, in wire order.
    pub data: RawFields,
    #[serde(default)]
    /// The name of the packet that answers it, if any.
    pub reply: Option<String>,
    #[serde(default)]
    /// Repeat-until-acknowledged settings, if the packet is reliable.
    pub reliable: Option<Reliable>,
}

/// `"reliable": {"attempts": N, "interval_ms": M}`: the sender sends the packet at most
/// `attempts` times in all, `interval_ms` apart, until its reply acknowledges it (same
/// `seq`, and same `command` when the reply has that field); receivers de-duplicate copies
/// by (command, device, `seq`) for [`Reliable::window_ms`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reliable {
    /// Sends in all, the first included (1..=100).
    pub attempts: u32,
    /// Between two sends [ms] (1..=60 000).
    pub interval_ms: u64,
}

impl Reliable {
    /// How long a receiver treats a copy of a seen (command, device, seq) as a duplicate
    /// after the last copy: the sender's whole repeat span plus one interval.
    pub fn window_ms(&self) -> u64 {
        (u64::from(self.attempts) + 1).saturating_mul(self.interval_ms)
    }
}

/// One field as written: `{"type": "int8", "default": -1}`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawField {
    #[serde(rename = "type")]
    /// The type's name as written (`int8` ... `float64`, `bool`).
    pub ty: String,
    #[serde(default)]
    /// The value of a field not given, as written (`None`: zero / false).
    pub default: Option<serde_json::Value>,
}

/// The `data` object in file order; a repeated field name is a parse error.
#[derive(Clone, Debug, Default)]
pub struct RawFields(pub Vec<(String, RawField)>);

impl<'de> Deserialize<'de> for RawFields {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Ordered;
        impl<'de> Visitor<'de> for Ordered {
            type Value = RawFields;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of fields")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<RawFields, A::Error> {
                let mut out: Vec<(String, RawField)> = Vec::new();
                while let Some((name, field)) = map.next_entry::<String, RawField>()? {
                    if out.iter().any(|(n, _)| *n == name) {
                        return Err(serde::de::Error::custom(format!(
                            "field {name:?} is defined twice"
                        )));
                    }
                    out.push((name, field));
                }
                Ok(RawFields(out))
            }
        }
        d.deserialize_map(Ordered)
    }
}

/// One checked field.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The field's name (its key in `fields_json`).
    pub name: String,
    /// The field's type.
    pub ty: FieldType,
    /// The value of a field not given.
    pub default: Value,
}

/// One checked packet definition.
#[derive(Clone, Debug, PartialEq)]
pub struct Definition {
    /// The packet's name (unique among the definitions).
    pub name: String,
    /// Command id (the UART command byte; CAN ids carry only 0..=63).
    pub id: u8,
    /// Fields in wire order.
    pub fields: Vec<Field>,
    /// Command id of the reply packet, if the definition names one.
    pub reply: Option<u8>,
    /// Repeat until acknowledged, de-duplicate by `seq` (see [`crate::reliable`]).
    pub reliable: Option<Reliable>,
    /// Payload bytes (all types are fixed-size).
    pub payload_len: usize,
    /// Where it was loaded from, for messages.
    pub file: PathBuf,
}

impl Definition {
    /// Index of a field by name.
    pub fn field_index(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }
}

/// All definitions of one link, by id and by name.
#[derive(Clone, Debug, Default)]
pub struct Definitions {
    by_id: BTreeMap<u8, Arc<Definition>>,
    by_name: HashMap<String, u8>,
}

/// True when the fields have an unsigned `seq` (the key of [`Reliable`] packets).
fn has_seq(fields: &[Field]) -> bool {
    fields.iter().any(|f| {
        f.name == "seq"
            && matches!(
                f.ty,
                FieldType::UInt8 | FieldType::UInt16 | FieldType::UInt32
            )
    })
}

/// Parses one definition file's text.
pub fn parse(file: &Path, text: &str) -> Result<RawDefinition> {
    serde_json::from_str(text).map_err(|e| Error::Parse {
        file: file.to_path_buf(),
        reason: e.to_string(),
    })
}

impl Definitions {
    /// Loads every `*.json` in `dir` (in file-name order). An empty folder is an error,
    /// so a wrong path parameter fails at startup.
    pub fn load_dir(dir: &Path) -> Result<Definitions> {
        let read_dir = |source| Error::ReadDir {
            dir: dir.to_path_buf(),
            source,
        };
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(read_dir)?
            .map(|e| e.map(|e| e.path()))
            .collect::<std::io::Result<Vec<_>>>()
            .map_err(read_dir)?
            .into_iter()
            .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(Error::ReadDir {
                dir: dir.to_path_buf(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "no *.json definitions"),
            });
        }
        let mut raws = Vec::with_capacity(files.len());
        for file in files {
            let text = std::fs::read_to_string(&file).map_err(|source| Error::ReadFile {
                file: file.clone(),
                source,
            })?;
            let raw = parse(&file, &text)?;
            raws.push((file, raw));
        }
        Definitions::resolve(raws)
    }

    /// Checks raw definitions (each with the file it came from) into a set.
    pub fn resolve(raws: Vec<(PathBuf, RawDefinition)>) -> Result<Definitions> {
        let mut defs = Definitions::default();
        let mut replies: Vec<(u8, PathBuf, String)> = Vec::new();
        for (file, raw) in raws {
            if raw.name.trim().is_empty() {
                return Err(Error::EmptyName { file });
            }
            let id = u8::try_from(raw.id).map_err(|_| Error::IdOutOfRange {
                file: file.clone(),
                id: raw.id,
            })?;
            if let Some(first) = defs.by_id.get(&id) {
                return Err(Error::DuplicateId {
                    id,
                    first: first.file.clone(),
                    second: file,
                });
            }
            if let Some(first) = defs.by_name.get(&raw.name).and_then(|i| defs.by_id.get(i)) {
                return Err(Error::DuplicateName {
                    name: raw.name,
                    first: first.file.clone(),
                    second: file,
                });
            }
            let mut fields = Vec::with_capacity(raw.data.0.len());
            for (name, f) in raw.data.0 {
                let ty = FieldType::from_name(&f.ty).ok_or_else(|| Error::UnknownType {
                    file: file.clone(),
                    field: name.clone(),
                    ty: f.ty.clone(),
                    known: TYPE_NAMES,
                })?;
                let default = match &f.default {
                    None => ty.zero(),
                    Some(json) => ty.from_json(json).map_err(|p| Error::BadDefault {
                        file: file.clone(),
                        field: name.clone(),
                        reason: p.to_string(),
                    })?,
                };
                fields.push(Field { name, ty, default });
            }
            let payload_len = fields.iter().map(|f| f.ty.size()).sum();
            if payload_len > MAX_PAYLOAD_LEN {
                return Err(Error::DefinitionTooLarge {
                    file,
                    bytes: payload_len,
                    max: MAX_PAYLOAD_LEN,
                });
            }
            if let Some(r) = raw.reliable {
                let bad = |reason: String| Error::BadReliable {
                    file: file.clone(),
                    reason,
                };
                if !(1..=100).contains(&r.attempts) || !(1..=60_000).contains(&r.interval_ms) {
                    return Err(bad(format!(
                        "attempts {} must be in 1..=100 and interval_ms {} in 1..=60000",
                        r.attempts, r.interval_ms
                    )));
                }
                if raw.reply.is_none() {
                    return Err(bad(
                        "needs a `reply` (the packet that acknowledges it)".into()
                    ));
                }
                if !has_seq(&fields) {
                    return Err(bad(
                        "needs a field `seq` of type uint8, uint16 or uint32".into()
                    ));
                }
            }
            if let Some(reply) = raw.reply {
                replies.push((id, file.clone(), reply));
            }
            defs.by_name.insert(raw.name.clone(), id);
            defs.by_id.insert(
                id,
                Arc::new(Definition {
                    name: raw.name,
                    id,
                    fields,
                    reply: None,
                    reliable: raw.reliable,
                    payload_len,
                    file,
                }),
            );
        }
        for (id, file, reply) in replies {
            let reply_id = *defs
                .by_name
                .get(&reply)
                .ok_or_else(|| Error::UnknownReply {
                    file: file.clone(),
                    reply: reply.clone(),
                })?;
            let reply_has_seq = defs
                .by_id
                .get(&reply_id)
                .is_some_and(|r| has_seq(&r.fields));
            if let Some(def) = defs.by_id.get_mut(&id) {
                if def.reliable.is_some() && !reply_has_seq {
                    return Err(Error::BadReliable {
                        file,
                        reason: format!(
                            "its reply {reply:?} needs a field `seq` (uint8, uint16 or uint32) to echo"
                        ),
                    });
                }
                Arc::make_mut(def).reply = Some(reply_id);
            }
        }
        Ok(defs)
    }

    /// Parses and checks `(file label, JSON text)` pairs: for tests and tools.
    pub fn from_texts<'a>(
        texts: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Definitions> {
        let raws = texts
            .into_iter()
            .map(|(file, text)| parse(Path::new(file), text).map(|raw| (PathBuf::from(file), raw)))
            .collect::<Result<Vec<_>>>()?;
        Definitions::resolve(raws)
    }

    /// The definition with this command id.
    pub fn get(&self, id: u8) -> Option<&Arc<Definition>> {
        self.by_id.get(&id)
    }

    /// The definition with this name.
    pub fn by_name(&self, name: &str) -> Option<&Arc<Definition>> {
        self.by_name.get(name).and_then(|id| self.by_id.get(id))
    }

    /// Selection as in `Packet.msg`: a non-empty `name` wins, else `id`.
    ///
    /// # Errors
    /// [`Error::UnknownName`], [`Error::UnknownId`].
    pub fn select(&self, name: &str, id: u8) -> Result<&Arc<Definition>> {
        if name.is_empty() {
            self.get(id).ok_or(Error::UnknownId(id))
        } else {
            self.by_name(name)
                .ok_or_else(|| Error::UnknownName(name.to_string()))
        }
    }

    /// Builds a packet from a `Packet.msg`-style request: definition by name or id,
    /// fields from JSON text (missing fields take their defaults; empty text = all
    /// defaults).
    pub fn packet_from_json(
        &self,
        name: &str,
        id: u8,
        device: u8,
        fields_json: &str,
    ) -> Result<Packet> {
        let def = self.select(name, id)?;
        let mut packet = Packet::from_json_str(def.clone(), fields_json)?;
        packet.device = device;
        Ok(packet)
    }

    /// Definitions in id order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<Definition>> {
        self.by_id.values()
    }

    /// Number of definitions.
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Payload length per command id, for the UART decoder's early checks.
    pub fn payload_lengths(&self) -> Box<[Option<u16>; 256]> {
        let mut table = Box::new([None; 256]);
        for d in self.by_id.values() {
            table[usize::from(d.id)] = u16::try_from(d.payload_len).ok();
        }
        table
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Result<Definitions> {
        Definitions::from_texts([("t.json", text)])
    }

    #[test]
    fn field_order_is_file_order() {
        let d = one(r#"{"name":"A","id":3,"data":{"z":{"type":"uint8"},"a":{"type":"float","default":1.5}}}"#)
            .expect("valid");
        let a = d.get(3).expect("id 3");
        let names: Vec<_> = a.fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["z", "a"]);
        assert_eq!(a.payload_len, 5);
        assert_eq!(a.fields[1].default, Value::F32(1.5));
    }

    #[test]
    fn bad_definitions_are_errors_naming_the_problem() {
        let bad = |t: &str| one(t).expect_err("must fail");
        assert!(matches!(
            bad(r#"{"name":"A","id":256,"data":{}}"#),
            Error::IdOutOfRange { id: 256, .. }
        ));
        assert!(matches!(
            bad(r#"{"name":"A","id":-1,"data":{}}"#),
            Error::IdOutOfRange { .. }
        ));
        assert!(matches!(
            bad(r#"{"name":"","id":1,"data":{}}"#),
            Error::EmptyName { .. }
        ));
        assert!(matches!(
            bad(r#"{"name":"A","id":1,"data":{"x":{"type":"double"}}}"#),
            Error::UnknownType { .. }
        ));
        assert!(matches!(
            bad(r#"{"name":"A","id":1,"data":{"x":{"type":"uint8","default":300}}}"#),
            Error::BadDefault { .. }
        ));
        assert!(matches!(
            bad(r#"{"name":"A","id":1,"data":{"x":{"type":"uint8"},"x":{"type":"int8"}}}"#),
            Error::Parse { .. }
        ));
        assert!(matches!(
            bad(r#"{"name":"A","id":1,"data":{},"colour":1}"#),
            Error::Parse { .. }
        ));
        assert!(matches!(
            bad(r#"{"name":"A","id":1,"data":{},"reply":"B"}"#),
            Error::UnknownReply { .. }
        ));
        let seq = r#"{"seq":{"type":"uint16"}}"#;
        for (a, b) in [
            // no reply, no seq, bad numbers, a reply without seq, a signed seq
            (format!(r#"{{"name":"A","id":1,"data":{seq},"reliable":{{"attempts":3,"interval_ms":10}}}}"#), seq.to_string()),
            (r#"{"name":"A","id":1,"data":{},"reply":"B","reliable":{"attempts":3,"interval_ms":10}}"#.to_string(), seq.to_string()),
            (format!(r#"{{"name":"A","id":1,"data":{seq},"reply":"B","reliable":{{"attempts":0,"interval_ms":10}}}}"#), seq.to_string()),
            (format!(r#"{{"name":"A","id":1,"data":{seq},"reply":"B","reliable":{{"attempts":3,"interval_ms":0}}}}"#), seq.to_string()),
            (format!(r#"{{"name":"A","id":1,"data":{seq},"reply":"B","reliable":{{"attempts":3,"interval_ms":10}}}}"#), "{}".to_string()),
            (r#"{"name":"A","id":1,"data":{"seq":{"type":"int16"}},"reply":"B","reliable":{"attempts":3,"interval_ms":10}}"#.to_string(), seq.to_string()),
        ] {
            let b = format!(r#"{{"name":"B","id":2,"data":{b}}}"#);
            let e = Definitions::from_texts([("a.json", a.as_str()), ("b.json", b.as_str())])
                .expect_err(&a);
            assert!(matches!(e, Error::BadReliable { .. }), "{a}: {e}");
            assert!(e.to_string().contains("a.json"), "{e}");
        }
        assert!(matches!(
            bad(r#"{"name":"A","id":1,"data":{},"reliable":{"attempts":3}}"#),
            Error::Parse { .. }
        ));
        let e = bad(r#"{"name":"A","id":1,"data":{"x":{"type":"uint8","default":300}}}"#);
        assert!(
            e.to_string().contains("t.json") && e.to_string().contains("\"x\""),
            "{e}"
        );
    }

    #[test]
    fn duplicates_across_files() {
        let a = r#"{"name":"A","id":1,"data":{}}"#;
        let b = r#"{"name":"B","id":1,"data":{}}"#;
        let a2 = r#"{"name":"A","id":2,"data":{}}"#;
        assert!(matches!(
            Definitions::from_texts([("a", a), ("b", b)]),
            Err(Error::DuplicateId { id: 1, .. })
        ));
        assert!(matches!(
            Definitions::from_texts([("a", a), ("a2", a2)]),
            Err(Error::DuplicateName { .. })
        ));
    }

    #[test]
    fn reply_is_resolved_and_select_prefers_name() {
        let d = Definitions::from_texts([
            ("p", r#"{"name":"Ping","id":1,"data":{},"reply":"Pong"}"#),
            ("q", r#"{"name":"Pong","id":2,"data":{}}"#),
        ])
        .expect("valid");
        assert_eq!(d.by_name("Ping").and_then(|p| p.reply), Some(2));
        assert_eq!(d.select("Pong", 1).map(|p| p.id).ok(), Some(2));
        assert_eq!(d.select("", 1).map(|p| p.id).ok(), Some(1));
        assert!(matches!(d.select("", 9), Err(Error::UnknownId(9))));
        assert!(matches!(d.select("Nope", 1), Err(Error::UnknownName(_))));
    }
}
