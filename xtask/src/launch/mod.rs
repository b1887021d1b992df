//! `cargo xtask launch FILE [name:=value ...]`: runs a ROS 2 XML launch file where
//! `ros2 launch` is not installed (it is not on PyPI). Supported, as `ros2 launch`
//! reads them: `<launch>`, `<arg name default|value>`, `<let>`, `<node pkg exec name
//! namespace args output on_exit>` with `<param name value>`, `<param from>` and
//! `<remap from to>`, `<group>` (scoped args; `<push-ros-namespace>`), `<include file>`
//! with `<arg>` (and its `<choice>`s), `if`/`unless` on every element, and the
//! substitutions `$(var)`, `$(env NAME [default])`, `$(dirname)`, `$(find-pkg-share
//! pkg)`, `$(find-pkg-prefix pkg)`, `$(equals A B)`, `$(not-equals A B)`, nested. Anything else is an
//! error naming the element, never silently ignored. The reader is the `launch_xml`
//! crate (xtask/launch_xml, shared with the fuzzer); this module runs what it reads.
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

pub use launch_xml::NodeSpec;

/// Parses `file` with launch arguments `args` into the nodes it starts (the reader is
/// the `launch_xml` crate, xtask/launch_xml, which the fuzzer also runs).
pub fn parse(file: &Path, args: &HashMap<String, String>) -> Result<Vec<NodeSpec>, Failure> {
    launch_xml::parse(file, args).map_err(|e| Failure::new(e.message))
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
    ros.which(layout, "ros2")
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
        let share = launch_xml::find_pkg_share(first).ok_or_else(|| {
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

    // The reader's own tests are in xtask/launch_xml.
    #[test]
    fn launch_arguments_and_errors_as_failures() {
        let args = launch_args(&["tick:=2.5".to_string(), "a:=b:=c".to_string()]).unwrap();
        assert_eq!(args["tick"], "2.5");
        assert_eq!(args["a"], "b:=c");
        assert!(launch_args(&["nope".to_string()]).is_err());
        let dir = std::env::temp_dir().join(format!("xtask-launch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("bad.launch.xml");
        std::fs::write(&f, r#"<launch><timer period="1"/></launch>"#).unwrap();
        assert!(parse(&f, &HashMap::new())
            .unwrap_err()
            .message
            .contains("unsupported element <timer>"));
    }
}
