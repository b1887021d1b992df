//! The device simulator: the peer at the other end of a pty or CAN-over-UDP link, for
//! tests and the demo. A packet whose definition names a `reply` (e.g. Ping → Pong) is
//! answered with that reply, same-named fields of the same type copied and the others at
//! their defaults; any other packet is echoed back unchanged (device included).
use crate::counters::Counters;
use crate::definition::Definitions;
use crate::error::Result;
use crate::link::{Link, LinkEvent};
use crate::packet::Packet;
use std::future::Future;
use std::sync::Arc;

/// The pure answering rule.
#[derive(Clone, Debug)]
pub struct Simulator {
    defs: Arc<Definitions>,
}

impl Simulator {
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
    use crate::value::Value;

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
