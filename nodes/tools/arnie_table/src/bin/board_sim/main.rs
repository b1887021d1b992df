//! `board_sim`: the simulated Eurobot motor / actuator board at the far end of a comms
//! link (no ROS). It speaks the board's packets (`nodes/lib/arnie_packets/packets`, ids
//! 30-37) and runs [`arnie_table::Board`] on the table of a scenario file. Of the other
//! packets, a link test whose definition names a reply (Ping → Pong) is answered as
//! `comms_sim` does; the rest are counted as `ignored`.
//!
//! `board_sim --help` lists the options (the [`Cli`] struct below).
//!
//! `pty` (the default) opens a pseudo-terminal and plays the board on its master side
//! with the UART framing; the slave path is the bridge's `serial_port`. `can_udp` binds
//! `--bind` (default `127.0.0.1:0`) and answers the last sender, or `--peer`. The link is
//! printed as `board_sim: link <where>` and written to `--link-file` (atomically);
//! `--link-symlink PATH` (pty) also points the symlink PATH at the pty slave, replaced
//! atomically, so a restarted board keeps one serial port path.
//!
//! `--corrupt-rate P` replaces each byte on the wire, in both directions, with
//! probability P by a different random byte (seeded by `--seed`), to test resync.
//!
//! Packets marked `reliable` (`Actuator`, `ActuatorDone`; see `arnie_packets::reliable`):
//! a repeated `Actuator` (same `seq` within its window) is acknowledged again with the
//! first copy's `Ack` and never restarts the action; an `ActuatorDone` is repeated until
//! the host's `Ack` (command 36, same `seq`) arrives, at most its `attempts`. Repeats,
//! duplicates and give-ups are counted (printed at the end; a give-up is also printed
//! and logged as a `gave_up` event).
//!
//! The truth log (JSON lines): a `start` line (scenario, table, start pose), then every
//! `--truth-period-ms` a `pose` line (`t_ms`, true `robot` pose, board `odom` pose,
//! speeds, `opponent`), and an `event` line for each board event (watchdog, stop,
//! collision, actuator start/done, opponent seen, ...). SIGINT / SIGTERM stop it (exit 0,
//! counters printed); a failing link exits 1, bad arguments or files 2.
//!
//! `--lidar` (or `--lidar-link-file` / `--lidar-symlink`): the scenario's LD06 LiDAR
//! streams on a second pty (`board_sim lidar: link <path>`; `lidar_link`). `--colour
//! yellow` plays the scenario mirrored (`Scenario::for_colour`). `--cord-pull-s S`: S s
//! after a `MatchReady` the simulated operator pulls the start cord. `--control PATH`: a
//! FIFO of commands (`cord pull`, `lidar unplug`, ...; `control`).
mod control;
mod lidar_link;

use arnie_packets::device::{self, LinkChoice, Mode};
use arnie_packets::link::{Link, LinkConfig, LinkEvent};
use arnie_packets::reliable::{self, Arrival, Due, Receiver, Repeater};
use arnie_packets::{Definitions, Packet};
use arnie_table::board::{Event, Rng};
use arnie_table::{wire, Board, Options, Scenario};
use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, ValueEnum};
use control::{Command, Control};
use lidar_link::LidarLink;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tokio::time::{sleep_until, Duration, Instant};

