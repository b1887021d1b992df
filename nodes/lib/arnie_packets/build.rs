//! Reads the packet definitions in `packets/*.json` and writes one Rust type per packet
//! (`typed_packets.rs` in `OUT_DIR`, included by `src/typed.rs`): a struct with one field
//! per JSON field, typed from its `"type"`, its `Default` from the JSON defaults, and the
//! [`TypedPacket`] items (name, id, reply, fields in wire order, values ⇄ struct).
//!
//! The run-time loader (`Definitions::load_dir`) checks every rule of the format; this
//! reads only what the types need, and a file it cannot read fails the build naming the
//! file. A new field in a JSON file is a new struct field on the next build.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

struct Field {
    name: String,
    /// `(rust type, Value variant, FieldType variant)`.
    ty: (&'static str, &'static str, &'static str),
    json_type: String,
    /// The default as a Rust literal.
    default: String,
}

struct Def {
    file: String,
    name: String,
    id: u8,
    reply: Option<String>,
    fields: Vec<Field>,
}

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("packets");
    println!("cargo:rerun-if-changed={}", dir.display());
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    files.retain(|p| p.extension().is_some_and(|x| x == "json"));
    files.sort();
    let mut defs = Vec::new();
    for file in files {
        println!("cargo:rerun-if-changed={}", file.display());
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        defs.push(parse(&file, &text));
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    std::fs::write(out.join("typed_packets.rs"), rust(&defs)).expect("write");
}

fn parse(file: &Path, text: &str) -> Def {
    let at = file.display();
    let json: serde_json::Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{at}: not JSON: {e}"));
    let name = json["name"]
        .as_str()
        .unwrap_or_else(|| panic!("{at}: no string `name`"))
        .to_owned();
    let ident_ok = |s: &str| {
        s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if !ident_ok(&name) || !name.starts_with(|c: char| c.is_ascii_uppercase()) {
        panic!("{at}: name {name:?} is not a CamelCase Rust type name");
    }
    let id = json["id"]
        .as_u64()
        .and_then(|i| u8::try_from(i).ok())
        .unwrap_or_else(|| panic!("{at}: `id` is not 0..=255"));
    let reply = json["reply"].as_str().map(str::to_owned);
    let data = json["data"]
        .as_object()
        .unwrap_or_else(|| panic!("{at}: `data` is not an object"));
    let mut fields = Vec::new();
    for (fname, f) in data {
        if !ident_ok(fname) || fname.starts_with(|c: char| c.is_ascii_uppercase()) {
            panic!("{at}: field {fname:?} is not a snake_case Rust field name");
        }
        let json_type = f["type"]
            .as_str()
            .unwrap_or_else(|| panic!("{at}: field {fname}: no string `type`"));
        let ty = match json_type {
            "int8" => ("i8", "I8", "Int8"),
            "uint8" => ("u8", "U8", "UInt8"),
            "int16" => ("i16", "I16", "Int16"),
            "uint16" => ("u16", "U16", "UInt16"),
            "int32" => ("i32", "I32", "Int32"),
            "uint32" => ("u32", "U32", "UInt32"),
            "bool" => ("bool", "Bool", "Bool"),
            "float" => ("f32", "F32", "Float"),
            "float64" => ("f64", "F64", "Float64"),
            t => panic!("{at}: field {fname}: unknown type {t:?}"),
        };
        let d = &f["default"];
        let bad = || -> String { panic!("{at}: field {fname}: default {d} is not a {json_type}") };
        let default = match ty.0 {
            _ if d.is_null() => match ty.0 {
                "bool" => "false".to_owned(),
                "f32" | "f64" => format!("0.0_{}", ty.0),
                t => format!("0_{t}"),
            },
            "bool" => d.as_bool().map_or_else(bad, |b| b.to_string()),
            "f32" => d
                .as_f64()
                .map_or_else(bad, |x| format!("{:?}_f32", x as f32)),
            "f64" => d.as_f64().map_or_else(bad, |x| format!("{x:?}_f64")),
            t => match (d.as_i64(), d.as_u64()) {
                (Some(i), _) => format!("{i}_{t}"),
                (None, Some(u)) => format!("{u}_{t}"),
                _ => bad(),
            },
        };
        fields.push(Field {
            name: fname.clone(),
            ty,
            json_type: json_type.to_owned(),
            default,
        });
    }
    Def {
        file: file
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default(),
        name,
        id,
        reply,
        fields,
    }
}

fn rust(defs: &[Def]) -> String {
    let mut s = String::new();
    for d in defs {
        let reply = match &d.reply {
            Some(r) => format!(" Answered by [`{r}`]."),
            None => String::new(),
        };
        let _ = writeln!(
            s,
            "/// `{}` (id {}), from `packets/{}`.{reply}\n\
             #[derive(Clone, Copy, Debug, PartialEq)]\npub struct {} {{",
            d.name, d.id, d.file, d.name
        );
        for f in &d.fields {
            let _ = writeln!(
                s,
                "    /// `{}`: `{}` on the wire.\n    pub {}: {},",
                f.name, f.json_type, f.name, f.ty.0
            );
        }
        let _ = writeln!(s, "}}\n");
        let _ = writeln!(
            s,
            "impl Default for {} {{\n    /// The definition's defaults.\n    fn default() -> Self {{\n        {} {{",
            d.name, d.name
        );
        for f in &d.fields {
            let _ = writeln!(s, "            {}: {},", f.name, f.default);
        }
        let _ = writeln!(s, "        }}\n    }}\n}}\n");
        let reply = match &d.reply {
            Some(r) => format!("Some({r:?})"),
            None => "None".to_owned(),
        };
        let _ = writeln!(
            s,
            "impl TypedPacket for {} {{\n    const NAME: &'static str = {:?};\n    const ID: u8 = {};\n    const REPLY: Option<&'static str> = {reply};\n    const FIELDS: &'static [(&'static str, FieldType)] = &[",
            d.name, d.name, d.id
        );
        for f in &d.fields {
            let _ = writeln!(s, "        ({:?}, FieldType::{}),", f.name, f.ty.2);
        }
        let _ = writeln!(
            s,
            "    ];\n\n    fn values(&self) -> Vec<Value> {{\n        vec!["
        );
        for f in &d.fields {
            let _ = writeln!(s, "            Value::{}(self.{}),", f.ty.1, f.name);
        }
        let _ = writeln!(
            s,
            "        ]\n    }}\n\n    fn from_values(values: &[Value]) -> Option<Self> {{\n        match *values {{\n            ["
        );
        for f in &d.fields {
            let _ = writeln!(s, "                Value::{}({}),", f.ty.1, f.name);
        }
        let _ = writeln!(s, "            ] => Some({} {{", d.name);
        for f in &d.fields {
            let _ = writeln!(s, "                {},", f.name);
        }
        let _ = writeln!(
            s,
            "            }}),\n            _ => None,\n        }}\n    }}\n}}\n"
        );
    }
    let _ = writeln!(
        s,
        "/// Every generated packet, `(name, id, fields in wire order)`, in file-name order.\n\
         pub const ALL: &[Shape] = &["
    );
    for d in defs {
        let _ = writeln!(s, "    ({n}::NAME, {n}::ID, {n}::FIELDS),", n = d.name);
    }
    let _ = writeln!(s, "];");
    s
}
