//! `cargo xtask launch FILE [name:=value ...]`: runs a ROS 2 XML launch file where
//! `ros2 launch` is not installed (it is not on PyPI). Supported, as `ros2 launch`
//! reads them: `<launch>`, `<arg name default|value>`, `<let>`, `<node pkg exec name
//! namespace args output on_exit>` with `<param name value>`, `<param from>` and
//! `<remap from to>`, `<group>` (scoped args; `<push-ros-namespace>`), `<include file>`
//! with `<arg>`, `if`/`unless` on every element, and the substitutions `$(var)`,
//! `$(env NAME [default])`, `$(dirname)`, `$(find-pkg-share pkg)`. Anything else is an
//! error naming the element, never silently ignored.
//!
//! Children run in their own process group with `[name]`-prefixed, coloured output.
//! Ctrl-C (or a node with `on_exit="shutdown"` ending) stops every child: SIGINT, then
//! SIGKILL after a grace period.
use crate::env::{Layout, Ros};
use crate::run::Failure;
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One process to start: a ROS node (`<node>`) or a plain command (`<executable>`).
#[derive(Debug, Clone, PartialEq)]
pub struct NodeSpec {
    /// The ROS package of a `<node>` (its executable is `<prefix>/lib/<pkg>/<exec>`).
    pub pkg: Option<String>,
    /// False for `<executable>`: no `--ros-args` are added.
    pub ros: bool,
    pub exec: String,
    pub name: String,
    pub namespace: String,
    pub args: Vec<String>,
    pub params: Vec<(String, String)>,
    pub param_files: Vec<PathBuf>,
    pub remaps: Vec<(String, String)>,
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
        for f in &self.param_files {
            v.extend(["--params-file".into(), f.to_string_lossy().into_owned()]);
        }
        for (k, val) in &self.params {
            v.extend(["-p".into(), format!("{k}:={val}")]);
        }
        for (from, to) in &self.remaps {
            v.extend(["-r".into(), format!("{from}:={to}")]);
        }
        v
    }
}

/// Parses `file` with launch arguments `args` into the nodes it starts.
pub fn parse(file: &Path, args: &HashMap<String, String>) -> Result<Vec<NodeSpec>, Failure> {
    let mut out = Vec::new();
    parse_into(file, args, &mut out, 0)?;
    Ok(out)
}

fn parse_into(
    file: &Path,
    given: &HashMap<String, String>,
    out: &mut Vec<NodeSpec>,
    depth: usize,
) -> Result<(), Failure> {
    if depth > 8 {
        return Err(Failure::new(format!(
            "{}: includes nested too deep",
            file.display()
        )));
    }
    let text = std::fs::read_to_string(file)
        .map_err(|e| Failure::new(format!("{}: {e}", file.display())))?;
    let doc = roxmltree::Document::parse(&text)
        .map_err(|e| Failure::new(format!("{}: {e}", file.display())))?;
    let root = doc.root_element();
    if root.tag_name().name() != "launch" {
        return Err(Failure::new(format!(
            "{}: the root element must be <launch>",
            file.display()
        )));
    }
    let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut scope = Scope {
        vars: HashMap::new(),
        given,
        dir,
        file: file.to_path_buf(),
        namespace: String::new(),
    };
    scope.children(root, out, depth)
}

struct Scope<'a> {
    vars: HashMap<String, String>,
    given: &'a HashMap<String, String>,
    dir: PathBuf,
    file: PathBuf,
    namespace: String,
}