/// The simulated Eurobot motor / actuator board at the far end of a comms link (no ROS).
#[derive(Parser, Debug)]
#[command(
    name = "board_sim",
    after_help = "pty: the board on a pseudo-terminal's master side, UART framing; the slave path (the\n\
                  bridge's serial_port) is printed as `board_sim: link <where>`. can_udp: CAN over UDP,\n\
                  answering the last sender or --peer.\n\
                  SIGINT / SIGTERM stop it (exit 0, counters printed); a failing link exits 1, bad\n\
                  arguments or files 2."
)]
struct Cli {
    /// The table scenario (e.g. params/eurobot/table.json)
    #[arg(long, value_name = "FILE")]
    scenario: PathBuf,
    /// The packet definitions folder (nodes/lib/arnie_packets/packets)
    #[arg(long, value_name = "DIR")]
    packets: PathBuf,
    /// The link: a pseudo-terminal (pty) or CAN over UDP (can_udp)
    #[arg(value_enum, default_value_t = LinkMode::Pty)]
    mode: LinkMode,
    /// Write where the link is to this file (atomically)
    #[arg(long, value_name = "PATH")]
    link_file: Option<PathBuf>,
    /// pty: point this symlink at the pty slave (replaced atomically)
    #[arg(long, value_name = "PATH")]
    link_symlink: Option<PathBuf>,
    /// can_udp: the local address (port 0: any free port)
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    bind: SocketAddr,
    /// can_udp: the bridge's address [default: whoever sent last]
    #[arg(long, value_name = "ADDR")]
    peer: Option<SocketAddr>,
    /// Write the true pose, odometry and events here (JSON lines)
    #[arg(long, value_name = "FILE.jsonl")]
    truth_log: Option<PathBuf>,
    /// How often a pose line goes to the truth log [ms]
    #[arg(long, value_name = "N", default_value_t = 50,
          value_parser = clap::value_parser!(u64).range(1..=60_000))]
    truth_period_ms: u64,
    /// pty only: each byte on the wire, both ways, replaced with this probability
    #[arg(long, value_name = "P", default_value_t = 0.0, value_parser = probability)]
    corrupt_rate: f64,
    /// Replaces the scenario's noise seed (and seeds --corrupt-rate)
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Multiplies the scenario's odometry noise (0: exact), 0 ..= 100
    #[arg(long, value_name = "K", default_value_t = 1.0, value_parser = noise_scale)]
    noise_scale: f64,
    /// Replaces the scenario's watchdog [ms], 1 ..= 65535
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=65_535))]
    watchdog_ms: Option<u32>,
    /// The team colour: yellow plays the scenario mirrored (x -> width - x)
    #[arg(long, value_name = "COLOUR", default_value = "blue", value_parser = colour)]
    colour: arnie_math::Colour,
    /// Stream the scenario's LD06 LiDAR on a second pty (`board_sim lidar: link <path>`)
    #[arg(long)]
    lidar: bool,
    /// Write where the LiDAR's pty is to this file (atomically); implies --lidar
    #[arg(long, value_name = "PATH")]
    lidar_link_file: Option<PathBuf>,
    /// Point this symlink at the LiDAR's pty (removed while unplugged); implies --lidar
    #[arg(long, value_name = "PATH")]
    lidar_symlink: Option<PathBuf>,
    /// Pull the start cord this long after the host's MatchReady [s], 0 ..= 600
    #[arg(long, value_name = "S", value_parser = seconds)]
    cord_pull_s: Option<f64>,
    /// A FIFO of commands, one a line: cord pull|insert, lidar on|off|plug|unplug
    #[arg(long, value_name = "PATH")]
    control: Option<PathBuf>,
}

fn colour(v: &str) -> Result<arnie_math::Colour, String> {
    arnie_math::Colour::parse(v).map_err(|e| e.to_string())
}

fn seconds(v: &str) -> Result<f64, String> {
    v.parse()
        .ok()
        .filter(|s: &f64| s.is_finite() && (0.0..=600.0).contains(s))
        .ok_or_else(|| "0 ..= 600 seconds".into())
}

/// The link modes board_sim plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum LinkMode {
    Pty,
    #[value(name = "can_udp")]
    CanUdp,
}

fn probability(v: &str) -> Result<f64, String> {
    v.parse()
        .ok()
        .filter(|p: &f64| (0.0..=1.0).contains(p))
        .ok_or_else(|| "a probability 0 ..= 1".into())
}

fn noise_scale(v: &str) -> Result<f64, String> {
    v.parse()
        .ok()
        .filter(|k: &f64| k.is_finite() && (0.0..=100.0).contains(k))
        .ok_or_else(|| "0 ..= 100".into())
}

#[derive(Debug)]
struct Args {
    scenario: PathBuf,
    /// The packets folder, the link mode and the link file (arnie_packets::device).
    link: LinkChoice,
    link_symlink: Option<PathBuf>,
    truth_log: Option<PathBuf>,
    truth_period_ms: u64,
    corrupt_rate: f64,
    opts: Options,
    colour: arnie_math::Colour,
    lidar_link_file: Option<PathBuf>,
    lidar_symlink: Option<PathBuf>,
    control: Option<PathBuf>,
}

