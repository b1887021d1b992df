//! Stage one of loading: JSON text → raw instructions, exactly as written.
//!
//! The JSON tree is walked by hand (not derived) so every error carries the path of the
//! value at fault. This stage checks shapes and types, integer ranges and tolerances;
//! names and variables stay strings and are checked in [`crate::validate`].
//! Unknown keys are rejected: a typo such as `trajectoryVerfication` would otherwise
//! silently turn a feature off. Every `x`/`y`/`z` (steps and checks), `state`, `state.arm`
//! and `state.objects` must be written (`-1` says "don't care"). Optional keys, with the
//! default BrainJS effectively used: `trajectoryVerification` (false), `decisions` ([]),
//! `reset` (none: unlimited retries), `delay` (0), `certainty` (none).

use serde_json::{Map, Value};

use crate::error::BrainError;

/// A coordinate or check centre as written.
#[derive(Debug, Clone, PartialEq)]
pub enum RawValue {
    /// A number (mm).
    Num(f64),
    /// A string: must be a variable name.
    Text(String),
}

/// A check as written.
#[derive(Debug, Clone, PartialEq)]
pub enum RawCheck {
    /// `-1`.
    Any,
    /// `[value, tolerance]`, tolerance ≥ 0.
    Within(RawValue, f64),
}

/// An expected object as written.
#[derive(Debug, Clone, PartialEq)]
pub struct RawObject {
    /// `x`, `y`, `z`.
    pub axes: [RawCheck; 3],
    /// `certainty: [v, t]`.
    pub certainty: Option<(f64, f64)>,
}

/// `success`, `fail`, or the action/delay half of `reset`.
#[derive(Debug, Clone, PartialEq)]
pub struct RawNext {
    /// Action name, unchecked.
    pub action: String,
    /// ≥ −1.
    pub delay: i64,
}

/// A decision as written.
#[derive(Debug, Clone, PartialEq)]
pub struct RawDecision {
    /// ≥ 0.
    pub execute_after: u64,
    /// `state.arm`.
    pub arm: [RawCheck; 3],
    /// `state.objects`.
    pub objects: Vec<RawObject>,
    /// `success`.
    pub success: RawNext,
    /// `fail`.
    pub fail: RawNext,
}

/// `reset` as written.
#[derive(Debug, Clone, PartialEq)]
pub struct RawReset {
    /// ≥ −1 (−1 unlimited).
    pub timeout: i64,
    /// Where to go.
    pub next: RawNext,
}

/// An action as written.
#[derive(Debug, Clone, PartialEq)]
pub struct RawAction {
    /// Steps, `[x, y, z]` each.
    pub trajectory: Vec<[RawValue; 3]>,
    /// `trajectoryVerification`.
    pub verify: bool,
    /// `decisions`.
    pub decisions: Vec<RawDecision>,
    /// `reset`.
    pub reset: Option<RawReset>,
}

/// A whole file as written.
#[derive(Debug, Clone, PartialEq)]
pub struct RawInstructions {
    /// `initialAction`.
    pub initial_action: String,
    /// `actions`, in the order of the JSON map (sorted by name).
    pub actions: Vec<(String, RawAction)>,
}

/// Parse the text of an instructions file. Never panics.
pub fn parse(text: &str) -> Result<RawInstructions, BrainError> {
    let root: Value = serde_json::from_str(text).map_err(|e| BrainError::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    raw_instructions(&root)
}

/// The JSON type of a value, in words, for `WrongType`.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn wrong(path: &str, expected: &'static str, v: &Value) -> BrainError {
    BrainError::WrongType {
        path: path.to_owned(),
        expected,
        found: kind(v),
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// An object whose keys are all in `allowed`.
fn object<'a>(
    v: &'a Value,
    path: &str,
    allowed: &[&str],
) -> Result<&'a Map<String, Value>, BrainError> {
    let map = v.as_object().ok_or_else(|| wrong(path, "an object", v))?;
    if let Some(k) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(BrainError::UnknownField {
            path: path.to_owned(),
            field: k.clone(),
        });
    }
    Ok(map)
}

fn required<'a>(
    map: &'a Map<String, Value>,
    path: &str,
    field: &'static str,
) -> Result<&'a Value, BrainError> {
    map.get(field).ok_or_else(|| BrainError::MissingField {
        path: path.to_owned(),
        field,
    })
}

fn array<'a>(v: &'a Value, path: &str) -> Result<&'a Vec<Value>, BrainError> {
    v.as_array().ok_or_else(|| wrong(path, "an array", v))
}

