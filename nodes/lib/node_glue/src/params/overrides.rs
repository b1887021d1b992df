//! Parameter values given at start (`--params-file`, `-p`), applied as rclcpp applies
//! them. rcl parses the command line into one list of node keys in the order they first
//! appear (every file, then `-p` values under `/**`); a key applies to a node when it
//! matches the node's fully qualified name, where a key without a leading `/` gets one
//! (`brain` is `/brain`), `*` stands for one name and `**` for any number of them
//! (`/**` every node, `/**/brain` a `brain` in any namespace, `/left/brain` one node). Keys
//! are applied in that order, a later one overriding an earlier one (rclcpp's
//! `resolve_parameter_overrides`).
//!
//! r2r 0.9.7 applies only `/**`, `**`, the fully qualified name and the bare name (which
//! rclcpp does not: a `brain:` key is `/brain`, not `/left/brain`); the glue resolves the
//! overrides again with rcl's own parser and replaces r2r's table with the result.
use r2r::ParameterValue;
use std::ffi::{CStr, CString};

/// Every key (`/**`, `/left/brain` ...) with its values, in the order rcl read them.
pub type Keys = Vec<(String, Vec<(String, ParameterValue)>)>;

/// One value given at start, with where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Given {
    /// The parameter's name.
    pub name: String,
    /// Its value.
    pub value: ParameterValue,
    /// The key it was given under (`/**`, `/left/brain` ...).
    pub key: String,
}

impl Given {
    /// True when the key names this node alone (not a wildcard): a parameter given there
    /// that the node does not declare is a mistake worth stopping for.
    pub fn exact(&self) -> bool {
        !self.key.contains('*')
    }
}

/// Does the parameter-file key `key` apply to the node `fqn` (`/left/brain`)?
pub fn key_matches(key: &str, fqn: &str) -> bool {
    let key = key.trim_start_matches('/');
    let key: Vec<&str> = if key.is_empty() {
        vec![]
    } else {
        key.split('/').collect()
    };
    let fqn: Vec<&str> = fqn.trim_start_matches('/').split('/').collect();
    fn go(k: &[&str], n: &[&str]) -> bool {
        match k.split_first() {
            None => n.is_empty(),
            Some((&"**", rest)) => (0..=n.len()).any(|i| go(rest, &n[i..])),
            Some((&"*", rest)) => !n.is_empty() && go(rest, &n[1..]),
            Some((part, rest)) => n.first() == Some(part) && go(rest, &n[1..]),
        }
    }
    go(&key, &fqn)
}

/// Applies `keys` (each key with its values, in rcl's order) to `fqn` with rclcpp's
/// precedence: the resolved values, each with the key it finally came from.
pub fn resolve(keys: &[(String, Vec<(String, ParameterValue)>)], fqn: &str) -> Vec<Given> {
    let mut out: Vec<Given> = Vec::new();
    for (key, values) in keys {
        if !key_matches(key, fqn) {
            continue;
        }
        for (name, value) in values {
            let given = Given {
                name: name.clone(),
                value: value.clone(),
                key: key.clone(),
            };
            match out.iter_mut().find(|g| g.name == *name) {
                Some(g) => *g = given,
                None => out.push(given),
            }
        }
    }
    out
}

/// The names given with `-p NAME:=VALUE` after `--ros-args` on this command line.
pub fn command_line_names(args: impl Iterator<Item = String>) -> Vec<String> {
    let args: Vec<String> = args.skip_while(|a| a != "--ros-args").collect();
    args.windows(2)
        .filter(|w| w[0] == "-p" || w[0] == "--param")
        .filter_map(|w| w[1].split_once(":=").map(|(n, _)| n.to_string()))
        .collect()
}

/// The `--params-file` paths given after `--ros-args` on this command line.
pub fn params_files(args: impl Iterator<Item = String>) -> Vec<String> {
    let args: Vec<String> = args.skip_while(|a| a != "--ros-args").collect();
    args.windows(2)
        .filter(|w| w[0] == "--params-file")
        .map(|w| w[1].clone())
        .collect()
}

/// Why the values given at start (parameter files, `-p`) cannot be read; rcl's own
/// words where it refused them.
#[derive(Debug, thiserror::Error)]
pub enum GivenError {
    /// A parameter file path holding a NUL byte.
    #[error("{0}: a NUL in the path")]
    NulInPath(String),
    /// rcl could not allocate the parse's structure.
    #[error("{0}: out of memory")]
    OutOfMemory(String),
    /// rcl refused the file (its words).
    #[error("{path}: {rcl}")]
    File {
        /// The file.
        path: String,
        /// rcl's error text.
        rcl: String,
    },
    /// No key of a parameter file applies to the node.
    #[error(
        "{file}: no key of this parameter file applies to {fqn} (keys: {}); a bare                  `name:` key means `/name`: write `/**:` (any node it is given to) or                  `/**/name:` (that node in any namespace)",
        if .keys.is_empty() {
            "none".to_string()
        } else {
            .keys.join(", ")
        }
    )]
    NoKeyApplies {
        /// The file.
        file: String,
        /// The node's fully qualified name.
        fqn: String,
        /// The file's keys.
        keys: Vec<String>,
    },
    /// rcl refused the command line (its words).
    #[error("the command line does not parse: {0}")]
    CommandLine(String),
    /// rcl could not hand over the parameter overrides (its words).
    #[error("the parameter overrides cannot be read: {0}")]
    Overrides(String),
}

