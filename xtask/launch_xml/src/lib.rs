//! The ROS 2 XML launch-file reader of `cargo xtask launch` (xtask/src/launch/mod.rs), as
//! a plain library so the fuzzer (fuzz/fuzz_targets/launch_xml.rs) runs the same code.
//! Parsing only: no ROS, no processes. Supported, as `ros2 launch` reads them:
//! `<launch>`, `<arg name default|value>`, `<let>`, `<node pkg exec name namespace args
//! output on_exit>` with `<param name value>`, `<param from>` and `<remap from to>`,
//! `<group>` (scoped args; `<push-ros-namespace>`), `<include file>` with `<arg>`,
//! `if`/`unless` on every element, `<executable cmd name on_exit>`, `<choice value>` in
//! an `<arg>` (the value checked), and the substitutions `$(var)`, `$(env NAME
//! [default])`, `$(dirname)`, `$(find-pkg-share pkg)`, `$(find-pkg-prefix pkg)`,
//! `$(equals A B)`, `$(not-equals A B)`, nested (`$(not-equals $(var part) rt)`).
//! Anything else is an error naming the element, never silently ignored.
//!
//! What the reader needs from the machine (files for `<include>`, environment
//! variables, the ament index) comes through a [`Host`]: [`System`] is the real one.
#![deny(missing_docs)]
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A launch file that cannot be read: the message names the file and the element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// `FILE: <element>: what is wrong`.
    pub message: String,
}

