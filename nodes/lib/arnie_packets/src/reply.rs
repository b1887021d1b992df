//! [`ReplyTracker`]: which waiting send-service call a received packet answers.
//!
//! Pure: the glue registers a wait when it sends a packet whose definition names a
//! `reply`, offers every received packet, and expires waits with the current time.
//! A reply goes to the *oldest* wait for that command (and device, on CAN). A wait for
//! a `reliable` request ([`ReplyTracker::expect_ack`]) takes only the reply that
//! [`acknowledges`] that request (same `seq`, same `command`), so a late acknowledgement
//! of a repeat never answers another request.

use crate::packet::Packet;
use crate::reliable::acknowledges;

/// Identifies one wait; the glue maps it to its responder (e.g. a oneshot sender).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ticket(pub u64);

#[derive(Clone, Debug)]
struct Wait {
    ticket: Ticket,
    reply_id: u8,
    device: Option<u8>,
    deadline_ms: u64,
    /// A reliable request: only its acknowledgement answers it.
    request: Option<Packet>,
}

/// Waits for replies, oldest first.
#[derive(Clone, Debug, Default)]
pub struct ReplyTracker {
    next: u64,
    waits: Vec<Wait>,
}

impl ReplyTracker {
    /// No request pending.
    pub fn new() -> ReplyTracker {
        ReplyTracker::default()
    }

    /// Waits for command `reply_id` (from `device`, when given) until `deadline_ms`.
    pub fn expect(&mut self, reply_id: u8, device: Option<u8>, deadline_ms: u64) -> Ticket {
        let ticket = Ticket(self.next);
        self.next += 1;
        self.waits.push(Wait {
            ticket,
            reply_id,
            device,
            deadline_ms,
            request: None,
        });
        ticket
    }

    /// Waits until `deadline_ms` for the reply that acknowledges `request` (a reliable
    /// packet: same `seq`, same `command`, same device).
    pub fn expect_ack(&mut self, request: Packet, deadline_ms: u64) -> Option<Ticket> {
        let reply_id = request.definition().reply?;
        let device = Some(request.device);
        let ticket = self.expect(reply_id, device, deadline_ms);
        if let Some(w) = self.waits.last_mut() {
            w.request = Some(request);
        }
        Some(ticket)
    }

    /// The wait this packet answers, if any (removed from the tracker).
    pub fn on_packet(&mut self, packet: &Packet) -> Option<Ticket> {
        let i = self.waits.iter().position(|w| match &w.request {
            Some(request) => acknowledges(request, packet),
            None => w.reply_id == packet.id() && !matches!(w.device, Some(d) if d != packet.device),
        })?;
        Some(self.waits.remove(i).ticket)
    }

    /// Removes and returns the waits whose deadline is reached.
    pub fn expire(&mut self, now_ms: u64) -> Vec<Ticket> {
        let (gone, keep): (Vec<Wait>, Vec<Wait>) =
            self.waits.drain(..).partition(|w| now_ms >= w.deadline_ms);
        self.waits = keep;
        gone.into_iter().map(|w| w.ticket).collect()
    }

    /// Forgets a wait (its caller went away).
    pub fn cancel(&mut self, ticket: Ticket) {
        self.waits.retain(|w| w.ticket != ticket);
    }

    /// The earliest deadline, to sleep until.
    pub fn deadline_ms(&self) -> Option<u64> {
        self.waits.iter().map(|w| w.deadline_ms).min()
    }

    /// Number of waits.
    pub fn len(&self) -> usize {
        self.waits.len()
    }

    /// True when nothing waits.
    pub fn is_empty(&self) -> bool {
        self.waits.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::definition::Definitions;

    #[test]
    fn oldest_matching_wait_wins_and_deadlines_expire() {
        let defs = Definitions::from_texts([
            ("a", r#"{"name":"Pong","id":2,"data":{}}"#),
            ("b", r#"{"name":"Other","id":3,"data":{}}"#),
        ])
        .expect("valid");
        let pong = |device| {
            let mut p = Packet::new(defs.get(2).expect("pong").clone());
            p.device = device;
            p
        };
        let mut t = ReplyTracker::new();
        let a = t.expect(2, None, 100);
        let b = t.expect(2, Some(4), 50);
        let c = t.expect(2, None, 200);
        assert_eq!(t.deadline_ms(), Some(50));
        assert_eq!(
            t.on_packet(&Packet::new(defs.get(3).expect("other").clone())),
            None
        );
        assert_eq!(t.on_packet(&pong(4)), Some(a));
        assert_eq!(t.on_packet(&pong(5)), Some(c), "b waits for device 4 only");
        assert_eq!(t.expire(49), []);
        assert_eq!(t.expire(50), [b]);
        assert!(t.is_empty());
        let d = t.expect(2, None, 10);
        t.cancel(d);
        assert_eq!(t.on_packet(&pong(0)), None);
    }

    #[test]
    fn a_reliable_request_takes_only_its_acknowledgement() {
        let defs = Definitions::from_texts([
            (
                "c",
                r#"{"name":"Cmd","id":5,"reply":"Ack","reliable":{"attempts":3,"interval_ms":10},"data":{"seq":{"type":"uint16"}}}"#,
            ),
            (
                "a",
                r#"{"name":"Ack","id":7,"data":{"command":{"type":"uint8"},"seq":{"type":"uint16"}}}"#,
            ),
        ])
        .expect("valid");
        let p = |name: &str, json: &str| defs.packet_from_json(name, 0, 0, json).expect("valid");
        let mut t = ReplyTracker::new();
        let plain = t.expect(7, None, 100);
        let one = t
            .expect_ack(p("Cmd", r#"{"seq":1}"#), 100)
            .expect("has a reply");
        let two = t
            .expect_ack(p("Cmd", r#"{"seq":2}"#), 100)
            .expect("has a reply");
        assert_eq!(
            t.on_packet(&p("Ack", r#"{"command":5,"seq":2}"#)),
            Some(plain)
        );
        assert_eq!(
            t.on_packet(&p("Ack", r#"{"command":5,"seq":2}"#)),
            Some(two)
        );
        assert_eq!(
            t.on_packet(&p("Ack", r#"{"command":5,"seq":2}"#)),
            None,
            "a late copy"
        );
        assert_eq!(t.on_packet(&p("Ack", r#"{"command":4,"seq":1}"#)), None);
        assert_eq!(
            t.on_packet(&p("Ack", r#"{"command":5,"seq":1}"#)),
            Some(one)
        );
    }
}
