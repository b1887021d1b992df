//! `cargo xtask install [--prefix DIR] [--debug]`: one cargo build of the workspace, then
//! an ament install tree, as colcon would lay it out (merged), so that `ros2 run` and
//! `ros2 launch` find every package:
//!
//! ```text
//! DIR/lib/<pkg>/<exe>                               the node executables
//! DIR/share/<pkg>/package.xml                       every ROS package
//! DIR/share/ament_index/resource_index/packages/<pkg>   the ament index markers
//! DIR/share/arnie_interfaces/...                    the interfaces (CMake + rosidl), with
//! DIR/share/tf2_msgs/...                            (only when the ROS install lacks it)
//! DIR/share/geographic_msgs/...                     (nav2_msgs needs it; only when the ROS install lacks it)
//! DIR/share/nav2_msgs/...                           (all of Nav2's interfaces; only when the ROS install lacks it)
//! DIR/share/rosbag2_interfaces/...                  (arnie_bag play's services; only when the ROS install lacks it)
//! DIR/lib/..., DIR/lib/python3.11/site-packages/... their libraries and Python modules
//! DIR/share/arnie_bringup/{launch,params,...}       launch files, parameters, viewer configs
//! DIR/setup.bash, setup.sh, local_setup.bash, local_setup.sh
//! ```
//!
//! `local_setup.*` put DIR on `AMENT_PREFIX_PATH`, `CMAKE_PREFIX_PATH`, `PATH`,
//! `LD_LIBRARY_PATH` and `PYTHONPATH`; `setup.*` first bring in the ROS 2 the tree was
//! built against (the project's wheels, or the sourced /opt/ros/jazzy), then do the same.
//!
//! The same code lays the development tree: [`dev_links`] puts symbolic links to the dev
//! build (`target/debug`) and to the source `launch/` and `params/` into `.ros/install`
//! (already on `AMENT_PREFIX_PATH` in a `cargo xtask env` shell), so `ros2 run arnie_brain
//! brain` and `ros2 launch arnie_bringup arnie.launch.xml` work right after a build.
use crate::env::{python_dirs, Kind, Layout, Ros};
use crate::run::{self, Failure};
use std::fs;
use std::path::{Path, PathBuf};

/// The package that carries the launch files, the parameter files and the viewer configs.
pub const BRINGUP: &str = "arnie_bringup";

/// One ROS package of the workspace: a folder of `nodes/` with a `package.xml`.
#[derive(Debug, Clone, PartialEq)]
pub struct Package {
    /// The ROS package name (`package.xml` `<name>`; the crate has the same name).
    pub name: String,
    /// Its folder.
    pub dir: PathBuf,
    /// The executables it installs into `lib/<name>/` (the crate's binaries).
    pub executables: Vec<String>,
}

/// The folders that hold packages: the nodes, the libraries (one of which, arnie_english,
/// ships its command line as a package) and the tools that are not nodes.
pub const PACKAGE_FOLDERS: [&str; 3] = ["nodes", "nodes/lib", "nodes/tools"];

