//! Strategy files: raw JSON as written ([`RawStrategy`]), then checked into a
//! [`Strategy`] whose errors name the field (`tasks[1].steps[0].move_m`).
//!
//! ```json
//! { "match_time_s": 90, "max_failures": 2, "start_m": [0.2, 0.0, 0.1],
//!   "tasks": [ { "name": "flag", "points": 10, "approach_m": [0.4, 0.1, 0.1],
//!                "deadline_s": 60,
//!                "steps": [ {"move_m": [0.4, 0.1, 0.0], "timeout_ms": 5000},
//!                           {"follow_m": [0.1, 0.3], "on_error": {"retry": 1}},
//!                           {"send": {"name": "ClampGoTo", "fields": {"pos": 1}}},
//!                           {"wait_for": {"topic": "/comms/rx", "equals": {"name": "ClampDone"}}},
//!                           {"delay_ms": 500, "on_error": "skip"} ] } ],
//!   "end_of_match": { "name": "funny", "points": 5, "steps": [ ... ] } }
//! ```
//! Positions are `[x, y]` or `[x, y, z]` in metres, frame `world` (z defaults to 0).
//! Defaults: `match_time_s` 90, `max_failures` 2, `min_cost_m` 0.01, `start_m` origin,
//! `unreachable_retry_ms` 500; a step without `on_error` aborts its task.

use std::collections::HashSet;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::condition::WaitFor;
use crate::error::Error;
use crate::sequence::ErrorPolicy;

/// A position in `world`, metres.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Point {
    /// x, metres.
    pub x: f64,
    /// y, metres.
    pub y: f64,
    /// z, metres.
    pub z: f64,
}

impl Point {
    /// The point (x, y, z), metres.
    pub fn new(x: f64, y: f64, z: f64) -> Self {
        Self { x, y, z }
    }

    /// Straight-line distance (m).
    pub fn distance_m(&self, other: &Point) -> f64 {
        ((self.x - other.x).powi(2) + (self.y - other.y).powi(2) + (self.z - other.z).powi(2))
            .sqrt()
    }
}

/// A packet for the comms bridge (`SendPacket.srv`).
#[derive(Debug, Clone, PartialEq)]
pub struct PacketSpec {
    /// Definition name; empty when `id` selects the definition.
    pub name: String,
    /// Definition id; `None` when `name` selects the definition.
    pub id: Option<u8>,
    /// CAN device (0..31).
    pub device: u8,
    /// The packet's fields by name (the definition's units), as JSON values.
    pub fields: Map<String, Value>,
    /// How long to wait for a reply (s); 0 = the bridge's default.
    pub reply_timeout_s: f64,
}

impl PacketSpec {
    /// `Packet.fields_json`.
    pub fn fields_json(&self) -> String {
        Value::Object(self.fields.clone()).to_string()
    }
}

/// What a step does.
#[derive(Debug, Clone, PartialEq)]
pub enum StepSpec {
    /// One `MoveTo` goal.
    Move(Point),
    /// Plan a path from the current position (planner service), then move along it.
    Follow {
        /// Where to go (metres, `world`).
        goal: Point,
        /// Ask the planner for a smoothed path (the planner's `smooth`).
        smooth: bool,
    },
    /// One `SendPacket` call: the packet goes out and its reply is awaited.
    Send(PacketSpec),
    /// Wait for the first message of a watched topic that matches.
    WaitFor(WaitFor),
    /// Wait this long.
    Delay(Duration),
}

/// One checked step.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskStep {
    /// As written, or `"<index> <kind>"`.
    pub name: String,
    /// What it does.
    pub spec: StepSpec,
    /// Longest run of the step (`timeout_ms`); `None`: no limit.
    pub timeout: Option<Duration>,
    /// What a failure does to the task (`on_error`; default: abort the task).
    pub on_error: ErrorPolicy,
}

