//! The wires: a byte stream ([`SerialPort`]) for UART links and a frame bus ([`CanBus`])
//! for CAN links, real ([`SocketCan`]) or over UDP ([`UdpCan`]).
pub mod serial;
pub mod socketcan;
pub mod udp;

pub use serial::{open_pty, SerialPort};
pub use socketcan::SocketCan;
pub use udp::UdpCan;

use crate::can::CanFrame;
use crate::counters::Rejected;
use crate::error::Result;

/// A CAN bus: one interface for SocketCAN and CAN-over-UDP.
#[derive(Debug)]
pub enum CanBus {
    /// A Linux SocketCAN interface.
    SocketCan(SocketCan),
    /// CAN frames as UDP datagrams.
    Udp(UdpCan),
}

impl CanBus {
    /// Sends one frame.
    pub async fn send(&mut self, frame: &CanFrame) -> Result<()> {
        match self {
            CanBus::SocketCan(s) => s.send(frame).await,
            CanBus::Udp(u) => u.send(frame).await,
        }
    }

    /// Receives one frame; a frame that is not a classic data frame is `Ok(Err(..))`.
    /// Cancel-safe.
    pub async fn recv(&mut self) -> Result<std::result::Result<CanFrame, Rejected>> {
        match self {
            CanBus::SocketCan(s) => s.recv().await,
            CanBus::Udp(u) => u.recv().await,
        }
    }
}
