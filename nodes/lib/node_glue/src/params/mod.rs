//! Parameters as ROS tools expect them. Each node declares its parameters once
//! ([`decl`], [`crate::declare_parameters!`]); from that declaration come the
//! descriptors `ros2 param describe` shows (ranges, `read_only`), the checks at start and
//! on every set, and the README tables. The glue serves the parameter services itself
//! ([`server`]: r2r's handler fills only name, type and description, and panics when a
//! reply cannot be sent) and publishes `/parameter_events`; parameter files are applied
//! with rclcpp's key matching and precedence ([`overrides`]: `/**`, `/**/brain`,
//! `/left/brain`, `brain`).
//!
//! [`Checked`] holds the node's struct behind the checks: every `ros2 param set` (and every
//! value given at start) is checked against its declaration (declared, read only, range)
//! and the node's own check before it is applied, so an invalid value is refused with the
//! reason (what `ros2 param set` prints). The node keeps reading the plain struct through
//! the `Arc<Mutex<P>>` that [`crate::App::parameters_checked`] returns. A change is applied
//! to a copy first, checked, and only then stored: a refused value leaves nothing behind.
pub mod array;
pub mod decl;
pub mod overrides;
pub(crate) mod server;

pub use array::{Doubles, Strings};
pub use decl::{range, Declaration, Declared, Range, RangeError, START_ONLY};

use r2r::indexmap::IndexMap;
use r2r::{ParameterValue, RosParams};
use std::sync::{Arc, Mutex};

use crate::diagnostics::{Counter, Status};
use crate::ratelimit::RateLimit;

/// The parameter every node has ([`crate::time`]): read only at start.
pub const USE_SIM_TIME: &str = "use_sim_time";

/// The declaration of [`USE_SIM_TIME`], which the glue adds to every node's.
pub fn use_sim_time_declaration() -> Declaration {
    Declaration {
        name: USE_SIM_TIME,
        description: "Follow /clock (simulated or replayed time) instead of the system clock",
        range: Range::Any,
        effect: START_ONLY,
    }
}

/// The node's own error refusing its parameter set (its enum, boxed): its `Display` is
/// the reason shown to the user.
pub type RuleError = Box<dyn std::error::Error + Send + Sync>;

/// The node's own check of its whole parameter set.
pub struct Rules<P> {
    /// The whole set must pass this after any change (the node's own validation: the
    /// `TryFrom` into its library config). The error is the reason shown to the user.
    /// Ranges and read-only flags come from the declarations and are checked before it.
    pub check: fn(&P) -> Result<(), RuleError>,
}

/// Why a parameter value is refused, at start or on a `ros2 param set` (its `Display` is
/// the reason `ros2 param set` prints; the read-only and type texts are rclcpp's).
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// The node does not declare the parameter.
    #[error("parameter '{0}' cannot be set because it was not declared")]
    Undeclared(String),
    /// The parameter is read only (after start, or `use_sim_time`).
    #[error(
        "parameter '{0}' cannot be set because it is read-only \
         (read only at start; restart the node to change it)"
    )]
    ReadOnly(String),
    /// A value of another type than the parameter's.
    #[error(
        "Wrong parameter type, parameter {{{name}}} is of type {{{current}}}, \
         setting it to {{{given}}} is not allowed."
    )]
    WrongType {
        /// The parameter.
        name: String,
        /// Its type.
        current: &'static str,
        /// The type given.
        given: &'static str,
    },
    /// The node's struct refused the value (r2r's words).
    #[error("{0}")]
    Ros(r2r::Error),
    /// Outside the declared range.
    #[error("{0}")]
    Range(#[from] RangeError),
    /// The node's own check refused the whole set.
    #[error("{0}")]
    Node(RuleError),
}

/// Why a node's live parameters cannot give the settings of its next run (read again
/// for every goal, so a `ros2 param set` applies to the next one).
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// The parameter struct's lock was poisoned (a thread panicked holding it).
    #[error("parameters poisoned")]
    Poisoned,
    /// A parameter refused by the node's check.
    #[error("parameter {0}")]
    Config(#[from] glue_core::ConfigError),
}

