//! A serial port (or one side of a pseudo-terminal) in raw mode, non-blocking, on tokio.
use crate::error::{Error, Result};
use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use tokio::io::unix::AsyncFd;

/// A byte stream over a tty file descriptor. Reads and writes are cancel-safe per call:
/// a `read` cancelled before it completes has consumed nothing.
#[derive(Debug)]
pub struct SerialPort {
    fd: AsyncFd<OwnedFd>,
    name: String,
}

/// The termios speed constant for a baud rate.
pub fn baud_constant(baud: u32) -> Option<libc::speed_t> {
    Some(match baud {
        1200 => libc::B1200,
        2400 => libc::B2400,
        4800 => libc::B4800,
        9600 => libc::B9600,
        19200 => libc::B19200,
        38400 => libc::B38400,
        57600 => libc::B57600,
        115200 => libc::B115200,
        230400 => libc::B230400,
        460800 => libc::B460800,
        500000 => libc::B500000,
        576000 => libc::B576000,
        921600 => libc::B921600,
        1000000 => libc::B1000000,
        2000000 => libc::B2000000,
        _ => return None,
    })
}

impl SerialPort {
    /// Opens a device (e.g. `/dev/ttyUSB0`) in raw 8N1 mode, no flow control, at `baud`.
    /// Must be called inside a tokio runtime.
    ///
    /// # Errors
    /// [`Error::UnsupportedBaud`], [`Error::Serial`] (naming the path).
    pub fn open(path: &str, baud: u32) -> Result<SerialPort> {
        let speed = baud_constant(baud).ok_or(Error::UnsupportedBaud(baud))?;
        let err = |source| Error::Serial {
            path: path.to_string(),
            source,
        };
        let cpath =
            CString::new(path).map_err(|_| err(io::Error::from(io::ErrorKind::InvalidInput)))?;
        // SAFETY: a valid NUL-terminated path; the returned fd is owned below.
        let raw = unsafe {
            libc::open(
                cpath.as_ptr(),
                libc::O_RDWR | libc::O_NOCTTY | libc::O_NONBLOCK | libc::O_CLOEXEC,
            )
        };
        if raw < 0 {
            return Err(err(io::Error::last_os_error()));
        }
        // SAFETY: `raw` is a freshly opened fd that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        configure_raw(&fd, speed).map_err(err)?;
        SerialPort::wrap(fd, path.to_string())
    }

    /// Wraps an already open fd (e.g. a pty master) as is: non-blocking, no termios change.
    /// Must be called inside a tokio runtime.
    pub fn from_fd(fd: OwnedFd, name: &str) -> Result<SerialPort> {
        set_nonblocking(&fd).map_err(|source| Error::Serial {
            path: name.to_string(),
            source,
        })?;
        SerialPort::wrap(fd, name.to_string())
    }

    fn wrap(fd: OwnedFd, name: String) -> Result<SerialPort> {
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(Error::Serial {
                path: name,
                source: io::Error::other("no tokio runtime"),
            });
        }
        // SAFETY: the OwnedFd is open, and it stays open and unchanged while registered
        // (only the AsyncFd owns it; it is closed when the AsyncFd drops).
        let fd = unsafe { AsyncFd::register(fd) }.map_err(|e| Error::Serial {
            path: name.clone(),
            source: io::Error::from(e),
        })?;
        Ok(SerialPort { fd, name })
    }

    /// The path or label it was opened with.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Reads what is available (at least one byte). End of file (the other side of a pty
    /// closed, a USB adapter unplugged) is an `UnexpectedEof` error.
    pub async fn read(&self, buf: &mut [u8]) -> Result<usize> {
        loop {
            let mut guard = self.fd.readable().await.map_err(io_err("serial read"))?;
            let got = guard.try_io(|fd| {
                // SAFETY: `buf` is valid for `buf.len()` bytes.
                let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
                if n < 0 {
                    Err(io::Error::last_os_error())
                } else {
                    Ok(n as usize)
                }
            });
            match got {
                Ok(Ok(0)) if !buf.is_empty() => {
                    return Err(Error::Io {
                        context: "serial read",
                        source: io::ErrorKind::UnexpectedEof.into(),
                    })
                }
                Ok(Ok(n)) => return Ok(n),
                Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => continue,
                Ok(Err(e)) => {
                    return Err(Error::Io {
                        context: "serial read",
                        source: e,
                    })
                }
                Err(_would_block) => continue,
            }
        }
    }

    /// Writes all of `bytes`.
    pub async fn write_all(&self, mut bytes: &[u8]) -> Result<()> {
        while !bytes.is_empty() {
            let mut guard = self.fd.writable().await.map_err(io_err("serial write"))?;
            let got = guard.try_io(|fd| {
                // SAFETY: `bytes` is valid for `bytes.len()` bytes.
                let n = unsafe { libc::write(fd.as_raw_fd(), bytes.as_ptr().cast(), bytes.len()) };
                if n < 0 {
                    Err(io::Error::last_os_error())
                } else {
                    Ok(n as usize)
                }
            });
            match got {
                Ok(Ok(n)) => bytes = bytes.get(n..).unwrap_or(&[]),
                Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                Ok(Err(e)) => {
                    return Err(Error::Io {
                        context: "serial write",
                        source: e,
                    })
                }
                Err(_would_block) => {}
            }
        }
        Ok(())
    }
}

