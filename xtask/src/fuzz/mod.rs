//! `cargo xtask fuzz [TARGET ...] [--time SECONDS] [--jobs N] [--smoke] [--build-only] [--list]`:
//! coverage-guided fuzzing of every decoder of outside input, on the stable toolchain.
//!
//! The fuzzer is libFuzzer (LLVM's, built by the `libfuzzer-sys` crate from its C++
//! source with the system C++ compiler) driven by `cargo fuzz`. cargo-fuzz passes
//! nightly-only `-Z` flags to rustc (`-Zsanitizer`, `-Cpasses=sancov-module` options);
//! `RUSTC_BOOTSTRAP=1` lets the stable compiler accept them, which is all the nightly
//! requirement amounts to. Targets are built `--release` with debug assertions (so an
//! integer overflow is a crash, as in the tests) and without a sanitizer (the libraries
//! are safe Rust: AddressSanitizer would only slow the search).
//!
//! Layout (all under `fuzz/`, its own Cargo workspace, never built by the main one):
//! - `fuzz_targets/<target>.rs`, one per decoder; `src/lib.rs` their shared helpers;
//! - `corpus/<target>/`: the committed seeds (small, from the project's own examples,
//!   params and test fixtures), read only;
//! - `target/`: git-ignored: the build, the growing working corpus
//!   (`target/corpus/<target>/`), seeds copied at run time from `../shared/reference`
//!   (`target/seeds/<target>/`, with lab addresses rewritten to 127.0.0.1), crash
//!   artifacts (`target/artifacts/<target>/`) and each run's log (`target/logs/`).
//!
//! Each target runs for `--time` seconds (default 600; `--smoke`: 20), `--jobs` of them
//! at once (default 1), each under `nice -n 19` so builds on the machine keep priority;
//! the end is a table of executions, speed, coverage and corpus size.
//! A crash stops that target, keeps its input and prints how to replay it; the command
//! fails if any target crashed.
use crate::env::Layout;
use crate::run::{self, Failure};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// (target, what it fuzzes, reference files copied as extra seeds at run time).
const TARGETS: &[(&str, &str, &[&str])] = &[
    (
        "comms_uart",
        "comms UART deframer + packet decoder, frame and packet round trips",
        &[],
    ),
    (
        "comms_can",
        "comms CAN-over-UDP datagrams + reassembler, split/reassemble round trip",
        &[],
    ),
    (
        "comms_definitions",
        "comms packet definition files",
        &["robotikutt/testPacket.json"],
    ),
    (
        "spine_wire",
        "spine csv and simulink datagrams, decode/encode round trip",
        &[],
    ),
    (
        "spine_config",
        "spine config.json loader (+ loopback map), router on the result",
        &["arnie/spine-config.json"],
    ),
    (
        "instructions",
        "instructions.json loader + validator, load/to_json round trip",
        &[
            "arnie/instructions.json",
            "arnie/brainjs/instructions.json",
            "arnie/brainjs/new_instructions.json",
            "arnie/brainjs/old_instructions.json",
            "arnie/brainjs/testing_instructions.json",
        ],
    ),
    (
        "english",
        "English task compiler, compile/explain and to_json round trips",
        &["arnie/decypher/sample.txt"],
    ),
    ("strategy", "strategy file parser", &[]),
    (
        "planner_maps",
        "planner Moving AI map/scen, PGM, PNG, ASCII loaders, PGM/map round trips, JPS vs A*",
        &[
            "movingai/maze-32-32-2.map",
            "movingai/random-32-32-10.map",
            "movingai/random-32-32-10-even-1.scen",
        ],
    ),
    (
        "bag_mcap",
        "bag reader: MCAP records, indexed and linear readers, writer/reader round trip",
        &[],
    ),
    (
        "bag_metadata",
        "bag metadata.yaml reader, write/read round trips",
        &[],
    ),
    (
        "bag_reindex",
        "bag reindex of a cut-off MCAP file, then the repaired bag reads",
        &[],
    ),
    (
        "planner_png",
        "planner PNG map loader (every colour type and depth), PNG round trip",
        &[],
    ),
    (
        "table_scenario",
        "Eurobot table scenario file, raster, opponent script, board on it",
        &[],
    ),
    (
        "board_link",
        "Eurobot motor-board link: UART frames of every packet to the board and the base",
        &[],
    ),
    (
        "sim_world",
        "arm simulator: scenario file, then target datagrams, the world stepped",
        &[],
    ),
    (
        "trajectory_moves",
        "trajectory server: settings JSON, legacy target text, arm samples, executor",
        &[],
    ),
    (
        "launch_xml",
        "launch-file reader of `cargo xtask launch` (xtask/launch_xml), includes in memory",
        &[],
    ),
    (
        "ld06",
        "LD06 LiDAR stream: decoder, packets, revolutions into scans, the driver, the base's scan points",
        &[],
    ),
];