impl Error {
    fn new(message: impl Into<String>) -> Self {
        Error {
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// What the reader asks of the machine.
pub trait Host {
    /// The text of a launch file (the one given, or an `<include>`d one).
    ///
    /// # Errors
    /// Why it cannot be read (the reader puts the path in front).
    fn read(&self, path: &Path) -> Result<String, String>;
    /// An environment variable (`$(env NAME)`), `None` when unset or not UTF-8.
    fn env(&self, name: &str) -> Option<String>;
    /// The install prefix whose ament index lists `pkg` (`$(find-pkg-prefix pkg)`).
    fn pkg_prefix(&self, pkg: &str) -> Option<String>;
}

/// The real machine: files, this process's environment and `AMENT_PREFIX_PATH`.
#[derive(Debug, Clone, Copy, Default)]
pub struct System;

impl Host for System {
    fn read(&self, path: &Path) -> Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| e.to_string())
    }
    fn env(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
    fn pkg_prefix(&self, pkg: &str) -> Option<String> {
        find_pkg_prefix(pkg)
    }
}

/// One process to start: a ROS node (`<node>`) or a plain command (`<executable>`).
#[derive(Debug, Clone, PartialEq)]
pub struct NodeSpec {
    /// The ROS package of a `<node>` (its executable is `<prefix>/lib/<pkg>/<exec>`).
    pub pkg: Option<String>,
    /// False for `<executable>`: no `--ros-args` are added.
    pub ros: bool,
    /// The executable's name (or path, or the first word of an `<executable>`'s `cmd`).
    pub exec: String,
    /// The node's name (`__node:=`), or the process's label.
    pub name: String,
    /// The absolute namespace, empty for the root one.
    pub namespace: String,
    /// The command-line arguments before `--ros-args`.
    pub args: Vec<String>,
    /// `<set_parameter name value>` in force where the node is: `-p name:=value` before
    /// its own parameter files and values (which take precedence, as in `ros2 launch`).
    pub global_params: Vec<(String, String)>,
    /// `<param name value>`: `-p name:=value`.
    pub params: Vec<(String, String)>,
    /// `<param from>`: `--params-file`.
    pub param_files: Vec<PathBuf>,
    /// `<remap from to>`: `-r from:=to`.
    pub remaps: Vec<(String, String)>,
    /// `on_exit="shutdown"`: the launch stops when this process ends.
    pub shutdown_on_exit: bool,
}

impl NodeSpec {
    /// The command line after the executable: args, then `--ros-args ...`.
    pub fn argv(&self) -> Vec<String> {
        let mut v = self.args.clone();
        if !self.ros {
            return v;
        }
        v.push("--ros-args".into());
        v.extend(["-r".into(), format!("__node:={}", self.name)]);
        if !self.namespace.is_empty() {
            v.extend(["-r".into(), format!("__ns:={}", self.namespace)]);
        }
        // `-p name:=` has no value for rcl; an empty string is YAML's `''` (what
        // ros2 launch's parameter file holds for `value=""`).
        let param = |k: &str, val: &str| {
            if val.is_empty() {
                format!("{k}:=''")
            } else {
                format!("{k}:={val}")
            }
        };
        for (k, val) in &self.global_params {
            v.extend(["-p".into(), param(k, val)]);
        }
        for f in &self.param_files {
            v.extend(["--params-file".into(), f.to_string_lossy().into_owned()]);
        }
        for (k, val) in &self.params {
            v.extend(["-p".into(), param(k, val)]);
        }
        for (from, to) in &self.remaps {
            v.extend(["-r".into(), format!("{from}:={to}")]);
        }
        v
    }
}

/// Parses `file` with launch arguments `args` into the nodes it starts, on the real
/// machine ([`System`]).
///
/// # Errors
/// The first problem, naming the file and the element.
pub fn parse(file: &Path, args: &HashMap<String, String>) -> Result<Vec<NodeSpec>, Error> {
    parse_with(&System, file, args)
}

/// As [`parse`], with files, environment and packages from `host`.
///
/// # Errors
/// The first problem, naming the file and the element.
pub fn parse_with(
    host: &dyn Host,
    file: &Path,
    args: &HashMap<String, String>,
) -> Result<Vec<NodeSpec>, Error> {
    let mut out = Vec::new();
    parse_into(host, file, args, &mut out, 0)?;
    Ok(out)
}

fn parse_into(
    host: &dyn Host,
    file: &Path,
    given: &HashMap<String, String>,
    out: &mut Vec<NodeSpec>,
    depth: usize,
) -> Result<(), Error> {
    if depth > 8 {
        return Err(Error::new(format!(
            "{}: includes nested too deep",
            file.display()
        )));
    }
    let text = host
        .read(file)
        .map_err(|e| Error::new(format!("{}: {e}", file.display())))?;
    let doc = roxmltree::Document::parse(&text)
        .map_err(|e| Error::new(format!("{}: {e}", file.display())))?;
    let root = doc.root_element();
    if root.tag_name().name() != "launch" {
        return Err(Error::new(format!(
            "{}: the root element must be <launch>",
            file.display()
        )));
    }
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut scope = Scope {
        host,
        vars: HashMap::new(),
        given,
        dir,
        file: file.to_path_buf(),
        namespace: String::new(),
        globals: Vec::new(),
    };
    scope.children(root, out, depth)
}

struct Scope<'a> {
    host: &'a dyn Host,
    vars: HashMap<String, String>,
    given: &'a HashMap<String, String>,
    dir: PathBuf,
    file: PathBuf,
    namespace: String,
    /// `<set_parameter>`s in force (a `<group>` keeps its own).
    globals: Vec<(String, String)>,
}

impl Scope<'_> {
    fn err(&self, node: roxmltree::Node, msg: impl std::fmt::Display) -> Error {
        Error::new(format!(
            "{}: <{}>: {msg}",
            self.file.display(),
            node.tag_name().name()
        ))
    }

    fn attr(&self, node: roxmltree::Node, name: &str) -> Result<Option<String>, Error> {
        node.attribute(name)
            .map(|v| self.subst(node, v))
            .transpose()
    }

    fn required(&self, node: roxmltree::Node, name: &str) -> Result<String, Error> {
        self.attr(node, name)?
            .ok_or_else(|| self.err(node, format!("missing attribute `{name}`")))
    }

    fn enabled(&self, node: roxmltree::Node) -> Result<bool, Error> {
        let truth = |v: String| matches!(v.trim().to_ascii_lowercase().as_str(), "true" | "1");
        if let Some(v) = self.attr(node, "if")? {
            return Ok(truth(v));
        }
        if let Some(v) = self.attr(node, "unless")? {
            return Ok(!truth(v));
        }
        Ok(true)
    }

