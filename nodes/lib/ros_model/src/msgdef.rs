//! Message definitions for MCAP schemas, found exactly as rosbag2's
//! `LocalMessageDefinitionSource` finds them, so a schema we write is byte for byte the
//! one `ros2 bag record` writes for the same install.
//!
//! The algorithm (rosbag2 Jazzy, `local_message_definition_source.cpp`):
//! - the package's share folder comes from the ament index of `AMENT_PREFIX_PATH`
//!   (the first prefix holding `share/ament_index/resource_index/packages/<pkg>`);
//! - the text is the `.msg` file as it is (comments and all);
//! - its dependencies are the field types found by the regex
//!   `(?:^|\n)\s*([a-zA-Z0-9_/]+)(?:\[[^\]]*\])?\s+` that are not primitives, a bare
//!   `Type` meaning `<same package>/Type`, kept in a sorted set;
//! - each dependency not seen before (over the whole definition) is appended,
//!   depth-first, as `"\n"`, a line of 80 `=`, `"MSG: <name as written>\n"` and its own
//!   text with its own dependencies after it;
//! - when some `.msg` is missing, the whole definition is built again from `.idl`
//!   files (`IDL: ` delimiters, dependencies from `#include`), encoding `ros2idl`.
//!
//! Type hashes (`RIHS01_...`) come from the `.json` type description rosidl installs
//! beside each `.msg`.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;

/// Why no definition was found for a type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DefinitionError {
    /// No `.msg` (nor `.idl`) for the type on the prefixes searched.
    #[error("{}", not_found(type_name, searched))]
    NotFound {
        /// The message type (`pkg/msg/Type`).
        type_name: String,
        /// The prefixes searched, `:`-separated.
        searched: String,
    },
    /// A type name rosbag2's definition search does not understand (not `pkg/msg/Type`).
    #[error("type name {type_name:?} is not of the form pkg/msg/Type")]
    BadTypeName {
        /// The message type (`pkg/msg/Type`).
        type_name: String,
    },
    /// A definition includes itself through too many levels.
    #[error("definition of {type_name} nests too deeply (a cycle?)")]
    TooDeep {
        /// The message type (`pkg/msg/Type`).
        type_name: String,
    },
}

fn not_found(type_name: &str, searched: &str) -> String {
    if searched.is_empty() {
        format!("no message definition for {type_name} (AMENT_PREFIX_PATH is empty: no ROS install to search)")
    } else {
        format!("no message definition for {type_name} (searched share/<pkg>/msg in: {searched})")
    }
}

type Result<T, E = DefinitionError> = std::result::Result<T, E>;

/// How a definition is encoded (the MCAP schema encoding).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DefinitionFormat {
    /// `ros2msg`: concatenated `.msg` texts.
    Msg,
    /// `ros2idl`: concatenated `.idl` texts.
    Idl,
    /// A service's `.srv` text, the root of a service event topic's definition.
    Srv,
}

impl DefinitionFormat {
    /// The MCAP schema encoding.
    pub fn encoding(self) -> &'static str {
        match self {
            DefinitionFormat::Msg | DefinitionFormat::Srv => "ros2msg",
            DefinitionFormat::Idl => "ros2idl",
        }
    }
    fn ext(self) -> &'static str {
        match self {
            DefinitionFormat::Msg => ".msg",
            DefinitionFormat::Idl => ".idl",
            DefinitionFormat::Srv => ".srv",
        }
    }
    fn tag(self) -> &'static str {
        match self {
            DefinitionFormat::Msg => "MSG: ",
            DefinitionFormat::Idl => "IDL: ",
            DefinitionFormat::Srv => "SRV: ",
        }
    }
    fn folder(self) -> &'static str {
        match self {
            DefinitionFormat::Msg | DefinitionFormat::Idl => "msg",
            DefinitionFormat::Srv => "srv",
        }
    }
}

/// A full definition: what goes into the MCAP schema record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageDefinition {
    /// `pkg/msg/Type`.
    pub type_name: String,
    /// `ros2msg`, `ros2idl`, or empty when unknown (rosbag2 then writes an empty schema).
    pub encoding: String,
    /// The concatenated definition text.
    pub text: String,
}