fn main() -> ExitCode {
    // Bad arguments: clap's message and usage on stderr, exit status 2.
    let args = check(Cli::parse())
        .unwrap_or_else(|e| Cli::command().error(ErrorKind::ArgumentConflict, e).exit());
    device::main(
        "board_sim",
        "",
        Ok::<_, std::convert::Infallible>(args),
        run,
    )
}

/// What clap cannot say: --corrupt-rate is for the pty link only.
fn check(c: Cli) -> Result<Args, String> {
    let mode = match c.mode {
        LinkMode::Pty => Mode::Pty,
        LinkMode::CanUdp => Mode::CanUdp {
            bind: c.bind,
            peer: c.peer,
        },
    };
    if mode != Mode::Pty && c.corrupt_rate > 0.0 {
        return Err("--corrupt-rate is for the UART (pty) link only".into());
    }
    let lidar = c.lidar || c.lidar_link_file.is_some() || c.lidar_symlink.is_some();
    Ok(Args {
        scenario: c.scenario,
        link: LinkChoice {
            packets: c.packets,
            mode,
            link_file: c.link_file,
        },
        link_symlink: c.link_symlink,
        truth_log: c.truth_log,
        truth_period_ms: c.truth_period_ms,
        corrupt_rate: c.corrupt_rate,
        opts: Options {
            noise_scale: c.noise_scale,
            seed: c.seed,
            watchdog_ms: c.watchdog_ms,
            lidar,
            cord_pull_after_ready_ms: c.cord_pull_s.map(|s| (s * 1000.0).round() as u64),
        },
        colour: c.colour,
        lidar_link_file: c.lidar_link_file,
        lidar_symlink: c.lidar_symlink,
        control: c.control,
    })
}

/// Corrupts bytes in place with probability `rate` each; returns how many.
fn corrupt(bytes: &mut [u8], rate: f64, rng: &mut Rng) -> u64 {
    let mut n = 0;
    if rate <= 0.0 {
        return 0;
    }
    for b in bytes.iter_mut() {
        if rng.next_f64() < rate {
            *b ^= 1 + (rng.next_u64() % 255) as u8;
            n += 1;
        }
    }
    n
}

/// The board's side of the reliable packets, and its own counts.
struct Stats {
    ignored: u64,
    /// Reliable packets sent again, received again (dropped), given up.
    repeats: u64,
    duplicates: u64,
    gave_up: u64,
    receiver: Receiver,
    repeater: Repeater,
    next_id: u64,
}

type Failure = (u8, String);

/// Writes one packet; a failed write ends the run (exit 1).
async fn send(link: &mut Link, p: &Packet) -> Result<(), Failure> {
    link.send(p)
        .await
        .map(|_| ())
        .map_err(|e| (1, format!("link failed: {e}")))
}