/// The README does not hold the parameter table the declarations make.
#[derive(Debug, thiserror::Error)]
#[error("the README's parameter table is not the declarations'; it must hold:\n{table}")]
pub struct ReadmeTableError {
    /// The table the README must hold, to paste in.
    pub table: String,
}

impl<P> Rules<P> {
    /// Only the declarations' checks.
    pub fn none() -> Self {
        Rules { check: |_| Ok(()) }
    }
}

/// The names `params` declares (what `ros2 param list` shows of them), sorted.
pub fn declared_names<P: RosParams>(mut params: P) -> Vec<String> {
    let mut table = IndexMap::new();
    // A fresh table holds no command-line values, so registering cannot fail.
    let _ = params.register_parameters("", None, &mut table);
    let mut names: Vec<String> = table.into_keys().collect();
    names.sort_unstable();
    names
}

/// The README table of `P`'s parameters with their defaults ([`decl::markdown_table`]).
pub fn readme_table<P: Declared + RosParams + Default>() -> String {
    let mut table = IndexMap::new();
    let _ = P::default().register_parameters("", None, &mut table);
    decl::markdown_table(&P::declarations(), &table)
}

/// Checks that `readme` (a node's README.md) holds `P`'s parameter table exactly as the
/// declarations make it ([`readme_table`]); each node's test calls it, so the README
/// cannot drift from the code.
///
/// # Errors
/// The table the README must hold, to paste in.
pub fn check_readme<P: Declared + RosParams + Default>(
    readme: &str,
) -> Result<(), ReadmeTableError> {
    let table = readme_table::<P>();
    if readme.contains(&table) {
        Ok(())
    } else {
        Err(ReadmeTableError { table })
    }
}

/// What happened to `ros2 param set` requests: the `<node>: parameters` status of every
/// node's `/diagnostics` ([`crate::App::diagnostics`]).
#[derive(Debug, Default)]
pub struct ParamCounters {
    /// Values set after start and applied.
    pub parameter_sets_applied: Counter,
    /// Values refused (undeclared, wrong type, out of range, read only, the node's
    /// check), each logged (rate-limited).
    pub parameter_sets_refused: Counter,
    /// `/parameter_events` messages that could not be published.
    pub parameter_events_lost: Counter,
}

impl ParamCounters {
    /// The `<node>: parameters` status (OK: a refused value changed nothing, and the
    /// client was told why; WARN once an event was lost).
    pub fn status(&self) -> Status {
        let refused = self.parameter_sets_refused.get();
        let lost = self.parameter_events_lost.get();
        let s = Status::ok(
            "parameters",
            format!("{refused} parameter set(s) refused since start"),
        )
        .with("parameter_sets_applied", self.parameter_sets_applied.get())
        .with("parameter_sets_refused", refused)
        .with("parameter_events_lost", lost);
        if lost > 0 {
            s.level(crate::diagnostics::Level::Warn)
        } else {
            s
        }
    }
}

/// The node's parameters behind the checks (see the module doc).
pub struct Checked<P> {
    shared: Arc<Mutex<P>>,
    rules: Rules<P>,
    decls: Vec<Declaration>,
    /// Set once the node has started: from then on, read-only parameters are refused.
    started: bool,
    counters: Arc<ParamCounters>,
    /// The rate limit of refusal warnings (one line per parameter per 2 s); none: not logged.
    log: Option<RateLimit>,
}

fn same_type(a: &ParameterValue, b: &ParameterValue) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

impl<P: RosParams + Clone> Checked<P> {
    /// Wraps `shared` with its declarations (`use_sim_time`'s is added); call
    /// [`Checked::start`] once the start-up values are in.
    pub fn new(shared: Arc<Mutex<P>>, rules: Rules<P>, mut decls: Vec<Declaration>) -> Self {
        if !decls.iter().any(|d| d.name == USE_SIM_TIME) {
            decls.push(use_sim_time_declaration());
        }
        Checked {
            shared,
            rules,
            decls,
            started: false,
            counters: Arc::default(),
            log: None,
        }
    }

    /// Counts applied and refused sets in `counters`, and logs each refusal as a
    /// warning (rate-limited per parameter).
    pub fn counted(mut self, counters: Arc<ParamCounters>) -> Self {
        self.counters = counters;
        self.log = Some(RateLimit::default());
        self
    }

