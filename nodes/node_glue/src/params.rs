//! Checked parameters: every `ros2 param set` (and every value given at start) goes
//! through the node's own check before it is applied, so an invalid value is refused
//! with the reason (what `ros2 param set` prints), and a start-only parameter says so.
//!
//! [`Checked`] wraps the node's `#[derive(RosParams)]` struct: r2r's parameter services
//! talk to the wrapper; the node keeps reading the plain struct through the
//! `Arc<Mutex<P>>` that [`crate::App::parameters_checked`] returns. A change is applied to a
//! copy first, checked, and only then stored: a refused value leaves nothing behind.
use r2r::indexmap::IndexMap;
use r2r::{Parameter, ParameterValue, RosParams};
use std::sync::{Arc, Mutex};

use crate::diagnostics::{Counter, Status};
use crate::ratelimit::RateLimit;

/// The parameter every node has ([`crate::time`]): read only at start.
pub const USE_SIM_TIME: &str = "use_sim_time";

/// The rules a node gives its parameters.
pub struct Rules<P> {
    /// The whole set must pass this after any change (the node's own validation: the
    /// `TryFrom` into its library config). The error is the reason shown to the user.
    pub check: fn(&P) -> Result<(), String>,
    /// Parameters read only at start: setting one later is refused, saying so.
    pub start_only: &'static [&'static str],
}

impl<P> Rules<P> {
    /// Every value accepted, every parameter live.
    pub fn none() -> Self {
        Rules {
            check: |_| Ok(()),
            start_only: &[],
        }
    }
}

/// The names `params` declares (what `ros2 param list` shows of them), sorted: e.g. to
/// test that a node's start-only list names every parameter.
pub fn declared_names<P: RosParams>(mut params: P) -> Vec<String> {
    let mut table = IndexMap::new();
    // A fresh table holds no command-line values, so registering cannot fail.
    let _ = params.register_parameters("", None, &mut table);
    let mut names: Vec<String> = table.into_keys().collect();
    names.sort_unstable();
    names
}

/// What happened to `ros2 param set` requests: the `<node>: parameters` status of every
/// node's `/diagnostics` ([`crate::App::diagnostics`]).
#[derive(Debug, Default)]
pub struct ParamCounters {
    /// Values set after start and applied.
    pub parameter_sets_applied: Counter,
    /// Values refused (wrong type, out of range, start only), each logged (rate-limited).
    pub parameter_sets_refused: Counter,
}

impl ParamCounters {
    /// The `<node>: parameters` status (always OK: a refused value changed nothing, and
    /// the client was told why).
    pub fn status(&self) -> Status {
        let refused = self.parameter_sets_refused.get();
        Status::ok(
            "parameters",
            format!("{refused} parameter set(s) refused since start"),
        )
        .with("parameter_sets_applied", self.parameter_sets_applied.get())
        .with("parameter_sets_refused", refused)
    }
}

/// The node's parameters behind the checks (see the module doc).
pub struct Checked<P> {
    shared: Arc<Mutex<P>>,
    rules: Rules<P>,
    /// Set once the node has started: from then on, start-only parameters are refused.
    started: bool,
    counters: Arc<ParamCounters>,
    /// The log target of refusals, and their rate limit (one line per parameter per 2 s).
    log: Option<(String, RateLimit)>,
}

impl<P: RosParams + Clone> Checked<P> {
    /// Wraps `shared`; call [`Checked::start`] once the start-up values are in.
    pub fn new(shared: Arc<Mutex<P>>, rules: Rules<P>) -> Self {
        Checked {
            shared,
            rules,
            started: false,
            counters: Arc::default(),
            log: None,
        }
    }

    /// Counts applied and refused sets in `counters`, and logs each refusal as a
    /// warning of `node` (rate-limited per parameter).
    pub fn counted(mut self, node: &str, counters: Arc<ParamCounters>) -> Self {
        self.counters = counters;
        self.log = Some((node.to_string(), RateLimit::default()));
        self
    }

    fn refused<T>(&self, name: &str, result: r2r::Result<T>) -> r2r::Result<T> {
        if let Err(e) = &result {
            self.counters.parameter_sets_refused.inc();
            if let Some((node, limit)) = &self.log {
                crate::warn_limited!(limit, name, node, "ros2 param set refused: {e}");
            }
        }
        result
    }

    /// Checks the values given at start; from now on start-only parameters are fixed.
    ///
    /// # Errors
    /// The check's reason, when the start-up values do not pass it.
    pub fn start(&mut self) -> Result<(), String> {
        self.started = true;
        let p = self
            .shared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        (self.rules.check)(&p)
    }

    fn trial(&self, name: &str, value: &ParameterValue) -> r2r::Result<P> {
        let refuse = |msg: String| r2r::Error::ParameterValueConv {
            name: name.to_string(),
            msg,
        };
        if name == USE_SIM_TIME || (self.started && self.rules.start_only.contains(&name)) {
            return Err(refuse(
                "is read only at start; restart the node to change it".into(),
            ));
        }
        let mut copy = self
            .shared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        copy.set_parameter(name, value)
            .map_err(|e| e.update_param_name(name))?;
        (self.rules.check)(&copy).map_err(refuse)?;
        Ok(copy)
    }
}