impl MessageDefinition {
    /// rosbag2's `empty_message_definition_for`: no encoding, no text.
    pub fn empty(type_name: &str) -> Self {
        MessageDefinition {
            type_name: type_name.into(),
            encoding: String::new(),
            text: String::new(),
        }
    }
}

/// The 80 `=` line that separates definitions.
pub const SEPARATOR: &str =
    "================================================================================\n";

const PRIMITIVES: [&str; 14] = [
    "bool", "byte", "char", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32",
    "uint32", "int64", "uint64", "string",
];

/// rosbag2's recursion limit.
const MAX_DEPTH: i32 = 50;

fn package_type_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"^([a-zA-Z0-9_]+)/(?:msg/|srv/)?([a-zA-Z0-9_]+)$").expect("static regex")
    })
}
fn msg_field_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(?:^|\n)\s*([a-zA-Z0-9_/]+)(?:\[[^\]]*\])?\s+").expect("static regex")
    })
}
fn idl_include_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r#"(?:^|\n)#include\s+(?:"|<)([a-zA-Z0-9_/]+)\.idl(?:"|>)"#)
            .expect("static regex")
    })
}

/// The field types a `.msg` text depends on, as rosbag2 finds them.
pub fn msg_dependencies(text: &str, package: &str) -> BTreeSet<String> {
    let mut deps = BTreeSet::new();
    for c in msg_field_re().captures_iter(text) {
        let t = &c[1];
        if PRIMITIVES.contains(&t) {
            continue;
        }
        if t.contains('/') {
            deps.insert(t.to_string());
        } else {
            deps.insert(format!("{package}/{t}"));
        }
    }
    deps
}

fn idl_dependencies(text: &str) -> BTreeSet<String> {
    idl_include_re()
        .captures_iter(text)
        .map(|c| c[1].to_string())
        .collect()
}

struct Spec {
    text: String,
    deps: BTreeSet<String>,
}

enum Lookup {
    NotFound,
    BadName,
    TooDeep,
}

/// Finds definitions and type hashes under a list of install prefixes.
pub struct DefinitionSource {
    prefixes: Vec<PathBuf>,
    specs: HashMap<(String, DefinitionFormat), Spec>,
}

impl DefinitionSource {
    /// Prefixes from `AMENT_PREFIX_PATH` (empty when unset).
    pub fn from_env() -> Self {
        Self::new(crate::ament::prefixes_from_env())
    }

    /// These prefixes, searched in order.
    pub fn new(prefixes: Vec<PathBuf>) -> Self {
        DefinitionSource {
            prefixes,
            specs: HashMap::new(),
        }
    }

    /// The prefixes searched.
    pub fn prefixes(&self) -> &[PathBuf] {
        &self.prefixes
    }

    /// `<prefix>/share/<pkg>` of the first prefix whose ament index lists `pkg` (as
    /// `ament_index_cpp::get_package_share_directory`); failing that, the first prefix
    /// that has the folder.
    pub fn share_dir(&self, package: &str) -> Option<PathBuf> {
        crate::ament::package_prefix(&self.prefixes, package)
            .or_else(|| {
                self.prefixes
                    .iter()
                    .find(|p| p.join("share").join(package).is_dir())
                    .cloned()
            })
            .map(|p| p.join("share").join(package))
    }

    fn load(&mut self, name: &str, format: DefinitionFormat) -> std::result::Result<&Spec, Lookup> {
        let key = (name.to_string(), format);
        if !self.specs.contains_key(&key) {
            let caps = package_type_re().captures(name).ok_or(Lookup::BadName)?;
            let (pkg, ty) = (caps[1].to_string(), caps[2].to_string());
            let share = self.share_dir(&pkg).ok_or(Lookup::NotFound)?;
            let file = share
                .join(format.folder())
                .join(format!("{ty}{}", format.ext()));
            let bytes = std::fs::read(&file).map_err(|_| Lookup::NotFound)?;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let deps = match format {
                DefinitionFormat::Msg => msg_dependencies(&text, &pkg),
                DefinitionFormat::Idl => idl_dependencies(&text),
                DefinitionFormat::Srv => {
                    let d = msg_dependencies(&text, &pkg);
                    if d.is_empty() {
                        idl_dependencies(&text)
                    } else {
                        d
                    }
                }
            };
            self.specs.insert(key.clone(), Spec { text, deps });
        }
        self.specs.get(&key).ok_or(Lookup::NotFound)
    }

