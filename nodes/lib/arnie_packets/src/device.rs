//! The device end of a link, shared by the simulated devices (`comms_sim` here, and
//! `board_sim` in arnie_table): one place for what every such program does around its
//! own logic.
//!
//! - [`LinkArgs`]: the command-line part they share: the link mode (`pty`, `serial PATH`,
//!   `can_udp`), `--packets DIR`, `--link-file PATH`, `--baud N`, `--bind ADDR`,
//!   `--peer ADDR`;
//! - [`open`]: the link on that mode ([`Opened`]): a pseudo-terminal's master side (the
//!   slave path is what the bridge opens), a serial port, or CAN over UDP;
//! - [`announce`]: where the link is: `NAME: link <where>` on stdout, the link file
//!   (written atomically: a reader sees the whole line or no file), a symlink to the pty
//!   slave (replaced atomically);
//! - [`stop_signal`] (SIGINT / SIGTERM) and [`main`] (the runtime and the exit codes:
//!   0 stopped, 1 the link failed, 2 bad arguments or files).
//!
//! Nothing here knows what the device answers: that is the caller's loop.
use crate::definition::Definitions;
use crate::link::{Link, LinkConfig};
use crate::transport::{open_pty, CanBus, SerialPort, UdpCan};
use crate::Counters;
use std::fmt::Display;
use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// Where a device plays its end of the link.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A new pseudo-terminal: the device on the master side, the bridge opens the slave.
    Pty,
    /// A real serial port (or any tty path) at `baud`.
    Serial {
        /// The device path, e.g. `/dev/ttyUSB0`.
        path: String,
        /// Line speed [baud].
        baud: u32,
    },
    /// CAN over UDP: bind `bind`; answer `peer`, or (when `None`) the last sender.
    CanUdp {
        /// Local address (port 0 = any free port).
        bind: SocketAddr,
        /// The bridge's address, or `None` for whoever sent last.
        peer: Option<SocketAddr>,
    },
}

/// A device program's command line refused (its `Display` names the option).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    /// An option without its value.
    #[error("{0} needs a value")]
    NoValue(String),
    /// `-h` / `--help`: the caller prints the usage.
    #[error("help")]
    Help,
    /// An argument that is none of the options.
    #[error("unexpected argument {0:?}")]
    Unexpected(String),
    /// `--baud` that is not a number.
    #[error("--baud {0:?} is not a number")]
    Baud(String),
    /// `--bind` / `--peer` that is not a socket address.
    #[error("{option} {value:?} is not an address like 127.0.0.1:5000")]
    Address {
        /// The option.
        option: String,
        /// Its value.
        value: String,
    },
    /// No `--packets`.
    #[error("--packets DIR is required")]
    NoPackets,
    /// `serial` without the device path.
    #[error("serial needs the device path")]
    NoSerialPath,
    /// No mode given and no default.
    #[error("a mode is required: one of {}", .0.join(", "))]
    NoMode(&'static [&'static str]),
}

/// The device's end of the link that would not open, or its place that could not be
/// told ([`open`], [`announce`], [`stop_signal`]).
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// No pseudo-terminal.
    #[error("cannot open a pty: {0}")]
    Pty(std::io::Error),
    /// The port or socket refused.
    #[error("{0}")]
    Link(#[from] crate::Error),
    /// The link file could not be written.
    #[error("cannot write {}: {source}", .file.display())]
    LinkFile {
        /// The file.
        file: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The symlink could not be pointed at the link.
    #[error("cannot point {} at {place}: {source}", .link.display())]
    Symlink {
        /// The symlink.
        link: PathBuf,
        /// The link's place.
        place: String,
        /// Why.
        source: std::io::Error,
    },
    /// A signal handler could not be installed.
    #[error("cannot watch {signal}: {source}")]
    Signal {
        /// `SIGINT` or `SIGTERM`.
        signal: &'static str,
        /// Why.
        source: std::io::Error,
    },
}

/// The shared command-line options, collected by [`LinkArgs::take`] one argument at a
/// time (the program handles its own options around them) and checked by
/// [`LinkArgs::finish`].
#[derive(Debug)]
pub struct LinkArgs {
    modes: &'static [&'static str],
    mode: Option<String>,
    serial_path: Option<String>,
    packets: Option<PathBuf>,
    link_file: Option<PathBuf>,
    baud: u32,
    bind: SocketAddr,
    peer: Option<SocketAddr>,
}

