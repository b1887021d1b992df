//! Protocol-level reliability for definitions marked `"reliable"` (pure: time is passed
//! in as `now_ms`).
//!
//! A reliable packet has an unsigned `seq` field and a `reply` that acknowledges it.
//! - The **sender** ([`Repeater`]) sends it, then repeats the same packet every
//!   `interval_ms` until a packet [`acknowledges`] it, at most `attempts` sends in all;
//!   one interval after the last send without an acknowledgement it gives up.
//! - The **receiver** ([`Receiver`]) acts on the first copy of a (command, device, `seq`)
//!   and answers every copy with the same acknowledgement: a repeat whose
//!   acknowledgement was lost is acknowledged again, never acted on twice. A key is
//!   forgotten [`Reliable::window_ms`] after its last copy, so a sender that means a new
//!   command uses a new `seq` (or waits that long).
//! - A receiver with no acknowledgement of its own to give (the bridge, for a packet the
//!   board sends) answers with [`ack_for`]: the reply definition with `seq` (and
//!   `command`, when it has that field) echoed, the other fields at their defaults.
use crate::definition::{Definitions, Reliable};
use crate::packet::Packet;
use crate::value::Value;
use std::collections::HashMap;

/// The `seq` field as a number (unsigned types only; `None` without one).
pub fn seq_of(p: &Packet) -> Option<u64> {
    match p.get("seq")? {
        Value::U8(v) => Some(u64::from(v)),
        Value::U16(v) => Some(u64::from(v)),
        Value::U32(v) => Some(u64::from(v)),
        _ => None,
    }
}

/// True when `reply` acknowledges `request`: it is the request definition's `reply`, from
/// the same device, with the same `seq` and, when the reply has a `command` field, the
/// request's id there.
pub fn acknowledges(request: &Packet, reply: &Packet) -> bool {
    request.definition().reply == Some(reply.id())
        && request.device == reply.device
        && seq_of(request).is_some()
        && seq_of(request) == seq_of(reply)
        && match reply.get("command") {
            None => true,
            Some(Value::U8(c)) => c == request.id(),
            Some(_) => false,
        }
}

/// The acknowledgement of a reliable packet built from its `reply` definition: `seq` and
/// (when present) `command` echoed, the rest at their defaults. `None` when `p` is not
/// reliable or the reply cannot carry the echo.
pub fn ack_for(defs: &Definitions, p: &Packet) -> Option<Packet> {
    p.definition().reliable?;
    let def = defs.get(p.definition().reply?)?;
    let mut ack = Packet::new(def.clone());
    ack.device = p.device;
    let seq = seq_of(p)?;
    let value = match def.fields.get(def.field_index("seq")?)?.ty {
        crate::FieldType::UInt8 => Value::U8(u8::try_from(seq).ok()?),
        crate::FieldType::UInt16 => Value::U16(u16::try_from(seq).ok()?),
        crate::FieldType::UInt32 => Value::U32(u32::try_from(seq).ok()?),
        _ => return None,
    };
    ack.set("seq", value).ok()?;
    if def.field_index("command").is_some() {
        ack.set("command", Value::U8(p.id())).ok()?;
    }
    Some(ack)
}

/// (command id, device, seq): what identifies the copies of one reliable packet.
pub type Key = (u8, u8, u64);

/// The key of a reliable packet, `None` for others.
pub fn key_of(p: &Packet) -> Option<Key> {
    p.definition().reliable?;
    Some((p.id(), p.device, seq_of(p)?))
}

/// What a received packet is, for [`Receiver::on_packet`].
#[derive(Clone, Debug, PartialEq)]
pub enum Arrival {
    /// Not a reliable packet: deliver it as usual.
    Untracked,
    /// The first copy: deliver it, and give [`Receiver::set_reply`] its acknowledgement.
    First(Key),
    /// A repeat of a delivered one: do not deliver; send `reply` (the first copy's
    /// acknowledgement) again, when there is one.
    Duplicate {
        /// The packet's identity (command, device, seq).
        key: Key,
        /// The acknowledgement sent for the first copy, to send again.
        reply: Option<Packet>,
    },
}

#[derive(Clone, Debug)]
struct Seen {
    last_ms: u64,
    window_ms: u64,
    reply: Option<Packet>,
}

/// The receiving end: recognises repeats of reliable packets.
#[derive(Clone, Debug, Default)]
pub struct Receiver {
    seen: HashMap<Key, Seen>,
}

impl Receiver {
    /// Nothing tracked yet.
    pub fn new() -> Receiver {
        Receiver::default()
    }

