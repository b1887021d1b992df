//! The shape of a node (README, "The shape of a node"), checked on the files: every node
//! package under `nodes/` has the same files with the same roles.
//!
//! A node package is one with a `src/ros/` folder, except the command-line tools listed
//! in [`NOT_NODES`]. For each:
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
//! - `src/lib.rs`: `pub mod ros` behind the `ros` feature.
use std::fs;
use std::path::{Path, PathBuf};

/// Packages with a `src/ros/` that are not nodes: `arnie_bag` is a command-line tool
/// (record, play, info ...), not a node with parameters and counters.
const NOT_NODES: &[&str] = &["arnie_bag"];

fn nodes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../nodes")
}

/// The node packages, by folder name, sorted.
fn node_packages() -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(nodes_dir())
        .expect("nodes/ is readable")
        .map(|e| e.expect("nodes/ entry").path())
        .filter(|p| p.join("src/ros").is_dir())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .filter(|n| !NOT_NODES.contains(&n.as_str()))
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
    if !module.contains("pub fn setup(app: &mut App)") {
        bad.push("src/ros/mod.rs does not define `pub fn setup(app: &mut App)`".into());
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