impl Scope<'_> {
    fn err(&self, node: roxmltree::Node, msg: impl std::fmt::Display) -> Failure {
        Failure::new(format!(
            "{}: <{}>: {msg}",
            self.file.display(),
            node.tag_name().name()
        ))
    }

    fn attr(&self, node: roxmltree::Node, name: &str) -> Result<Option<String>, Failure> {
        node.attribute(name)
            .map(|v| self.subst(node, v))
            .transpose()
    }

    fn required(&self, node: roxmltree::Node, name: &str) -> Result<String, Failure> {
        self.attr(node, name)?
            .ok_or_else(|| self.err(node, format!("missing attribute `{name}`")))
    }

    fn enabled(&self, node: roxmltree::Node) -> Result<bool, Failure> {
        let truth = |v: String| matches!(v.trim().to_ascii_lowercase().as_str(), "true" | "1");
        if let Some(v) = self.attr(node, "if")? {
            return Ok(truth(v));
        }
        if let Some(v) = self.attr(node, "unless")? {
            return Ok(!truth(v));
        }
        Ok(true)
    }

    /// Expands `$(...)` substitutions.
    fn subst(&self, node: roxmltree::Node, s: &str) -> Result<String, Failure> {
        let mut out = String::new();
        let mut rest = s;
        while let Some(start) = rest.find("$(") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let end = after
                .find(')')
                .ok_or_else(|| self.err(node, format!("unclosed substitution in {s:?}")))?;
            let words: Vec<&str> = after[..end].split_whitespace().collect();
            let value = match words.as_slice() {
                ["var", name] => self.vars.get(*name).cloned().ok_or_else(|| {
                    self.err(node, format!("launch argument `{name}` is not declared"))
                })?,
                ["env", name] => std::env::var(name).map_err(|_| {
                    self.err(node, format!("environment variable {name} is not set"))
                })?,
                ["env", name, default @ ..] => {
                    std::env::var(name).unwrap_or_else(|_| default.join(" "))
                }
                ["dirname"] => self.dir.to_string_lossy().into_owned(),
                ["find-pkg-share", pkg] => find_pkg_share(pkg).ok_or_else(|| {
                    self.err(
                        node,
                        format!("package `{pkg}` not found on AMENT_PREFIX_PATH"),
                    )
                })?,
                ["find-pkg-prefix", pkg] => find_pkg_prefix(pkg).ok_or_else(|| {
                    self.err(
                        node,
                        format!("package `{pkg}` not found on AMENT_PREFIX_PATH"),
                    )
                })?,
                _ => {
                    return Err(self.err(
                        node,
                        format!("unsupported substitution $({})", &after[..end]),
                    ))
                }
            };
            out.push_str(&value);
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    fn children(
        &mut self,
        parent: roxmltree::Node,
        out: &mut Vec<NodeSpec>,
        depth: usize,
    ) -> Result<(), Failure> {
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
                        vars: self.vars.clone(),
                        given: self.given,
                        dir: self.dir.clone(),
                        file: self.file.clone(),
                        namespace: self.namespace.clone(),
                    };
                    if let Some(ns) = self.attr(child, "namespace")? {
                        inner.namespace = join_ns(&inner.namespace, &ns);
                    }
                    inner.children(child, out, depth)?;
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
                    parse_into(&file, &args, &mut nodes, depth + 1)?;
                    for mut n in nodes {
                        n.namespace = join_ns(&self.namespace, &n.namespace);
                        out.push(n);
                    }
                }
                other => return Err(self.err(child, format!("unsupported element <{other}>"))),
            }
        }
        Ok(())
    }

    /// `<executable cmd="program args..." name="..."/>`: a process that is not a ROS node.
    fn executable(&self, el: roxmltree::Node) -> Result<NodeSpec, Failure> {
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
            params: vec![],
            param_files: vec![],
            remaps: vec![],
            shutdown_on_exit,
        })
    }

    fn node(&self, el: roxmltree::Node) -> Result<NodeSpec, Failure> {
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

/// `inner` inside `outer`, absolute as `ros2 launch` makes it (`arm1` -> `/arm1`); empty
/// for the root namespace.
fn join_ns(outer: &str, inner: &str) -> String {
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
fn find_pkg_prefix(pkg: &str) -> Option<String> {
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

fn find_pkg_share(pkg: &str) -> Option<String> {
    find_pkg_prefix(pkg).map(|p| {
        Path::new(&p)
            .join("share")
            .join(pkg)
            .to_string_lossy()
            .into_owned()
    })
}

/// Parses `name:=value` launch arguments.
pub fn launch_args(rest: &[String]) -> Result<HashMap<String, String>, Failure> {
    rest.iter()
        .map(|a| {
            a.split_once(":=")
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .ok_or_else(|| {
                    Failure::new(format!(
                        "launch argument `{a}` is not of the form name:=value"
                    ))
                })
        })
        .collect()
}

// ---------------------------------------------------------------- running

const COLOURS: &[&str] = &[
    "\x1b[36m", "\x1b[33m", "\x1b[32m", "\x1b[35m", "\x1b[34m", "\x1b[31m", "\x1b[96m", "\x1b[93m",
];

/// A running launch: its children and a flag that stops them.
pub struct Running {
    children: Vec<(String, Child, bool)>,
    pub stop: Arc<AtomicBool>,
}

/// Installs the SIGINT/SIGTERM handler that sets `flag` (children get their own
/// SIGINT from us, in their own process groups, so a terminal Ctrl-C reaches us once).
pub fn stop_on_signals(flag: Arc<AtomicBool>) {
    static FLAG: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    let _ = FLAG.set(flag);
    extern "C" fn on_signal(_: libc::c_int) {
        if let Some(f) = FLAG.get() {
            f.store(true, Ordering::SeqCst);
        }
    }
    // SAFETY: the handler only stores to an atomic (async-signal-safe).
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
}

/// Starts every node of `specs` with the ROS environment.
pub fn start(
    layout: &Layout,
    ros: &Ros,
    specs: &[NodeSpec],
    extra_env: &[(String, String)],
) -> Result<Running, Failure> {
    let colour = std::env::var_os("NO_COLOR").is_none();
    let width = specs.iter().map(|s| s.name.len()).max().unwrap_or(0);
    let mut running = Running {
        children: Vec::new(),
        stop: Arc::new(AtomicBool::new(false)),
    };
    for (i, spec) in specs.iter().enumerate() {
        let exe = resolve_exec(layout, spec).ok_or_else(|| match &spec.pkg {
            Some(pkg) => Failure::new(format!(
                "executable `{}` of package `{pkg}` not found (lib/{pkg}/ on AMENT_PREFIX_PATH, {}; run `cargo xtask build`)",
                spec.exec,
                layout.bin_dir().display()
            )),
            None => Failure::new(format!("program `{}` not found on PATH", spec.exec)),
        })?;
        let mut c = crate::run::command(layout, ros, &exe.to_string_lossy());
        c.args(spec.argv())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c.env("RCUTILS_COLORIZED_OUTPUT", "0");
        for (k, v) in extra_env {
            c.env(k, v);
        }
        use std::os::unix::process::CommandExt;
        c.process_group(0);
        let mut child = match c.spawn() {
            Ok(ch) => ch,
            Err(e) => {
                running.shutdown(Duration::from_secs(3));
                return Err(Failure::new(format!("cannot start {}: {e}", exe.display())));
            }
        };
        let prefix = if colour {
            format!(
                "{}[{:width$}]\x1b[0m ",
                COLOURS[i % COLOURS.len()],
                spec.name
            )
        } else {
            format!("[{:width$}] ", spec.name)
        };
        for stream in [
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        ]
        .into_iter()
        .flatten()
        {
            let prefix = prefix.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    println!("{prefix}{line}");
                }
            });
        }
        running
            .children
            .push((spec.name.clone(), child, spec.shutdown_on_exit));
    }
    Ok(running)
}

