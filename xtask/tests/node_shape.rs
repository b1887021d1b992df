//! The shape of a node (README, "The shape of a node") and the layout's rules, checked on
//! the files: every node package under `nodes/` has the same files with the same roles,
//! the names follow one rule, and packages depend on libraries only.
//!
//! The layout: `nodes/<pkg>/` are the node packages, `nodes/lib/<crate>/` the libraries,
//! `nodes/tools/<pkg>/` the programs that are not nodes (`nodes/arnie_bringup` is the
//! stack's launch and view package, no Rust). Every crate directly under `nodes/` is a
//! node. For each:
//! - `src/bin/`: exactly one binary is the node, and it is the one form,
//!   `fn main() { <crate>::ros::run() }` (comments aside); no other binary starts the
//!   node itself (`main_with`, `ros::setup`);
//! - `src/ros/mod.rs`: `NODE`, `run` (`node_glue::main_with(NODE, setup)`,
//!   `node_glue::lifecycle::main_with(NODE, setup)` for a managed node, or
//!   `node_glue::main_with_loop(NODE, setup)` for a node that runs its own loop) and
//!   that `setup` (`setup(app: &mut App)`, a managed node's with its lifecycle after),
//!   defined nowhere else in `src/ros/`; it declares the
//!   `params` and `counters` modules;
//! - `src/ros/params.rs`: the parameters, in one `node_glue::declare_parameters!`;
//! - `src/ros/counters.rs`: the counters, in `node_glue::counters!` (or a re-export of
//!   the library's, when a ROS-free part of the crate counts into them);
//! - `src/lib.rs`: `pub mod ros` behind the `ros` feature;
//! - names (REP 144 for the package, ROS custom for the executable): the package is
//!   `arnie_<what>`; the node's executable is named as the node (`NODE`), in
//!   snake_case, without the `arnie_` prefix (`arnie_base` runs `base`).
//!
//! And for every crate of the workspace under `nodes/`: its path dependencies (normal,
//! dev and build) are libraries of `nodes/lib/`: a node never depends on another node's
//! package or on a tool, a library never on a node or a tool.
use std::fs;
use std::path::{Path, PathBuf};

fn nodes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../nodes")
}