    fn append(
        &mut self,
        name: &str,
        format: DefinitionFormat,
        depth: i32,
        seen: &mut HashSet<String>,
    ) -> Result<String, Lookup> {
        if depth <= 0 {
            return Err(Lookup::TooDeep);
        }
        let (mut out, deps) = {
            let spec = self.load(name, format)?;
            (spec.text.clone(), spec.deps.clone())
        };
        for dep in deps {
            if seen.insert(dep.clone()) {
                out.push('\n');
                out.push_str(SEPARATOR);
                out.push_str(format.tag());
                out.push_str(&dep);
                out.push('\n');
                out.push_str(&self.append(&dep, format, depth - 1, seen)?);
            }
        }
        Ok(out)
    }

    /// The full definition of a message type (`pkg/msg/Type`), `.msg` first, `.idl`
    /// when a `.msg` is missing.
    ///
    /// # Errors
    /// [`DefinitionError::BadTypeName`] for a name rosbag2 would not look up (it then records
    /// an empty definition: [`MessageDefinition::empty`]); [`DefinitionError::NotFound`]
    /// when neither form exists.
    pub fn full_text(&mut self, type_name: &str) -> Result<MessageDefinition> {
        if !package_type_re().is_match(type_name) {
            return Err(DefinitionError::BadTypeName {
                type_name: type_name.into(),
            });
        }
        if type_name.contains("/srv/") {
            return self.service_text(type_name);
        }
        let mut seen = HashSet::new();
        match self.append(type_name, DefinitionFormat::Msg, MAX_DEPTH, &mut seen) {
            Ok(text) => {
                return Ok(MessageDefinition {
                    type_name: type_name.into(),
                    encoding: "ros2msg".into(),
                    text,
                })
            }
            Err(Lookup::NotFound) => {}
            Err(e) => return Err(self.lookup_error(type_name, e)),
        }
        let mut seen = HashSet::new();
        let mut text = format!("{SEPARATOR}IDL: {type_name}\n");
        match self.append(type_name, DefinitionFormat::Idl, MAX_DEPTH, &mut seen) {
            Ok(t) => {
                text.push_str(&t);
                Ok(MessageDefinition {
                    type_name: type_name.into(),
                    encoding: "ros2idl".into(),
                    text,
                })
            }
            Err(e) => Err(self.lookup_error(type_name, e)),
        }
    }

    /// The error a failed lookup of `type_name` is.
    fn lookup_error(&self, type_name: &str, e: Lookup) -> DefinitionError {
        match e {
            Lookup::NotFound => DefinitionError::NotFound {
                type_name: type_name.into(),
                searched: self
                    .prefixes
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(":"),
            },
            Lookup::BadName => DefinitionError::BadTypeName {
                type_name: type_name.into(),
            },
            Lookup::TooDeep => DefinitionError::TooDeep {
                type_name: type_name.into(),
            },
        }
    }

    /// rosbag2's definition of a service (`pkg/srv/Name`), what a service event topic's
    /// schema holds: `SRV: pkg/srv/Name` and the `.srv` text, then each dependency as a
    /// `.msg` (an `.idl` when the `.msg` is missing). The encoding is that of the last
    /// dependency written, and `unknown` for a service with none, as rosbag2 Jazzy
    /// writes it.
    fn service_text(&mut self, type_name: &str) -> Result<MessageDefinition> {
        let (root, deps, encoding) = self.service_pieces(type_name)?;
        Ok(MessageDefinition {
            type_name: type_name.into(),
            encoding: encoding.into(),
            text: format!("{SEPARATOR}SRV: {type_name}\n{root}{deps}"),
        })
    }

