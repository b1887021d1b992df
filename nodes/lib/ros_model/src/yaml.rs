//! YAML in and out.
//!
//! Out: a tiny emitter that prints what yaml-cpp's `YAML::Dump` / `operator<<` print for
//! the node shapes rosbag2 writes (block maps and sequences, two-space indent, sequences
//! under a key indented by two, `~` for null, `[]` for an empty sequence, plain scalars
//! unless yaml-cpp would quote them, then double quotes with C-style escapes), so our
//! `metadata.yaml` and `serialized_metadata` read like rosbag2's own, key for key.
//!
//! In: `yaml-rust2` parses; the helpers here turn its values into what rosbag2's decoders
//! accept (integers that may be written as strings, strings that may look like numbers).

use yaml_rust2::Yaml;

/// A YAML node to emit. Maps keep insertion order (rosbag2's key order).
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// `~`
    Null,
    /// A string, quoted only where yaml-cpp would quote it.
    Str(String),
    /// A number or boolean, written as given.
    Raw(String),
    /// A block sequence (`- item`).
    Seq(Vec<Node>),
    /// A block mapping, keys in the given order.
    Map(Vec<(String, Node)>),
}

impl Node {
    /// A string node.
    pub fn str(s: impl Into<String>) -> Node {
        Node::Str(s.into())
    }
    /// A number node, written as `v` displays.
    pub fn int(v: impl std::fmt::Display) -> Node {
        Node::Raw(v.to_string())
    }
    /// `true` or `false`.
    pub fn bool(v: bool) -> Node {
        Node::Raw(if v { "true" } else { "false" }.into())
    }
    /// A mapping of `entries`, in order.
    pub fn map(entries: Vec<(&str, Node)>) -> Node {
        Node::Map(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }
}

/// `YAML::Dump(node)`: no trailing newline.
pub fn dump(node: &Node) -> String {
    let mut out = String::new();
    match node {
        Node::Map(m) if !m.is_empty() => emit_map(&mut out, m, 0, false),
        Node::Seq(s) if !s.is_empty() => emit_seq(&mut out, s, 0, false),
        other => out.push_str(&scalar_or_empty(other)),
    }
    out
}

fn scalar_or_empty(n: &Node) -> String {
    match n {
        Node::Null => "~".into(),
        Node::Str(s) => quote(s),
        Node::Raw(s) => s.clone(),
        Node::Seq(_) => "[]".into(),
        Node::Map(_) => "{}".into(),
    }
}

/// A map whose keys sit at column `indent`; with `inline_first`, the first key follows
/// a `- ` already written.
fn emit_map(out: &mut String, m: &[(String, Node)], indent: usize, inline_first: bool) {
    for (i, (k, v)) in m.iter().enumerate() {
        if i > 0 || !inline_first {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&" ".repeat(indent));
        }
        out.push_str(&quote(k));
        out.push(':');
        match v {
            Node::Map(inner) if !inner.is_empty() => emit_map(out, inner, indent + 2, false),
            Node::Seq(inner) if !inner.is_empty() => emit_seq(out, inner, indent + 2, false),
            Node::Seq(_) | Node::Map(_) => {
                // yaml-cpp puts an empty flow collection on its own line.
                out.push('\n');
                out.push_str(&" ".repeat(indent + 2));
                out.push_str(&scalar_or_empty(v));
            }
            _ => {
                out.push(' ');
                out.push_str(&scalar_or_empty(v));
            }
        }
    }
}

fn emit_seq(out: &mut String, s: &[Node], indent: usize, inline_first: bool) {
    for (i, v) in s.iter().enumerate() {
        if i > 0 || !inline_first {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&" ".repeat(indent));
        }
        out.push_str("- ");
        match v {
            Node::Map(inner) if !inner.is_empty() => emit_map(out, inner, indent + 2, true),
            Node::Seq(inner) if !inner.is_empty() => emit_seq(out, inner, indent + 2, true),
            _ => out.push_str(&scalar_or_empty(v)),
        }
    }
}

