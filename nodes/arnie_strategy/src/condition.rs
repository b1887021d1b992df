//! Conditions on a topic's messages, for the `wait_for` step.
//!
//! The glue turns each message of `topic` into JSON (a comms packet becomes
//! `{"name": .., "id": .., "device": .., "fields": {..}}`) and asks
//! [`WaitFor::matches`]. Keys are dotted paths into that JSON (`"fields.foo"`).
//! Every test must hold: `equals` (numbers compare by value, so `60` equals `60.0`),
//! `at_least` / `at_most` (inclusive, the value must be a number).

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
}
