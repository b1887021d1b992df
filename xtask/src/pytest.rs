//! The Python half of `test`: the real-graph tests (`test/`, rclpy as the independent
//! client), run by pytest on several worker processes (pytest-xdist) when it is there.
//!
//! The graph tests spend most of their time waiting, not computing: on discovery, on arm
//! paths and matches that run in real time, on timeouts a test proves. One process left
//! both cores ~90 % idle. Every test already has a graph of its own (a ROS domain held
//! by a lock file, free loopback ports, its own temporary folder), so tests run side by
//! side without sharing anything; tests that must share a costly fixture name an
//! `xdist_group` and stay on one worker (`--dist loadgroup`).
//!
//! `ARNIE_TEST_JOBS=N` sets the number of workers (`1`: one process, as pytest alone);
//! without pytest-xdist (a sourced ROS install whose Python lacks it) the tests run in
//! one process and say so. `-n` in the command's own arguments wins over both.
use crate::env::{Layout, Ros};
use crate::run::{self, Failure};

/// Workers when `ARNIE_TEST_JOBS` does not say: measured on the 2-core CI machine, where
/// the suite took 1866 s in one process (see docs/TESTS.md).
const DEFAULT_JOBS: usize = 4;

/// pytest's options common to every run: quiet, skips reported with their reason, no
/// cache folder in the tree.
const BASE: [&str; 6] = ["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider"];

/// The worker count asked for by `ARNIE_TEST_JOBS`, else [`DEFAULT_JOBS`].
///
/// # Errors
/// `ARNIE_TEST_JOBS` is set and is not a whole number of at least 1.
fn jobs_wanted() -> Result<usize, Failure> {
    match std::env::var("ARNIE_TEST_JOBS") {
        Err(_) => Ok(DEFAULT_JOBS),
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) if n >= 1 => Ok(n),
            _ => Err(Failure::new(format!(
                "ARNIE_TEST_JOBS={v:?}: give the number of pytest workers, 1 or more"
            ))),
        },
    }
}

/// Whether the test Python has pytest-xdist.
fn has_xdist(layout: &Layout, ros: &Ros) -> bool {
    let mut c = run::command(layout, ros, &ros.python.to_string_lossy());
    c.args(["-c", "import xdist"]);
    c.stdout(std::process::Stdio::null());
    c.stderr(std::process::Stdio::null());
    c.status().map(|s| s.success()).unwrap_or(false)
}

/// The worker options for this run: `-n N --dist loadgroup`, or none (one process).
fn worker_args(layout: &Layout, ros: &Ros, user: &[String]) -> Result<Vec<String>, Failure> {
    let jobs = jobs_wanted()?;
    let user_chose = user
        .iter()
        .any(|a| a.starts_with("-n") || a.starts_with("--numprocesses"));
    if jobs == 1 || user_chose {
        return Ok(Vec::new());
    }
    if !has_xdist(layout, ros) {
        eprintln!(
            "xtask: test: pytest-xdist is not installed for {}: the graph tests run in one \
             process (slower; `pip install pytest-xdist` runs them on {jobs} workers)",
            ros.python.display()
        );
        return Ok(Vec::new());
    }
    eprintln!("xtask: test: graph tests on {jobs} pytest workers (ARNIE_TEST_JOBS sets it)");
    Ok(vec![
        "-n".into(),
        jobs.to_string(),
        "--dist".into(),
        "loadgroup".into(),
    ])
}

/// Runs pytest over `paths` with the user's `rest` arguments, on workers where it can.
///
/// # Errors
/// A test fails, pytest cannot start, or `ARNIE_TEST_JOBS` is not a number.
pub fn run(layout: &Layout, ros: &Ros, paths: &[&str], rest: &[String]) -> Result<(), Failure> {
    run_with(layout, ros, paths, rest, true)
}

/// Runs pytest in one process (tests that need a process of their own).
///
/// # Errors
/// A test fails or pytest cannot start.
pub fn run_alone(
    layout: &Layout,
    ros: &Ros,
    paths: &[&str],
    rest: &[String],
) -> Result<(), Failure> {
    run_with(layout, ros, paths, rest, false)
}

fn run_with(
    layout: &Layout,
    ros: &Ros,
    paths: &[&str],
    rest: &[String],
    parallel: bool,
) -> Result<(), Failure> {
    let workers = if parallel {
        worker_args(layout, ros, rest)?
    } else {
        Vec::new()
    };
    let mut args: Vec<&str> = BASE.to_vec();
    args.extend(workers.iter().map(String::as_str));
    args.extend(paths);
    args.extend(rest.iter().map(String::as_str));
    run::python(layout, ros, &args)
}