/// One checked task.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// The task's name (unique in the file).
    pub name: String,
    /// Points the task scores when done (>= 0).
    pub points: f64,
    /// Where the task starts; the runner goes there first (plan and follow) and
    /// scores the task by the way there.
    pub approach: Point,
    /// Match time (s) after which the task is given up (not started, or stopped).
    pub deadline_s: Option<f64>,
    /// Its steps, in order.
    pub steps: Vec<TaskStep>,
}

/// The task run when the match timer fires: no approach (steps say where to go).
#[derive(Debug, Clone, PartialEq)]
pub struct EndTask {
    /// The task's name.
    pub name: String,
    /// Points it scores when done (>= 0).
    pub points: f64,
    /// Its steps, in order.
    pub steps: Vec<TaskStep>,
}

/// A checked strategy.
#[derive(Debug, Clone, PartialEq)]
pub struct Strategy {
    /// In default order.
    pub tasks: Vec<Task>,
    /// Run when the match timer fires, if given.
    pub end_of_match: Option<EndTask>,
    /// Length of the match (`match_time_s`; a goal's `match_time_s` overrides it).
    pub match_time: Duration,
    /// A task that failed this many times is dropped.
    pub max_failures: u32,
    /// Costs below this are raised to it, so a task at the robot's feet scores
    /// `points / min_cost_m` instead of infinity (m).
    pub min_cost_m: f64,
    /// Where the robot starts, used until the robot reports a position.
    pub start: Point,
    /// When no task is reachable, wait this long before scoring again.
    pub unreachable_retry: Duration,
}

// ---------- raw, as written ----------

/// A strategy file as written (`deny_unknown_fields`); see the module doc for each key
/// and its default. [`Strategy::from_json`] checks it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawStrategy {
    /// Match length, s (> 0); default 90.
    pub match_time_s: Option<f64>,
    /// Failures after which a task is dropped; default 2.
    pub max_failures: Option<u32>,
    /// Smallest cost a task is scored with, m (> 0); default 0.01.
    pub min_cost_m: Option<f64>,
    /// Start position `[x, y]` or `[x, y, z]`, m; default the origin.
    pub start_m: Option<Vec<f64>>,
    /// Wait before scoring again when nothing is reachable, ms; default 500.
    pub unreachable_retry_ms: Option<u64>,
    /// The tasks, in default order.
    pub tasks: Vec<RawTask>,
    /// The end-of-match task, if any.
    pub end_of_match: Option<RawEndTask>,
}

/// One task as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTask {
    /// Its name (unique).
    pub name: String,
    /// Points it scores (>= 0).
    pub points: f64,
    /// Where it starts, `[x, y]` or `[x, y, z]`, m.
    pub approach_m: Vec<f64>,
    /// Match time after which it is given up, s.
    pub deadline_s: Option<f64>,
    /// Its steps (may be empty).
    #[serde(default)]
    pub steps: Vec<RawStep>,
}

/// The end-of-match task as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawEndTask {
    /// Its name.
    pub name: String,
    /// Points it scores (default 0).
    #[serde(default)]
    pub points: f64,
    /// Its steps.
    #[serde(default)]
    pub steps: Vec<RawStep>,
}

/// One step as written: exactly one of `move_m`, `follow_m`, `send`, `wait_for`,
/// `delay_ms`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawStep {
    /// Its name in events; default `"<index> <kind>"`.
    pub name: Option<String>,
    /// Move straight to `[x, y(, z)]`, m.
    pub move_m: Option<Vec<f64>>,
    /// Plan a path to `[x, y(, z)]`, m, and follow it.
    pub follow_m: Option<Vec<f64>>,
    /// With `follow_m`: ask for a smoothed path.
    #[serde(default)]
    pub smooth: bool,
    /// Send a packet through the comms bridge.
    pub send: Option<RawPacket>,
    /// Wait for a message of a watched topic.
    pub wait_for: Option<RawWaitFor>,
    /// Wait this long, ms.
    pub delay_ms: Option<u64>,
    /// Longest run of the step, ms.
    pub timeout_ms: Option<u64>,
    /// What a failure does: `"abort"`, `"skip"`, or `{"retry": n}`; default abort.
    pub on_error: Option<RawPolicy>,
}