fn io_err(context: &'static str) -> impl Fn(io::Error) -> Error {
    move |source| Error::Io { context, source }
}

fn set_nonblocking(fd: &OwnedFd) -> io::Result<()> {
    // SAFETY: fcntl on an fd we own.
    let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Raw mode (no echo, no line editing, no CR/LF translation), 8N1, receiver on, modem
/// lines ignored, no flow control, `speed` both ways; pending bytes flushed.
fn configure_raw(fd: &OwnedFd, speed: libc::speed_t) -> io::Result<()> {
    let raw = fd.as_raw_fd();
    // SAFETY: termios is plain data, filled by tcgetattr before use.
    let mut t: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: valid fd and pointer.
    if unsafe { libc::tcgetattr(raw, &mut t) } < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `t` is a valid termios.
    unsafe { libc::cfmakeraw(&mut t) };
    t.c_cflag |= libc::CLOCAL | libc::CREAD;
    t.c_cflag &= !(libc::CSTOPB | libc::CRTSCTS | libc::PARENB);
    t.c_iflag &= !(libc::IXON | libc::IXOFF | libc::IXANY);
    t.c_cc[libc::VMIN] = 1;
    t.c_cc[libc::VTIME] = 0;
    // SAFETY: `t` is a valid termios.
    if unsafe { libc::cfsetispeed(&mut t, speed) } < 0
        || unsafe { libc::cfsetospeed(&mut t, speed) } < 0
    {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: valid fd and termios.
    if unsafe { libc::tcsetattr(raw, libc::TCSANOW, &t) } < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: valid fd.
    unsafe { libc::tcflush(raw, libc::TCIOFLUSH) };
    Ok(())
}

/// A pseudo-terminal pair: `(master, slave, slave path)`. The simulator and the tests
/// use the master; the bridge opens the slave path like a real serial device. Keep
/// `slave` open until the path is opened (the master reads EIO while no slave is open).
pub fn open_pty() -> io::Result<(OwnedFd, OwnedFd, String)> {
    let mut master: libc::c_int = -1;
    let mut slave: libc::c_int = -1;
    // SAFETY: out-pointers are valid; name, termios and winsize may be null.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: openpty returned two fresh fds that nothing else owns.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut name = [0 as libc::c_char; 128];
    // SAFETY: buffer valid for its length.
    let rc = unsafe { libc::ttyname_r(slave.as_raw_fd(), name.as_mut_ptr(), name.len()) };
    if rc != 0 {
        return Err(io::Error::from_raw_os_error(rc));
    }
    // SAFETY: ttyname_r wrote a NUL-terminated string into `name`.
    let path = unsafe { CStr::from_ptr(name.as_ptr()) }
        .to_string_lossy()
        .into_owned();
    Ok((master, slave, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn baud_table() {
        assert_eq!(baud_constant(115200), Some(libc::B115200));
        assert_eq!(baud_constant(115201), None);
    }

    #[tokio::test]
    async fn open_errors_name_the_path() {
        assert!(matches!(
            SerialPort::open("/dev/null", 12345),
            Err(Error::UnsupportedBaud(12345))
        ));
        let e = SerialPort::open("/nonexistent/ttyX", 115200).expect_err("no such device");
        assert!(e.to_string().contains("/nonexistent/ttyX"), "{e}");
    }

    #[tokio::test]
    async fn pty_bytes_pass_raw_both_ways() {
        let (master, slave, path) = open_pty().expect("pty");
        let port = SerialPort::open(&path, 115200).expect("open slave");
        drop(slave);
        let peer = SerialPort::from_fd(master, "master").expect("master");
        // Bytes a cooked tty would mangle: CR, LF, ^C, ^D, XON/XOFF, 0xff.
        let bytes = [b'\r', b'\n', 3, 4, 0x11, 0x13, 0xff, 0];
        port.write_all(&bytes).await.expect("write");
        let mut buf = [0u8; 16];
        let mut got = Vec::new();
        while got.len() < bytes.len() {
            let n = peer.read(&mut buf).await.expect("read");
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(got, bytes);
        peer.write_all(&bytes).await.expect("write back");
        got.clear();
        while got.len() < bytes.len() {
            let n = port.read(&mut buf).await.expect("read");
            got.extend_from_slice(&buf[..n]);
        }
        assert_eq!(got, bytes);
    }
}