/// [`LinkArgs`] checked: the definitions folder, the mode and the link file.
#[derive(Debug)]
pub struct LinkChoice {
    /// The packet definitions folder (`--packets`).
    pub packets: PathBuf,
    /// The link mode.
    pub mode: Mode,
    /// Where to write the link's place (`--link-file`), if anywhere.
    pub link_file: Option<PathBuf>,
}

impl LinkArgs {
    /// Options for a program that accepts the link modes `modes` (a subset of `pty`,
    /// `serial`, `can_udp`).
    pub fn new(modes: &'static [&'static str]) -> LinkArgs {
        LinkArgs {
            modes,
            mode: None,
            serial_path: None,
            packets: None,
            link_file: None,
            baud: 115_200,
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            peer: None,
        }
    }

    /// Takes `arg` (and its value from `value`, when it has one) if it is one of the
    /// shared options: `Ok(true)` taken, `Ok(false)` not ours.
    ///
    /// # Errors
    /// A missing or malformed value, naming the option.
    pub fn take(
        &mut self,
        arg: &str,
        value: &mut impl FnMut(&str) -> Result<String, ArgsError>,
    ) -> Result<bool, ArgsError> {
        match arg {
            "--packets" => self.packets = Some(PathBuf::from(value(arg)?)),
            "--link-file" => self.link_file = Some(PathBuf::from(value(arg)?)),
            "--baud" => {
                let v = value(arg)?;
                self.baud = v.parse().map_err(|_| ArgsError::Baud(v))?;
            }
            "--bind" => self.bind = address(arg, &value(arg)?)?,
            "--peer" => self.peer = Some(address(arg, &value(arg)?)?),
            m if self.mode.is_none() && self.modes.contains(&m) => self.mode = Some(m.into()),
            path if self.mode.as_deref() == Some("serial")
                && self.serial_path.is_none()
                && !path.starts_with('-') =>
            {
                self.serial_path = Some(path.to_string())
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// A whole command line of shared options only (`-h` / `--help` asks for the usage),
    /// checked as by [`LinkArgs::finish`].
    ///
    /// # Errors
    /// An unknown argument, a bad value, or what [`LinkArgs::finish`] refuses.
    pub fn parse_all(
        modes: &'static [&'static str],
        mut it: impl Iterator<Item = String>,
        default_mode: Option<&str>,
    ) -> Result<LinkChoice, ArgsError> {
        let mut args = LinkArgs::new(modes);
        while let Some(arg) = it.next() {
            let mut value = |name: &str| {
                it.next()
                    .ok_or_else(|| ArgsError::NoValue(name.to_string()))
            };
            if arg == "-h" || arg == "--help" {
                return Err(ArgsError::Help);
            }
            if !args.take(&arg, &mut value)? {
                return Err(ArgsError::Unexpected(arg));
            }
        }
        args.finish(default_mode)
    }

    /// The checked choice; `default_mode` when no mode was given (`None`: one is required).
    ///
    /// # Errors
    /// No `--packets`, no mode, or `serial` without its path.
    pub fn finish(self, default_mode: Option<&str>) -> Result<LinkChoice, ArgsError> {
        let packets = self.packets.ok_or(ArgsError::NoPackets)?;
        let mode = match self.mode.as_deref().or(default_mode) {
            Some("pty") => Mode::Pty,
            Some("serial") => Mode::Serial {
                path: self.serial_path.ok_or(ArgsError::NoSerialPath)?,
                baud: self.baud,
            },
            Some("can_udp") => Mode::CanUdp {
                bind: self.bind,
                peer: self.peer,
            },
            _ => return Err(ArgsError::NoMode(self.modes)),
        };
        Ok(LinkChoice {
            packets,
            mode,
            link_file: self.link_file,
        })
    }
}

fn address(option: &str, v: &str) -> Result<SocketAddr, ArgsError> {
    v.parse().map_err(|_| ArgsError::Address {
        option: option.to_string(),
        value: v.to_string(),
    })
}

/// An open device link and where it is.
#[derive(Debug)]
pub struct Opened {
    /// The link (the device's side).
    pub link: Link,
    /// Where the bridge finds it: the pty slave path, the serial path or the bound UDP
    /// address.
    pub place: String,
    /// Keep it for the whole run (see [`Hold`]).
    pub hold: Hold,
}

/// On a pty, the slave side held open: while one slave fd is open the master never reads
/// EIO, so the bridge may open, close and reopen the slave path. Drop it at the end.
#[derive(Debug)]
pub struct Hold {
    _slave: Option<SerialPort>,
}

/// Opens the device's end of the link on `mode` (inside a tokio runtime).
///
/// # Errors
/// The pty, port or socket that would not open.
pub async fn open(
    mode: &Mode,
    defs: Arc<Definitions>,
    cfg: &LinkConfig,
) -> Result<Opened, DeviceError> {
    Ok(match mode {
        Mode::Pty => {
            let (master, slave, path) = open_pty().map_err(DeviceError::Pty)?;
            // Opening the slave as a serial port puts the pty in raw mode (no echo, no
            // line editing) before the bridge opens it.
            let hold = SerialPort::open(&path, 115_200)?;
            drop(slave);
            let master = SerialPort::from_fd(master, "pty master")?;
            Opened {
                link: Link::uart(master, defs, cfg),
                place: path,
                hold: Hold { _slave: Some(hold) },
            }
        }
        Mode::Serial { path, baud } => Opened {
            link: Link::uart(SerialPort::open(path, *baud)?, defs, cfg),
            place: path.clone(),
            hold: Hold { _slave: None },
        },
        Mode::CanUdp { bind, peer } => {
            let bus = UdpCan::bind(*bind, *peer).await?;
            let place = bus.local_addr()?.to_string();
            Opened {
                link: Link::can(CanBus::Udp(bus), defs, cfg),
                place,
                hold: Hold { _slave: None },
            }
        }
    })
}

/// Tells where the link is: writes `place` to `link_file` (atomically), points the
/// symlink `symlink` at it (a pty slave; replaced atomically, so a restarted device keeps
/// one serial port path), then prints `NAME: link <place>`.
///
/// # Errors
/// The file or symlink that could not be written.
pub fn announce(
    name: &str,
    place: &str,
    link_file: Option<&Path>,
    symlink: Option<&Path>,
) -> Result<(), DeviceError> {
    if let Some(file) = link_file {
        write_atomically(file, &format!("{place}\n")).map_err(|source| DeviceError::LinkFile {
            file: file.to_path_buf(),
            source,
        })?;
    }
    if let Some(link) = symlink {
        symlink_atomically(Path::new(place), link).map_err(|source| DeviceError::Symlink {
            link: link.to_path_buf(),
            place: place.to_string(),
            source,
        })?;
    }
    println!("{name}: link {place}");
    Ok(())
}

/// The non-zero counters as `key=value` words, for a program's last line.
pub fn counts(counters: &Counters) -> Vec<String> {
    counters
        .key_values()
        .into_iter()
        .filter(|(_, v)| v != "0")
        .map(|(k, v)| format!("{k}={v}"))
        .collect()
}

/// Resolves on SIGINT or SIGTERM; the handlers are installed by this call (inside a
/// tokio runtime).
///
/// # Errors
/// A handler that could not be installed.
pub fn stop_signal() -> Result<impl Future<Output = ()>, DeviceError> {
    use tokio::signal::unix::{signal, SignalKind};
    let watch = |kind, name| {
        signal(kind).map_err(|source| DeviceError::Signal {
            signal: name,
            source,
        })
    };
    let mut int = watch(SignalKind::interrupt(), "SIGINT")?;
    let mut term = watch(SignalKind::terminate(), "SIGTERM")?;
    Ok(async move {
        tokio::select! { _ = int.recv() => {}, _ = term.recv() => {} }
    })
}

/// A device program's `main`: bad arguments (`parsed` is `Err`) print the reason and
/// `usage` and exit 2; otherwise `run` runs on a current-thread runtime, and its error
/// `(code, text)` is printed and becomes the exit code.
pub fn main<A, F, E>(
    name: &str,
    usage: &str,
    parsed: Result<A, impl Display>,
    run: impl FnOnce(A) -> F,
) -> ExitCode
where
    F: Future<Output = Result<(), (u8, E)>>,
    E: Display,
{
    let args = match parsed {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{name}: {e}\n{usage}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{name}: cannot start a runtime: {e}");
            return ExitCode::from(1);
        }
    };
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, e)) => {
            eprintln!("{name}: {e}");
            ExitCode::from(code)
        }
    }
}

