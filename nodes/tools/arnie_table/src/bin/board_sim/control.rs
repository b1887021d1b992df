//! The control FIFO (`--control PATH`): commands to the simulated board, one per line,
//! as a person or a test writes them (`echo "cord pull" > PATH`).
//!
//! | command | |
//! |---|---|
//! | `cord pull` | pull the start cord (put back first if it is out: a second pull) |
//! | `cord insert` | put the start cord back |
//! | `lidar off` / `lidar on` | the LiDAR stops sending / sends again (a stalled motor) |
//! | `lidar unplug` / `lidar plug` | its pty closes and its symlink goes / a new pty, the symlink re-pointed (a USB adapter pulled out and back in) |
//!
//! Anything else is printed and counted (`bad_commands`), never fatal.
use std::io;
use std::path::Path;

use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::net::unix::pipe;

/// One command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// `cord pull`.
    PullCord,
    /// `cord insert`.
    InsertCord,
    /// `lidar on` (true) / `lidar off` (false).
    LidarPower(bool),
    /// `lidar plug` (true) / `lidar unplug` (false).
    LidarPlug(bool),
}

impl Command {
    /// Parses one line (spaces around words ignored).
    ///
    /// # Errors
    /// The line, when it is no command.
    pub fn parse(line: &str) -> Result<Command, String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        Ok(match words.as_slice() {
            ["cord", "pull"] => Command::PullCord,
            ["cord", "insert"] => Command::InsertCord,
            ["lidar", "on"] => Command::LidarPower(true),
            ["lidar", "off"] => Command::LidarPower(false),
            ["lidar", "plug"] => Command::LidarPlug(true),
            ["lidar", "unplug"] => Command::LidarPlug(false),
            _ => {
                return Err(format!(
                    "unknown command {line:?} (cord pull|insert, lidar on|off|plug|unplug)"
                ))
            }
        })
    }
}

/// The FIFO, read line by line; opened read-write so that writers coming and going never
/// end the stream.
pub struct Control {
    lines: Lines<BufReader<pipe::Receiver>>,
}

impl Control {
    /// Makes `path` a FIFO (an existing FIFO is reused; anything else there is an error)
    /// and opens it.
    pub fn open(path: &Path) -> io::Result<Control> {
        use std::os::unix::fs::FileTypeExt;
        match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_fifo() => {}
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!("{} exists and is not a FIFO", path.display()),
                ))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())
                    .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
                // SAFETY: a valid NUL-terminated path.
                if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            Err(e) => return Err(e),
        }
        let rx = pipe::OpenOptions::new()
            .read_write(true)
            .open_receiver(path)?;
        Ok(Control {
            lines: BufReader::new(rx).lines(),
        })
    }

    /// The next line (cancel-safe).
    pub async fn next_line(&mut self) -> io::Result<Option<String>> {
        self.lines.next_line().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse_and_others_are_refused() {
        assert_eq!(Command::parse("cord pull"), Ok(Command::PullCord));
        assert_eq!(Command::parse("  cord   insert "), Ok(Command::InsertCord));
        assert_eq!(Command::parse("lidar off"), Ok(Command::LidarPower(false)));
        assert_eq!(Command::parse("lidar plug"), Ok(Command::LidarPlug(true)));
        for bad in [
            "",
            "cord",
            "pull cord",
            "lidar",
            "lidar explode",
            "cord pull now",
        ] {
            assert!(Command::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[tokio::test]
    async fn lines_written_to_the_fifo_come_out() {
        let dir = std::env::temp_dir().join(format!("board_sim_ctl_{}", std::process::id()));
        let _ = std::fs::remove_file(&dir);
        let mut c = Control::open(&dir).expect("fifo");
        for text in ["cord pull\n", "lidar off\n"] {
            std::fs::write(&dir, text).expect("write");
        }
        assert_eq!(c.next_line().await.unwrap().as_deref(), Some("cord pull"));
        assert_eq!(c.next_line().await.unwrap().as_deref(), Some("lidar off"));
        // Reopening an existing FIFO works; a regular file is refused.
        drop(c);
        assert!(Control::open(&dir).is_ok());
        std::fs::remove_file(&dir).unwrap();
        std::fs::write(&dir, "x").unwrap();
        assert!(Control::open(&dir).is_err());
        std::fs::remove_file(&dir).unwrap();
    }
}
