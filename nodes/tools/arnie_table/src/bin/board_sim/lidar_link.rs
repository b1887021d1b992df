//! The simulated LiDAR's wire: a pseudo-terminal of its own (the driver opens the slave
//! path, or the `--lidar-symlink` pointing at it), written without ever blocking the
//! board: bytes the pty cannot take (no driver reading) are dropped and counted, as a
//! real LD06 keeps sending whether anyone listens or not. Unplugged (`lidar unplug`), the
//! pty is closed and the symlink removed; plugged back, a new pty and the symlink
//! re-pointed at it.
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;

use arnie_packets::device;
use arnie_packets::transport::{open_pty, SerialPort};

/// An open LiDAR pty.
struct Pty {
    master: OwnedFd,
    /// The slave held open (raw mode, 230400 baud) so the master never sees EIO.
    _hold: SerialPort,
}

/// The LiDAR's link (see the module doc).
pub struct LidarLink {
    pty: Option<Pty>,
    link_file: Option<PathBuf>,
    symlink: Option<PathBuf>,
    /// Bytes written, and dropped (the pty full, or unplugged).
    pub written: u64,
    /// Bytes dropped.
    pub dropped: u64,
}

impl LidarLink {
    /// Opens the first pty and announces it (`board_sim: lidar <path>`, the link file,
    /// the symlink). Inside a tokio runtime.
    pub fn open(link_file: Option<PathBuf>, symlink: Option<PathBuf>) -> Result<LidarLink, String> {
        let mut l = LidarLink {
            pty: None,
            link_file,
            symlink,
            written: 0,
            dropped: 0,
        };
        l.plug()?;
        Ok(l)
    }

    /// A new pty, announced (no-op while plugged).
    pub fn plug(&mut self) -> Result<(), String> {
        if self.pty.is_some() {
            return Ok(());
        }
        let (master, slave, path) =
            open_pty().map_err(|e| format!("cannot open a pty for the LiDAR: {e}"))?;
        let hold = SerialPort::open(&path, ld06::BAUD).map_err(|e| e.to_string())?;
        drop(slave);
        set_nonblocking(&master).map_err(|e| format!("LiDAR pty: {e}"))?;
        device::announce(
            "board_sim lidar",
            &path,
            self.link_file.as_deref(),
            self.symlink.as_deref(),
        )
        .map_err(|e| e.to_string())?;
        self.pty = Some(Pty {
            master,
            _hold: hold,
        });
        Ok(())
    }

    /// Closes the pty and removes the symlink (no-op while unplugged).
    pub fn unplug(&mut self) {
        if self.pty.take().is_some() {
            if let Some(link) = &self.symlink {
                let _ = std::fs::remove_file(link);
            }
        }
    }

    /// Writes what the pty takes now; the rest is dropped and counted.
    pub fn write(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let Some(pty) = &self.pty else {
            self.dropped += bytes.len() as u64;
            return;
        };
        let mut rest = bytes;
        while !rest.is_empty() {
            // SAFETY: `rest` is valid for its length; the fd is open and ours.
            let n =
                unsafe { libc::write(pty.master.as_raw_fd(), rest.as_ptr().cast(), rest.len()) };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                break;
            }
            self.written += n as u64;
            rest = &rest[n as usize..];
        }
        self.dropped += rest.len() as u64;
    }
}

fn set_nonblocking(fd: &OwnedFd) -> io::Result<()> {
    // SAFETY: fcntl on an fd we own.
    let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
    // SAFETY: as above.
    if flags < 0
        || unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0
    {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