/// Every ROS package under [`PACKAGE_FOLDERS`], sorted by name, with the binaries cargo
/// builds for it.
pub fn packages(layout: &Layout) -> Result<Vec<Package>, Failure> {
    let bins = cargo_binaries(layout)?;
    let mut out = Vec::new();
    let mut dirs = Vec::new();
    for folder in PACKAGE_FOLDERS {
        for entry in fs::read_dir(layout.root.join(folder))? {
            dirs.push(entry?.path());
        }
    }
    for dir in dirs {
        let xml = dir.join("package.xml");
        if !xml.exists() {
            continue; // a plain crate (node_glue), not a ROS package
        }
        let text = fs::read_to_string(&xml)
            .map_err(|e| Failure::new(format!("{}: {e}", xml.display())))?;
        let name = package_name(&text)
            .ok_or_else(|| Failure::new(format!("{}: no <name>", xml.display())))?;
        let executables = bins
            .iter()
            .filter(|(crate_name, _)| *crate_name == name)
            .map(|(_, b)| b.clone())
            .collect();
        out.push(Package {
            name,
            dir,
            executables,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// `<name>` of a package.xml.
pub fn package_name(xml: &str) -> Option<String> {
    let doc = roxmltree::Document::parse(xml).ok()?;
    let name = doc
        .root_element()
        .children()
        .find(|n| n.has_tag_name("name"))?
        .text()?
        .trim()
        .to_string();
    (!name.is_empty()).then_some(name)
}

/// (crate, binary) for every binary target of the workspace (`cargo metadata`).
fn cargo_binaries(layout: &Layout) -> Result<Vec<(String, String)>, Failure> {
    let meta = crate::run::cargo_metadata(layout)?;
    let mut bins = Vec::new();
    for p in meta["packages"].as_array().into_iter().flatten() {
        let krate = p["name"].as_str().unwrap_or_default();
        for t in p["targets"].as_array().into_iter().flatten() {
            let is_bin = t["kind"]
                .as_array()
                .is_some_and(|k| k.iter().any(|k| k == "bin"));
            if let (true, Some(name)) = (is_bin, t["name"].as_str()) {
                bins.push((krate.to_string(), name.to_string()));
            }
        }
    }
    Ok(bins)
}

/// How files get into the tree.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    /// Copies (an install tree that outlives the checkout).
    Copy,
    /// Symbolic links into the build and the sources (the development tree).
    Link,
}

/// What `cargo xtask install` was asked for.
#[derive(Debug, PartialEq)]
struct Options {
    prefix: PathBuf,
    release: bool,
    /// Only this package (colcon: one package per CMake project), no interfaces, no
    /// setup scripts (colcon writes its own).
    package: Option<String>,
    build: bool,
    install: bool,
}

const INSTALL_USAGE: &str =
    "usage: cargo xtask install [--prefix DIR] [--debug] [--package PKG] [--build-only|--no-build]";

fn options(rest: &[String], root: &Path) -> Result<Options, Failure> {
    let mut o = Options {
        prefix: root.join("install"),
        release: true,
        package: None,
        build: true,
        install: true,
    };
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        let mut value = |what: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| Failure::new(format!("{a} needs {what}\n{INSTALL_USAGE}")))
        };
        match a.as_str() {
            "--prefix" => o.prefix = PathBuf::from(value("a folder")?),
            "--package" => o.package = Some(value("a package name")?),
            "--debug" => o.release = false,
            "--build-only" => o.install = false,
            "--no-build" => o.build = false,
            other => {
                return Err(Failure::new(format!(
                    "install: unknown argument `{other}`\n{INSTALL_USAGE}"
                )))
            }
        }
    }
    Ok(o)
}