async fn run(args: Args) -> Result<(), Failure> {
    let stop = device::stop_signal().map_err(|e| (1, e.to_string()))?;
    let scenario = Scenario::load(&args.scenario)
        .map_err(|e| (2, e.to_string()))?
        .for_colour(args.colour);
    if args.opts.lidar && scenario.lidar.is_none() {
        return Err((
            2,
            format!(
                "--lidar: scenario {} has no \"lidar\" section",
                args.scenario.display()
            ),
        ));
    }
    let packets = &args.link.packets;
    let defs = Definitions::load_dir(packets).map_err(|e| (2, e.to_string()))?;
    wire::check(&defs).map_err(|e| (2, format!("{}: {e}", packets.display())))?;
    let defs = Arc::new(defs);
    let mut truth = match &args.truth_log {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p)
                .map_err(|e| (2, format!("cannot create {}: {e}", p.display())))?,
        )),
        None => None,
    };
    println!(
        "board_sim: scenario {:?} from {}, {} ({} obstacles, {} tasks, opponent: {})",
        scenario.name,
        args.scenario.display(),
        args.colour,
        scenario.obstacles.len(),
        scenario.tasks.len(),
        if scenario.opponent.is_some() {
            "yes"
        } else {
            "no"
        }
    );
    let opened = device::open(&args.link.mode, defs.clone(), &LinkConfig::default())
        .await
        .map_err(|e| (1, e.to_string()))?;
    let (place, hold) = (opened.place, opened.hold);
    // Line noise on the UART, both ways (arnie_packets::link::Link::with_noise).
    let corrupted = Arc::new(AtomicU64::new(0));
    let mut link = if args.corrupt_rate > 0.0 {
        let (rate, count) = (args.corrupt_rate, corrupted.clone());
        let mut rng = Rng::new(args.opts.seed.unwrap_or(scenario.odometry.seed) ^ 0xc0ff_ee00);
        opened.link.with_noise(Box::new(move |bytes: &mut [u8]| {
            count.fetch_add(corrupt(bytes, rate, &mut rng), Ordering::Relaxed);
        }))
    } else {
        opened.link
    };
    let start_line = serde_json::json!({
        "type": "start",
        "scenario": args.scenario.display().to_string(),
        "name": scenario.name,
        "table": [scenario.table.width_m, scenario.table.height_m],
        "colour": args.colour.name(),
        "robot": {"x": scenario.robot.start.x, "y": scenario.robot.start.y, "theta": scenario.robot.start.theta, "radius": scenario.robot.radius_m},
        "link": place,
        // Wall clock at t_ms = 0 (s since the Unix epoch), to line the log up with others.
        "unix_s": std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64()),
    });
    let mut board = Board::new(scenario, args.opts);
    let mut stats = Stats {
        ignored: 0,
        repeats: 0,
        duplicates: 0,
        gave_up: 0,
        receiver: Receiver::new(),
        repeater: Repeater::new(),
        next_id: 0,
    };
    if let Some(t) = truth.as_mut() {
        writeln!(t, "{start_line}").map_err(|e| (1, format!("truth log: {e}")))?;
    }
    let symlink = match args.link.mode {
        Mode::Pty => args.link_symlink.as_deref(),
        _ => None,
    };
    device::announce("board_sim", &place, args.link.link_file.as_deref(), symlink)
        .map_err(|e| (1, e.to_string()))?;
    let mut lidar = if args.opts.lidar {
        Some(
            LidarLink::open(args.lidar_link_file.clone(), args.lidar_symlink.clone())
                .map_err(|e| (1, e))?,
        )
    } else {
        None
    };
    let mut control = match &args.control {
        Some(p) => {
            Some(Control::open(p).map_err(|e| (2, format!("--control {}: {e}", p.display())))?)
        }
        None => None,
    };
    let mut bad_commands = 0u64;
    let start = Instant::now();
    let mut next_truth_ms = 0u64;
    tokio::pin!(stop);
    loop {
        let now = ms_since(start);
        // What is due now: board packets, repeats, the truth log.
        let outputs = board.advance(now);
        emit(&mut link, &defs, now, &outputs, &mut stats).await?;
        if let Some(l) = lidar.as_mut() {
            l.write(&board.take_lidar_bytes());
        }
        log_events(&mut truth, board.take_events())?;
        for due in stats.repeater.due(now) {
            match due {
                Due::Repeat { packet, .. } => {
                    stats.repeats += 1;
                    send(&mut link, &packet).await?;
                }
                Due::GaveUp {
                    packet, attempts, ..
                } => {
                    stats.gave_up += 1;
                    let detail = format!(
                        "{} {} unacknowledged after {attempts} sends",
                        packet.name(),
                        packet.fields_json()
                    );
                    log_events(
                        &mut truth,
                        vec![Event {
                            time_ms: now,
                            kind: "gave_up",
                            detail,
                        }],
                    )?;
                }
            }
        }
        if now >= next_truth_ms {
            next_truth_ms = now + args.truth_period_ms;
            if let Some(t) = truth.as_mut() {
                let (tr, od, (v, w)) = (board.truth(), board.odometry(), board.speeds());
                let opp = board
                    .opponent()
                    .map(|(x, y, th)| serde_json::json!({"x": r4(x), "y": r4(y), "theta": r4(th)}));
                let line = serde_json::json!({
                    "type": "pose", "t_ms": now,
                    "robot": {"x": r4(tr.x), "y": r4(tr.y), "theta": r4(tr.theta)},
                    "odom": {"x": r4(od.x), "y": r4(od.y), "theta": r4(od.theta)},
                    "v": r4(v), "w": r4(w), "opponent": opp,
                });
                writeln!(t, "{line}")
                    .and_then(|_| t.flush())
                    .map_err(|e| (1, format!("truth log: {e}")))?;
            }
        }
        let wake = board
            .next_deadline_ms()
            .min(next_truth_ms)
            .min(stats.repeater.deadline_ms().unwrap_or(u64::MAX))
            .max(now + 1);
        let deadline = start + Duration::from_millis(wake);
        let got = tokio::select! {
            biased;
            _ = &mut stop => break,
            r = link.recv() => Some(r),
            line = next_command(control.as_mut()) => {
                let now = ms_since(start);
                match line.map(|l| Command::parse(&l)) {
                    Some(Ok(cmd)) => {
                        let outputs = command(&mut board, lidar.as_mut(), cmd, now);
                        emit(&mut link, &defs, now, &outputs, &mut stats).await?;
                        log_events(&mut truth, board.take_events())?;
                    }
                    Some(Err(why)) => {
                        bad_commands += 1;
                        println!("board_sim: {why}");
                    }
                    None => control = None,
                }
                None
            }
            _ = sleep_until(deadline) => None,
        };
        // Rejected bytes are counted by the link (printed at the end).
        let Some(LinkEvent::Packet(received)) = got
            .transpose()
            .map_err(|e| (1, format!("link failed: {e}")))?
        else {
            continue;
        };
        on_packet(
            &mut link,
            &defs,
            &mut board,
            &mut stats,
            received.packet,
            ms_since(start),
        )
        .await?;
    }
    if let Some(t) = truth.as_mut() {
        let _ = t.flush();
    }
    let mut counts = device::counts(&link.counters());
    counts.push(format!("ignored={}", stats.ignored));
    counts.push(format!(
        "corrupted_bytes={}",
        corrupted.load(Ordering::Relaxed)
    ));
    counts.push(format!("repeats={}", stats.repeats));
    counts.push(format!("duplicates={}", stats.duplicates));
    counts.push(format!("gave_up={}", stats.gave_up));
    if let Some(l) = &lidar {
        counts.push(format!("lidar_bytes={}", l.written));
        counts.push(format!("lidar_bytes_dropped={}", l.dropped));
    }
    counts.push(format!("bad_commands={bad_commands}"));
    println!("board_sim: stopped; {}", counts.join(" "));
    drop(hold);
    Ok(())
}