/// The node keys of one parameter file, in order, as rcl reads it.
///
/// # Errors
/// rcl's error text when the file does not parse.
pub fn file_keys(path: &str) -> Result<Vec<String>, GivenError> {
    use r2r_rcl::*;
    let c = CString::new(path).map_err(|_| GivenError::NulInPath(path.to_string()))?;
    // SAFETY: a fresh params struct, filled by rcl and finalised on every path.
    unsafe {
        let params = rcl_yaml_node_struct_init(rcutils_get_default_allocator());
        if params.is_null() {
            return Err(GivenError::OutOfMemory(path.to_string()));
        }
        let ok = rcl_parse_yaml_file(c.as_ptr(), params);
        let result = if ok {
            Ok(read_params(params).into_iter().map(|(k, _)| k).collect())
        } else {
            Err(GivenError::File {
                path: path.to_string(),
                rcl: error_text(),
            })
        };
        rcl_yaml_node_struct_fini(params);
        result
    }
}

/// Checks that every parameter file given applies to the node `fqn` through at least one
/// of its keys: a file none of whose keys matches (e.g. `brain:` given to `/left/brain`,
/// which rclcpp reads as `/brain`) would silently set nothing. Returns, for the files
/// that do apply, their keys that do not (a file shared by several nodes), to mention.
///
/// # Errors
/// The file and its keys, and how to write a key for any namespace.
pub fn check_files_apply(files: &[String], fqn: &str) -> Result<Vec<(String, String)>, GivenError> {
    let mut unused = Vec::new();
    for f in files {
        let keys = file_keys(f)?;
        if !keys.iter().any(|k| key_matches(k, fqn)) {
            return Err(GivenError::NoKeyApplies {
                file: f.clone(),
                fqn: fqn.to_string(),
                keys,
            });
        }
        unused.extend(
            keys.into_iter()
                .filter(|k| !key_matches(k, fqn))
                .map(|k| (f.clone(), k)),
        );
    }
    Ok(unused)
}

/// Every key and its values as rcl parses this process's command line (files and `-p`).
///
/// # Errors
/// rcl's error text when the command line or a parameter file does not parse.
pub fn from_command_line() -> Result<Keys, GivenError> {
    use r2r_rcl::*;
    let args: Vec<CString> = std::env::args()
        .filter_map(|a| CString::new(a).ok())
        .collect();
    let argv: Vec<*const std::os::raw::c_char> = args.iter().map(|a| a.as_ptr()).collect();
    // SAFETY: rcl's documented use: a zero-initialised arguments struct, argv valid for
    // the call, the parsed structs finalised below on every path.
    unsafe {
        let mut parsed = rcl_get_zero_initialized_arguments();
        let ret = rcl_parse_arguments(
            argv.len() as i32,
            argv.as_ptr(),
            rcutils_get_default_allocator(),
            &mut parsed,
        );
        if ret != RCL_RET_OK as i32 {
            let e = error_text();
            rcl_arguments_fini(&mut parsed);
            return Err(GivenError::CommandLine(e));
        }
        let mut params: *mut rcl_params_t = std::ptr::null_mut();
        let ret = rcl_arguments_get_param_overrides(&parsed, &mut params);
        let result = if ret != RCL_RET_OK as i32 {
            Err(GivenError::Overrides(error_text()))
        } else {
            Ok(read_params(params))
        };
        if !params.is_null() {
            rcl_yaml_node_struct_fini(params);
        }
        rcl_arguments_fini(&mut parsed);
        result
    }
}

/// rcutils' error text (and resets it).
unsafe fn error_text() -> String {
    let s = r2r_rcl::rcutils_get_error_string();
    let text = CStr::from_ptr(s.str_.as_ptr())
        .to_string_lossy()
        .into_owned();
    r2r_rcl::rcutils_reset_error();
    text
}

unsafe fn c_str(p: *const std::os::raw::c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}

unsafe fn slice<'a, T>(p: *const T, n: usize) -> &'a [T] {
    if p.is_null() || n == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(p, n)
    }
}

unsafe fn read_params(params: *const r2r_rcl::rcl_params_t) -> Keys {
    if params.is_null() {
        return vec![];
    }
    let p = &*params;
    let names = slice(p.node_names, p.num_nodes);
    let nodes = slice(p.params, p.num_nodes);
    names
        .iter()
        .zip(nodes)
        .map(|(key, node)| {
            let pnames = slice(node.parameter_names, node.num_params);
            let values = slice(node.parameter_values, node.num_params);
            let values = pnames
                .iter()
                .zip(values)
                .map(|(n, v)| (c_str(*n), variant(v)))
                .collect();
            (c_str(*key), values)
        })
        .collect()
}

