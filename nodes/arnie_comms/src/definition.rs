//! Packet definitions: one JSON file per packet, read raw then checked into [`Definitions`].
//!
//! ```json
//! { "name": "Ping", "id": 1, "reply": "Pong",
//!   "data": { "seq": { "type": "uint16", "default": 0 } } }
//! ```
//! `data` is an ordered object: its order is the wire order. `default` may be omitted
//! (zero / false). `reply` (optional, an arnie extension) names the packet the send
//! service waits for. Unknown keys, duplicate field names, duplicate ids or names, ids
//! over 255 and defaults that do not fit their type are errors naming the file.
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
    pub name: String,
    pub id: i64,
    pub data: RawFields,
    #[serde(default)]
    pub reply: Option<String>,
}

/// One field as written: `{"type": "int8", "default": -1}`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawField {
    #[serde(rename = "type")]
    pub ty: String,
    #[serde(default)]
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
    pub name: String,
    pub ty: FieldType,
    pub default: Value,
}

/// One checked packet definition.
#[derive(Clone, Debug, PartialEq)]
pub struct Definition {
    pub name: String,
    /// Command id (the UART command byte; CAN ids carry only 0..=63).
    pub id: u8,
    /// Fields in wire order.
    pub fields: Vec<Field>,
    /// Command id of the reply packet, if the definition names one.
    pub reply: Option<u8>,
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
                    payload_len,
                    file,
                }),
            );
        }
        for (id, file, reply) in replies {
            let reply_id = *defs
                .by_name
                .get(&reply)
                .ok_or(Error::UnknownReply { file, reply })?;
            if let Some(def) = defs.by_id.get_mut(&id) {
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