    /// A service's request and response as two `ros2msg` definitions
    /// (`pkg/srv/Name_Request`, `pkg/srv/Name_Response`): each half of the `.srv` text,
    /// then the definitions of the service's dependencies, as foxglove_bridge advertises a
    /// service's schemas.
    ///
    /// # Errors
    /// As [`DefinitionSource::full_text`]; also [`DefinitionError::NotFound`] when a
    /// dependency exists only as `.idl` (it cannot follow `.msg` text).
    pub fn service_parts(
        &mut self,
        type_name: &str,
    ) -> Result<(MessageDefinition, MessageDefinition)> {
        let (root, deps, encoding) = self.service_pieces(type_name)?;
        if encoding == "ros2idl" {
            return Err(DefinitionError::NotFound {
                type_name: type_name.into(),
                searched: "(a dependency has only an .idl definition)".into(),
            });
        }
        let (request, response) = split_service(&root);
        let part = |suffix: &str, text: &str| MessageDefinition {
            type_name: format!("{type_name}_{suffix}"),
            encoding: "ros2msg".into(),
            text: format!("{text}{deps}"),
        };
        Ok((part("Request", request), part("Response", response)))
    }

    /// The `.srv` text, the dependencies' text (each after a separator) and rosbag2's
    /// encoding for the whole.
    fn service_pieces(&mut self, type_name: &str) -> Result<(String, String, &'static str)> {
        let lookup = |me: &Self, e: Lookup| me.lookup_error(type_name, e);
        let (root, deps) = match self.load(type_name, DefinitionFormat::Srv) {
            Ok(spec) => (spec.text.clone(), spec.deps.clone()),
            Err(e) => return Err(lookup(self, e)),
        };
        let mut text = String::new();
        let mut encoding = "unknown";
        // One record of what was written per format, over the whole text (rosbag2 keys
        // it by name and format), so a type shared by two fields is written once.
        let (mut seen_msg, mut seen_idl) = (HashSet::new(), HashSet::new());
        for dep in deps {
            if !seen_msg.insert(dep.clone()) {
                continue;
            }
            match self.append(&dep, DefinitionFormat::Msg, MAX_DEPTH, &mut seen_msg) {
                Ok(t) => {
                    text.push_str(&format!("\n{SEPARATOR}MSG: {dep}\n{t}"));
                    encoding = "ros2msg";
                }
                Err(Lookup::NotFound) => {
                    if seen_idl.insert(dep.clone()) {
                        let t = self
                            .append(&dep, DefinitionFormat::Idl, MAX_DEPTH, &mut seen_idl)
                            .map_err(|e| lookup(self, e))?;
                        text.push_str(&format!("\n{SEPARATOR}IDL: {dep}\n{t}"));
                        encoding = "ros2idl";
                    }
                }
                Err(e) => return Err(lookup(self, e)),
            }
        }
        Ok((root, text, encoding))
    }

    /// The type's `RIHS01_...` hash from `share/<pkg>/msg/<Type>.json` (a service's
    /// messages, `pkg/srv/Name_Event`, from `share/<pkg>/srv/<Name>.json`), if installed.
    pub fn type_hash(&self, type_name: &str) -> Option<String> {
        let caps = package_type_re().captures(type_name)?;
        let share = self.share_dir(&caps[1])?;
        let path = if type_name.contains("/srv/") {
            let service = ["_Event", "_Request", "_Response"]
                .iter()
                .find_map(|s| caps[2].strip_suffix(s))
                .unwrap_or(&caps[2]);
            share.join("srv").join(format!("{service}.json"))
        } else {
            share.join("msg").join(format!("{}.json", &caps[2]))
        };
        type_hash_from_json(&path, type_name)
    }
}

/// A `.srv` text's request and response halves (split at the `---` line).
fn split_service(srv: &str) -> (&str, &str) {
    let mut at = 0;
    for line in srv.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return (&srv[..at], &srv[at + line.len()..]);
        }
        at += line.len();
    }
    (srv, "")
}