/// A packet as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPacket {
    /// Definition name (or give `id`).
    #[serde(default)]
    pub name: String,
    /// Definition id (0..255).
    pub id: Option<u64>,
    /// CAN device (0..31); default 0.
    #[serde(default)]
    pub device: u64,
    /// Field values by name.
    #[serde(default)]
    pub fields: Map<String, Value>,
    /// How long to wait for the reply, s; 0 = the bridge's default.
    #[serde(default)]
    pub reply_timeout_s: f64,
}

/// A `wait_for` condition as written (see [`WaitFor`]).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWaitFor {
    /// The watched topic.
    pub topic: String,
    /// Fields that must equal these values.
    #[serde(default)]
    pub equals: Map<String, Value>,
    /// Numeric fields that must be >= these values.
    #[serde(default)]
    pub at_least: Map<String, Value>,
    /// Numeric fields that must be <= these values.
    #[serde(default)]
    pub at_most: Map<String, Value>,
}

/// `on_error` as written.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum RawPolicy {
    /// `"abort"` or `"skip"`.
    Word(String),
    /// `{"retry": n}`: run the step again up to `n` times.
    Retry {
        /// How many more runs after the first failure.
        retry: u32,
    },
}

// ---------- checking ----------

fn finite(field: &str, v: f64) -> Result<f64, Error> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(Error::NotFinite {
            field: field.to_owned(),
        })
    }
}

fn at_least(field: &str, v: f64, min: f64, reason: &'static str) -> Result<f64, Error> {
    if finite(field, v)? < min {
        return Err(Error::OutOfRange {
            field: field.to_owned(),
            value: v,
            reason,
        });
    }
    Ok(v)
}

fn positive(field: &str, v: f64) -> Result<f64, Error> {
    if finite(field, v)? <= 0.0 {
        return Err(Error::OutOfRange {
            field: field.to_owned(),
            value: v,
            reason: "must be > 0",
        });
    }
    Ok(v)
}

fn point(field: &str, v: &[f64]) -> Result<Point, Error> {
    if !(2..=3).contains(&v.len()) {
        return Err(Error::BadPosition {
            field: field.to_owned(),
            len: v.len(),
        });
    }
    for (i, c) in v.iter().enumerate() {
        finite(&format!("{field}[{i}]"), *c)?;
    }
    Ok(Point::new(v[0], v[1], v.get(2).copied().unwrap_or(0.0)))
}

fn name(field: &str, n: &str) -> Result<String, Error> {
    if n.trim().is_empty() {
        return Err(Error::EmptyName {
            field: field.to_owned(),
        });
    }
    Ok(n.to_owned())
}

fn policy(field: &str, p: &Option<RawPolicy>) -> Result<ErrorPolicy, Error> {
    match p {
        None => Ok(ErrorPolicy::Abort),
        Some(RawPolicy::Retry { retry }) => Ok(ErrorPolicy::Retry(*retry)),
        Some(RawPolicy::Word(w)) => match w.as_str() {
            "abort" => Ok(ErrorPolicy::Abort),
            "skip" => Ok(ErrorPolicy::Skip),
            _ => Err(Error::UnknownPolicy {
                field: field.to_owned(),
                value: w.clone(),
            }),
        },
    }
}

fn bounds(field: &str, m: &Map<String, Value>) -> Result<Vec<(String, f64)>, Error> {
    m.iter()
        .map(|(k, v)| {
            let f = format!("{field}.{k}");
            match v.as_f64() {
                Some(x) => Ok((k.clone(), finite(&f, x)?)),
                None => Err(Error::NotFinite { field: f }),
            }
        })
        .collect()
}