    /// Expands `$(...)` substitutions; a substitution's arguments may hold substitutions
    /// themselves (`$(not-equals $(var part) rt)`), expanded word by word as `ros2 launch`
    /// does.
    fn subst(&self, node: roxmltree::Node, s: &str) -> Result<String, Error> {
        let mut out = String::new();
        let mut rest = s;
        while let Some(start) = rest.find("$(") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let end = closing_paren(after)
                .ok_or_else(|| self.err(node, format!("unclosed substitution in {s:?}")))?;
            let inner = &after[..end];
            let words = split_words(inner)
                .into_iter()
                .map(|w| self.subst(node, w))
                .collect::<Result<Vec<String>, Error>>()?;
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            let value = match words.as_slice() {
                ["var", name] => self.vars.get(*name).cloned().ok_or_else(|| {
                    self.err(node, format!("launch argument `{name}` is not declared"))
                })?,
                ["env", name] => self.host.env(name).ok_or_else(|| {
                    self.err(node, format!("environment variable {name} is not set"))
                })?,
                ["env", name, default @ ..] => {
                    self.host.env(name).unwrap_or_else(|| default.join(" "))
                }
                ["dirname"] => self.dir.to_string_lossy().into_owned(),
                ["find-pkg-share", pkg] => {
                    share_of(self.host.pkg_prefix(pkg), pkg).ok_or_else(|| {
                        self.err(
                            node,
                            format!("package `{pkg}` not found on AMENT_PREFIX_PATH"),
                        )
                    })?
                }
                ["find-pkg-prefix", pkg] => self.host.pkg_prefix(pkg).ok_or_else(|| {
                    self.err(
                        node,
                        format!("package `{pkg}` not found on AMENT_PREFIX_PATH"),
                    )
                })?,
                // As launch's EqualsSubstitution compares two words (as text; booleans
                // case-blind): "true" or "false".
                ["equals", left, right] => same(left, right).to_string(),
                ["not-equals", left, right] => (!same(left, right)).to_string(),
                _ => return Err(self.err(node, format!("unsupported substitution $({inner})"))),
            };
            out.push_str(&value);
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// An `<arg>`'s value checked against its `<choice value>` children (as `ros2 launch`
    /// checks `choices`); any other child is an error.
    fn check_choices(&self, arg: roxmltree::Node, name: &str, value: &str) -> Result<(), Error> {
        let mut choices = Vec::new();
        for child in arg.children().filter(|n| n.is_element()) {
            if child.tag_name().name() != "choice" {
                return Err(self.err(
                    child,
                    format!("unsupported element <{}> in <arg>", child.tag_name().name()),
                ));
            }
            choices.push(self.required(child, "value")?);
        }
        if choices.is_empty() || choices.iter().any(|c| c == value) {
            return Ok(());
        }
        Err(self.err(
            arg,
            format!(
                "argument `{name}` is {value:?}: valid choices are {}",
                choices.join(", ")
            ),
        ))
    }

    fn children(
        &mut self,
        parent: roxmltree::Node,
        out: &mut Vec<NodeSpec>,
        depth: usize,
    ) -> Result<(), Error> {
        for child in parent.children().filter(|n| n.is_element()) {
            if !self.enabled(child)? {
                continue;
            }
            match child.tag_name().name() {
                "arg" => {
                    let name = self.required(child, "name")?;
                    let value = match self.given.get(&name) {
                        Some(v) => v.clone(),
                        None => match (self.attr(child, "value")?, self.attr(child, "default")?) {
                            (Some(v), _) | (None, Some(v)) => v,
                            (None, None) => {
                                return Err(self.err(
                                    child,
                                    format!("argument `{name}` has no default: pass {name}:=VALUE"),
                                ))
                            }
                        },
                    };
                    self.check_choices(child, &name, &value)?;
                    self.vars.insert(name, value);
                }
                "let" => {
                    let name = self.required(child, "name")?;
                    let value = self.required(child, "value")?;
                    self.vars.insert(name, value);
                }
                "node" => out.push(self.node(child)?),
                "executable" => out.push(self.executable(child)?),
                "group" => {
                    let mut inner = Scope {
                        host: self.host,
                        vars: self.vars.clone(),
                        given: self.given,
                        dir: self.dir.clone(),
                        file: self.file.clone(),
                        namespace: self.namespace.clone(),
                        globals: self.globals.clone(),
                    };
                    if let Some(ns) = self.attr(child, "namespace")? {
                        inner.namespace = join_ns(&inner.namespace, &ns);
                    }
                    inner.children(child, out, depth)?;
                }
                "set_parameter" | "set-parameter" => {
                    let name = self.required(child, "name")?;
                    let value = self.required(child, "value")?;
                    self.globals.retain(|(n, _)| *n != name);
                    self.globals.push((name, value));
                }
                "push-ros-namespace" | "push_ros_namespace" => {
                    let ns = self.required(child, "namespace")?;
                    self.namespace = join_ns(&self.namespace, &ns);
                }
                "include" => {
                    let file = PathBuf::from(self.required(child, "file")?);
                    let file = if file.is_absolute() {
                        file
                    } else {
                        self.dir.join(file)
                    };
                    let mut args = HashMap::new();
                    for a in child.children().filter(|n| n.is_element()) {
                        if a.tag_name().name() != "arg" {
                            return Err(self.err(a, "only <arg> is allowed inside <include>"));
                        }
                        args.insert(self.required(a, "name")?, self.required(a, "value")?);
                    }
                    let mut nodes = Vec::new();
                    parse_into(self.host, &file, &args, &mut nodes, depth + 1)?;
                    for mut n in nodes {
                        n.namespace = join_ns(&self.namespace, &n.namespace);
                        if n.ros {
                            let mut globals = self.globals.clone();
                            globals.append(&mut n.global_params);
                            n.global_params = globals;
                        }
                        out.push(n);
                    }
                }
                other => return Err(self.err(child, format!("unsupported element <{other}>"))),
            }
        }
        Ok(())
    }

    /// `<executable cmd="program args..." name="..."/>`: a process that is not a ROS node.
    fn executable(&self, el: roxmltree::Node) -> Result<NodeSpec, Error> {
        let cmd = self.required(el, "cmd")?;
        let mut words = cmd.split_whitespace().map(String::from);
        let exec = words.next().ok_or_else(|| self.err(el, "`cmd` is empty"))?;
        let name = self.attr(el, "name")?.unwrap_or_else(|| {
            Path::new(&exec)
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        });
        if let Some(c) = el.children().find(|n| n.is_element()) {
            return Err(self.err(c, "no child elements are supported inside <executable>"));
        }
        let shutdown_on_exit = self.attr(el, "on_exit")?.as_deref() == Some("shutdown");
        Ok(NodeSpec {
            pkg: None,
            ros: false,
            exec,
            name,
            namespace: String::new(),
            args: words.collect(),
            global_params: vec![],
            params: vec![],
            param_files: vec![],
            remaps: vec![],
            shutdown_on_exit,
        })
    }

    fn node(&self, el: roxmltree::Node) -> Result<NodeSpec, Error> {
        let exec = self.required(el, "exec")?;
        let pkg = self.attr(el, "pkg")?;
        let name = self.attr(el, "name")?.unwrap_or_else(|| exec.clone());
        let namespace = join_ns(
            &self.namespace,
            &self.attr(el, "namespace")?.unwrap_or_default(),
        );
        let args = self
            .attr(el, "args")?
            .map(|a| a.split_whitespace().map(String::from).collect())
            .unwrap_or_default();
        let shutdown_on_exit = self.attr(el, "on_exit")?.as_deref() == Some("shutdown");
        let mut spec = NodeSpec {
            pkg,
            ros: true,
            exec,
            name,
            namespace,
            args,
            global_params: self.globals.clone(),
            params: vec![],
            param_files: vec![],
            remaps: vec![],
            shutdown_on_exit,
        };
        for c in el.children().filter(|n| n.is_element()) {
            if !self.enabled(c)? {
                continue;
            }
            match c.tag_name().name() {
                "param" => match (self.attr(c, "from")?, self.attr(c, "name")?) {
                    (Some(from), _) => {
                        let p = PathBuf::from(from);
                        spec.param_files
                            .push(if p.is_absolute() { p } else { self.dir.join(p) });
                    }
                    (None, Some(name)) => spec.params.push((name, self.required(c, "value")?)),
                    (None, None) => return Err(self.err(c, "needs `name` and `value`, or `from`")),
                },
                "remap" => spec
                    .remaps
                    .push((self.required(c, "from")?, self.required(c, "to")?)),
                other => {
                    return Err(self.err(c, format!("unsupported element <{other}> inside <node>")))
                }
            }
        }
        Ok(spec)
    }
}

/// The index of the `)` closing a substitution whose text starts at `text` (just after
/// its `$(`), skipping nested `$(...)`.
fn closing_paren(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'$' if bytes.get(i + 1) == Some(&b'(') => {
                depth += 1;
                i += 1;
            }
            b')' if depth == 0 => return Some(i),
            b')' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    None
}

/// A substitution's words, split at whitespace outside nested `$(...)`.
fn split_words(text: &str) -> Vec<&str> {
    let mut words = Vec::new();
    let mut depth = 0usize;
    let mut start: Option<usize> = None;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'$' && bytes.get(i + 1) == Some(&b'(') {
            start.get_or_insert(i);
            depth += 1;
            i += 2;
            continue;
        }
        if b == b')' && depth > 0 {
            depth -= 1;
        } else if b.is_ascii_whitespace() && depth == 0 {
            if let Some(s) = start.take() {
                words.push(&text[s..i]);
            }
            i += 1;
            continue;
        }
        start.get_or_insert(i);
        i += 1;
    }
    if let Some(s) = start {
        words.push(&text[s..]);
    }
    words
}