/// Writes `text` to a sibling temporary file and renames it over `file`.
fn write_atomically(file: &Path, text: &str) -> std::io::Result<()> {
    let mut tmp = file.as_os_str().to_owned();
    tmp.push(".tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, file)
}

/// Points the symlink `link` at `target` through a sibling temporary link and a rename.
fn symlink_atomically(target: &Path, link: &Path) -> std::io::Result<()> {
    let mut tmp = link.as_os_str().to_owned();
    tmp.push(".tmp");
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(target, &tmp)?;
    std::fs::rename(&tmp, link)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(
        modes: &'static [&'static str],
        s: &str,
        default: Option<&str>,
    ) -> Result<LinkChoice, ArgsError> {
        LinkArgs::parse_all(modes, s.split_whitespace().map(String::from), default)
    }

    #[test]
    fn shared_options() {
        const ALL: &[&str] = &["pty", "serial", "can_udp"];
        let c = parse(ALL, "--packets p pty --link-file /tmp/x", None).expect("valid");
        assert!(c.mode == Mode::Pty && c.link_file.is_some());
        let c = parse(ALL, "serial /dev/ttyUSB0 --baud 9600 --packets p", None).expect("valid");
        assert_eq!(
            c.mode,
            Mode::Serial {
                path: "/dev/ttyUSB0".into(),
                baud: 9600
            }
        );
        let c = parse(ALL, "--packets p can_udp --peer 127.0.0.1:5000", None).expect("valid");
        assert!(matches!(c.mode, Mode::CanUdp { peer: Some(_), .. }));
        let c = parse(&["pty", "can_udp"], "--packets p", Some("pty")).expect("default");
        assert_eq!(c.mode, Mode::Pty);
        for bad in [
            "pty",
            "--packets p",
            "--packets p serial",
            "--packets p can_udp --bind nowhere",
            "--packets p pty x",
            "--packets p --baud fast pty",
            "--help",
        ] {
            assert!(parse(ALL, bad, None).is_err(), "{bad}");
        }
        assert!(parse(&["pty", "can_udp"], "--packets p serial", Some("pty")).is_err());
    }

    #[tokio::test]
    async fn a_pty_is_announced_in_the_link_file_and_the_symlink() {
        let defs = Arc::new(
            Definitions::from_texts([("ping", r#"{"name":"Ping","id":1,"data":{}}"#)])
                .expect("valid"),
        );
        let opened = open(&Mode::Pty, defs, &LinkConfig::default())
            .await
            .expect("pty");
        let dir = std::env::temp_dir().join(format!("arnie_comms_device_{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("tmp");
        let (file, link) = (dir.join("link"), dir.join("tty"));
        announce("test", &opened.place, Some(&file), Some(&link)).expect("written");
        assert_eq!(
            std::fs::read_to_string(&file).expect("file"),
            format!("{}\n", opened.place)
        );
        assert_eq!(
            std::fs::read_link(&link).expect("symlink"),
            PathBuf::from(&opened.place)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