const USAGE: &str =
    "usage: cargo xtask fuzz [TARGET ...] [--time SECONDS] [--jobs N] [--smoke] [--build-only] [--list]";

struct Options {
    targets: Vec<&'static str>,
    seconds: u64,
    build_only: bool,
    /// Fuzzers run at once (`--jobs`, default 1).
    jobs: usize,
}

fn parse(rest: &[String]) -> Result<Option<Options>, Failure> {
    let mut targets = Vec::new();
    let mut seconds = 600;
    let mut build_only = false;
    let mut jobs = 1;
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--time" | "--secs" => {
                let v = it
                    .next()
                    .ok_or_else(|| Failure::new(format!("--time needs a value\n{USAGE}")))?;
                seconds = v.parse().ok().filter(|s| *s > 0).ok_or_else(|| {
                    Failure::new(format!("--time {v:?}: expected whole seconds > 0"))
                })?;
            }
            "--jobs" | "-j" => {
                let v = it
                    .next()
                    .ok_or_else(|| Failure::new(format!("--jobs needs a value\n{USAGE}")))?;
                jobs =
                    v.parse().ok().filter(|j| *j > 0).ok_or_else(|| {
                        Failure::new(format!("--jobs {v:?}: expected a count > 0"))
                    })?;
            }
            "--smoke" => seconds = 20,
            "--build-only" => build_only = true,
            "--list" => {
                for (name, what, _) in TARGETS {
                    println!("{name:<18} {what}");
                }
                return Ok(None);
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(None);
            }
            name => {
                let t = TARGETS.iter().find(|t| t.0 == name).ok_or_else(|| {
                    let names: Vec<&str> = TARGETS.iter().map(|t| t.0).collect();
                    Failure::new(format!(
                        "unknown fuzz target `{name}` (targets: {})\n{USAGE}",
                        names.join(", ")
                    ))
                })?;
                targets.push(t.0);
            }
        }
    }
    if targets.is_empty() {
        targets = TARGETS.iter().map(|t| t.0).collect();
    }
    Ok(Some(Options {
        targets,
        seconds,
        build_only,
        jobs,
    }))
}

