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

/// Every key and its values as rcl parses this process's command line (files and `-p`).
///
/// # Errors
/// rcl's error text when the command line or a parameter file does not parse.
pub fn from_command_line() -> Result<Keys, String> {
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
            return Err(format!("the command line does not parse: {e}"));
        }
        let mut params: *mut rcl_params_t = std::ptr::null_mut();
        let ret = rcl_arguments_get_param_overrides(&parsed, &mut params);
        let result = if ret != RCL_RET_OK as i32 {
            Err(format!(
                "the parameter overrides cannot be read: {}",
                error_text()
            ))
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