    /// Classifies one received packet at `now_ms` (and forgets keys past their window).
    pub fn on_packet(&mut self, p: &Packet, now_ms: u64) -> Arrival {
        self.seen
            .retain(|_, s| now_ms < s.last_ms.saturating_add(s.window_ms));
        let (Some(key), Some(rel)) = (key_of(p), p.definition().reliable) else {
            return Arrival::Untracked;
        };
        match self.seen.get_mut(&key) {
            Some(s) => {
                s.last_ms = now_ms;
                Arrival::Duplicate {
                    key,
                    reply: s.reply.clone(),
                }
            }
            None => {
                self.seen.insert(
                    key,
                    Seen {
                        last_ms: now_ms,
                        window_ms: rel.window_ms(),
                        reply: None,
                    },
                );
                Arrival::First(key)
            }
        }
    }

    /// Remembers the acknowledgement sent for `key`'s first copy, to repeat it.
    pub fn set_reply(&mut self, key: Key, reply: Packet) {
        if let Some(s) = self.seen.get_mut(&key) {
            s.reply = Some(reply);
        }
    }

    /// Keys remembered.
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    /// True when none is.
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
}

/// Identifies one repeated send (the caller's handle, e.g. its request ticket).
pub type Id = u64;

#[derive(Clone, Debug)]
struct Sending {
    id: Id,
    packet: Packet,
    rel: Reliable,
    sent: u32,
    next_ms: u64,
}

/// What [`Repeater::due`] asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Due {
    /// Send this packet again; `attempt` is its number (2 = the first repeat).
    Repeat {
        /// The caller's handle given to `start`.
        id: Id,
        /// The packet.
        packet: Packet,
        /// This send's number (2 = the first repeat).
        attempt: u32,
    },
    /// No acknowledgement after `attempts` sends and one more interval: stopped.
    GaveUp {
        /// The caller's handle given to `start`.
        id: Id,
        /// The packet.
        packet: Packet,
        /// Sends made.
        attempts: u32,
    },
}

/// The sending end: repeats reliable packets until acknowledged.
#[derive(Clone, Debug, Default)]
pub struct Repeater {
    sending: Vec<Sending>,
}

impl Repeater {
    /// Nothing tracked yet.
    pub fn new() -> Repeater {
        Repeater::default()
    }

    /// Starts repeating `packet`, whose first send the caller has just made at `now_ms`.
    /// Returns false (nothing tracked) when the packet is not reliable.
    pub fn start(&mut self, id: Id, packet: Packet, now_ms: u64) -> bool {
        let Some(rel) = packet.definition().reliable else {
            return false;
        };
        if seq_of(&packet).is_none() {
            return false;
        }
        self.sending.push(Sending {
            id,
            packet,
            rel,
            sent: 1,
            next_ms: now_ms.saturating_add(rel.interval_ms),
        });
        true
    }

    /// A received packet: the sends it acknowledges are done. Returns their ids.
    pub fn on_packet(&mut self, p: &Packet) -> Vec<Id> {
        let mut done = Vec::new();
        self.sending.retain(|s| {
            let acked = acknowledges(&s.packet, p);
            if acked {
                done.push(s.id);
            }
            !acked
        });
        done
    }

    /// Stops repeating `id` (its caller gave up); true when it was still repeating.
    pub fn cancel(&mut self, id: Id) -> bool {
        let before = self.sending.len();
        self.sending.retain(|s| s.id != id);
        self.sending.len() != before
    }

    /// Repeats and give-ups due at `now_ms`.
    pub fn due(&mut self, now_ms: u64) -> Vec<Due> {
        let mut out = Vec::new();
        self.sending.retain_mut(|s| {
            if now_ms < s.next_ms {
                return true;
            }
            if s.sent >= s.rel.attempts {
                out.push(Due::GaveUp {
                    id: s.id,
                    packet: s.packet.clone(),
                    attempts: s.sent,
                });
                return false;
            }
            s.sent += 1;
            s.next_ms = now_ms.saturating_add(s.rel.interval_ms);
            out.push(Due::Repeat {
                id: s.id,
                packet: s.packet.clone(),
                attempt: s.sent,
            });
            true
        });
        out
    }

    /// When [`due`](Self::due) next has something to do.
    pub fn deadline_ms(&self) -> Option<u64> {
        self.sending.iter().map(|s| s.next_ms).min()
    }

    /// Sends being repeated.
    pub fn len(&self) -> usize {
        self.sending.len()
    }

