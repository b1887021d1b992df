//! `comms_sim`: the simulated device at the other end of a comms link, for tests and
//! the demo. A plain command-line program (no ROS): it answers a packet whose definition
//! names a `reply` with that reply (Ping → Pong, same-named fields copied) and echoes
//! every other packet unchanged ([`arnie_comms::sim`]).
//!
//! ```text
//! comms_sim --packets DIR pty     [--link-file PATH]
//! comms_sim --packets DIR serial  PATH [--baud N]
//! comms_sim --packets DIR can_udp [--bind ADDR] [--peer ADDR] [--link-file PATH]
//! ```
//! - `pty`: opens a pseudo-terminal and plays the device on its master side; the slave
//!   path (e.g. `/dev/pts/7`) is what the bridge opens as its `serial_port`.
//! - `serial`: plays the device on a real serial port (or any tty path).
//! - `can_udp`: CAN over UDP; binds `--bind` (default `127.0.0.1:0`) and answers the
//!   last sender, or always `--peer` when given. The bridge's `udp_peer` is the bound
//!   address.
//!
//! The link (the pty slave path, or the bound UDP address) is printed on stdout as
//! `comms_sim: link <where>` and, with `--link-file`, written to that file (atomically:
//! a reader sees the whole line or no file). SIGINT / SIGTERM stop it with exit code 0
//! after printing its counters; a failing link exits 1, bad arguments 2.
use arnie_comms::link::{Link, LinkConfig};
use arnie_comms::transport::{open_pty, SerialPort};
use arnie_comms::{sim, Definitions, Transport};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

const USAGE: &str = "usage:
  comms_sim --packets DIR pty     [--link-file PATH]
  comms_sim --packets DIR serial  PATH [--baud N]
  comms_sim --packets DIR can_udp [--bind ADDR] [--peer ADDR] [--link-file PATH]";

/// The command line, checked.
#[derive(Debug)]
struct Args {
    packets: PathBuf,
    mode: Mode,
    link_file: Option<PathBuf>,
}

#[derive(Debug)]
enum Mode {
    Pty,
    Serial {
        path: String,
        baud: u32,
    },
    CanUdp {
        bind: SocketAddr,
        peer: Option<SocketAddr>,
    },
}

fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("comms_sim: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("comms_sim: cannot start a runtime: {e}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("comms_sim: {e}");
            ExitCode::from(1)
        }
    }
}

fn parse(mut it: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut packets = None;
    let mut mode = None;
    let mut serial_path = None;
    let mut link_file = None;
    let mut baud = 115_200u32;
    let mut bind: SocketAddr = SocketAddr::from(([127, 0, 0, 1], 0));
    let mut peer = None;
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "-h" | "--help" => return Err("help".into()),
            "--packets" => packets = Some(PathBuf::from(value("--packets")?)),
            "--link-file" => link_file = Some(PathBuf::from(value("--link-file")?)),
            "--baud" => {
                let v = value("--baud")?;
                baud = v
                    .parse()
                    .map_err(|_| format!("--baud {v:?} is not a number"))?;
            }
            "--bind" => {
                let v = value("--bind")?;
                bind = v
                    .parse()
                    .map_err(|_| format!("--bind {v:?} is not an address like 127.0.0.1:0"))?;
            }
            "--peer" => {
                let v = value("--peer")?;
                peer =
                    Some(v.parse().map_err(|_| {
                        format!("--peer {v:?} is not an address like 127.0.0.1:5000")
                    })?);
            }
            "pty" | "serial" | "can_udp" if mode.is_none() => mode = Some(arg),
            other
                if mode.as_deref() == Some("serial")
                    && serial_path.is_none()
                    && !other.starts_with('-') =>
            {
                serial_path = Some(other.to_string())
            }
            other => return Err(format!("unexpected argument {other:?}")),
        }
    }
    let packets = packets.ok_or("--packets DIR is required")?;
    let mode = match mode.as_deref() {
        Some("pty") => Mode::Pty,
        Some("serial") => Mode::Serial {
            path: serial_path.ok_or("serial needs the device path")?,
            baud,
        },
        Some("can_udp") => Mode::CanUdp { bind, peer },
        _ => return Err("a mode is required: pty, serial or can_udp".into()),
    };
    Ok(Args {
        packets,
        mode,
        link_file,
    })
}

