//! Conditions on a topic's messages, for the `wait_for` step.
//!
//! The glue turns each message of `topic` into JSON (a comms packet becomes
//! `{"name": .., "id": .., "device": .., "fields": {..}}`) and asks
//! [`WaitFor::matches`]. Keys are dotted paths into that JSON (`"fields.foo"`).
//! Every test must hold: `equals` (numbers compare by value, so `60` equals `60.0`),
//! `at_least` / `at_most` (inclusive, the value must be a number).
//!
//! [`Backlog`] keeps a watched topic's recent messages, so a `wait_for` also sees a
//! reply that arrived while the step before it was still running (a packet's
//! `ActuatorDone` can come in before its `Ack` has made it through a lossy link, i.e.
//! before the `send` step ends).

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::{Map, Value};

/// Wait until a message on `topic` satisfies every test.
#[derive(Debug, Clone, PartialEq)]
pub struct WaitFor {
    /// The watched topic, as the file names it (relative or absolute).
    pub topic: String,
    /// Fields (dotted paths into the message's JSON) that must equal these values.
    pub equals: Map<String, Value>,
    /// Numeric fields that must be >= these values.
    pub at_least: Vec<(String, f64)>,
    /// Numeric fields that must be <= these values.
    pub at_most: Vec<(String, f64)>,
}

/// The value at a dotted path (`"fields.foo"`), if any.
pub fn lookup<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(value, |v, key| v.get(key))
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

impl WaitFor {
    /// True when `message` passes every test; a missing key fails its test.
    pub fn matches(&self, message: &Value) -> bool {
        let eq = self
            .equals
            .iter()
            .all(|(k, want)| lookup(message, k).is_some_and(|got| same(got, want)));
        let num = |k: &str| lookup(message, k).and_then(Value::as_f64);
        let lo = self
            .at_least
            .iter()
            .all(|(k, min)| num(k).is_some_and(|v| v >= *min));
        let hi = self
            .at_most
            .iter()
            .all(|(k, max)| num(k).is_some_and(|v| v <= *max));
        eq && lo && hi
    }
}

/// The recent messages of one watched topic, numbered in arrival order, and the mark
/// from which a `wait_for` may match them.
///
/// The rule: a `wait_for` matches the first message that arrived **since the previous
/// step began** ([`Backlog::mark`], called when a move or send step starts) and that no
/// earlier `wait_for` matched ([`Backlog::take`] and [`Backlog::consume`] move the mark
/// past the matched message). Messages older than the mark never match, so a retried
/// task does not see the reply of its previous try.
#[derive(Debug)]
pub struct Backlog {
    cap: usize,
    next: u64,
    mark: u64,
    items: VecDeque<(u64, Arc<Value>)>,
    evicted_unseen: u64,
}

impl Backlog {
    /// Keeps at most `cap` messages (at least 1).
    pub fn new(cap: usize) -> Self {
        Self {
            cap: cap.max(1),
            next: 0,
            mark: 0,
            items: VecDeque::new(),
            evicted_unseen: 0,
        }
    }

    /// Stores a message; returns its number.
    pub fn push(&mut self, message: Arc<Value>) -> u64 {
        let seq = self.next;
        self.next += 1;
        if self.items.len() == self.cap {
            if let Some((old, _)) = self.items.pop_front() {
                if old >= self.mark {
                    self.evicted_unseen += 1;
                }
            }
        }
        self.items.push_back((seq, message));
        seq
    }

    /// A step begins: only messages from now on may match.
    pub fn mark(&mut self) {
        self.mark = self.next;
    }

    /// The number the next message will get: every message below it is in the past.
    pub fn next_seq(&self) -> u64 {
        self.next
    }

    /// The first stored message at or after the mark that matches; the mark moves past
    /// it. `None` leaves the mark alone.
    pub fn take(&mut self, condition: &WaitFor) -> Option<u64> {
        let found = self
            .items
            .iter()
            .find(|(seq, m)| *seq >= self.mark && condition.matches(m))
            .map(|(seq, _)| *seq)?;
        self.mark = found + 1;
        Some(found)
    }