/// The next control line; pending forever without a FIFO, `None` when it ends.
async fn next_command(control: Option<&mut Control>) -> Option<String> {
    match control {
        Some(c) => match c.next_line().await {
            Ok(Some(line)) => Some(line),
            Ok(None) | Err(_) => None,
        },
        None => std::future::pending().await,
    }
}

/// Carries out one control command; returns what the board sends because of it.
fn command(
    board: &mut Board,
    lidar: Option<&mut LidarLink>,
    cmd: Command,
    now: u64,
) -> Vec<arnie_table::Output> {
    println!("board_sim: {:>8.3} s command {cmd:?}", now as f64 / 1000.0);
    match cmd {
        Command::PullCord => board.pull_cord(now),
        Command::InsertCord => board.insert_cord(now),
        Command::LidarPower(on) => {
            if !board.set_lidar_power(on, now) {
                println!("board_sim: no LiDAR (run with --lidar)");
            }
            board.advance(now)
        }
        Command::LidarPlug(plug) => {
            match lidar {
                Some(l) if plug => {
                    if let Err(e) = l.plug() {
                        println!("board_sim: {e}");
                    }
                }
                Some(l) => l.unplug(),
                None => println!("board_sim: no LiDAR (run with --lidar)"),
            }
            board.set_lidar_power(plug, now);
            board.advance(now)
        }
    }
}