    /// The counters.
    pub fn counters(&self) -> Arc<ParamCounters> {
        self.counters.clone()
    }

    /// Every declaration, `use_sim_time` included.
    pub fn declarations(&self) -> &[Declaration] {
        &self.decls
    }

    /// The declaration of `name`.
    pub fn declaration(&self, name: &str) -> Option<&Declaration> {
        self.decls.iter().find(|d| d.name == name)
    }

    fn copy(&self) -> P {
        self.shared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The struct's value of `name` (none for `use_sim_time`, which is not in it).
    pub fn get(&self, name: &str) -> Option<ParameterValue> {
        self.shared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_parameter(name)
            .ok()
    }

    fn refused<T>(&self, name: &str, result: Result<T, Refusal>) -> Result<T, Refusal> {
        if let Err(e) = &result {
            self.counters.parameter_sets_refused.inc();
            if let Some(limit) = &self.log {
                crate::warn_limited!(limit, name, "ros2 param set refused: {e}");
            }
        }
        result
    }

    /// Checks the values given at start against the node's check and their
    /// declarations; from now on read-only parameters are fixed.
    ///
    /// # Errors
    /// The first reason, when a start-up value does not pass.
    pub fn start(&mut self) -> Result<(), Refusal> {
        self.started = true;
        let p = self.copy();
        // The node's check first: where both refuse, its words are the more specific.
        (self.rules.check)(&p).map_err(Refusal::Node)?;
        for d in &self.decls {
            if let Some(v) = self.get(d.name) {
                d.check(&v)?;
            }
        }
        Ok(())
    }

    fn trial(&self, name: &str, value: &ParameterValue) -> Result<P, Refusal> {
        let Some(decl) = self.declaration(name) else {
            return Err(Refusal::Undeclared(name.to_string()));
        };
        if decl.read_only() && (self.started || name == USE_SIM_TIME) {
            return Err(Refusal::ReadOnly(name.to_string()));
        }
        if let Some(current) = self.get(name) {
            if !same_type(&current, value) {
                return Err(Refusal::WrongType {
                    name: name.to_string(),
                    current: current.type_name(),
                    given: value.type_name(),
                });
            }
        }
        let mut copy = self.copy();
        copy.set_parameter(name, value)
            .map_err(|e| Refusal::Ros(e.update_param_name(name)))?;
        // The node's check first: where both refuse, its words are the more specific.
        (self.rules.check)(&copy).map_err(Refusal::Node)?;
        decl.check(value)?;
        Ok(copy)
    }

    /// The struct as it is now (to undo a partly applied atomic set).
    pub(crate) fn snapshot(&self) -> P {
        self.copy()
    }

    /// Puts back a [`Checked::snapshot`].
    pub(crate) fn restore(&mut self, p: P) {
        *self.shared.lock().unwrap_or_else(|e| e.into_inner()) = p;
    }

    /// Checks `value` for `name` without applying it (counted when refused).
    ///
    /// # Errors
    /// The reason.
    pub fn check(&self, name: &str, value: &ParameterValue) -> Result<(), Refusal> {
        self.refused(name, self.trial(name, value).map(|_| ()))
    }

    /// Checks and applies `value` for `name` (counted either way).
    ///
    /// # Errors
    /// The reason; nothing is changed then.
    pub fn set(&mut self, name: &str, value: &ParameterValue) -> Result<(), Refusal> {
        let copy = self.refused(name, self.trial(name, value))?;
        *self.shared.lock().unwrap_or_else(|e| e.into_inner()) = copy;
        self.counters.parameter_sets_applied.inc();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::declare_parameters! {
        /// Test parameters.
        struct P(_d = ()) {
            /// Set-points per millimetre
            factor: i64 = 1, int(0, 100), "next goal";
            /// A file read at start
            file: String = "a".into(), any(), "start only";
        }
    }

    fn checked() -> (Arc<Mutex<P>>, Checked<P>) {
        let shared = Arc::new(Mutex::new(P::default()));
        let rules = Rules {
            check: |p: &P| {
                if p.factor >= 1 {
                    Ok(())
                } else {
                    Err(format!("factor must be at least 1, not {}", p.factor).into())
                }
            },
        };
        let mut c = Checked::new(shared.clone(), rules, P::declarations());
        c.start().unwrap();
        (shared, c)
    }

    #[test]
    fn a_valid_change_is_applied() {
        let (shared, mut c) = checked();
        c.set("factor", &ParameterValue::Integer(3)).unwrap();
        assert_eq!(shared.lock().unwrap().factor, 3);
    }

    #[test]
    fn an_invalid_change_is_refused_with_the_reason_and_leaves_nothing() {
        let (shared, mut c) = checked();
        let e = c
            .set("factor", &ParameterValue::Integer(0))
            .unwrap_err()
            .to_string();
        assert!(e.contains("factor must be at least 1, not 0"), "{e}");
        assert_eq!(shared.lock().unwrap().factor, 1);
        let e = c
            .set("factor", &ParameterValue::Integer(101))
            .unwrap_err()
            .to_string();
        assert_eq!(e, "factor must be in 0..=100, not 101");
        assert!(c.check("factor", &ParameterValue::Integer(-2)).is_err());
        let e = c
            .set("factor", &ParameterValue::String("x".into()))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("Wrong parameter type, parameter {factor} is of type {integer}"),
            "{e}"
        );
        let e = c
            .set("nope", &ParameterValue::Integer(1))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "parameter 'nope' cannot be set because it was not declared"
        );
    }