    /// A live message `seq` matched: the mark moves past it.
    pub fn consume(&mut self, seq: u64) {
        self.mark = self.mark.max(seq + 1);
    }

    /// True when message `seq` may still match (it is at or after the mark).
    pub fn eligible(&self, seq: u64) -> bool {
        seq >= self.mark
    }

    /// Messages dropped from the store before any `wait_for` could look at them.
    pub fn evicted_unseen(&self) -> u64 {
        self.evicted_unseen
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cond(equals: Value, at_least: &[(&str, f64)], at_most: &[(&str, f64)]) -> WaitFor {
        WaitFor {
            topic: "/comms/rx".into(),
            equals: equals.as_object().cloned().unwrap_or_default(),
            at_least: at_least.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            at_most: at_most.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        }
    }

    #[test]
    fn equals_on_dotted_paths_and_numbers_by_value() {
        let c = cond(json!({"name": "Done", "fields.foo": 60}), &[], &[]);
        assert!(c.matches(&json!({"name": "Done", "fields": {"foo": 60.0}})));
        assert!(!c.matches(&json!({"name": "Done", "fields": {"foo": 61}})));
        assert!(!c.matches(&json!({"name": "Other", "fields": {"foo": 60}})));
        assert!(!c.matches(&json!({"name": "Done"})), "a missing key fails");
    }

    #[test]
    fn bounds_are_inclusive_and_need_numbers() {
        let c = cond(json!({}), &[("fields.d", 1.0)], &[("fields.d", 2.0)]);
        assert!(c.matches(&json!({"fields": {"d": 1}})));
        assert!(c.matches(&json!({"fields": {"d": 2.0}})));
        assert!(!c.matches(&json!({"fields": {"d": 2.5}})));
        assert!(!c.matches(&json!({"fields": {"d": "1.5"}})));
    }

    fn done(seq: u64) -> Arc<Value> {
        Arc::new(json!({"name": "ActuatorDone", "fields": {"seq": seq, "status": 0}}))
    }

    #[test]
    fn a_reply_that_came_before_the_wait_still_matches() {
        let mut b = Backlog::new(8);
        b.push(done(201)); // an earlier task's reply
        b.mark(); // the send step begins
        b.push(Arc::new(json!({"name": "Ack"})));
        b.push(done(202)); // in before the send step ended
        let c = cond(json!({"name": "ActuatorDone", "fields.seq": 202}), &[], &[]);
        assert_eq!(b.take(&c), Some(2));
        assert_eq!(b.take(&c), None, "a matched message matches once");
    }

    #[test]
    fn messages_before_the_mark_never_match() {
        let mut b = Backlog::new(8);
        b.push(done(201));
        b.mark(); // a retry of the same task sends seq 201 again
        let c = cond(json!({"name": "ActuatorDone", "fields.seq": 201}), &[], &[]);
        assert_eq!(b.take(&c), None);
        let seq = b.push(done(201));
        assert!(b.eligible(seq));
        b.consume(seq);
        assert!(!b.eligible(seq));
        assert_eq!(b.take(&c), None);
    }

    #[test]
    fn a_full_store_counts_what_nobody_saw() {
        let mut b = Backlog::new(2);
        b.push(done(1));
        b.mark();
        b.push(done(2));
        b.push(done(3)); // evicts 1: before the mark, not counted
        assert_eq!(b.evicted_unseen(), 0);
        b.push(done(4)); // evicts 2: unseen
        assert_eq!(b.evicted_unseen(), 1);
        let c = cond(json!({"name": "ActuatorDone"}), &[], &[]);
        assert_eq!(
            b.take(&c),
            Some(2),
            "the oldest stored eligible message first"
        );
    }
}
