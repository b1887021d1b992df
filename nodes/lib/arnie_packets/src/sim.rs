//! The device simulator: the peer at the other end of a pty or CAN-over-UDP link, for
//! tests and the demo. A packet whose definition names a `reply` (e.g. Ping → Pong) is
//! answered with that reply, same-named fields of the same type copied and the others at
//! their defaults; any other packet is echoed back unchanged (device included).
//!
//! [`main`] is the `comms_sim` program (its binary only calls it):
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
//! after printing its counters; a failing link exits 1, bad arguments 2. The shared
//! plumbing (options, opening, announcing, signals) is [`crate::device`].
use crate::counters::Counters;
use crate::definition::Definitions;
use crate::device::{self, ArgsError, DeviceError, LinkArgs, LinkChoice};
use crate::error::Result;
use crate::link::{Link, LinkConfig, LinkEvent};
use crate::packet::Packet;
use std::future::Future;
use std::process::ExitCode;
use std::sync::Arc;

/// `comms_sim`'s usage text.
pub const USAGE: &str = "usage:
  comms_sim --packets DIR pty     [--link-file PATH]
  comms_sim --packets DIR serial  PATH [--baud N]
  comms_sim --packets DIR can_udp [--bind ADDR] [--peer ADDR] [--link-file PATH]";

/// The `comms_sim` program on the process's command line (see the module doc).
pub fn main() -> ExitCode {
    device::main(
        "comms_sim",
        USAGE,
        parse(std::env::args().skip(1)),
        |args| async move { run_cli(args).await.map_err(|e| (1, e)) },
    )
}

/// `comms_sim`'s command line, checked (every option is a shared one).
fn parse(it: impl Iterator<Item = String>) -> std::result::Result<LinkChoice, ArgsError> {
    LinkArgs::parse_all(&["pty", "serial", "can_udp"], it, None)
}

/// Why `comms_sim` stopped with exit code 1.
#[derive(Debug, thiserror::Error)]
enum CliError {
    /// The link could not be opened or told.
    #[error("{0}")]
    Device(#[from] DeviceError),
    /// The packet definitions do not load.
    #[error("{0}")]
    Definitions(crate::Error),
    /// The link failed while running.
    #[error("link failed: {0}")]
    Link(crate::Error),
}

async fn run_cli(args: LinkChoice) -> std::result::Result<(), CliError> {
    // Signals are watched from here on, before anyone learns where the link is.
    let stop = device::stop_signal()?;
    let defs = Definitions::load_dir(&args.packets).map_err(CliError::Definitions)?;
    let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
    println!(
        "comms_sim: {} definitions from {}: {}",
        defs.len(),
        args.packets.display(),
        names.join(", ")
    );
    let opened = device::open(&args.mode, Arc::new(defs), &LinkConfig::default()).await?;
    device::announce("comms_sim", &opened.place, args.link_file.as_deref(), None)?;
    let device::Opened { link, hold, .. } = opened;
    let counters = run(link, stop).await.map_err(CliError::Link)?;
    println!(
        "comms_sim: stopped; {}",
        device::counts(&counters).join(" ")
    );
    drop(hold);
    Ok(())
}

/// The pure answering rule.
#[derive(Clone, Debug)]
pub struct Simulator {
    defs: Arc<Definitions>,
}

impl Simulator {
    /// A simulator answering with packets of `defs`.
    pub fn new(defs: Arc<Definitions>) -> Simulator {
        Simulator { defs }
    }

    /// The answer to one received packet.
    pub fn respond(&self, packet: &Packet) -> Packet {
        let reply_def = packet.definition().reply.and_then(|id| self.defs.get(id));
        let Some(def) = reply_def else {
            return packet.clone();
        };
        let mut reply = Packet::new(def.clone());
        reply.device = packet.device;
        for (name, value) in packet.fields() {
            // Fields absent from the reply, or of another type, keep their defaults.
            let _ = reply.set(name, value);
        }
        reply
    }
}

/// Runs the simulator on `link` until `shutdown` resolves (then returns the link's
/// counters) or the link fails (then returns the error).
pub async fn run(mut link: Link, shutdown: impl Future) -> Result<Counters> {
    let sim = Simulator::new(link.definitions().clone());
    tokio::pin!(shutdown);
    loop {
        let event = tokio::select! {
            _ = &mut shutdown => return Ok(link.counters()),
            event = link.recv() => event?,
        };
        if let LinkEvent::Packet(received) = event {
            link.send(&sim.respond(&received.packet)).await?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::Mode;
    use crate::value::Value;

    #[test]
    fn command_lines() {
        let args = |s: &str| parse(s.split_whitespace().map(String::from));
        let a = args("--packets p pty --link-file /tmp/x").expect("valid");
        assert!(a.mode == Mode::Pty && a.link_file.is_some());
        for bad in ["--packets p", "--packets p pty x", "--help"] {
            assert!(args(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn ping_gets_pong_with_copied_fields_others_echo() {
        let defs = Arc::new(
            Definitions::from_texts([
                ("ping", r#"{"name":"Ping","id":1,"reply":"Pong","data":{"seq":{"type":"uint16"},"x":{"type":"bool"}}}"#),
                ("pong", r#"{"name":"Pong","id":2,"data":{"seq":{"type":"uint16"},"x":{"type":"uint8","default":7}}}"#),
            ])
            .expect("valid"),
        );
        let sim = Simulator::new(defs.clone());
        let mut ping = defs
            .packet_from_json("Ping", 0, 3, r#"{"seq": 41, "x": true}"#)
            .expect("valid");
        let pong = sim.respond(&ping);
        assert_eq!((pong.name(), pong.device), ("Pong", 3));
        assert_eq!(pong.get("seq"), Some(Value::U16(41)));
        assert_eq!(
            pong.get("x"),
            Some(Value::U8(7)),
            "type differs: default kept"
        );
        assert_eq!(sim.respond(&pong), pong, "no reply named: echoed");
        ping.device = 0;
        assert_eq!(sim.respond(&ping).device, 0);
    }
}
