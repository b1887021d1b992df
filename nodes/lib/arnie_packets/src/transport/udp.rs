//! CAN over UDP: one CAN frame per datagram, so the CAN path runs end to end on
//! 127.0.0.1 where no CAN interface exists.
//!
//! Datagram format (5 + len bytes, nothing else accepted):
//!
//! | bytes    | content                                                         |
//! |----------|-----------------------------------------------------------------|
//! | 0..4     | id, u32 little-endian; bit 31 = extended (29-bit) id, bits 29–30 zero |
//! | 4        | len, 0..=8                                                      |
//! | 5..5+len | data                                                            |
use crate::can::{CanFrame, CanId};
use crate::counters::{RejectKind, Rejected};
use crate::error::{Error, Result};
use std::net::SocketAddr;
use tokio::net::UdpSocket;

/// Bit 31 of the datagram id: the id is extended.
pub const EXTENDED_FLAG: u32 = 1 << 31;

/// Encodes one frame as a datagram.
pub fn encode_datagram(frame: &CanFrame) -> Vec<u8> {
    let id = match frame.id() {
        CanId::Standard(id) => u32::from(id),
        CanId::Extended(id) => id | EXTENDED_FLAG,
    };
    let mut out = Vec::with_capacity(5 + frame.data().len());
    out.extend_from_slice(&id.to_le_bytes());
    out.push(frame.data().len() as u8);
    out.extend_from_slice(frame.data());
    out
}

/// Decodes one datagram; `None` unless it is exactly in the documented format.
pub fn decode_datagram(bytes: &[u8]) -> Option<CanFrame> {
    let head: [u8; 4] = bytes.get(..4)?.try_into().ok()?;
    let raw = u32::from_le_bytes(head);
    let len = usize::from(*bytes.get(4)?);
    let data = bytes.get(5..)?;
    if data.len() != len {
        return None;
    }
    let id = if raw & EXTENDED_FLAG != 0 {
        CanId::extended(raw & !EXTENDED_FLAG)?
    } else {
        CanId::standard(u16::try_from(raw).ok()?)?
    };
    CanFrame::new(id, data)
}

/// A UDP socket carrying CAN frames. With no fixed peer, frames are sent to whoever
/// sent the last good datagram (how the simulator answers).
#[derive(Debug)]
pub struct UdpCan {
    sock: UdpSocket,
    peer: Option<SocketAddr>,
    learn_peer: bool,
}

impl UdpCan {
    /// Binds `local`; sends go to `peer`, or (when `None`) to the last sender seen.
    ///
    /// # Errors
    /// [`Error::Udp`] naming the address.
    pub async fn bind(local: SocketAddr, peer: Option<SocketAddr>) -> Result<UdpCan> {
        let sock = UdpSocket::bind(local).await.map_err(|source| Error::Udp {
            addr: local.to_string(),
            source,
        })?;
        Ok(UdpCan {
            sock,
            learn_peer: peer.is_none(),
            peer,
        })
    }

    /// The bound address (useful after binding port 0).
    pub fn local_addr(&self) -> Result<SocketAddr> {
        self.sock.local_addr().map_err(|source| Error::Io {
            context: "UDP local address",
            source,
        })
    }

    /// Sends one frame to the peer.
    ///
    /// # Errors
    /// [`Error::NoPeer`] before any peer is known; [`Error::Io`].
    pub async fn send(&self, frame: &CanFrame) -> Result<()> {
        let peer = self.peer.ok_or(Error::NoPeer)?;
        self.sock
            .send_to(&encode_datagram(frame), peer)
            .await
            .map_err(|source| Error::Io {
                context: "CAN-over-UDP send",
                source,
            })?;
        Ok(())
    }

    /// Receives one datagram. Cancel-safe.
    pub async fn recv(&mut self) -> Result<std::result::Result<CanFrame, Rejected>> {
        let mut buf = [0u8; 64];
        let (n, from) = self
            .sock
            .recv_from(&mut buf)
            .await
            .map_err(|source| Error::Io {
                context: "CAN-over-UDP recv",
                source,
            })?;
        match decode_datagram(&buf[..n]) {
            Some(frame) => {
                if self.learn_peer {
                    self.peer = Some(from);
                }
                Ok(Ok(frame))
            }
            None => Ok(Err(Rejected::new(RejectKind::BadCanFrame, None))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datagram_format() {
        let f = CanFrame::new(CanId::Extended(0x0102_0304), &[9, 8]).expect("fits");
        assert_eq!(encode_datagram(&f), [0x04, 0x03, 0x02, 0x81, 2, 9, 8]);
        assert_eq!(decode_datagram(&encode_datagram(&f)), Some(f));
        let s = CanFrame::new(CanId::Standard(0x123), &[]).expect("fits");
        assert_eq!(encode_datagram(&s), [0x23, 0x01, 0, 0, 0]);
        assert_eq!(decode_datagram(&[0x23, 0x01, 0, 0, 0]), Some(s));
        assert_eq!(
            decode_datagram(&[0x23, 0x01, 0, 0, 1]),
            None,
            "len says 1, no data"
        );
        assert_eq!(
            decode_datagram(&[0x23, 0x01, 0, 0, 0, 7]),
            None,
            "trailing byte"
        );
        assert_eq!(
            decode_datagram(&[0x00, 0x08, 0, 0, 0]),
            None,
            "standard id over 11 bits"
        );
        assert_eq!(decode_datagram(&[0, 0, 0, 0xa0, 0]), None, "bit 29 set");
        assert_eq!(
            decode_datagram(&[0, 0, 0, 0, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
            None,
            "len 9"
        );
        assert_eq!(decode_datagram(&[1, 2]), None);
    }
}