pub fn cmd(layout: &Layout, rest: &[String]) -> Result<(), Failure> {
    let Some(opts) = parse(rest)? else {
        return Ok(());
    };
    let fuzz = layout.root.join("fuzz");
    let target = fuzz.join("target");
    ensure_cargo_fuzz()?;
    let triple = host_triple()?;

    eprintln!(
        "xtask: fuzz: building {} target(s) (release, debug assertions, no sanitizer)",
        opts.targets.len()
    );
    let mut build = cargo_fuzz(layout);
    build.args(["build", "-O", "-a", "-s", "none"]);
    if opts.targets.len() == 1 {
        build.arg(opts.targets[0]);
    }
    run::status(build, "cargo fuzz build")?;
    if opts.build_only {
        return Ok(());
    }

    let reference = layout.root.parent().map(|p| p.join("shared/reference"));
    let mut pending: Vec<&'static str> = opts.targets.iter().rev().copied().collect();
    let mut running: Vec<Run> = Vec::new();
    let mut rows = Vec::new();
    let mut crashed = Vec::new();
    while !pending.is_empty() || !running.is_empty() {
        while running.len() < opts.jobs {
            let Some(name) = pending.pop() else { break };
            running.push(start(
                layout,
                &fuzz,
                &target,
                &triple,
                reference.as_deref(),
                name,
                opts.seconds,
            )?);
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
        let mut i = 0;
        while i < running.len() {
            let Some(status) = running[i].child.try_wait()? else {
                i += 1;
                continue;
            };
            let r = running.remove(i);
            let secs = r.started.elapsed().as_secs_f64();
            let _ = fs::remove_dir_all(&r.scratch);
            let text = fs::read_to_string(&r.log).unwrap_or_default();
            let stats = Stats::parse(&text);
            let name = r.name;
            let result = if status.success() {
                "ok".to_string()
            } else {
                let crash = newest_file(&r.artifacts);
                let excerpt: Vec<&str> = text
                    .lines()
                    .filter(|l| {
                        l.contains("panicked") || l.contains("ERROR") || l.starts_with("SUMMARY")
                    })
                    .take(4)
                    .collect();
                eprintln!(
                    "xtask: fuzz `{name}` FAILED ({status}); log {}",
                    r.log.display()
                );
                for l in &excerpt {
                    eprintln!("    {l}");
                }
                if let Some(c) = &crash {
                    eprintln!(
                        "    input kept in {}\n    replay: {} {}",
                        c.display(),
                        r.exe.display(),
                        c.display()
                    );
                }
                crashed.push(name);
                format!(
                    "CRASH ({})",
                    crash
                        .map(|c| c.display().to_string())
                        .unwrap_or_else(|| status.to_string())
                )
            };
            eprintln!(
                "xtask: fuzz `{name}`: {} execs in {secs:.0} s ({} /s), cov {} ft {} corpus {}: {result}",
                stats.execs, stats.per_sec, stats.cov, stats.ft, stats.corpus
            );
            rows.push((name, secs, stats, result));
        }
    }
    rows.sort_by_key(|r| opts.targets.iter().position(|t| *t == r.0));

    println!(
        "\n| target | time (s) | execs | execs/s | cov (edges) | features | corpus | result |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---|");
    for (name, secs, s, result) in &rows {
        println!(
            "| {name} | {secs:.0} | {} | {} | {} | {} | {} | {result} |",
            s.execs, s.per_sec, s.cov, s.ft, s.corpus
        );
    }
    if crashed.is_empty() {
        Ok(())
    } else {
        Err(Failure::new(format!(
            "fuzz targets crashed: {} (inputs in fuzz/target/artifacts/)",
            crashed.join(", ")
        )))
    }
}

/// One fuzzer under way.
struct Run {
    name: &'static str,
    child: std::process::Child,
    started: Instant,
    exe: PathBuf,
    log: PathBuf,
    artifacts: PathBuf,
    scratch: PathBuf,
}

/// Starts the fuzzer of `name` for `seconds`, at the lowest CPU priority (`nice -n 19`,
/// when `nice` is there: builds keep the machine), its corpora being the working one,
/// the committed seeds and the reference seeds.
fn start(
    layout: &Layout,
    fuzz: &Path,
    target: &Path,
    triple: &str,
    reference: Option<&Path>,
    name: &'static str,
    seconds: u64,
) -> Result<Run, Failure> {
    let (_, what, refs) = TARGETS
        .iter()
        .find(|t| t.0 == name)
        .expect("checked in parse");
    eprintln!("xtask: fuzz `{name}` for {seconds} s: {what}");
    let work = target.join("corpus").join(name);
    let artifacts = target.join("artifacts").join(name);
    let logs = target.join("logs");
    // The bag targets' scratch files: one folder per target (several may run at once).
    let scratch = scratch(target)?.join(name);
    for d in [&work, &artifacts, &logs, &scratch] {
        fs::create_dir_all(d)?;
    }
    let mut corpora = vec![work, fuzz.join("corpus").join(name)];
    if let Some(seeds) = reference.and_then(|r| reference_seeds(r, target, name, refs)) {
        corpora.push(seeds);
    }
    let log = logs.join(format!("{name}.log"));
    let exe = target.join(triple).join("release").join(name);
    let nice = Command::new("nice")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let mut c = if nice {
        let mut c = Command::new("nice");
        c.args(["-n", "19"]).arg(&exe);
        c
    } else {
        Command::new(&exe)
    };
    c.current_dir(&layout.root)
        .args(&corpora)
        .arg(format!("-max_total_time={seconds}"))
        .arg("-timeout=10")
        .arg("-rss_limit_mb=2048")
        .arg("-print_final_stats=1")
        .arg(format!("-artifact_prefix={}/", artifacts.display()))
        .env("ARNIE_FUZZ_TMP", &scratch)
        .stdout(Stdio::null())
        .stderr(fs::File::create(&log)?);
    let child = c
        .spawn()
        .map_err(|e| Failure::new(format!("{}: cannot start: {e}", exe.display())))?;
    Ok(Run {
        name,
        child,
        started: Instant::now(),
        exe,
        log,
        artifacts,
        scratch,
    })
}

/// What libFuzzer's log says at the end (its last status line and final stats).
#[derive(Default)]
struct Stats {
    execs: String,
    per_sec: String,
    cov: String,
    ft: String,
    corpus: String,
}

impl Stats {
    fn parse(log: &str) -> Stats {
        let mut s = Stats::default();
        let word_after = |line: &str, key: &str| -> Option<String> {
            let mut words = line.split_whitespace();
            words.find(|w| *w == key)?;
            words.next().map(str::to_string)
        };
        for line in log.lines() {
            if let Some(after_hash) = line.strip_prefix('#') {
                // `#123456  DONE   cov: 812 ft: 2301 corp: 150/9871b ...`
                if let Some(v) = word_after(line, "cov:") {
                    s.cov = v;
                }
                if let Some(v) = word_after(line, "ft:") {
                    s.ft = v;
                }
                if let Some(v) = word_after(line, "corp:") {
                    s.corpus = v.split('/').next().unwrap_or("").to_string();
                }
                let n = after_hash.split_whitespace().next().unwrap_or("");
                if n.chars().all(|c| c.is_ascii_digit()) {
                    s.execs = n.to_string();
                }
            } else if let Some(v) = line.strip_prefix("stat::number_of_executed_units:") {
                s.execs = v.trim().to_string();
            } else if let Some(v) = line.strip_prefix("stat::average_exec_per_sec:") {
                s.per_sec = v.trim().to_string();
            }
        }
        s
    }
}

/// `cargo fuzz` with `RUSTC_BOOTSTRAP=1`, from the repo root (it finds `fuzz/`).
fn cargo_fuzz(layout: &Layout) -> Command {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut c = Command::new(cargo);
    c.current_dir(&layout.root)
        .arg("fuzz")
        .env("RUSTC_BOOTSTRAP", "1")
        .env_remove("CARGO_TARGET_DIR");
    c
}

/// Installs cargo-fuzz from crates.io when `cargo fuzz` is missing.
fn ensure_cargo_fuzz() -> Result<(), Failure> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let present = Command::new(&cargo)
        .args(["fuzz", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if present {
        return Ok(());
    }
    eprintln!("xtask: fuzz: cargo-fuzz is missing; installing it (`cargo install cargo-fuzz --locked`, ~2 min)");
    let mut c = Command::new(&cargo);
    c.args(["install", "cargo-fuzz", "--locked"]);
    run::status(c, "cargo install cargo-fuzz").map_err(|f| {
        Failure::new(format!(
            "{}\ncargo-fuzz is needed: install it with `cargo install cargo-fuzz` (crates.io), then retry",
            f.message
        ))
    })
}

fn host_triple() -> Result<String, Failure> {
    let out = Command::new("rustc")
        .arg("-vV")
        .output()
        .map_err(|e| Failure::new(format!("rustc -vV: {e}")))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .ok_or_else(|| Failure::new("rustc -vV printed no host triple"))
}

/// Copies the reference files of a target into `fuzz/target/seeds/<target>/` (text
/// files with lab addresses rewritten to loopback). `None` when there are none here.
fn reference_seeds(reference: &Path, target: &Path, name: &str, files: &[&str]) -> Option<PathBuf> {
    let present: Vec<PathBuf> = files
        .iter()
        .map(|f| reference.join(f))
        .filter(|p| p.is_file())
        .collect();
    if present.is_empty() {
        if !files.is_empty() {
            eprintln!(
                "xtask: fuzz: no reference seeds for `{name}` ({} absent)",
                reference.display()
            );
        }
        return None;
    }
    let dir = target.join("seeds").join(name);
    fs::create_dir_all(&dir).ok()?;
    for p in present {
        let Ok(bytes) = fs::read(&p) else { continue };
        let bytes = match String::from_utf8(bytes) {
            Ok(text) => loopback(&text).into_bytes(),
            Err(e) => e.into_bytes(),
        };
        let file = p
            .strip_prefix(reference)
            .unwrap_or(&p)
            .to_string_lossy()
            .replace('/', "__");
        fs::write(dir.join(file), bytes).ok()?;
    }
    Some(dir)
}

/// `192.168.a.b` → `127.0.0.1` (the reference configs name lab machines).
fn loopback(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("192.168.") {
        out.push_str(&rest[..at]);
        let tail = &rest[at + 8..];
        let end = tail
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(tail.len());
        out.push_str("127.0.0.1");
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// The scratch folder the file-reading targets (bags) write their input to.
fn scratch(target: &Path) -> Result<PathBuf, Failure> {
    let shm = Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        shm.join("arnie_fuzz")
    } else {
        target.join("tmp")
    };
    fs::create_dir_all(&dir)?;
    Ok(dir)
}

fn newest_file(dir: &Path) -> Option<PathBuf> {
    fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max()
        .map(|(_, p)| p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lab_addresses_become_loopback() {
        assert_eq!(
            loopback(r#"{"host": "192.168.1.20", "x": "192.168.0.7:80"}"#),
            r#"{"host": "127.0.0.1", "x": "127.0.0.1:80"}"#
        );
        assert_eq!(loopback("none here"), "none here");
    }

    #[test]
    fn stats_from_a_libfuzzer_log() {
        let log = "#2\tINITED cov: 10 ft: 11 corp: 1/1b exec/s: 0 rss: 30Mb\n\
                   #4096\tpulse  cov: 55 ft: 70 corp: 9/200b lim: 43 exec/s: 2048 rss: 31Mb\n\
                   Done 5000 runs in 2 second(s)\n\
                   stat::number_of_executed_units: 5000\n\
                   stat::average_exec_per_sec:     2500\n";
        let s = Stats::parse(log);
        assert_eq!((s.execs.as_str(), s.per_sec.as_str()), ("5000", "2500"));
        assert_eq!(
            (s.cov.as_str(), s.ft.as_str(), s.corpus.as_str()),
            ("55", "70", "9")
        );
    }

    #[test]
    fn arguments() {
        let o = parse(&["spine_wire".into(), "--time".into(), "30".into()])
            .unwrap()
            .unwrap();
        assert_eq!((o.targets, o.seconds), (vec!["spine_wire"], 30));
        let o = parse(&["--smoke".into()]).unwrap().unwrap();
        assert_eq!((o.targets.len(), o.seconds), (TARGETS.len(), 20));
        assert!(parse(&["nope".into()]).is_err());
        assert!(parse(&["--time".into(), "0".into()]).is_err());
        let o = parse(&["--jobs".into(), "2".into()]).unwrap().unwrap();
        assert_eq!(o.jobs, 2);
        assert!(parse(&["--jobs".into(), "0".into()]).is_err());
    }
}