/// A launch under way: by this launcher, or by `ros2 launch` (a child in its own process
/// group) where the ROS 2 tools are installed.
pub enum Launched {
    Ours(Running),
    Ros2 { child: Child, stop: Arc<AtomicBool> },
}

impl Launched {
    /// Set by SIGINT/SIGTERM (see [`stop_on_signals`]).
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        match self {
            Launched::Ours(r) => r.stop.clone(),
            Launched::Ros2 { stop, .. } => stop.clone(),
        }
    }

    /// Stops everything; returns what did not stop cleanly.
    pub fn shutdown(self, grace: Duration) -> Vec<String> {
        match self {
            Launched::Ours(mut r) => r.shutdown(grace),
            Launched::Ros2 { mut child, .. } => {
                let pgid = child.id() as libc::pid_t;
                // SAFETY: signalling our own child's process group.
                unsafe { libc::kill(-pgid, libc::SIGINT) };
                let deadline = Instant::now() + grace * 3;
                while Instant::now() < deadline {
                    if let Ok(Some(st)) = child.try_wait() {
                        return if st.success() {
                            vec![]
                        } else {
                            vec![format!("ros2 launch ({st})")]
                        };
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
                unsafe { libc::kill(-pgid, libc::SIGKILL) };
                let _ = child.wait();
                vec!["ros2 launch (killed)".into()]
            }
        }
    }
}

/// `ros2` where the ROS environment has it (a ROS install, or the tools from
/// ../shared/ros2-cli in the wheel venv); `ARNIE_LAUNCHER=xtask` says not to use it.
pub fn ros2_cli(layout: &Layout, ros: &Ros) -> Option<PathBuf> {
    if std::env::var("ARNIE_LAUNCHER").as_deref() == Ok("xtask") {
        return None;
    }
    let path = ros
        .vars(layout)
        .into_iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v)?;
    std::env::split_paths(&path)
        .map(|d| d.join("ros2"))
        .find(|p| p.exists())
}