unsafe fn variant(v: &r2r_rcl::rcl_variant_t) -> ParameterValue {
    if !v.bool_value.is_null() {
        ParameterValue::Bool(*v.bool_value)
    } else if !v.integer_value.is_null() {
        ParameterValue::Integer(*v.integer_value)
    } else if !v.double_value.is_null() {
        ParameterValue::Double(*v.double_value)
    } else if !v.string_value.is_null() {
        ParameterValue::String(c_str(v.string_value))
    } else if !v.byte_array_value.is_null() {
        let a = &*v.byte_array_value;
        ParameterValue::ByteArray(slice(a.values, a.size).to_vec())
    } else if !v.bool_array_value.is_null() {
        let a = &*v.bool_array_value;
        ParameterValue::BoolArray(slice(a.values, a.size).to_vec())
    } else if !v.integer_array_value.is_null() {
        let a = &*v.integer_array_value;
        ParameterValue::IntegerArray(slice(a.values, a.size).to_vec())
    } else if !v.double_array_value.is_null() {
        let a = &*v.double_array_value;
        ParameterValue::DoubleArray(slice(a.values, a.size).to_vec())
    } else if !v.string_array_value.is_null() {
        let a = &*v.string_array_value;
        ParameterValue::StringArray(slice(a.data, a.size).iter().map(|s| c_str(*s)).collect())
    } else {
        ParameterValue::NotSet
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_as_in_rclcpp() {
        for (key, fqn, yes) in [
            ("/**", "/brain", true),
            ("/**", "/left/brain", true),
            ("**", "/left/brain", true),
            ("/**/brain", "/brain", true),
            ("/**/brain", "/left/brain", true),
            ("/**/brain", "/a/b/brain", true),
            ("/**/brain", "/left/trajectory_server", false),
            ("/left/brain", "/left/brain", true),
            ("/left/brain", "/right/brain", false),
            ("brain", "/brain", true),
            ("brain", "/left/brain", false),
            ("/brain", "/brain", true),
            ("/*/brain", "/left/brain", true),
            ("/*/brain", "/brain", false),
            ("/left/*", "/left/brain", true),
            ("/left/**", "/left/x/y", true),
        ] {
            assert_eq!(key_matches(key, fqn), yes, "{key} vs {fqn}");
        }
    }

    fn v(i: i64) -> ParameterValue {
        ParameterValue::Integer(i)
    }

    #[test]
    fn later_keys_override_earlier_ones() {
        let keys = vec![
            (
                "/**".to_string(),
                vec![("a".into(), v(1)), ("b".into(), v(1))],
            ),
            ("/left/brain".to_string(), vec![("a".into(), v(2))]),
            ("/right/brain".to_string(), vec![("a".into(), v(3))]),
            ("/**/brain".to_string(), vec![("b".into(), v(4))]),
        ];
        let got = resolve(&keys, "/left/brain");
        assert_eq!(got.len(), 2);
        assert_eq!((got[0].name.as_str(), &got[0].value), ("a", &v(2)));
        assert!(got[0].exact());
        assert_eq!((got[1].name.as_str(), &got[1].value), ("b", &v(4)));
        assert!(!got[1].exact());
        assert!(resolve(&keys, "/planner").len() == 2);
    }

    #[test]
    fn a_file_must_apply_through_one_of_its_keys() {
        let dir = std::env::temp_dir().join(format!("arnie-params-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("brain.yaml");
        std::fs::write(
            &f,
            "brain:\n  ros__parameters:\n    a: 1\n/**/planner:\n  ros__parameters:\n    b: 2\n",
        )
        .unwrap();
        let f = f.to_string_lossy().into_owned();
        assert_eq!(file_keys(&f).unwrap(), ["brain", "/**/planner"]);
        let unused = check_files_apply(std::slice::from_ref(&f), "/brain").unwrap();
        assert_eq!(unused, [(f.clone(), "/**/planner".to_string())]);
        let e = check_files_apply(std::slice::from_ref(&f), "/left/brain")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no key of this parameter file applies to /left/brain"),
            "{e}"
        );
        assert!(e.contains("brain, /**/planner"), "{e}");
        let bad = dir.join("bad.yaml");
        std::fs::write(&bad, "/**:\n  ros__parameters:\n    a: [1,\n").unwrap();
        assert!(file_keys(&bad.to_string_lossy()).is_err());
        let args = ["n", "--ros-args", "--params-file", "x.yaml", "-p", "a:=1"];
        assert_eq!(params_files(args.iter().map(|s| s.to_string())), ["x.yaml"]);
    }

    #[test]
    fn command_line_names_are_the_ros_args_ones() {
        let args = [
            "node",
            "-p",
            "x:=1",
            "--ros-args",
            "-p",
            "gain:=2",
            "--param",
            "m:=a",
        ];
        let names = command_line_names(args.iter().map(|s| s.to_string()));
        assert_eq!(names, ["gain", "m"]);
    }
}
