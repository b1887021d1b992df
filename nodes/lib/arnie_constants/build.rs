//! Reads the constants of `msg/arnie_interfaces` and `msg/nav2_msgs` (`.msg`, `.srv`,
//! `.action`) and writes them as Rust consts (`constants.rs`; Nav2's under `nav2::`) and,
//! for the `ros` feature's test, one comparison per constant against r2r's generated
//! constant (`r2r_check.rs`). Both in `OUT_DIR`.
//!
//! A constant line is `TYPE NAME=VALUE` (ROS 2 interface definition); the `#` comment
//! lines right above it become its doc. A file this parser cannot read fails the build
//! with the file and line.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One constant of one section of one interface file.
struct Constant {
    name: String,
    rust_type: &'static str,
    value: String,
    doc: Vec<String>,
}

/// One part of an interface: a message, a request/response, a goal/result/feedback.
struct Section {
    /// `""` for a message; `request`, `response`; `goal`, `result`, `feedback`.
    name: &'static str,
    constants: Vec<Constant>,
}

struct Interface {
    /// The ROS package (`arnie_interfaces`, `nav2_msgs`).
    package: &'static str,
    kind: &'static str,
    /// `MoveTo`.
    name: String,
    sections: Vec<Section>,
}

/// The packages read, and the module each one's constants go in (`""`: the top level).
const PACKAGES: [(&str, &str); 2] = [("arnie_interfaces", ""), ("nav2_msgs", "nav2")];

fn main() {
    let mut interfaces = Vec::new();
    for (package, _) in PACKAGES {
        read_package(package, &mut interfaces);
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let mut constants = String::new();
    for (package, module) in PACKAGES {
        let own: Vec<&Interface> = interfaces.iter().filter(|i| i.package == package).collect();
        if module.is_empty() {
            constants.push_str(&constants_rs(&own));
        } else {
            let _ = writeln!(
                constants,
                "/// The constants of `msg/{package}` (the vendored copy of the real package).\npub mod {module} {{\n{}}}",
                constants_rs(&own)
            );
        }
    }
    std::fs::write(out.join("constants.rs"), constants).expect("write");
    std::fs::write(out.join("r2r_check.rs"), r2r_check_rs(&interfaces)).expect("write");
}

fn read_package(package: &'static str, interfaces: &mut Vec<Interface>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../msg")
        .join(package);
    println!("cargo:rerun-if-changed={}", dir.display());
    for (kind, ext, sections) in [
        ("msg", "msg", &[""][..]),
        ("srv", "srv", &["request", "response"][..]),
        ("action", "action", &["goal", "result", "feedback"][..]),
    ] {
        let sub = dir.join(kind);
        println!("cargo:rerun-if-changed={}", sub.display());
        let mut files: Vec<PathBuf> = std::fs::read_dir(&sub)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", sub.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == ext))
            .collect();
        files.sort();
        for file in files {
            println!("cargo:rerun-if-changed={}", file.display());
            let text = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
            let name = file
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_else(|| panic!("{}: bad file name", file.display()))
                .to_owned();
            interfaces.push(Interface {
                package,
                kind,
                name,
                sections: parse(&file, &text, sections),
            });
        }
    }
}

fn parse(file: &Path, text: &str, names: &[&'static str]) -> Vec<Section> {
    let mut sections: Vec<Section> = Vec::new();
    let mut current = Section {
        name: names[0],
        constants: Vec::new(),
    };
    let mut doc: Vec<String> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let at = || format!("{}:{}", file.display(), i + 1);
        let line = raw.trim();
        if line == "---" {
            let next = names
                .get(sections.len() + 1)
                .unwrap_or_else(|| panic!("{}: too many --- separators", at()));
            sections.push(std::mem::replace(
                &mut current,
                Section {
                    name: next,
                    constants: Vec::new(),
                },
            ));
            doc.clear();
            continue;
        }
        if let Some(c) = line.strip_prefix('#') {
            doc.push(c.trim().to_owned());
            continue;
        }
        if line.is_empty() {
            doc.clear();
            continue;
        }
        let (ty, rest) = line
            .split_once(char::is_whitespace)
            .unwrap_or_else(|| panic!("{}: expected `TYPE NAME`: {line:?}", at()));
        let Some((name, value)) = rest.split_once('=') else {
            // A field: the comments above were its own.
            doc.clear();
            continue;
        };
        let name = name.trim().to_owned();
        let rust_type = rust_type(ty).unwrap_or_else(|| panic!("{}: constant type {ty:?}", at()));
        let value = value.trim();
        let value = if rust_type == "&str" {
            format!("{value:?}")
        } else {
            // Integers, floats and bools: no trailing comment allowed after the value.
            let v = value.split('#').next().unwrap_or("").trim();
            if v.is_empty() {
                panic!("{}: constant {name} has no value", at());
            }
            v.to_owned()
        };
        current.constants.push(Constant {
            name,
            rust_type,
            value,
            doc: std::mem::take(&mut doc),
        });
    }
    sections.push(current);
    sections
}

fn rust_type(ros: &str) -> Option<&'static str> {
    Some(match ros {
        "bool" => "bool",
        "byte" | "char" | "uint8" => "u8",
        "int8" => "i8",
        "uint16" => "u16",
        "int16" => "i16",
        "uint32" => "u32",
        "int32" => "i32",
        "uint64" => "u64",
        "int64" => "i64",
        "float32" => "f32",
        "float64" => "f64",
        "string" => "&str",
        _ => return None,
    })
}