/// launch's `equals`: booleans compare case-blind (`True` equals `true`), numbers as
/// numbers, anything else as text.
fn same(left: &str, right: &str) -> bool {
    let boolean = |s: &str| {
        matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "1" | "0"
        )
    };
    if boolean(left) && boolean(right) {
        let truth = |s: &str| matches!(s.to_ascii_lowercase().as_str(), "true" | "1");
        return truth(left) == truth(right);
    }
    if let (Ok(a), Ok(b)) = (left.parse::<f64>(), right.parse::<f64>()) {
        return a == b;
    }
    left == right
}

/// `inner` inside `outer`, absolute as `ros2 launch` makes it (`arm1` -> `/arm1`); empty
/// for the root namespace.
pub fn join_ns(outer: &str, inner: &str) -> String {
    let joined = if inner.starts_with('/') || outer.is_empty() {
        inner.to_string()
    } else if inner.is_empty() {
        outer.to_string()
    } else {
        format!("{}/{}", outer.trim_end_matches('/'), inner)
    };
    let trimmed = joined.trim_end_matches('/');
    match trimmed {
        "" => String::new(),
        t if t.starts_with('/') => t.to_string(),
        t => format!("/{t}"),
    }
}

/// The prefix on `AMENT_PREFIX_PATH` whose ament index lists `pkg` (as ament_index does).
pub fn find_pkg_prefix(pkg: &str) -> Option<String> {
    let ament = std::env::var("AMENT_PREFIX_PATH").ok()?;
    ament
        .split(':')
        .filter(|p| !p.is_empty())
        .find(|p| {
            Path::new(p)
                .join("share/ament_index/resource_index/packages")
                .join(pkg)
                .exists()
        })
        .map(String::from)
}

/// `<prefix>/share/<pkg>` of [`find_pkg_prefix`].
pub fn find_pkg_share(pkg: &str) -> Option<String> {
    share_of(find_pkg_prefix(pkg), pkg)
}

fn share_of(prefix: Option<String>, pkg: &str) -> Option<String> {
    prefix.map(|p| {
        Path::new(&p)
            .join("share")
            .join(pkg)
            .to_string_lossy()
            .into_owned()
    })
}

#[cfg(test)]
mod tests;
