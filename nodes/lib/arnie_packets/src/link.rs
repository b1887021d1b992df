//! [`Link`]: the codec on top of a transport. `send(&Packet)` encodes and writes;
//! `recv()` reads, decodes and returns the next packet or rejection.
//!
//! This is the only layer with a clock: it passes `now_ms` (milliseconds since the link
//! was made, from tokio's clock, so `tokio::time::pause` works in tests) to the pure
//! decoder / reassembler so truncated frames and stale CAN pages time out.
//!
//! `raw` bytes: on UART the whole frame; on CAN the frames in the CAN-over-UDP datagram
//! format ([`udp::encode_datagram`]), concatenated.
use crate::can::{self, CanMessage, Reassembler, ReassemblerConfig};
use crate::counters::{Counters, RejectKind, Rejected};
use crate::definition::Definitions;
use crate::error::Result;
use crate::packet::Packet;
use crate::transport::{udp, CanBus, SerialPort};
use crate::uart::{self, Decoder, DecoderConfig, Frame};
use std::sync::Arc;
use tokio::time::{sleep_until, Duration, Instant};

/// Settings of both codecs (only the one matching the transport is used).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkConfig {
    /// The UART frame decoder's limits (largest frame, partial-frame timeout).
    pub decoder: DecoderConfig,
    /// The CAN page reassembler's limits (longest payload, page timeout).
    pub reassembler: ReassemblerConfig,
}

/// A decoded packet and the bytes it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Received {
    /// The packet, decoded with its definition (device 0 on UART).
    pub packet: Packet,
    /// The bytes it came in: the whole UART frame, or the CAN frames as CAN-over-UDP
    /// datagrams, concatenated.
    pub raw: Vec<u8>,
}

/// What [`Link::recv`] yields: a packet, or a rejection to log (already counted).
#[derive(Clone, Debug, PartialEq)]
pub enum LinkEvent {
    /// A packet decoded.
    Packet(Received),
    /// Bytes or frames that did not become a packet (counted in [`Link::counters`]).
    Rejected(Rejected),
}

/// Changes bytes on a UART wire in place, both ways, before they are decoded or written
/// (a test device's line noise: see [`Link::with_noise`]).
pub type Noise = Box<dyn FnMut(&mut [u8]) + Send>;

/// The noise of a UART link, if any (a newtype only to be `Debug`).
struct NoiseHook(Option<Noise>);

impl std::fmt::Debug for NoiseHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "noise"
        } else {
            "no noise"
        })
    }
}

#[derive(Debug)]
enum Wire {
    Uart {
        port: SerialPort,
        decoder: Decoder,
        noise: NoiseHook,
    },
    Can {
        bus: CanBus,
        reassembler: Reassembler,
    },
}

/// One comms link: definitions, codec state, transport and counters.
#[derive(Debug)]
pub struct Link {
    wire: Wire,
    defs: Arc<Definitions>,
    counters: Counters,
    start: Instant,
}

impl Link {
    /// A UART link over a serial port. The decoder knows the definitions' payload lengths.
    pub fn uart(port: SerialPort, defs: Arc<Definitions>, cfg: &LinkConfig) -> Link {
        let decoder = Decoder::new(cfg.decoder).with_lengths(defs.payload_lengths());
        let noise = NoiseHook(None);
        Link::with_wire(
            Wire::Uart {
                port,
                decoder,
                noise,
            },
            defs,
        )
    }

    /// Puts `noise` on a UART link: it sees (and may change) every byte read, before
    /// decoding, and every frame written, after encoding (what [`send`](Self::send)
    /// returns stays the clean frame). No effect on CAN links.
    pub fn with_noise(mut self, noise: Noise) -> Link {
        if let Wire::Uart { noise: hook, .. } = &mut self.wire {
            hook.0 = Some(noise);
        }
        self
    }

    /// A CAN link over SocketCAN or CAN-over-UDP.
    pub fn can(bus: CanBus, defs: Arc<Definitions>, cfg: &LinkConfig) -> Link {
        Link::with_wire(
            Wire::Can {
                bus,
                reassembler: Reassembler::new(cfg.reassembler),
            },
            defs,
        )
    }

    fn with_wire(wire: Wire, defs: Arc<Definitions>) -> Link {
        Link {
            wire,
            defs,
            counters: Counters::default(),
            start: Instant::now(),
        }
    }

    /// True on CAN (SocketCAN or CAN-over-UDP), where packets carry a device number.
    pub fn is_can(&self) -> bool {
        matches!(self.wire, Wire::Can { .. })
    }

    /// The definitions this link decodes with.
    pub fn definitions(&self) -> &Arc<Definitions> {
        &self.defs
    }

    /// Encodes without sending: the bytes [`send`](Self::send) would write.
    ///
    /// # Errors
    /// [`Error::FrameTooLarge`](crate::Error::FrameTooLarge) on UART; on CAN a command over 63,
    /// a device over 31 ([`Error::CanCommandOutOfRange`](crate::Error::CanCommandOutOfRange), …).
    pub fn encode(&self, packet: &Packet) -> Result<Vec<u8>> {
        match &self.wire {
            Wire::Uart { .. } => uart::encode_packet(packet),
            Wire::Can { .. } => Ok(can::encode_packet(packet)?
                .iter()
                .flat_map(udp::encode_datagram)
                .collect()),
        }
    }

