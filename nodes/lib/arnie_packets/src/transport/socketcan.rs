//! Linux SocketCAN: a `CAN_RAW` socket bound to one interface (`can0`, `vcan0`), on tokio.
//!
//! Not exercised by the test suite (no `vcan` module on the build machines); the CAN
//! path is tested end to end over [`UdpCan`](super::udp::UdpCan) instead, which shares
//! the same [`CanFrame`] conversion rules.
use crate::can::{CanFrame, CanId};
use crate::counters::{RejectKind, Rejected};
use crate::error::{Error, Result};
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use tokio::io::unix::AsyncFd;

/// A raw CAN socket.
#[derive(Debug)]
pub struct SocketCan {
    fd: AsyncFd<OwnedFd>,
    iface: String,
}

impl SocketCan {
    /// Opens and binds `iface`. Must be called inside a tokio runtime.
    ///
    /// # Errors
    /// [`Error::CanInterfaceNotFound`] when there is no such interface;
    /// [`Error::SocketCan`] when the socket cannot be created or bound.
    pub fn open(iface: &str) -> Result<SocketCan> {
        let err = |source| Error::SocketCan {
            iface: iface.to_string(),
            source,
        };
        let name =
            CString::new(iface).map_err(|_| Error::CanInterfaceNotFound(iface.to_string()))?;
        // SAFETY: valid NUL-terminated name.
        let index = unsafe { libc::if_nametoindex(name.as_ptr()) };
        if index == 0 {
            return Err(Error::CanInterfaceNotFound(iface.to_string()));
        }
        // SAFETY: plain socket(2) call.
        let raw = unsafe {
            libc::socket(
                libc::PF_CAN,
                libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                libc::CAN_RAW,
            )
        };
        if raw < 0 {
            return Err(err(io::Error::last_os_error()));
        }
        // SAFETY: fresh fd owned by nothing else.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: sockaddr_can is plain data; zero is a valid value for every field.
        let mut addr: libc::sockaddr_can = unsafe { std::mem::zeroed() };
        addr.can_family = libc::AF_CAN as libc::sa_family_t;
        addr.can_ifindex =
            i32::try_from(index).map_err(|_| Error::CanInterfaceNotFound(iface.to_string()))?;
        // SAFETY: `addr` is a valid sockaddr_can of the given size.
        let rc = unsafe {
            libc::bind(
                fd.as_raw_fd(),
                (&addr as *const libc::sockaddr_can).cast(),
                std::mem::size_of::<libc::sockaddr_can>() as libc::socklen_t,
            )
        };
        if rc < 0 {
            return Err(err(io::Error::last_os_error()));
        }
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(err(io::Error::other("no tokio runtime")));
        }
        // SAFETY: the OwnedFd is open, and it stays open and unchanged while registered.
        let fd = unsafe { AsyncFd::register(fd) }.map_err(|e| err(io::Error::from(e)))?;
        Ok(SocketCan {
            fd,
            iface: iface.to_string(),
        })
    }

    /// The interface name.
    pub fn iface(&self) -> &str {
        &self.iface
    }

    /// Sends one frame.
    pub async fn send(&self, frame: &CanFrame) -> Result<()> {
        let raw = to_raw(frame);
        loop {
            let mut guard = self.fd.writable().await.map_err(|source| Error::Io {
                context: "CAN send",
                source,
            })?;
            let got = guard.try_io(|fd| {
                // SAFETY: `raw` is a valid can_frame of CAN_MTU bytes.
                let n = unsafe {
                    libc::write(
                        fd.as_raw_fd(),
                        (&raw as *const libc::can_frame).cast(),
                        libc::CAN_MTU,
                    )
                };
                syscall_len(n)
            });
            match got {
                Ok(Ok(n)) if n == libc::CAN_MTU => return Ok(()),
                Ok(Ok(_)) => {
                    return Err(Error::Io {
                        context: "CAN send",
                        source: io::Error::other("short write"),
                    })
                }
                Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                Ok(Err(e)) => {
                    return Err(Error::Io {
                        context: "CAN send",
                        source: e,
                    })
                }
                Err(_would_block) => {}
            }
        }
    }

    /// Receives one frame. Remote, error and non-classic frames are rejected (not errors).
    pub async fn recv(&self) -> Result<std::result::Result<CanFrame, Rejected>> {
        loop {
            let mut guard = self.fd.readable().await.map_err(|source| Error::Io {
                context: "CAN recv",
                source,
            })?;
            // SAFETY: can_frame is plain data.
            let mut raw: libc::can_frame = unsafe { std::mem::zeroed() };
            let got = guard.try_io(|fd| {
                // SAFETY: `raw` is valid for CAN_MTU bytes.
                let n = unsafe {
                    libc::read(
                        fd.as_raw_fd(),
                        (&mut raw as *mut libc::can_frame).cast(),
                        libc::CAN_MTU,
                    )
                };
                syscall_len(n)
            });
            match got {
                Ok(Ok(n)) if n == libc::CAN_MTU => return Ok(from_raw(&raw)),
                Ok(Ok(_)) => return Ok(Err(Rejected::new(RejectKind::BadCanFrame, None))),
                Ok(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                Ok(Err(e)) => {
                    return Err(Error::Io {
                        context: "CAN recv",
                        source: e,
                    })
                }
                Err(_would_block) => {}
            }
        }
    }
}