fn type_hash_from_json(path: &Path, type_name: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    let hashes = v.get("type_hashes")?.as_array()?;
    let full = if type_name.split('/').count() == 2 {
        let (p, t) = type_name.split_once('/')?;
        format!("{p}/msg/{t}")
    } else {
        type_name.to_string()
    };
    hashes
        .iter()
        .find(|h| h.get("type_name").and_then(|n| n.as_str()) == Some(full.as_str()))
        .or_else(|| hashes.first())
        .and_then(|h| h.get("hash_string")?.as_str().map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dependencies_like_rosbag2() {
        let text = "# comment Foo bar\nstd_msgs/Header header\nPoint[] points\nuint8 X=1\nstring<=5 s\nfloat64[3] v\n  Quaternion  q # c\nbuiltin_interfaces/Time[<=2] t\n";
        let d: Vec<_> = msg_dependencies(text, "geometry_msgs")
            .into_iter()
            .collect();
        assert_eq!(
            d,
            [
                "builtin_interfaces/Time",
                "geometry_msgs/Point",
                "geometry_msgs/Quaternion",
                "std_msgs/Header"
            ]
        );
    }

    fn tree() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        let put = |rel: &str, text: &str| {
            let p = d.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        put("share/ament_index/resource_index/packages/a", "");
        put("share/ament_index/resource_index/packages/b", "");
        put("share/a/msg/Top.msg", "b/Leaf x\nMid m\n");
        put("share/a/msg/Mid.msg", "b/Leaf y # again\n");
        put("share/b/msg/Leaf.msg", "int32 v\n");
        put(
            "share/a/srv/Get.srv",
            "b/Leaf req\n---\nMid res\nb/Leaf again\n",
        );
        put("share/a/srv/Add.srv", "int64 a\n---\nint64 sum\n");
        put(
            "share/b/msg/OnlyIdl.idl",
            "#include \"b/msg/Leaf.idl\"\nmodule b {};\n",
        );
        put(
            "share/b/msg/Leaf.idl",
            "module b { struct Leaf { long v; }; };\n",
        );
        d
    }

    #[test]
    fn full_text_is_depth_first_sorted_each_once() {
        let d = tree();
        let mut src = DefinitionSource::new(vec![d.path().into()]);
        let def = src.full_text("a/msg/Top").unwrap();
        let sep = SEPARATOR;
        assert_eq!(def.encoding, "ros2msg");
        assert_eq!(def.text, format!("b/Leaf x\nMid m\n\n{sep}MSG: a/Mid\nb/Leaf y # again\n\n{sep}MSG: b/Leaf\nint32 v\n"));
        let idl = src.full_text("b/msg/OnlyIdl").unwrap();
        assert_eq!(idl.encoding, "ros2idl");
        assert_eq!(idl.text, format!("{sep}IDL: b/msg/OnlyIdl\n#include \"b/msg/Leaf.idl\"\nmodule b {{}};\n\n{sep}IDL: b/msg/Leaf\nmodule b {{ struct Leaf {{ long v; }}; }};\n"));
        assert!(matches!(
            src.full_text("a/msg/Nope"),
            Err(DefinitionError::NotFound { .. })
        ));
        assert!(matches!(
            src.full_text("not a type"),
            Err(DefinitionError::BadTypeName { .. })
        ));
    }

    #[test]
    fn a_service_is_written_as_rosbag2_writes_a_service_event_schema() {
        let d = tree();
        let mut src = DefinitionSource::new(vec![d.path().to_path_buf()]);
        let get = src.full_text("a/srv/Get").unwrap();
        let want = format!(
            "{SEPARATOR}SRV: a/srv/Get\nb/Leaf req\n---\nMid res\nb/Leaf again\n\n\
             {SEPARATOR}MSG: a/Mid\nb/Leaf y # again\n\n{SEPARATOR}MSG: b/Leaf\nint32 v\n"
        );
        assert_eq!(get.text, want);
        assert_eq!(get.encoding, "ros2msg");
        // No dependency: rosbag2 Jazzy leaves the encoding "unknown".
        let add = src.full_text("a/srv/Add").unwrap();
        assert_eq!(add.encoding, "unknown");
        assert!(add
            .text
            .ends_with("SRV: a/srv/Add\nint64 a\n---\nint64 sum\n"));
        let (req, resp) = src.service_parts("a/srv/Get").unwrap();
        assert_eq!(req.type_name, "a/srv/Get_Request");
        assert!(
            req.text.starts_with("b/Leaf req\n\n=") && req.text.contains("MSG: a/Mid\n"),
            "{}",
            req.text
        );
        assert!(
            resp.text.starts_with("Mid res\nb/Leaf again\n\n="),
            "{}",
            resp.text
        );
        assert_eq!(
            split_service("int64 a\n---\nint64 sum\n"),
            ("int64 a\n", "int64 sum\n")
        );
        assert!(matches!(
            src.full_text("a/srv/Missing"),
            Err(DefinitionError::NotFound { .. })
        ));
    }
}