/// Starts `ros2 launch PACKAGE FILE args...` with the ROS environment and `extra_env`.
pub fn start_ros2(
    layout: &Layout,
    ros: &Ros,
    ros2: &Path,
    package: &str,
    file: &str,
    args: &HashMap<String, String>,
    extra_env: &[(String, String)],
) -> Result<Launched, Failure> {
    let mut c = crate::run::command(layout, ros, &ros2.to_string_lossy());
    c.args(["launch", package, file]);
    let mut sorted: Vec<_> = args.iter().collect();
    sorted.sort();
    c.args(sorted.into_iter().map(|(k, v)| format!("{k}:={v}")));
    c.stdin(Stdio::null());
    for (k, v) in extra_env {
        c.env(k, v);
    }
    use std::os::unix::process::CommandExt;
    c.process_group(0);
    let child = c
        .spawn()
        .map_err(|e| Failure::new(format!("cannot start ros2 launch: {e}")))?;
    Ok(Launched::Ros2 {
        child,
        stop: Arc::new(AtomicBool::new(false)),
    })
}

impl Running {
    /// Waits until the stop flag is set or a child with `on_exit="shutdown"` ends;
    /// returns the name of that child, if any.
    pub fn wait(&mut self) -> Option<String> {
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return None;
            }
            for (name, child, shutdown) in &mut self.children {
                if let Ok(Some(status)) = child.try_wait() {
                    if *shutdown {
                        eprintln!("xtask: launch: {name} exited ({status}); stopping the launch");
                        return Some(name.clone());
                    }
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGINT to every child's process group, SIGKILL after `grace`. Returns the
    /// children that did not exit cleanly.
    pub fn shutdown(&mut self, grace: Duration) -> Vec<String> {
        for (_, child, _) in &self.children {
            // SAFETY: plain kill(2) on the child's own process group.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGINT) };
        }
        let deadline = Instant::now() + grace;
        let mut unclean = Vec::new();
        for (name, child, _) in &mut self.children {
            loop {
                match child.try_wait() {
                    Ok(Some(st)) => {
                        if !st.success() {
                            unclean.push(format!("{name} ({st})"));
                        }
                        break;
                    }
                    Ok(None) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(20))
                    }
                    _ => {
                        unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
                        let _ = child.wait();
                        unclean.push(format!("{name} (killed after {} s)", grace.as_secs()));
                        break;
                    }
                }
            }
        }
        unclean
    }
}