/// A string as yaml-cpp writes it: plain when that reads back as the same string,
/// else double-quoted.
pub fn quote(s: &str) -> String {
    if is_plain(s) {
        return s.to_string();
    }
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            '\t' => q.push_str("\\t"),
            '\r' => q.push_str("\\r"),
            '\u{8}' => q.push_str("\\b"),
            '\u{c}' => q.push_str("\\f"),
            c if (c as u32) < 0x20 || ((c as u32) >= 0x80 && (c as u32) <= 0xA0) => {
                q.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

fn is_plain(s: &str) -> bool {
    if s.is_empty() || matches!(s, "~" | "null" | "Null" | "NULL") {
        return false;
    }
    let b = s.as_bytes();
    let blank_or_end = |i: usize| i >= b.len() || matches!(b[i], b' ' | b'\t' | b'\n' | b'\r');
    if b" \t\r\n,[]{}#&*!|>'\"%@`".contains(&b[0]) {
        return false;
    }
    if matches!(b[0], b'-' | b'?' | b':') && blank_or_end(1) {
        return false;
    }
    if b[b.len() - 1] == b' ' {
        return false;
    }
    for i in 0..b.len() {
        let c = b[i];
        if c == b':' && blank_or_end(i + 1) {
            return false;
        }
        if c == b'#' && i > 0 && matches!(b[i - 1], b' ' | b'\t') {
            return false;
        }
        if c < 0x20 || c == 0x7f {
            return false;
        }
    }
    true
}

// ---------------------------------------------------------------- reading helpers

/// Parses one YAML document.
///
/// # Errors
/// The scanner's reason (with the line and column) when the text is not YAML.
pub fn parse(text: &str) -> Result<Yaml, yaml_rust2::ScanError> {
    let mut docs = yaml_rust2::YamlLoader::load_from_str(text)?;
    Ok(if docs.is_empty() {
        Yaml::Null
    } else {
        docs.swap_remove(0)
    })
}

/// `node[key]`, `None` when absent (or the node is not a map).
pub fn get<'a>(node: &'a Yaml, key: &str) -> Option<&'a Yaml> {
    match node {
        Yaml::Hash(h) => h.get(&Yaml::String(key.to_string())),
        _ => None,
    }
}

/// A scalar as text, as yaml-cpp's `as<std::string>()` gives it.
pub fn as_string(node: &Yaml) -> Option<String> {
    match node {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A non-negative integer (also written as a string).
pub fn as_u64(node: &Yaml) -> Option<u64> {
    match node {
        Yaml::Integer(i) => u64::try_from(*i).ok(),
        Yaml::String(s) | Yaml::Real(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A signed integer (also written as a string).
pub fn as_i64(node: &Yaml) -> Option<i64> {
    match node {
        Yaml::Integer(i) => Some(*i),
        Yaml::String(s) | Yaml::Real(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A boolean as yaml-cpp reads one (`true`/`false`, `yes`/`no`, `on`/`off`, any case).
pub fn as_bool(node: &Yaml) -> Option<bool> {
    match node {
        Yaml::Boolean(b) => Some(*b),
        Yaml::String(s) => match s.to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "y" => Some(true),
            "false" | "no" | "off" | "n" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_cpp_layout() {
        let n = Node::map(vec![
            ("version", Node::int(9)),
            ("empty", Node::Seq(vec![])),
            ("nothing", Node::Null),
            ("blank", Node::str("")),
            (
                "topics",
                Node::Seq(vec![Node::map(vec![
                    (
                        "topic_metadata",
                        Node::map(vec![
                            ("name", Node::str("/a")),
                            (
                                "qos",
                                Node::Seq(vec![Node::map(vec![
                                    ("depth", Node::int(1)),
                                    ("x", Node::bool(false)),
                                ])]),
                            ),
                        ]),
                    ),
                    ("message_count", Node::int(2)),
                ])]),
            ),
            ("files", Node::Seq(vec![Node::str("f_0.mcap")])),
        ]);
        let want = "version: 9\nempty:\n  []\nnothing: ~\nblank: \"\"\ntopics:\n  - topic_metadata:\n      name: /a\n      qos:\n        - depth: 1\n          x: false\n    message_count: 2\nfiles:\n  - f_0.mcap";
        assert_eq!(dump(&n), want);
        assert_eq!(dump(&Node::Seq(vec![])), "[]");
    }

    #[test]
    fn quoting_follows_yaml_cpp() {
        assert_eq!(quote("/chatter"), "/chatter");
        assert_eq!(quote("std_msgs/msg/String"), "std_msgs/msg/String");
        assert_eq!(quote(""), "\"\"");
        assert_eq!(quote("a: b"), "\"a: b\"");
        assert_eq!(quote("- x\n  y: 1"), "\"- x\\n  y: 1\"");
        assert_eq!(quote("~"), "\"~\"");
        assert_eq!(quote("say \"hi\""), "say \"hi\"");
        assert_eq!(quote("#x"), "\"#x\"");
    }

    #[test]
    fn emitted_text_parses_back() {
        for s in [
            "",
            "a: b",
            "- x\n  y: 1",
            "\"q\"",
            "tab\there",
            "x #y",
            "~",
            "-",
            ": x",
            "trailing ",
        ] {
            let text = dump(&Node::map(vec![("k", Node::str(s))]));
            let y = parse(&text).unwrap();
            assert_eq!(
                as_string(get(&y, "k").unwrap()).as_deref(),
                Some(s),
                "{text}"
            );
        }
    }
}