async fn run(args: Args) -> Result<(), String> {
    // Signals are watched from here on, before anyone learns where the link is.
    let stop = stop_signal()?;
    let defs = Definitions::load_dir(&args.packets).map_err(|e| e.to_string())?;
    let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
    println!(
        "comms_sim: {} definitions from {}: {}",
        defs.len(),
        args.packets.display(),
        names.join(", ")
    );
    let defs = Arc::new(defs);
    let cfg = LinkConfig::default();
    // Held for the whole run: while one slave fd is open the master never reads EIO, so
    // the bridge may open, close and reopen the slave path.
    let mut _slave_hold = None;
    let (link, place) = match args.mode {
        Mode::Pty => {
            let (master, slave, path) =
                open_pty().map_err(|e| format!("cannot open a pty: {e}"))?;
            // Opening the slave as a serial port puts the pty in raw mode (no echo, no
            // line editing) before the bridge opens it.
            _slave_hold = Some(SerialPort::open(&path, 115_200).map_err(|e| e.to_string())?);
            drop(slave);
            let master = SerialPort::from_fd(master, "pty master").map_err(|e| e.to_string())?;
            (Link::uart(master, defs, &cfg), path)
        }
        Mode::Serial { path, baud } => {
            let link = Transport::Uart {
                path: path.clone(),
                baud,
            }
            .open(defs, &cfg)
            .await
            .map_err(|e| e.to_string())?;
            (link, path)
        }
        Mode::CanUdp { bind, peer } => {
            let bus = arnie_comms::transport::UdpCan::bind(bind, peer)
                .await
                .map_err(|e| e.to_string())?;
            let addr = bus.local_addr().map_err(|e| e.to_string())?;
            (
                Link::can(arnie_comms::transport::CanBus::Udp(bus), defs, &cfg),
                addr.to_string(),
            )
        }
    };
    if let Some(file) = &args.link_file {
        write_atomically(file, &format!("{place}\n"))
            .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    }
    println!("comms_sim: link {place}");
    let counters = sim::run(link, stop)
        .await
        .map_err(|e| format!("link failed: {e}"))?;
    let counts: Vec<String> = counters
        .key_values()
        .into_iter()
        .filter(|(_, v)| v != "0")
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    println!("comms_sim: stopped; {}", counts.join(" "));
    Ok(())
}

/// Resolves on SIGINT or SIGTERM; the handlers are installed by this call.
fn stop_signal() -> Result<impl std::future::Future<Output = ()>, String> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut int =
        signal(SignalKind::interrupt()).map_err(|e| format!("cannot watch SIGINT: {e}"))?;
    let mut term =
        signal(SignalKind::terminate()).map_err(|e| format!("cannot watch SIGTERM: {e}"))?;
    Ok(async move {
        tokio::select! { _ = int.recv() => {}, _ = term.recv() => {} }
    })
}

/// Writes `text` to a sibling temporary file and renames it over `file`.
fn write_atomically(file: &Path, text: &str) -> std::io::Result<()> {
    let mut tmp = file.as_os_str().to_owned();
    tmp.push(".tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Result<Args, String> {
        parse(s.split_whitespace().map(String::from))
    }

    #[test]
    fn command_lines() {
        let a = args("--packets p pty --link-file /tmp/x").expect("valid");
        assert!(matches!(a.mode, Mode::Pty) && a.link_file.is_some());
        let a = args("serial /dev/ttyUSB0 --baud 9600 --packets p").expect("valid");
        assert!(matches!(a.mode, Mode::Serial { ref path, baud: 9600 } if path == "/dev/ttyUSB0"));
        let a = args("--packets p can_udp --bind 127.0.0.1:5000").expect("valid");
        assert!(matches!(a.mode, Mode::CanUdp { peer: None, .. }));
        for bad in [
            "pty",
            "--packets p",
            "--packets p serial",
            "--packets p can_udp --bind nowhere",
            "--packets p pty x",
        ] {
            assert!(args(bad).is_err(), "{bad}");
        }
    }
}