    /// True when none is.
    pub fn is_empty(&self) -> bool {
        self.sending.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defs() -> Definitions {
        Definitions::from_texts([
            (
                "cmd",
                r#"{"name":"Cmd","id":5,"reply":"Ack","reliable":{"attempts":3,"interval_ms":100},
                    "data":{"seq":{"type":"uint16"},"what":{"type":"uint8"}}}"#,
            ),
            (
                "done",
                r#"{"name":"Done","id":6,"reply":"Ack","reliable":{"attempts":2,"interval_ms":50},
                    "data":{"seq":{"type":"uint16"},"status":{"type":"uint8"}}}"#,
            ),
            (
                "ack",
                r#"{"name":"Ack","id":7,"data":{"command":{"type":"uint8"},"seq":{"type":"uint16"},"status":{"type":"uint8"}}}"#,
            ),
            (
                "plain",
                r#"{"name":"Plain","id":8,"data":{"seq":{"type":"uint16"}}}"#,
            ),
        ])
        .expect("valid")
    }

    fn packet(d: &Definitions, name: &str, json: &str) -> Packet {
        d.packet_from_json(name, 0, 0, json).expect("valid")
    }

    #[test]
    fn acknowledgement_matches_seq_command_and_device() {
        let d = defs();
        let cmd = packet(&d, "Cmd", r#"{"seq":3}"#);
        assert!(acknowledges(
            &cmd,
            &packet(&d, "Ack", r#"{"command":5,"seq":3}"#)
        ));
        assert!(!acknowledges(
            &cmd,
            &packet(&d, "Ack", r#"{"command":5,"seq":4}"#)
        ));
        assert!(!acknowledges(
            &cmd,
            &packet(&d, "Ack", r#"{"command":6,"seq":3}"#)
        ));
        let mut other_device = packet(&d, "Ack", r#"{"command":5,"seq":3}"#);
        other_device.device = 2;
        assert!(!acknowledges(&cmd, &other_device));
        let done = packet(&d, "Done", r#"{"seq":9,"status":1}"#);
        let ack = ack_for(&d, &done).expect("reliable");
        assert_eq!(ack.fields_json(), r#"{"command":6,"seq":9,"status":0}"#);
        assert!(acknowledges(&done, &ack));
        assert!(ack_for(&d, &packet(&d, "Plain", "")).is_none());
    }

    #[test]
    fn repeats_until_acknowledged_or_gives_up() {
        let d = defs();
        let mut r = Repeater::new();
        assert!(!r.start(1, packet(&d, "Plain", ""), 0), "not reliable");
        assert!(r.start(1, packet(&d, "Cmd", r#"{"seq":1}"#), 0));
        assert!(r.start(2, packet(&d, "Cmd", r#"{"seq":2}"#), 10));
        assert_eq!(r.deadline_ms(), Some(100));
        assert!(r.due(99).is_empty());
        let due = r.due(100);
        assert!(
            matches!(
                &due[..],
                [Due::Repeat {
                    id: 1,
                    attempt: 2,
                    ..
                }]
            ),
            "{due:?}"
        );
        assert_eq!(
            r.on_packet(&packet(&d, "Ack", r#"{"command":5,"seq":2}"#)),
            [2]
        );
        assert!(matches!(
            &r.due(200)[..],
            [Due::Repeat {
                id: 1,
                attempt: 3,
                ..
            }]
        ));
        assert!(r.due(299).is_empty(), "one interval for the last ack");
        assert!(matches!(
            &r.due(300)[..],
            [Due::GaveUp {
                id: 1,
                attempts: 3,
                ..
            }]
        ));
        assert!(r.is_empty());
        assert!(r.start(3, packet(&d, "Cmd", r#"{"seq":3}"#), 0));
        assert!(r.cancel(3) && !r.cancel(3));
    }

    #[test]
    fn receiver_acts_once_and_repeats_its_acknowledgement() {
        let d = defs();
        let mut rx = Receiver::new();
        assert_eq!(
            rx.on_packet(&packet(&d, "Plain", r#"{"seq":1}"#), 0),
            Arrival::Untracked
        );
        let cmd = packet(&d, "Cmd", r#"{"seq":7,"what":1}"#);
        let Arrival::First(key) = rx.on_packet(&cmd, 0) else {
            panic!("first copy")
        };
        let ack = packet(&d, "Ack", r#"{"command":5,"seq":7,"status":1}"#);
        rx.set_reply(key, ack.clone());
        assert_eq!(
            rx.on_packet(&cmd, 300),
            Arrival::Duplicate {
                key,
                reply: Some(ack)
            }
        );
        // The window (4 × 100 ms) runs from the last copy.
        assert!(matches!(rx.on_packet(&cmd, 699), Arrival::Duplicate { .. }));
        assert!(matches!(rx.on_packet(&cmd, 1099), Arrival::First(_)));
        let other = packet(&d, "Cmd", r#"{"seq":8}"#);
        assert!(matches!(rx.on_packet(&other, 1100), Arrival::First(_)));
        assert_eq!(rx.len(), 2);
    }
}
