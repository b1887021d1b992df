//! [`Transport`]: the wire a bridge (or a simulated device) talks on, and how to open it.
use crate::definition::Definitions;
use crate::error::Result;
use crate::link::{Link, LinkConfig};
use crate::transport::{CanBus, SerialPort, SocketCan, UdpCan};
use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

/// The wire a bridge (or the simulator) talks on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    /// A serial device (or a pty slave) in raw 8N1 mode.
    Uart {
        /// The device path (e.g. `/dev/ttyUSB0`, a pty slave).
        path: String,
        /// Line speed [baud].
        baud: u32,
    },
    /// A Linux SocketCAN interface (`can0`, `vcan0`).
    SocketCan {
        /// The interface name.
        iface: String,
    },
    /// CAN over UDP: bind `bind`; send to `peer`, or (when `None`) to the last sender.
    CanUdp {
        /// Local address (port 0 = any free port).
        bind: SocketAddr,
        /// The device's address, or `None` for whoever sent last.
        peer: Option<SocketAddr>,
    },
}

impl Transport {
    /// Opens the wire and puts the codec on it. Must be called inside a tokio runtime.
    ///
    /// # Errors
    /// The transport's own: [`Error::Serial`], [`Error::UnsupportedBaud`],
    /// [`Error::CanInterfaceNotFound`], [`Error::SocketCan`], [`Error::Udp`].
    pub async fn open(&self, defs: Arc<Definitions>, cfg: &LinkConfig) -> Result<Link> {
        Ok(match self {
            Transport::Uart { path, baud } => Link::uart(SerialPort::open(path, *baud)?, defs, cfg),
            Transport::SocketCan { iface } => {
                Link::can(CanBus::SocketCan(SocketCan::open(iface)?), defs, cfg)
            }
            Transport::CanUdp { bind, peer } => {
                Link::can(CanBus::Udp(UdpCan::bind(*bind, *peer).await?), defs, cfg)
            }
        })
    }

    /// The device behind the link as a user names it (the diagnostics' `hardware_id`): the
    /// serial port path, the CAN interface, or `udp:ADDR` (the peer, else the bound
    /// address).
    pub fn hardware_id(&self) -> String {
        match self {
            Transport::Uart { path, .. } => path.clone(),
            Transport::SocketCan { iface } => iface.clone(),
            Transport::CanUdp {
                peer: Some(peer), ..
            } => format!("udp:{peer}"),
            Transport::CanUdp { bind, peer: None } => format!("udp:{bind}"),
        }
    }

    /// True for the CAN transports (devices matter there).
    pub fn is_can(&self) -> bool {
        !matches!(self, Transport::Uart { .. })
    }
}

impl fmt::Display for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Transport::Uart { path, baud } => write!(f, "uart {path} at {baud} baud"),
            Transport::SocketCan { iface } => write!(f, "SocketCAN {iface}"),
            Transport::CanUdp {
                bind,
                peer: Some(peer),
            } => write!(f, "CAN over UDP {bind} -> {peer}"),
            Transport::CanUdp { bind, peer: None } => {
                write!(f, "CAN over UDP {bind} -> last sender")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hardware_id_is_the_port_the_interface_or_the_address() {
        let uart = Transport::Uart {
            path: "/dev/ttyUSB0".into(),
            baud: 115_200,
        };
        assert_eq!(uart.hardware_id(), "/dev/ttyUSB0");
        let can = Transport::SocketCan {
            iface: "can0".into(),
        };
        assert_eq!(can.hardware_id(), "can0");
        let bind: SocketAddr = "127.0.0.1:0".parse().unwrap();
        let peer: SocketAddr = "10.0.0.2:5000".parse().unwrap();
        let udp = Transport::CanUdp {
            bind,
            peer: Some(peer),
        };
        assert_eq!(udp.hardware_id(), "udp:10.0.0.2:5000");
        let udp = Transport::CanUdp { bind, peer: None };
        assert_eq!(udp.hardware_id(), "udp:127.0.0.1:0");
    }
}