fn string(v: &Value, path: &str) -> Result<String, BrainError> {
    v.as_str()
        .map(str::to_owned)
        .ok_or_else(|| wrong(path, "a string", v))
}

fn number(v: &Value, path: &str) -> Result<f64, BrainError> {
    v.as_f64().ok_or_else(|| wrong(path, "a number", v))
}

/// An integer ≥ `min`; `expected` words the range for the error.
fn integer(v: &Value, path: &str, min: i64, expected: &'static str) -> Result<i64, BrainError> {
    if !v.is_number() {
        return Err(wrong(path, "a number", v));
    }
    match v.as_i64() {
        Some(i) if i >= min => Ok(i),
        _ => Err(BrainError::BadInteger {
            path: path.to_owned(),
            found: v.to_string(),
            expected,
        }),
    }
}

fn raw_instructions(root: &Value) -> Result<RawInstructions, BrainError> {
    let map = object(root, "", &["initialAction", "actions"]).map_err(|e| match e {
        BrainError::WrongType {
            expected, found, ..
        } => BrainError::WrongType {
            path: "(root)".into(),
            expected,
            found,
        },
        BrainError::UnknownField { field, .. } => BrainError::UnknownField {
            path: "(root)".into(),
            field,
        },
        other => other,
    })?;
    let missing = |field| BrainError::MissingField {
        path: "(root)".into(),
        field,
    };
    let initial = map
        .get("initialAction")
        .ok_or_else(|| missing("initialAction"))?;
    let initial_action = string(initial, "initialAction")?;
    let actions_v = map.get("actions").ok_or_else(|| missing("actions"))?;
    let actions_map = actions_v
        .as_object()
        .ok_or_else(|| wrong("actions", "an object", actions_v))?;
    let mut actions = Vec::with_capacity(actions_map.len());
    for (name, v) in actions_map {
        let path = format!("actions.{name}");
        actions.push((name.clone(), raw_action(v, &path)?));
    }
    Ok(RawInstructions {
        initial_action,
        actions,
    })
}

fn raw_action(v: &Value, path: &str) -> Result<RawAction, BrainError> {
    let map = object(
        v,
        path,
        &["trajectory", "trajectoryVerification", "decisions", "reset"],
    )?;
    let tpath = join(path, "trajectory");
    let mut trajectory = Vec::new();
    for (i, step) in array(required(map, path, "trajectory")?, &tpath)?
        .iter()
        .enumerate()
    {
        trajectory.push(raw_step(step, &format!("{tpath}[{i}]"))?);
    }
    let verify = match map.get("trajectoryVerification") {
        None => false,
        Some(b) => b
            .as_bool()
            .ok_or_else(|| wrong(&join(path, "trajectoryVerification"), "a boolean", b))?,
    };
    let mut decisions = Vec::new();
    if let Some(d) = map.get("decisions") {
        let dpath = join(path, "decisions");
        for (i, dv) in array(d, &dpath)?.iter().enumerate() {
            decisions.push(raw_decision(dv, &format!("{dpath}[{i}]"))?);
        }
    }
    let reset = match map.get("reset") {
        None => None,
        Some(r) => Some(raw_reset(r, &join(path, "reset"))?),
    };
    Ok(RawAction {
        trajectory,
        verify,
        decisions,
        reset,
    })
}

fn raw_value(v: &Value, path: &str) -> Result<RawValue, BrainError> {
    match v {
        Value::Number(_) => Ok(RawValue::Num(number(v, path)?)),
        Value::String(s) => Ok(RawValue::Text(s.clone())),
        _ => Err(wrong(path, "a number or a variable name", v)),
    }
}

fn raw_step(v: &Value, path: &str) -> Result<[RawValue; 3], BrainError> {
    let map = object(v, path, &["x", "y", "z"])?;
    let axis = |name: &'static str, c: char| match map.get(name) {
        None => Err(BrainError::MissingAxis {
            path: path.to_owned(),
            axis: c,
        }),
        Some(a) => raw_value(a, &join(path, name)),
    };
    Ok([axis("x", 'x')?, axis("y", 'y')?, axis("z", 'z')?])
}