/// `cargo xtask install ...` (see [`INSTALL_USAGE`]).
pub fn cmd(layout: &Layout, ros: &Ros, rest: &[String]) -> Result<(), Failure> {
    let mut o = options(rest, &layout.root)?;
    if o.prefix.is_relative() {
        o.prefix = std::env::current_dir()?.join(&o.prefix);
    }
    let started = std::time::Instant::now();
    let profile = if o.release { "release" } else { "debug" };
    if o.build {
        let mut args = vec!["build", "--workspace", "--bins"];
        if o.release {
            args.push("--release");
        }
        run::cargo(layout, ros, &args)?;
    }
    if !o.install {
        return Ok(());
    }
    fs::create_dir_all(&o.prefix)?;
    let bin_dir = layout.target.join(profile);
    if let Some(name) = &o.package {
        let pkgs = packages(layout)?;
        let p = pkgs.iter().find(|p| &p.name == name).ok_or_else(|| {
            Failure::new(format!(
                "no package `{name}` under nodes/ (have: {})",
                pkgs.iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
        install_package(layout, p, &o.prefix, &bin_dir, Mode::Copy)?;
        return Ok(());
    }
    let interfaces = crate::setup::needed_interfaces(layout, ros).len();
    if o.prefix != layout.install {
        crate::setup::build_interfaces(layout, ros, &o.prefix)?;
    }
    let pkgs = populate(layout, &o.prefix, &bin_dir, Mode::Copy)?;
    write_setup_scripts(layout, ros, &o.prefix)?;
    // As colcon marks its install base: the package.xml files in share/ are not sources.
    fs::write(o.prefix.join("COLCON_IGNORE"), "")?;
    eprintln!(
        "xtask: install: {} packages ({profile} build) into {} in {:.0} s\n  source {}/setup.bash\n  ros2 launch {BRINGUP} arnie.launch.xml",
        pkgs.len() + interfaces, // and arnie_interfaces (and tf2_msgs, geographic_msgs, nav2_msgs, rosbag2_interfaces)
        o.prefix.display(),
        started.elapsed().as_secs_f64(),
        o.prefix.display()
    );
    Ok(())
}

/// The development tree in `.ros/install` (links; cheap and idempotent; run by set-up).
pub fn dev_links(layout: &Layout) -> Result<(), Failure> {
    populate(layout, &layout.install, &layout.bin_dir(), Mode::Link).map(|_| ())
}

/// Lays out every package of the workspace (not the interfaces) under `prefix`, with the
/// executables from `bin_dir`. Returns the packages.
fn populate(
    layout: &Layout,
    prefix: &Path,
    bin_dir: &Path,
    mode: Mode,
) -> Result<Vec<Package>, Failure> {
    let pkgs = packages(layout)?;
    if !pkgs.iter().any(|p| p.name == BRINGUP) {
        return Err(Failure::new(format!(
            "nodes/{BRINGUP}/package.xml is missing"
        )));
    }
    for p in &pkgs {
        install_package(layout, p, prefix, bin_dir, mode)?;
    }
    Ok(pkgs)
}

/// One package: `lib/<pkg>/<exe>`, `share/<pkg>/`, the ament index marker. The bringup
/// package's share also gets the workspace's `launch/` and `params/` and its own folders
/// (viewer configs).
fn install_package(
    layout: &Layout,
    p: &Package,
    prefix: &Path,
    bin_dir: &Path,
    mode: Mode,
) -> Result<(), Failure> {
    let index = prefix.join("share/ament_index/resource_index/packages");
    fs::create_dir_all(&index)?;
    if !p.executables.is_empty() {
        let lib = prefix.join("lib").join(&p.name);
        fs::create_dir_all(&lib)?;
        for exe in &p.executables {
            let from = bin_dir.join(exe);
            if mode == Mode::Copy && !from.exists() {
                return Err(Failure::new(format!("{} was not built", from.display())));
            }
            place(&from, &lib.join(exe), mode)?;
        }
    }
    let share = share_package(p, prefix, mode)?;
    if p.name == BRINGUP {
        for entry in fs::read_dir(&p.dir)? {
            let path = entry?.path();
            let name = path
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            if path.is_dir() {
                place(&path, &share.join(&name), mode)?;
            }
        }
        for folder in ["launch", "params"] {
            place(&layout.root.join(folder), &share.join(folder), mode)?;
        }
    }
    fs::write(index.join(&p.name), "")?;
    Ok(())
}

/// Data folders a package installs into `share/<pkg>/` from elsewhere in the tree:
/// `(package, folder in share, source folder from the repository root)`. The comms
/// bridge's packet definitions are its library's (`arnie_packets`), the one copy both
/// ends of the link build their types from.
pub const SHARE_DATA: &[(&str, &str, &str)] =
    &[("arnie_comms", "packets", "nodes/lib/arnie_packets/packets")];

/// `share/<pkg>/package.xml`, README.md and the package's [`SHARE_DATA`].
fn share_package(p: &Package, prefix: &Path, mode: Mode) -> Result<PathBuf, Failure> {
    let share = prefix.join("share").join(&p.name);
    fs::create_dir_all(&share)?;
    for file in ["package.xml", "README.md"] {
        let from = p.dir.join(file);
        if from.exists() {
            place(&from, &share.join(file), mode)?;
        }
    }
    // The repository root: packages sit one or two folders below `nodes/`.
    let root = p
        .dir
        .ancestors()
        .find(|d| d.join("Cargo.lock").is_file())
        .unwrap_or(&p.dir);
    for (_, folder, source) in SHARE_DATA.iter().filter(|(pkg, _, _)| *pkg == p.name) {
        place(&root.join(source), &share.join(folder), mode)?;
    }
    Ok(share)
}

/// Copies (files and folders, recursively) or links `from` to `to`, replacing what is there.
fn place(from: &Path, to: &Path, mode: Mode) -> Result<(), Failure> {
    let fail =
        |e: std::io::Error| Failure::new(format!("{} -> {}: {e}", from.display(), to.display()));
    match mode {
        Mode::Link => link_tree(from, to).map_err(fail),
        Mode::Copy => {
            remove(to).map_err(fail)?;
            copy_recursive(from, to).map_err(fail)
        }
    }
}

/// Mirrors `from` at `to`: real folders (`ros2 launch` and ament_index do not follow
/// linked folders) holding links to the files. Only what changed is touched, and a link is
/// replaced atomically (rename), so a process reading the tree meanwhile never misses a file.
fn link_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    if !from.is_dir() {
        if fs::read_link(to).ok().as_deref() == Some(from) {
            return Ok(());
        }
        if fs::symlink_metadata(to).is_ok_and(|m| m.is_dir()) {
            fs::remove_dir_all(to)?;
        }
        let tmp = to.with_file_name(format!(
            ".{}.{}",
            to.file_name().unwrap_or_default().to_string_lossy(),
            std::process::id()
        ));
        let _ = fs::remove_file(&tmp);
        std::os::unix::fs::symlink(from, &tmp)?;
        return fs::rename(&tmp, to);
    }
    if fs::symlink_metadata(to).is_ok_and(|m| !m.is_dir()) {
        fs::remove_file(to)?;
    }
    fs::create_dir_all(to)?;
    let mut names = std::collections::HashSet::new();
    for e in fs::read_dir(from)? {
        let e = e?;
        names.insert(e.file_name());
        link_tree(&e.path(), &to.join(e.file_name()))?;
    }
    for e in fs::read_dir(to)? {
        let e = e?;
        if !names.contains(&e.file_name()) {
            remove(&e.path())?;
        }
    }
    Ok(())
}

fn remove(p: &Path) -> std::io::Result<()> {
    match fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() => fs::remove_dir_all(p),
        Ok(_) => fs::remove_file(p),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

fn copy_recursive(from: &Path, to: &Path) -> std::io::Result<()> {
    if from.is_dir() {
        fs::create_dir_all(to)?;
        for e in fs::read_dir(from)? {
            let e = e?;
            copy_recursive(&e.path(), &to.join(e.file_name()))?;
        }
        Ok(())
    } else {
        fs::copy(from, to).map(|_| ())
    }
}

// ---------------------------------------------------------------- setup scripts

/// `local_setup.{sh,bash}` (this tree) and `setup.{sh,bash}` (the ROS underneath, then
/// this tree). Idempotent: sourcing twice adds nothing twice.
fn write_setup_scripts(layout: &Layout, ros: &Ros, prefix: &Path) -> Result<(), Failure> {
    let py = python_dirs(prefix)
        .into_iter()
        .next()
        .unwrap_or_else(|| prefix.join("lib/python3.11/site-packages"));
    let py_rel = py
        .strip_prefix(prefix)
        .unwrap_or(&py)
        .to_string_lossy()
        .into_owned();
    let body = |prefix_expr: &str| {
        format!(
            "_arnie_prefix={prefix_expr}\n\
             {PREPEND}\
             _arnie_prepend AMENT_PREFIX_PATH \"$_arnie_prefix\"\n\
             _arnie_prepend CMAKE_PREFIX_PATH \"$_arnie_prefix\"\n\
             _arnie_prepend PATH \"$_arnie_prefix/bin\"\n\
             _arnie_prepend LD_LIBRARY_PATH \"$_arnie_prefix/lib\"\n\
             _arnie_prepend PYTHONPATH \"$_arnie_prefix/{py_rel}\"\n\
             unset _arnie_prefix\n"
        )
    };
    let fixed = shell_quote(&prefix.to_string_lossy());
    let header =
        "# Generated by `cargo xtask install`: puts this install tree on the environment.\n";
    fs::write(
        prefix.join("local_setup.sh"),
        format!(
            "{header}{}",
            body(&format!("${{AMENT_CURRENT_PREFIX:-{fixed}}}"))
        ),
    )?;
    fs::write(
        prefix.join("local_setup.bash"),
        format!("{header}{}", body(&format!("$(builtin cd \"$(dirname \"${{BASH_SOURCE[0]}}\")\" && pwd) || _arnie_prefix={fixed}"))),
    )?;
    let under = underlay(layout, ros, prefix);
    fs::write(
        prefix.join("setup.sh"),
        format!("# Generated by `cargo xtask install`: the ROS 2 underneath, then this tree.\n{}{under}. {fixed}/local_setup.sh\n", PREPEND),
    )?;
    fs::write(
        prefix.join("setup.bash"),
        format!(
            "# Generated by `cargo xtask install`: the ROS 2 underneath, then this tree.\n{PREPEND}{under}\
             . \"$(builtin cd \"$(dirname \"${{BASH_SOURCE[0]}}\")\" && pwd)/local_setup.bash\"\n"
        ),
    )?;
    Ok(())
}

/// A POSIX function that prepends a folder to a `:`-list variable once.
const PREPEND: &str = "_arnie_prepend() {\n  eval \"_arnie_v=\\${$1:-}\"\n  case \":$_arnie_v:\" in\n    *\":$2:\"*) ;;\n    \"::\") eval \"export $1=\\\"\\$2\\\"\" ;;\n    *) eval \"export $1=\\\"\\$2:\\$_arnie_v\\\"\" ;;\n  esac\n  unset _arnie_v\n}\n";

/// Shell lines that bring in the ROS 2 this tree was built against.
fn underlay(layout: &Layout, ros: &Ros, this: &Path) -> String {
    match &ros.kind {
        Kind::System { prefixes } => {
            // Deepest first: /opt/ros/jazzy, then overlays above it (not this tree, if it
            // was sourced when it was built again).
            let mut s = String::new();
            for p in prefixes.iter().rev().filter(|p| p.as_path() != this) {
                let sh = p.join("local_setup.sh");
                if sh.exists() {
                    s += &format!(
                        "AMENT_CURRENT_PREFIX={q} . {q}/local_setup.sh\n",
                        q = shell_quote(&p.to_string_lossy())
                    );
                }
            }
            s
        }
        Kind::Wheels => {
            // The PyPI wheels in the project's .ros/venv: the variables `cargo xtask env` sets.
            let mut s = String::from("export ROS_DISTRO=jazzy\nexport RMW_IMPLEMENTATION=\"${RMW_IMPLEMENTATION:-rmw_fastrtps_cpp}\"\n");
            let vars = ros.vars(layout);
            let get = |k: &str| {
                vars.iter()
                    .find(|(n, _)| n == k)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default()
            };
            let venv = layout.venv.to_string_lossy().into_owned();
            for var in [
                "AMENT_PREFIX_PATH",
                "CMAKE_PREFIX_PATH",
                "LD_LIBRARY_PATH",
                "PATH",
            ] {
                // Only the venv's own entries (not the dev tree, not the target folder).
                let mut entries: Vec<String> = get(var)
                    .split(':')
                    .filter(|e| {
                        e.starts_with(&venv)
                            || ros
                                .libpython_dir
                                .as_ref()
                                .is_some_and(|d| Path::new(e) == d)
                    })
                    .map(String::from)
                    .collect();
                entries.dedup();
                for e in entries.iter().rev() {
                    s += &format!("_arnie_prepend {var} {}\n", shell_quote(e));
                }
            }
            s
        }
    }
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

// ---------------------------------------------------------------- colcon check

/// colcon for the check, pinned (it is not needed for anything else).
const COLCON: &str = "colcon-common-extensions==0.3.0";

/// `cargo xtask colcon-check`: `colcon build` of the repo root, as a ROS user runs it,
/// into `.ros/colcon/{build,install,log}`; then checks that every executable of every
/// package is installed (`install/<pkg>/lib/<pkg>/<exe>`) and that the project's
/// `.cargo/config.toml` is untouched, and prints the time. colcon comes from PyPI into the
/// wheel venv (pinned) when it is not installed.
pub fn colcon_check(layout: &Layout, ros: &Ros) -> Result<(), Failure> {
    let colcon = match ros.which(layout, "colcon") {
        Some(c) => c,
        None if ros.kind == Kind::Wheels => {
            eprintln!("xtask: colcon-check: installing {COLCON} into .ros/venv");
            let mut c = run::command(layout, ros, &ros.python.to_string_lossy());
            c.args([
                "-m",
                "pip",
                "install",
                "-q",
                "--disable-pip-version-check",
                COLCON,
            ]);
            run::status(c, "pip install colcon")?;
            layout.venv.join("bin/colcon")
        }
        None => {
            return Err(Failure::new(
                "colcon is not installed (pip install colcon-common-extensions)",
            ))
        }
    };
    let config = layout.root.join(".cargo/config.toml");
    let before = fs::read(&config)?;
    let base = layout.dot_ros.join("colcon");
    let started = std::time::Instant::now();
    let mut c = run::command(layout, ros, &colcon.to_string_lossy());
    c.arg("--log-base").arg(base.join("log"));
    c.args(["build", "--event-handlers", "console_cohesion+"]);
    for (flag, dir) in [("--build-base", "build"), ("--install-base", "install")] {
        c.arg(flag).arg(base.join(dir));
    }
    run::status(c, "colcon build")?;
    let took = started.elapsed().as_secs_f64();
    let mut missing = Vec::new();
    let mut found = 0;
    for p in packages(layout)? {
        for exe in &p.executables {
            let path = base
                .join("install")
                .join(&p.name)
                .join("lib")
                .join(&p.name)
                .join(exe);
            if path.exists() {
                found += 1;
            } else {
                missing.push(path.display().to_string());
            }
        }
    }
    if fs::read(&config)? != before {
        return Err(Failure::new(
            ".cargo/config.toml was changed by colcon build",
        ));
    }
    if !missing.is_empty() {
        return Err(Failure::new(format!(
            "colcon build installed no:\n  {}",
            missing.join("\n  ")
        )));
    }
    println!("| check | result |\n| --- | --- |");
    println!("| colcon build (repo root, every package) | {took:.0} s |");
    println!("| executables installed | {found}, none missing |");
    println!("| .cargo/config.toml | untouched |");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(a: &str) -> Result<Options, Failure> {
        options(
            &a.split_whitespace().map(String::from).collect::<Vec<_>>(),
            Path::new("/ws"),
        )
    }

    #[test]
    fn install_options() {
        let o = opts("").unwrap();
        assert_eq!(
            o,
            Options {
                prefix: "/ws/install".into(),
                release: true,
                package: None,
                build: true,
                install: true
            }
        );
        let o = opts("--prefix /x --debug --package arnie_brain --no-build").unwrap();
        assert_eq!(
            (o.prefix.to_str(), o.release, o.package.as_deref(), o.build),
            (Some("/x"), false, Some("arnie_brain"), false)
        );
        assert!(!opts("--build-only").unwrap().install);
        assert!(opts("--prefix")
            .unwrap_err()
            .message
            .contains("--prefix needs a folder"));
        assert!(opts("--frob")
            .unwrap_err()
            .message
            .contains("unknown argument `--frob`"));
    }

    #[test]
    fn package_names_come_from_package_xml() {
        assert_eq!(
            package_name("<package format=\"3\"><name> arnie_brain </name></package>").as_deref(),
            Some("arnie_brain")
        );
        assert_eq!(package_name("<package/>"), None);
        assert_eq!(package_name("not xml"), None);
    }
}