/// [`CanFrame`] → kernel `can_frame`.
pub fn to_raw(frame: &CanFrame) -> libc::can_frame {
    // SAFETY: can_frame is plain data; zero is valid.
    let mut raw: libc::can_frame = unsafe { std::mem::zeroed() };
    raw.can_id = match frame.id() {
        CanId::Standard(id) => u32::from(id),
        CanId::Extended(id) => id | libc::CAN_EFF_FLAG,
    };
    raw.can_dlc = frame.data().len() as u8;
    raw.data[..frame.data().len()].copy_from_slice(frame.data());
    raw
}

/// Kernel `can_frame` → [`CanFrame`]; RTR and error frames and bad lengths are rejected.
pub fn from_raw(raw: &libc::can_frame) -> std::result::Result<CanFrame, Rejected> {
    let bad = Rejected::new(RejectKind::BadCanFrame, None);
    if raw.can_id & (libc::CAN_RTR_FLAG | libc::CAN_ERR_FLAG) != 0 {
        return Err(bad);
    }
    let id = if raw.can_id & libc::CAN_EFF_FLAG != 0 {
        CanId::extended(raw.can_id & libc::CAN_EFF_MASK)
    } else {
        u16::try_from(raw.can_id).ok().and_then(CanId::standard)
    };
    let data = raw.data.get(..usize::from(raw.can_dlc));
    match (id, data) {
        (Some(id), Some(data)) => CanFrame::new(id, data).ok_or(bad),
        _ => Err(bad),
    }
}

/// A `read` / `write` result: the byte count, or the OS error for a negative one.
fn syscall_len(n: isize) -> io::Result<usize> {
    usize::try_from(n).map_err(|_| io::Error::last_os_error())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn missing_interface_is_a_clear_error() {
        let e = SocketCan::open("nocan7").expect_err("no such interface");
        assert!(matches!(e, Error::CanInterfaceNotFound(ref n) if n == "nocan7"));
        assert!(e.to_string().contains("nocan7"));
    }

    #[test]
    fn kernel_frame_conversion_round_trips_and_rejects() {
        let ext = CanFrame::new(CanId::Extended(0x1234_5678), &[1, 2, 3]).expect("fits");
        let raw = to_raw(&ext);
        assert_eq!(raw.can_id, 0x1234_5678 | libc::CAN_EFF_FLAG);
        assert_eq!(from_raw(&raw), Ok(ext));
        let std = CanFrame::new(CanId::Standard(0x7ff), &[]).expect("fits");
        assert_eq!(from_raw(&to_raw(&std)), Ok(std));
        let mut rtr = to_raw(&std);
        rtr.can_id |= libc::CAN_RTR_FLAG;
        assert!(from_raw(&rtr).is_err());
        let mut long = to_raw(&std);
        long.can_dlc = 9;
        assert!(from_raw(&long).is_err());
    }
}