/// `MoveTo` -> `move_to`, `FollowGPSWaypoints` -> `follow_gps_waypoints` (an
/// acronym is one word).
fn snake(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut s = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev_lower = i > 0 && !chars[i - 1].is_ascii_uppercase();
            let acronym_end = i > 0
                && chars[i - 1].is_ascii_uppercase()
                && chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev_lower || acronym_end {
                s.push('_');
            }
            s.push(c.to_ascii_lowercase());
        } else {
            s.push(c);
        }
    }
    s
}

fn title(section: &str) -> String {
    let mut c = section.chars();
    match c.next() {
        Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
        None => String::new(),
    }
}

fn constants_rs(interfaces: &[&Interface]) -> String {
    let mut s = String::new();
    for kind in ["msg", "srv", "action"] {
        let what = match kind {
            "msg" => "Messages",
            "srv" => "Services",
            _ => "Actions",
        };
        let _ = writeln!(
            s,
            "/// {what}: `msg/{package}/{kind}/*.{kind}`.\npub mod {kind} {{",
            package = interfaces.first().map_or("", |i| i.package)
        );
        for i in interfaces.iter().filter(|i| i.kind == kind) {
            if i.sections.iter().all(|s| s.constants.is_empty()) {
                continue;
            }
            let file = format!("{}.{}", i.name, i.kind);
            let _ = writeln!(
                s,
                "/// The constants of `{}/{kind}/{}` (`{file}`).\npub mod {} {{",
                i.package,
                i.name,
                snake(&i.name)
            );
            for sec in i.sections.iter().filter(|s| !s.constants.is_empty()) {
                let close = if sec.name.is_empty() {
                    ""
                } else {
                    let _ = writeln!(
                        s,
                        "/// The constants of `{file}`'s {}.\npub mod {} {{",
                        sec.name, sec.name
                    );
                    "}"
                };
                for c in &sec.constants {
                    for d in &c.doc {
                        let _ = writeln!(s, "/// {d}");
                    }
                    if !c.doc.is_empty() {
                        let _ = writeln!(s, "///");
                    }
                    let _ = writeln!(
                        s,
                        "/// `{} {}={}` in `{file}`.\npub const {}: {} = {};",
                        ros_name(c.rust_type),
                        c.name,
                        c.value.trim_matches('"'),
                        c.name,
                        c.rust_type,
                        c.value
                    );
                }
                let ty = sec.constants[0].rust_type;
                if sec.constants.iter().all(|c| c.rust_type == ty) {
                    let _ = writeln!(
                        s,
                        "/// Every constant above, `(name, value)`, in file order.\npub const ALL: &[(&str, {ty})] = &["
                    );
                    for c in &sec.constants {
                        let _ = writeln!(s, "    ({:?}, {}),", c.name, c.name);
                    }
                    let _ = writeln!(s, "];");
                }
                let _ = writeln!(s, "{close}");
            }
            let _ = writeln!(s, "}}");
        }
        let _ = writeln!(s, "}}");
    }
    s
}

fn ros_name(rust_type: &str) -> &'static str {
    match rust_type {
        "bool" => "bool",
        "u8" => "uint8",
        "i8" => "int8",
        "u16" => "uint16",
        "i16" => "int16",
        "u32" => "uint32",
        "i32" => "int32",
        "u64" => "uint64",
        "i64" => "int64",
        "f32" => "float32",
        "f64" => "float64",
        _ => "string",
    }
}

/// `fn compare(failures: &mut Vec<String>) -> usize`: every constant against r2r's.
fn r2r_check_rs(interfaces: &[Interface]) -> String {
    let mut s = String::from(
        "/// Compares every generated constant with r2r's; pushes one line per mismatch and\n\
         /// returns how many constants were compared.\n\
         #[allow(clippy::unnecessary_cast, clippy::float_cmp)]\n\
         fn compare(failures: &mut Vec<String>) -> usize {\n    let mut n = 0;\n",
    );
    for i in interfaces {
        let module =
            PACKAGES
                .iter()
                .find(|(p, _)| *p == i.package)
                .map_or(String::new(), |(_, m)| {
                    if m.is_empty() {
                        String::new()
                    } else {
                        format!("{m}::")
                    }
                });
        for sec in &i.sections {
            for c in &sec.constants {
                let ours = if sec.name.is_empty() {
                    format!(
                        "arnie_constants::{module}{}::{}::{}",
                        i.kind,
                        snake(&i.name),
                        c.name
                    )
                } else {
                    format!(
                        "arnie_constants::{module}{}::{}::{}::{}",
                        i.kind,
                        snake(&i.name),
                        sec.name,
                        c.name
                    )
                };
                let theirs = if sec.name.is_empty() {
                    format!("r2r::{}::{}::{}::{}", i.package, i.kind, i.name, c.name)
                } else {
                    format!(
                        "r2r::{}::{}::{}::{}::{}",
                        i.package,
                        i.kind,
                        i.name,
                        title(sec.name),
                        c.name
                    )
                };
                let cast = match c.rust_type {
                    "f32" | "f64" => " as f64",
                    "&str" | "bool" => "",
                    _ => " as i128",
                };
                let _ = writeln!(
                    s,
                    "    n += 1;\n    if {ours}{cast} != {theirs}{cast} {{\n        failures.push(format!(\"{ours} = {{:?}}, r2r's {theirs} = {{:?}}\", {ours}, {theirs}));\n    }}"
                );
            }
        }
    }
    s.push_str("    n\n}\n");
    s
}