/// Where a process's program is: a `<node>`'s `<prefix>/lib/<pkg>/<exec>` on
/// `AMENT_PREFIX_PATH` (as `ros2 launch` looks it up; the dev tree in `.ros/install`
/// links the dev build there), else the dev build folder, else `PATH`.
fn resolve_exec(layout: &Layout, spec: &NodeSpec) -> Option<PathBuf> {
    let exec = &spec.exec;
    if exec.contains('/') {
        return Some(PathBuf::from(exec));
    }
    if let (Some(pkg), Some(ament)) = (&spec.pkg, std::env::var_os("AMENT_PREFIX_PATH")) {
        if let Some(p) = std::env::split_paths(&ament)
            .map(|d| d.join("lib").join(pkg).join(exec))
            .find(|p| p.exists())
        {
            return Some(p);
        }
    }
    let local = layout.bin_dir().join(exec);
    if spec.ros && local.exists() {
        return Some(local);
    }
    std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(exec))
            .find(|p| p.exists())
    })
}

/// Gives this process the ROS environment, so substitutions (`$(find-pkg-share)`,
/// `$(env)`) and executable look-ups see what the launched nodes see.
pub fn use_ros_env(layout: &Layout, ros: &Ros) {
    for (k, v) in ros.vars(layout) {
        // Single-threaded at this point (before any child or reader thread starts).
        std::env::set_var(k, v);
    }
}

/// `FILE`, or `PACKAGE FILE` as `ros2 launch` takes it (the file in the package's share
/// folder, found by name); the flag says whether the second word was used.
fn find_launch_file(first: &str, second: Option<&str>) -> Result<(PathBuf, bool), Failure> {
    if let Some(name) = second.filter(|s| !s.contains(":=")) {
        let share = find_pkg_share(first).ok_or_else(|| {
            Failure::new(format!("package `{first}` not found on AMENT_PREFIX_PATH"))
        })?;
        for dir in [Path::new(&share).join("launch"), PathBuf::from(&share)] {
            let p = dir.join(name);
            if p.exists() {
                return Ok((std::fs::canonicalize(&p)?, true));
            }
        }
        return Err(Failure::new(format!(
            "file `{name}` not found in package `{first}` ({share})"
        )));
    }
    let file = std::fs::canonicalize(first).map_err(|e| Failure::new(format!("{first}: {e}")))?;
    Ok((file, false))
}

