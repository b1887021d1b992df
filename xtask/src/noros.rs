//! The libraries' tests without ROS: `cargo test --no-default-features` of every crate
//! that has a `ros` feature, so the pure library (what the fuzz targets, benches and
//! other tools build) is proven to compile and pass on its own, not only through the
//! ROS build.
//!
//! Built in its own target folder, `target/noros`: a different feature set in
//! `target/debug` would rebuild the shared dependencies with other features and
//! invalidate the ROS build (r2r takes ~10 min cold). The first run compiles the
//! libraries' dependencies once (no r2r); later runs only what changed.
use crate::env::{Layout, Ros};
use crate::run::{self, Failure};

/// The workspace packages that declare a `ros` feature, by name (from `cargo metadata`).
pub fn crates_with_ros_feature(layout: &Layout) -> Result<Vec<String>, Failure> {
    let meta = run::cargo_metadata(layout)?;
    let mut names: Vec<String> = meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["features"].get("ros").is_some())
        .filter_map(|p| p["name"].as_str().map(str::to_string))
        .collect();
    names.sort();
    Ok(names)
}

/// Runs the tests of every crate with a `ros` feature without it, in `target/noros`.
pub fn test(layout: &Layout, ros: &Ros) -> Result<(), Failure> {
    let crates = crates_with_ros_feature(layout)?;
    if crates.is_empty() {
        return Ok(());
    }
    let started = std::time::Instant::now();
    let dir = layout.target.join("noros");
    let dir = dir.to_string_lossy();
    let mut args = vec!["test", "--no-default-features", "--target-dir", &dir];
    for c in &crates {
        args.extend(["-p", c.as_str()]);
    }
    eprintln!(
        "xtask: test: the libraries without ROS ({}), in {dir}",
        crates.join(", ")
    );
    run::cargo(layout, ros, &args)?;
    eprintln!(
        "xtask: test: libraries without ROS passed in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