fn packet(field: &str, p: &RawPacket) -> Result<PacketSpec, Error> {
    if p.name.trim().is_empty() && p.id.is_none() {
        return Err(Error::PacketUnnamed {
            field: field.to_owned(),
        });
    }
    let id = match p.id {
        Some(id) if id > 255 => {
            return Err(Error::OutOfRange {
                field: format!("{field}.id"),
                value: id as f64,
                reason: "must be 0..255",
            })
        }
        id => id.map(|i| i as u8),
    };
    if p.device > 31 {
        return Err(Error::OutOfRange {
            field: format!("{field}.device"),
            value: p.device as f64,
            reason: "must be 0..31",
        });
    }
    Ok(PacketSpec {
        name: p.name.clone(),
        id,
        device: p.device as u8,
        fields: p.fields.clone(),
        reply_timeout_s: at_least(
            &format!("{field}.reply_timeout_s"),
            p.reply_timeout_s,
            0.0,
            "must be >= 0",
        )?,
    })
}

fn wait_for(field: &str, w: &RawWaitFor) -> Result<WaitFor, Error> {
    let topic = name(&format!("{field}.topic"), &w.topic)?;
    if w.equals.is_empty() && w.at_least.is_empty() && w.at_most.is_empty() {
        return Err(Error::EmptyCondition {
            field: field.to_owned(),
        });
    }
    Ok(WaitFor {
        topic,
        equals: w.equals.clone(),
        at_least: bounds(&format!("{field}.at_least"), &w.at_least)?,
        at_most: bounds(&format!("{field}.at_most"), &w.at_most)?,
    })
}

fn step(field: &str, index: usize, s: &RawStep) -> Result<TaskStep, Error> {
    let found = [
        s.move_m.is_some(),
        s.follow_m.is_some(),
        s.send.is_some(),
        s.wait_for.is_some(),
        s.delay_ms.is_some(),
    ]
    .iter()
    .filter(|b| **b)
    .count();
    if found != 1 {
        return Err(Error::StepKind {
            field: field.to_owned(),
            found,
        });
    }
    let (spec, default_name) = if let Some(p) = &s.move_m {
        (
            StepSpec::Move(point(&format!("{field}.move_m"), p)?),
            format!("{index} move"),
        )
    } else if let Some(p) = &s.follow_m {
        let goal = point(&format!("{field}.follow_m"), p)?;
        (
            StepSpec::Follow {
                goal,
                smooth: s.smooth,
            },
            format!("{index} follow"),
        )
    } else if let Some(p) = &s.send {
        let p = packet(&format!("{field}.send"), p)?;
        let label = if p.name.is_empty() {
            p.id.map(|i| format!("#{i}")).unwrap_or_default()
        } else {
            p.name.clone()
        };
        (StepSpec::Send(p), format!("{index} send {label}"))
    } else if let Some(w) = &s.wait_for {
        let w = wait_for(&format!("{field}.wait_for"), w)?;
        let label = format!("{index} wait {}", w.topic);
        (StepSpec::WaitFor(w), label)
    } else {
        let ms = s.delay_ms.unwrap_or(0);
        (
            StepSpec::Delay(Duration::from_millis(ms)),
            format!("{index} delay {ms} ms"),
        )
    };
    let timeout = match s.timeout_ms {
        Some(0) => {
            return Err(Error::OutOfRange {
                field: format!("{field}.timeout_ms"),
                value: 0.0,
                reason: "must be > 0",
            })
        }
        t => t.map(Duration::from_millis),
    };
    let step_name = match &s.name {
        Some(n) => name(&format!("{field}.name"), n)?,
        None => default_name,
    };
    Ok(TaskStep {
        name: step_name,
        spec,
        timeout,
        on_error: policy(&format!("{field}.on_error"), &s.on_error)?,
    })
}

fn steps(field: &str, raw: &[RawStep]) -> Result<Vec<TaskStep>, Error> {
    raw.iter()
        .enumerate()
        .map(|(i, s)| step(&format!("{field}.steps[{i}]"), i, s))
        .collect()
}