/// The node packages (the crates directly under `nodes/`), by folder name, sorted.
fn node_packages() -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(nodes_dir())
        .expect("nodes/ is readable")
        .map(|e| e.expect("nodes/ entry").path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The Rust code of a file without comments, blank lines or indentation.
fn code(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn read(path: &Path) -> Option<String> {
    fs::read_to_string(path).ok()
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(rust_files(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// Declares module `name` (`mod name;`, `pub mod name;`, `pub(crate) mod name;` ...).
fn declares_mod(code: &str, name: &str) -> bool {
    code.lines().any(|l| {
        l.strip_suffix(&format!("mod {name};"))
            .is_some_and(|vis| vis.is_empty() || vis.starts_with("pub"))
    })
}

/// What is wrong with one node package's shape (empty: nothing).
fn problems(pkg: &str) -> Vec<String> {
    let root = nodes_dir().join(pkg);
    let ros = root.join("src/ros");
    let mut bad = Vec::new();

    // The package's name.
    if !pkg.starts_with("arnie_") {
        bad.push(format!(
            "the package is named {pkg}, not arnie_<what> (REP 144)"
        ));
    }

    // One binary form.
    let canonical = format!("fn main() {{\n{pkg}::ros::run()\n}}");
    let mut node_bins = Vec::new();
    for bin in rust_files(&root.join("src/bin")) {
        let text = code(&read(&bin).unwrap_or_default());
        let shown = bin
            .strip_prefix(&root)
            .unwrap_or(&bin)
            .display()
            .to_string();
        if text == canonical {
            node_bins.push(shown);
        } else if ["main_with", "ros::setup", "ros::run"]
            .iter()
            .any(|s| text.contains(s))
        {
            bad.push(format!(
                "{shown} starts the node but is not the one form `{}`",
                canonical.replace('\n', " ")
            ));
        }
    }
    if node_bins.len() != 1 {
        bad.push(format!(
            "one binary must be `{}`, found {node_bins:?}",
            canonical.replace('\n', " ")
        ));
    }

    // The executable is named as the node.
    let module_text = read(&ros.join("mod.rs")).unwrap_or_default();
    let node_name = module_text
        .lines()
        .find_map(|l| l.trim().strip_prefix("pub const NODE: &str = \""))
        .and_then(|rest| rest.strip_suffix("\";"))
        .unwrap_or_default()
        .to_string();
    if let [exe] = node_bins.as_slice() {
        let exe_name = Path::new(exe)
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if exe_name != node_name {
            bad.push(format!(
                "the executable is {exe_name} but the node is {node_name:?}: name it as the node"
            ));
        }
        if exe_name.starts_with("arnie_")
            || !exe_name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        {
            bad.push(format!(
                "the executable {exe_name} is not a snake_case name without the arnie_ prefix"
            ));
        }
    }

    // The glue's files.
    for file in ["mod.rs", "params.rs", "counters.rs"] {
        if !ros.join(file).is_file() {
            bad.push(format!("src/ros/{file} is missing"));
        }
    }
    let module = code(&read(&ros.join("mod.rs")).unwrap_or_default());
    if !module.contains("pub const NODE: &str =") {
        bad.push("src/ros/mod.rs does not define `pub const NODE: &str`".into());
    }
    if !module.contains("node_glue::main_with(NODE, setup)")
        && !module.contains("node_glue::lifecycle::main_with(NODE, setup)")
        && !module.contains("node_glue::main_with_loop(NODE, setup)")
    {
        bad.push(
            "src/ros/mod.rs's `run` calls none of `node_glue::main_with(NODE, setup)`, \
             `node_glue::lifecycle::main_with(NODE, setup)` and \
             `node_glue::main_with_loop(NODE, setup)`"
                .into(),
        );
    }
    if !module.contains("pub fn run() -> ! {") {
        bad.push("src/ros/mod.rs does not define `pub fn run() -> !`".into());
    }
    // `setup(app)`, or a managed node's `setup(app, lc)`, however rustfmt wraps it.
    let flat: String = module.split_whitespace().collect();
    if !(flat.contains("pubfnsetup(app:&mutApp)")
        || flat.contains("pubfnsetup(app:&mutApp,lc:&Lifecycle")
        || flat.contains("pubfnsetup(app:&mutApp,lc:&node_glue::lifecycle::Lifecycle"))
    {
        bad.push(
            "src/ros/mod.rs does not define `pub fn setup(app: &mut App)` (or, managed, \
             `pub fn setup(app: &mut App, lc: &Lifecycle)`)"
                .into(),
        );
    }
    for other in rust_files(&ros) {
        if other.file_name().is_some_and(|n| n == "mod.rs") {
            continue;
        }
        let text = code(&read(&other).unwrap_or_default());
        if text.contains("fn setup(") || text.contains("fn run() -> !") {
            bad.push(format!(
                "{} defines `setup` or `run` (they live in src/ros/mod.rs)",
                other.strip_prefix(&root).unwrap_or(&other).display()
            ));
        }
    }
    for m in ["params", "counters"] {
        if !declares_mod(&module, m) {
            bad.push(format!("src/ros/mod.rs does not declare `mod {m};`"));
        }
    }
    let params = code(&read(&ros.join("params.rs")).unwrap_or_default());
    if !params.contains("node_glue::declare_parameters!") {
        bad.push("src/ros/params.rs has no `node_glue::declare_parameters!`".into());
    }
    let counters = code(&read(&ros.join("counters.rs")).unwrap_or_default());
    if !(counters.contains("node_glue::counters!") || counters.contains("pub use crate::")) {
        bad.push(
            "src/ros/counters.rs neither declares the counters (`node_glue::counters!`) nor \
             re-exports the library's"
                .into(),
        );
    }

    // The glue behind the `ros` feature.
    let lib = code(&read(&root.join("src/lib.rs")).unwrap_or_default());
    if !lib.contains("#[cfg(feature = \"ros\")]\npub mod ros;") {
        bad.push("src/lib.rs does not have `#[cfg(feature = \"ros\")] pub mod ros;`".into());
    }
    bad
}

#[test]
fn every_node_has_the_one_shape() {
    let nodes = node_packages();
    // The list is found, not written: make sure it found the nodes at all.
    for known in ["arnie_base", "arnie_foxglove", "arnie_trajectory"] {
        assert!(
            nodes.iter().any(|n| n == known),
            "{known} not found in {nodes:?}"
        );
    }
    let report: Vec<String> = nodes
        .iter()
        .flat_map(|n| problems(n).into_iter().map(move |p| format!("{n}: {p}")))
        .collect();
    assert!(
        report.is_empty(),
        "nodes that differ from the shape of a node (README):\n{}",
        report.join("\n")
    );
}

/// The workspace's path dependencies that break the layout's rule: `(crate, its folder,
/// the dependency's folder)` for every crate under `nodes/` whose dependency is not in
/// `nodes/lib/`.
fn sideways_dependencies() -> Vec<String> {
    let out = std::process::Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata is JSON");
    let nodes = fs::canonicalize(nodes_dir()).expect("nodes/");
    let lib = nodes.join("lib");
    let mut bad = Vec::new();
    for p in meta["packages"].as_array().expect("packages") {
        let manifest = PathBuf::from(p["manifest_path"].as_str().unwrap_or_default());
        let dir = manifest.parent().unwrap_or(Path::new("")).to_path_buf();
        if !dir.starts_with(&nodes) {
            continue; // xtask: the project's own tooling may use any crate
        }
        for d in p["dependencies"].as_array().into_iter().flatten() {
            let Some(path) = d["path"].as_str() else {
                continue; // from a registry
            };
            let path = PathBuf::from(path);
            if !path.starts_with(&lib) {
                bad.push(format!(
                    "{} ({}) depends on {} ({}): not a library of nodes/lib",
                    p["name"].as_str().unwrap_or_default(),
                    dir.strip_prefix(&nodes).unwrap_or(&dir).display(),
                    d["name"].as_str().unwrap_or_default(),
                    path.strip_prefix(&nodes).unwrap_or(&path).display(),
                ));
            }
        }
    }
    bad
}

#[test]
fn packages_depend_on_libraries_only() {
    let bad = sideways_dependencies();
    assert!(
        bad.is_empty(),
        "dependencies across the layout (a node on a node or a tool, a library on a node):\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_check_sees_a_wrong_shape() {
    // The checker itself: a binary that is not the one form, a missing file.
    assert_eq!(
        code("//! doc\n\nfn main() {\n    x::ros::run()\n}\n"),
        "fn main() {\nx::ros::run()\n}"
    );
    assert!(declares_mod("pub(crate) mod counters;", "counters"));
    assert!(declares_mod("mod counters;", "counters"));
    assert!(!declares_mod("mod counters_old;", "counters"));
    assert!(!declares_mod("// mod counters;", "counters"));
    assert!(problems("no_such_package")
        .iter()
        .any(|p| p.contains("src/ros/counters.rs is missing")));
}