    #[test]
    fn declared_names_are_listed_sorted() {
        assert_eq!(declared_names(P::default()), ["factor", "file"]);
    }

    #[test]
    fn every_set_is_counted_applied_or_refused() {
        let (_, c) = checked();
        let counters = Arc::new(ParamCounters::default());
        let mut c = c.counted(counters.clone());
        c.set("factor", &ParameterValue::Integer(2)).unwrap();
        assert!(c.set("factor", &ParameterValue::Integer(0)).is_err());
        assert!(c.set("file", &ParameterValue::String("b".into())).is_err());
        assert!(c.check("factor", &ParameterValue::Integer(-1)).is_err());
        assert!(c.check("factor", &ParameterValue::Integer(5)).is_ok());
        assert_eq!(counters.parameter_sets_applied.get(), 1);
        assert_eq!(counters.parameter_sets_refused.get(), 3);
        let status = counters.status();
        assert_eq!(status.name, "parameters");
        assert!(status
            .values
            .contains(&("parameter_sets_refused".to_string(), "3".to_string())));
    }

    #[test]
    fn a_read_only_parameter_is_refused_as_rclcpp_refuses_it() {
        let (shared, mut c) = checked();
        let e = c
            .set("file", &ParameterValue::String("b".into()))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("parameter 'file' cannot be set because it is read-only"),
            "{e}"
        );
        assert!(e.contains("read only at start"), "{e}");
        assert_eq!(shared.lock().unwrap().file, "a");
        let e = c
            .set(USE_SIM_TIME, &ParameterValue::Bool(true))
            .unwrap_err()
            .to_string();
        assert!(e.contains("read-only"), "{e}");
        assert!(c.declaration(USE_SIM_TIME).unwrap().read_only());
    }

    #[test]
    fn start_values_are_checked_against_ranges_and_the_node() {
        let shared = Arc::new(Mutex::new(P {
            factor: 0,
            file: String::new(),
        }));
        let rules = Rules {
            check: |p: &P| {
                if p.factor >= 1 {
                    Ok(())
                } else {
                    Err("factor".into())
                }
            },
        };
        let mut c = Checked::new(shared, rules, P::declarations());
        assert_eq!(c.start().unwrap_err().to_string(), "factor");
        let shared = Arc::new(Mutex::new(P {
            factor: 1000,
            file: String::new(),
        }));
        let mut c = Checked::new(shared, Rules::none(), P::declarations());
        assert_eq!(
            c.start().unwrap_err().to_string(),
            "factor must be in 0..=100, not 1000"
        );
    }

    #[test]
    fn the_readme_table_comes_from_the_declarations() {
        let t = readme_table::<P>();
        assert!(
            t.contains(
                "| `factor` | integer | `1` | 0..=100 | Set-points per millimetre | next goal |"
            ),
            "{t}"
        );
        assert!(
            t.contains("| `file` | string | `\"a\"` |  | A file read at start | start only |"),
            "{t}"
        );
    }
}