    /// Encodes and writes one packet; returns the raw bytes written.
    pub async fn send(&mut self, packet: &Packet) -> Result<Vec<u8>> {
        let raw = self.encode(packet)?;
        let sent = match &mut self.wire {
            Wire::Uart {
                port,
                noise: NoiseHook(Some(noise)),
                ..
            } => {
                let mut noisy = raw.clone();
                noise(&mut noisy);
                port.write_all(&noisy).await
            }
            Wire::Uart { port, .. } => port.write_all(&raw).await,
            Wire::Can { bus, .. } => {
                let mut sent = Ok(());
                for frame in can::encode_packet(packet)? {
                    sent = bus.send(&frame).await;
                    if sent.is_err() {
                        break;
                    }
                }
                sent
            }
        };
        match sent {
            Ok(()) => {
                self.counters.tx_packets += 1;
                Ok(raw)
            }
            Err(e) => {
                self.counters.io_errors += 1;
                Err(e)
            }
        }
    }

    /// The next packet or rejection. `Err` only when the transport itself fails (then
    /// the link is probably gone). Cancel-safe: use it in `tokio::select!`.
    pub async fn recv(&mut self) -> Result<LinkEvent> {
        loop {
            let now = self.now_ms();
            if let Some(event) = self.poll_core(now) {
                return Ok(event);
            }
            let deadline = self
                .deadline_ms()
                .map(|ms| self.start + Duration::from_millis(ms));
            let result = match &mut self.wire {
                Wire::Uart {
                    port,
                    decoder,
                    noise,
                } => {
                    let mut buf = [0u8; 512];
                    let read = tokio::select! {
                        // Bytes already waiting win over the timeout that would drop them.
                        biased;
                        r = port.read(&mut buf) => Some(r),
                        _ = sleep_or_never(deadline) => None,
                    };
                    match read {
                        Some(Ok(n)) => {
                            if let Some(noise) = &mut noise.0 {
                                noise(&mut buf[..n]);
                            }
                            decoder.push(&buf[..n], ms_since(self.start));
                            Ok(())
                        }
                        Some(Err(e)) => Err(e),
                        None => Ok(()),
                    }
                }
                Wire::Can { bus, reassembler } => {
                    let got = tokio::select! {
                        // Bytes already waiting win over the timeout that would drop them.
                        biased;
                        r = bus.recv() => Some(r),
                        _ = sleep_or_never(deadline) => None,
                    };
                    match got {
                        Some(Ok(Ok(frame))) => {
                            reassembler.push(&frame, ms_since(self.start));
                            Ok(())
                        }
                        Some(Ok(Err(rejected))) => {
                            self.counters.record(rejected.kind);
                            return Ok(LinkEvent::Rejected(rejected));
                        }
                        Some(Err(e)) => Err(e),
                        None => Ok(()),
                    }
                }
            };
            if let Err(e) = result {
                self.counters.io_errors += 1;
                return Err(e);
            }
        }
    }

    /// All counts: the link's own plus its decoder's or reassembler's.
    pub fn counters(&self) -> Counters {
        let mut all = self.counters.clone();
        match &self.wire {
            Wire::Uart { decoder, .. } => all.merge(decoder.counters()),
            Wire::Can { reassembler, .. } => all.merge(reassembler.counters()),
        }
        all
    }

    fn now_ms(&self) -> u64 {
        ms_since(self.start)
    }

    fn deadline_ms(&self) -> Option<u64> {
        match &self.wire {
            Wire::Uart { decoder, .. } => decoder.deadline_ms(),
            Wire::Can { reassembler, .. } => reassembler.deadline_ms(),
        }
    }

    /// Takes the next item out of the pure core, decoding frames into packets.
    fn poll_core(&mut self, now_ms: u64) -> Option<LinkEvent> {
        let item = match &mut self.wire {
            Wire::Uart { decoder, .. } => decoder.next(now_ms).map(|r| r.map(Whole::Uart)),
            Wire::Can { reassembler, .. } => {
                reassembler.expire(now_ms);
                reassembler.pop().map(|r| r.map(Whole::Can))
            }
        }?;
        Some(match item {
            Ok(whole) => self.decode(whole),
            Err(rejected) => LinkEvent::Rejected(rejected),
        })
    }

    fn decode(&mut self, whole: Whole) -> LinkEvent {
        let (command, device, payload) = match &whole {
            Whole::Uart(f) => (f.command, 0, f.payload()),
            Whole::Can(m) => (m.command, m.device, &m.payload[..]),
        };
        let decoded = match self.defs.get(command) {
            None => Err(RejectKind::UnknownCommand),
            Some(def) => Packet::decode(def.clone(), payload),
        };
        match decoded {
            Ok(mut packet) => {
                packet.device = device;
                let raw = match whole {
                    Whole::Uart(f) => f.raw,
                    Whole::Can(m) => can::encode(m.command, m.device, &m.payload)
                        .map(|fs| fs.iter().flat_map(udp::encode_datagram).collect())
                        .unwrap_or(m.payload),
                };
                self.counters.rx_packets += 1;
                LinkEvent::Packet(Received { packet, raw })
            }
            Err(kind) => {
                self.counters.record(kind);
                LinkEvent::Rejected(Rejected::new(kind, Some(command)))
            }
        }
    }
}

/// A frame or message that passed framing, before definition decoding.
enum Whole {
    Uart(Frame),
    Can(CanMessage),
}

fn ms_since(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

async fn sleep_or_never(deadline: Option<Instant>) {
    match deadline {
        Some(d) => sleep_until(d).await,
        None => std::future::pending().await,
    }
}