impl Strategy {
    /// Parses and checks a strategy file's text.
    ///
    /// # Errors
    /// [`Error::Parse`] for malformed JSON or unknown keys; otherwise the first field
    /// that fails its check.
    pub fn from_json(text: &str) -> Result<Self, Error> {
        let raw: RawStrategy = serde_json::from_str(text).map_err(|e| Error::Parse {
            message: e.to_string(),
        })?;
        Self::from_raw(&raw)
    }

    /// Checks a raw strategy.
    pub fn from_raw(raw: &RawStrategy) -> Result<Self, Error> {
        if raw.tasks.is_empty() {
            return Err(Error::NoTasks);
        }
        let mut seen = HashSet::new();
        let mut tasks = Vec::with_capacity(raw.tasks.len());
        for (i, t) in raw.tasks.iter().enumerate() {
            let f = format!("tasks[{i}]");
            let n = name(&format!("{f}.name"), &t.name)?;
            if !seen.insert(n.clone()) {
                return Err(Error::DuplicateTask {
                    field: format!("{f}.name"),
                    name: n,
                });
            }
            tasks.push(Task {
                name: n,
                points: at_least(&format!("{f}.points"), t.points, 0.0, "must be >= 0")?,
                approach: point(&format!("{f}.approach_m"), &t.approach_m)?,
                deadline_s: t
                    .deadline_s
                    .map(|d| positive(&format!("{f}.deadline_s"), d))
                    .transpose()?,
                steps: steps(&f, &t.steps)?,
            });
        }
        let end_of_match = match &raw.end_of_match {
            None => None,
            Some(e) => Some(EndTask {
                name: name("end_of_match.name", &e.name)?,
                points: at_least("end_of_match.points", e.points, 0.0, "must be >= 0")?,
                steps: steps("end_of_match", &e.steps)?,
            }),
        };
        let match_time_s = positive("match_time_s", raw.match_time_s.unwrap_or(90.0))?;
        let max_failures = raw.max_failures.unwrap_or(2);
        if max_failures == 0 {
            return Err(Error::OutOfRange {
                field: "max_failures".into(),
                value: 0.0,
                reason: "must be >= 1",
            });
        }
        Ok(Strategy {
            tasks,
            end_of_match,
            match_time: Duration::try_from_secs_f64(match_time_s).map_err(|_| {
                Error::OutOfRange {
                    field: "match_time_s".into(),
                    value: match_time_s,
                    reason: "is too large",
                }
            })?,
            max_failures,
            min_cost_m: positive("min_cost_m", raw.min_cost_m.unwrap_or(0.01))?,
            start: raw
                .start_m
                .as_deref()
                .map(|p| point("start_m", p))
                .transpose()?
                .unwrap_or_default(),
            unreachable_retry: Duration::from_millis(
                raw.unreachable_retry_ms.unwrap_or(500).max(1),
            ),
        })
    }

    /// The strategy as `colour` plays it on a table `width_m` long: a file is written for
    /// blue; yellow mirrors every position about the table's middle (`x → width_m − x`:
    /// the start, each task's approach, every `move_m` and `follow_m`), as the table and
    /// the planner's map are mirrored ([`arnie_math::Colour`]). Packets, waits and
    /// delays are the same on both sides.
    pub fn for_colour(mut self, colour: arnie_math::Colour, width_m: f64) -> Strategy {
        if !colour.mirrored() {
            return self;
        }
        let m = |p: &mut Point| p.x = colour.x(p.x, width_m);
        m(&mut self.start);
        let steps = self
            .tasks
            .iter_mut()
            .flat_map(|t| {
                m(&mut t.approach);
                t.steps.iter_mut()
            })
            .chain(
                self.end_of_match
                    .iter_mut()
                    .flat_map(|e| e.steps.iter_mut()),
            );
        for s in steps {
            match &mut s.spec {
                StepSpec::Move(p) => m(p),
                StepSpec::Follow { goal, .. } => m(goal),
                StepSpec::Send(_) | StepSpec::WaitFor(_) | StepSpec::Delay(_) => {}
            }
        }
        self
    }
}

#[cfg(test)]
mod tests;