/// One packet from the host: an acknowledgement, a repeat, a board command, a link test.
async fn on_packet(
    link: &mut Link,
    defs: &Arc<Definitions>,
    board: &mut Board,
    stats: &mut Stats,
    p: Packet,
    now: u64,
) -> Result<(), Failure> {
    // An acknowledgement of a reliable packet the board repeats (ActuatorDone).
    if !stats.repeater.on_packet(&p).is_empty() {
        return Ok(());
    }
    let key = match stats.receiver.on_packet(&p, now) {
        Arrival::Duplicate { reply, .. } => {
            stats.duplicates += 1;
            if let Some(ack) = reply {
                send(link, &ack).await?;
            }
            return Ok(());
        }
        Arrival::First(key) => Some(key),
        Arrival::Untracked => None,
    };
    match wire::decode(&p) {
        Some(input) => {
            let outputs = board.input(now, input);
            if let Some(key) = key {
                // Remember the acknowledgement, to answer the repeats with it.
                for o in &outputs {
                    if let Ok(ack) = wire::encode(defs, o) {
                        if reliable::acknowledges(&p, &ack) {
                            stats.receiver.set_reply(key, ack);
                        }
                    }
                }
            }
            emit(link, defs, now, &outputs, stats).await
        }
        // Not a board command: a link test whose definition names a reply
        // (Ping → Pong) is answered as comms_sim does; anything else is ignored.
        None if p.definition().reply.is_some() => {
            let reply = arnie_packets::sim::Simulator::new(defs.clone()).respond(&p);
            send(link, &reply).await
        }
        None => {
            stats.ignored += 1;
            Ok(())
        }
    }
}

async fn emit(
    link: &mut Link,
    defs: &Definitions,
    now_ms: u64,
    outputs: &[arnie_table::Output],
    stats: &mut Stats,
) -> Result<(), Failure> {
    for o in outputs {
        let p = wire::encode(defs, o).map_err(|e| (1, e.to_string()))?;
        send(link, &p).await?;
        // Reliable outputs (ActuatorDone) are repeated until acknowledged.
        let id = stats.next_id;
        if stats.repeater.start(id, p, now_ms) {
            stats.next_id += 1;
        }
    }
    Ok(())
}

fn log_events(
    truth: &mut Option<std::io::BufWriter<std::fs::File>>,
    events: Vec<Event>,
) -> Result<(), Failure> {
    for e in events {
        println!(
            "board_sim: {:>8.3} s {} {}",
            e.time_ms as f64 / 1000.0,
            e.kind,
            e.detail
        );
        if let Some(t) = truth.as_mut() {
            let line = serde_json::json!({"type": "event", "t_ms": e.time_ms, "event": e.kind, "detail": e.detail});
            writeln!(t, "{line}").map_err(|err| (1, format!("truth log: {err}")))?;
        }
    }
    Ok(())
}

/// Rounds to 0.1 mm / 0.1 mrad for the log.
fn r4(v: f64) -> f64 {
    (v * 10_000.0).round() / 10_000.0
}

fn ms_since(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Result<Args, String> {
        let words = std::iter::once("board_sim").chain(s.split_whitespace());
        check(Cli::try_parse_from(words).map_err(|e| e.to_string())?)
    }

    #[test]
    fn command_lines() {
        let a = args("--scenario s --packets p --link-file /tmp/x").expect("valid");
        assert!(a.link.mode == Mode::Pty && a.link.link_file.is_some() && a.corrupt_rate == 0.0);
        let a = args("--scenario s --packets p pty --corrupt-rate 0.05 --seed 3").expect("valid");
        assert_eq!((a.corrupt_rate, a.opts.seed), (0.05, Some(3)));
        let a = args("--scenario s --packets p can_udp --bind 127.0.0.1:5000").expect("valid");
        assert!(matches!(a.link.mode, Mode::CanUdp { .. }));
        for bad in [
            "--packets p",
            "--scenario s",
            "--scenario s --packets p --corrupt-rate 2",
            "--scenario s --packets p --corrupt-rate nan",
            "--scenario s --packets p can_udp --corrupt-rate 0.1",
            "--scenario s --packets p --noise-scale -1",
            "--scenario s --packets p --watchdog-ms 0",
            "--scenario s --packets p serial",
        ] {
            assert!(args(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn corruption_rate() {
        let mut rng = Rng::new(1);
        let mut bytes = vec![0u8; 100_000];
        let n = corrupt(&mut bytes, 0.05, &mut rng);
        assert_eq!(
            n as usize,
            bytes.iter().filter(|&&b| b != 0).count(),
            "every hit changes its byte"
        );
        assert!((4_000..6_000).contains(&n), "{n}");
        assert_eq!(corrupt(&mut bytes, 0.0, &mut rng), 0);
    }
}