impl<P: RosParams + Clone> RosParams for Checked<P> {
    fn register_parameters(
        &mut self,
        prefix: &str,
        param: Option<Parameter>,
        params: &mut IndexMap<String, Parameter>,
    ) -> r2r::Result<()> {
        self.shared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .register_parameters(prefix, param, params)
    }

    fn get_parameter(&mut self, name: &str) -> r2r::Result<ParameterValue> {
        self.shared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_parameter(name)
    }

    fn set_parameter(&mut self, name: &str, value: &ParameterValue) -> r2r::Result<()> {
        let copy = self.refused(name, self.trial(name, value))?;
        *self.shared.lock().unwrap_or_else(|e| e.into_inner()) = copy;
        self.counters.parameter_sets_applied.inc();
        Ok(())
    }

    /// (`set_parameters_atomically` checks every value first: a refusal here is
    /// counted, and the set that follows a pass counts the rest.)
    fn check_parameter(&self, name: &str, value: &ParameterValue) -> r2r::Result<()> {
        self.refused(name, self.trial(name, value).map(|_| ()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(r2r::RosParams, Clone, Debug, PartialEq)]
    struct P {
        /// Set-points per millimetre
        factor: i64,
        /// A file read at start
        file: String,
    }

    fn checked() -> (Arc<Mutex<P>>, Checked<P>) {
        let shared = Arc::new(Mutex::new(P {
            factor: 1,
            file: "a".into(),
        }));
        let rules = Rules {
            check: |p: &P| {
                if p.factor >= 1 {
                    Ok(())
                } else {
                    Err(format!("factor must be at least 1, not {}", p.factor))
                }
            },
            start_only: &["file"],
        };
        let mut c = Checked::new(shared.clone(), rules);
        c.start().unwrap();
        (shared, c)
    }

    #[test]
    fn a_valid_change_is_applied() {
        let (shared, mut c) = checked();
        c.set_parameter("factor", &ParameterValue::Integer(3))
            .unwrap();
        assert_eq!(shared.lock().unwrap().factor, 3);
    }

    #[test]
    fn an_invalid_change_is_refused_with_the_reason_and_leaves_nothing() {
        let (shared, mut c) = checked();
        let e = c
            .set_parameter("factor", &ParameterValue::Integer(0))
            .unwrap_err();
        assert!(
            e.to_string().contains("factor must be at least 1, not 0"),
            "{e}"
        );
        assert_eq!(shared.lock().unwrap().factor, 1);
        assert!(c
            .check_parameter("factor", &ParameterValue::Integer(-2))
            .is_err());
        let e = c
            .set_parameter("factor", &ParameterValue::String("x".into()))
            .unwrap_err();
        assert!(e.to_string().contains("factor"), "{e}");
    }

    #[test]
    fn declared_names_are_listed_sorted() {
        let p = P {
            factor: 1,
            file: String::new(),
        };
        assert_eq!(declared_names(p), ["factor", "file"]);
    }

    #[test]
    fn every_set_is_counted_applied_or_refused() {
        let (_, c) = checked();
        let counters = Arc::new(ParamCounters::default());
        let mut c = c.counted("test_node", counters.clone());
        c.set_parameter("factor", &ParameterValue::Integer(2))
            .unwrap();
        assert!(c
            .set_parameter("factor", &ParameterValue::Integer(0))
            .is_err());
        assert!(c
            .set_parameter("file", &ParameterValue::String("b".into()))
            .is_err());
        assert!(c
            .check_parameter("factor", &ParameterValue::Integer(-1))
            .is_err());
        assert!(c
            .check_parameter("factor", &ParameterValue::Integer(5))
            .is_ok());
        assert_eq!(counters.parameter_sets_applied.get(), 1);
        assert_eq!(counters.parameter_sets_refused.get(), 3);
        let status = counters.status();
        assert_eq!(status.name, "parameters");
        assert!(status
            .values
            .contains(&("parameter_sets_refused".to_string(), "3".to_string())));
    }

    #[test]
    fn a_start_only_parameter_says_so() {
        let (shared, mut c) = checked();
        let e = c
            .set_parameter("file", &ParameterValue::String("b".into()))
            .unwrap_err();
        assert!(e.to_string().contains("read only at start"), "{e}");
        assert_eq!(shared.lock().unwrap().file, "a");
    }

    #[test]
    fn start_values_are_checked() {
        let shared = Arc::new(Mutex::new(P {
            factor: 0,
            file: String::new(),
        }));
        let mut c = Checked::new(
            shared,
            Rules {
                check: |p: &P| {
                    if p.factor >= 1 {
                        Ok(())
                    } else {
                        Err("factor".into())
                    }
                },
                start_only: &[],
            },
        );
        assert!(c.start().is_err());
    }
}