/// `cargo xtask launch FILE [name:=value ...]` or `cargo xtask launch PACKAGE FILE [...]`.
pub fn cmd(layout: &Layout, ros: &Ros, rest: &[String]) -> Result<(), Failure> {
    if rest.is_empty() {
        return Err(Failure::new(
            "usage: cargo xtask launch FILE|PACKAGE FILE [name:=value ...]",
        ));
    }
    use_ros_env(layout, ros);
    let file = find_launch_file(rest[0].as_str(), rest.get(1).map(String::as_str))?;
    let skip = if file.1 { 2 } else { 1 };
    let specs = parse(&file.0, &launch_args(&rest[skip..])?)?;
    let mut running = start(layout, ros, &specs, &[])?;
    stop_on_signals(running.stop.clone());
    let ended_by = running.wait();
    let unclean = running.shutdown(Duration::from_secs(5));
    match (ended_by, unclean.is_empty()) {
        (None, true) => Ok(()),
        (Some(n), _) => Err(Failure::new(format!("{n} ended, launch stopped"))),
        (None, false) => Err(Failure::new(format!(
            "not stopped cleanly: {}",
            unclean.join(", ")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn parses_args_params_remaps_groups_and_includes() {
        let dir = std::env::temp_dir().join(format!("xtask-launch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        write(
            &dir,
            "inner.launch.xml",
            r#"<launch><arg name="rate"/><node pkg="p" exec="inner" name="in"><param name="rate" value="$(var rate)"/></node></launch>"#,
        );
        let main = write(
            &dir,
            "main.launch.xml",
            r#"<launch>
                 <arg name="fast" default="false"/>
                 <arg name="tick" default="10.0"/>
                 <node pkg="brain" exec="brain" name="brain">
                   <param from="$(dirname)/brain.yaml"/>
                   <param name="tick_s" value="$(var tick)"/>
                   <remap from="/a" to="/b"/>
                 </node>
                 <node pkg="x" exec="only_fast" if="$(var fast)"/>
                 <group namespace="g"><node pkg="x" exec="grouped"/></group>
                 <include file="inner.launch.xml"><arg name="rate" value="5"/></include>
               </launch>"#,
        );
        let args = launch_args(&["tick:=2.5".to_string()]).unwrap();
        let specs = parse(&main, &args).unwrap();
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["brain", "grouped", "in"]);
        assert_eq!(
            specs[0].params,
            vec![("tick_s".to_string(), "2.5".to_string())]
        );
        assert_eq!(specs[0].param_files, vec![dir.join("brain.yaml")]);
        assert_eq!(specs[0].remaps, vec![("/a".to_string(), "/b".to_string())]);
        assert_eq!(specs[1].namespace, "/g");
        assert_eq!(specs[0].pkg.as_deref(), Some("brain"));
        assert_eq!(specs[2].params, vec![("rate".to_string(), "5".to_string())]);
        let argv = specs[0].argv();
        assert!(
            argv.windows(2).any(|w| w == ["-p", "tick_s:=2.5"]),
            "{argv:?}"
        );
        assert!(
            argv.windows(2).any(|w| w == ["-r", "__node:=brain"]),
            "{argv:?}"
        );
        let fast = parse(&main, &launch_args(&["fast:=true".to_string()]).unwrap()).unwrap();
        assert_eq!(fast.len(), 4);
    }

    #[test]
    fn namespaces_are_absolute_and_executables_get_no_ros_args() {
        assert_eq!(join_ns("", ""), "");
        assert_eq!(join_ns("", "arm1"), "/arm1");
        assert_eq!(join_ns("/arm1", "sub"), "/arm1/sub");
        assert_eq!(join_ns("/arm1", "/abs/"), "/abs");
        assert_eq!(join_ns("/arm1", ""), "/arm1");
        let dir = std::env::temp_dir().join(format!("xtask-launch-exe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = write(
            &dir,
            "exe.launch.xml",
            r#"<launch><arg name="ns" default="left"/><group><push-ros-namespace namespace="$(var ns)"/>
               <node pkg="p" exec="n"/><executable cmd="ros2 bag record -a" name="rec"/></group></launch>"#,
        );
        let specs = parse(&f, &HashMap::new()).unwrap();
        assert_eq!(specs[0].namespace, "/left");
        assert!(specs[0]
            .argv()
            .windows(2)
            .any(|w| w == ["-r", "__ns:=/left"]));
        assert_eq!(
            (specs[1].exec.as_str(), specs[1].name.as_str(), specs[1].ros),
            ("ros2", "rec", false)
        );
        assert_eq!(specs[1].argv(), ["bag", "record", "-a"]);
    }

    #[test]
    fn unknown_elements_and_undeclared_args_are_errors() {
        let dir = std::env::temp_dir().join(format!("xtask-launch-err-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = write(
            &dir,
            "bad.launch.xml",
            r#"<launch><timer period="1"/></launch>"#,
        );
        assert!(parse(&f, &HashMap::new())
            .unwrap_err()
            .message
            .contains("unsupported element <timer>"));
        let f = write(
            &dir,
            "bad2.launch.xml",
            r#"<launch><node pkg="a" exec="b"><param name="x" value="$(var nope)"/></node></launch>"#,
        );
        assert!(parse(&f, &HashMap::new())
            .unwrap_err()
            .message
            .contains("`nope` is not declared"));
        let f = write(
            &dir,
            "bad3.launch.xml",
            r#"<launch><arg name="must"/></launch>"#,
        );
        assert!(parse(&f, &HashMap::new())
            .unwrap_err()
            .message
            .contains("pass must:=VALUE"));
    }
}