/// `-1` or `[value, tolerance]`.
fn raw_check(v: &Value, path: &str) -> Result<RawCheck, BrainError> {
    let bad = || BrainError::BadCheck {
        path: path.to_owned(),
    };
    match v {
        Value::Number(_) if v.as_f64() == Some(-1.0) => Ok(RawCheck::Any),
        Value::Array(items) if items.len() == 2 => {
            let value = match &items[0] {
                n @ Value::Number(_) => RawValue::Num(number(n, path)?),
                Value::String(s) => RawValue::Text(s.clone()),
                _ => return Err(bad()),
            };
            let tolerance = tolerance(&items[1], path)?;
            Ok(RawCheck::Within(value, tolerance))
        }
        _ => Err(bad()),
    }
}

fn tolerance(v: &Value, path: &str) -> Result<f64, BrainError> {
    let t = v.as_f64().ok_or(BrainError::BadCheck {
        path: path.to_owned(),
    })?;
    if t < 0.0 {
        return Err(BrainError::NegativeTolerance {
            path: path.to_owned(),
            tolerance: t,
        });
    }
    Ok(t)
}

/// An object holding `x`, `y`, `z` checks (all three required), plus `extra` keys.
fn raw_checks(v: &Value, path: &str, extra: &[&str]) -> Result<[RawCheck; 3], BrainError> {
    let mut allowed = vec!["x", "y", "z"];
    allowed.extend_from_slice(extra);
    let map = object(v, path, &allowed)?;
    let axis = |name: &'static str, c: char| match map.get(name) {
        None => Err(BrainError::MissingAxis {
            path: path.to_owned(),
            axis: c,
        }),
        Some(check) => raw_check(check, &join(path, name)),
    };
    Ok([axis("x", 'x')?, axis("y", 'y')?, axis("z", 'z')?])
}

fn raw_object(v: &Value, path: &str) -> Result<RawObject, BrainError> {
    // Shape checked by raw_checks (an object with x, y, z, certainty).
    let axes = raw_checks(v, path, &["certainty"])?;
    let certainty = match v.get("certainty") {
        None => None,
        Some(c) => {
            let cpath = join(path, "certainty");
            match raw_check(c, &cpath)? {
                RawCheck::Any => None,
                RawCheck::Within(RawValue::Num(n), t) => Some((n, t)),
                RawCheck::Within(RawValue::Text(_), _) => {
                    return Err(BrainError::BadCheck { path: cpath })
                }
            }
        }
    };
    Ok(RawObject { axes, certainty })
}

fn raw_next(v: &Value, path: &str) -> Result<RawNext, BrainError> {
    let map = object(v, path, &["action", "delay"])?;
    next_fields(map, path)
}

/// `action` (required) and `delay` (default 0) of a `success`, `fail` or `reset` object.
fn next_fields(map: &Map<String, Value>, path: &str) -> Result<RawNext, BrainError> {
    let action = string(required(map, path, "action")?, &join(path, "action"))?;
    let delay = match map.get("delay") {
        None => 0,
        Some(d) => integer(d, &join(path, "delay"), -1, "an integer >= -1")?,
    };
    Ok(RawNext { action, delay })
}

fn raw_decision(v: &Value, path: &str) -> Result<RawDecision, BrainError> {
    let map = object(v, path, &["executeAfter", "state", "success", "fail"])?;
    let ea = required(map, path, "executeAfter")?;
    let execute_after = integer(ea, &join(path, "executeAfter"), 0, "an integer >= 0")?;
    let spath = join(path, "state");
    let state = object(required(map, path, "state")?, &spath, &["arm", "objects"])?;
    let arm = raw_checks(required(state, &spath, "arm")?, &join(&spath, "arm"), &[])?;
    let opath = join(&spath, "objects");
    let mut objects = Vec::new();
    for (i, ov) in array(required(state, &spath, "objects")?, &opath)?
        .iter()
        .enumerate()
    {
        objects.push(raw_object(ov, &format!("{opath}[{i}]"))?);
    }
    let success = raw_next(required(map, path, "success")?, &join(path, "success"))?;
    let fail = raw_next(required(map, path, "fail")?, &join(path, "fail"))?;
    Ok(RawDecision {
        execute_after: execute_after.unsigned_abs(),
        arm,
        objects,
        success,
        fail,
    })
}

fn raw_reset(v: &Value, path: &str) -> Result<RawReset, BrainError> {
    let map = object(v, path, &["timeout", "action", "delay"])?;
    let t = required(map, path, "timeout")?;
    let timeout = integer(t, &join(path, "timeout"), -1, "an integer >= -1")?;
    Ok(RawReset {
        timeout,
        next: next_fields(map, path)?,
    })
}
