//! [`Range`]: the allowed values of one setting, written once. A node's parameter
//! declaration (`node_glue::declare_parameters!`) carries it into the descriptor `ros2
//! param describe` shows and checks every value given against it; a library that checks
//! the same setting for its own callers (no ROS) uses the same constant, so the bounds
//! and the words of a refusal ([`RangeError`]) are the same everywhere.
//!
//! ```
//! use glue_core::Range;
//! const TICK_PERIOD_S: Range = Range::float(0.01, 3600.0);
//! assert_eq!(TICK_PERIOD_S.check_f64("tick_period_s", 2.0), Ok(2.0));
//! let e = TICK_PERIOD_S.check_f64("tick_period_s", 0.0).unwrap_err();
//! assert_eq!(e.to_string(), "tick_period_s must be in 0.01..=3600, not 0");
//! ```
use std::fmt;

/// The allowed values of a setting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Range {
    /// Any value of the type.
    Any,
    /// `from..=to` (the descriptor's `floating_point_range`); `step > 0`: only
    /// `from + k·step` (and `to`). Not finite is outside.
    Float {
        /// Lowest value.
        from: f64,
        /// Highest value.
        to: f64,
        /// 0: any value in the range.
        step: f64,
    },
    /// Above `from`, up to `to` (`(from, to]`: a period or a timeout, which 0 is not).
    /// The descriptor's `floating_point_range` says `from..=to` (it has no open end); its
    /// `additional_constraints` and every refusal say `(from, to]`.
    FloatAbove {
        /// The value must be above this.
        from: f64,
        /// Highest value.
        to: f64,
    },
    /// `from..=to` (the descriptor's `integer_range`); `step > 0`: only `from + k·step`
    /// (and `to`).
    Integer {
        /// Lowest value.
        from: i64,
        /// Highest value.
        to: i64,
        /// 0: any value in the range.
        step: u64,
    },
    /// One of these strings (the descriptor's `additional_constraints`).
    OneOf(&'static [&'static str]),
}

impl Range {
    /// Any value.
    pub const fn any() -> Range {
        Range::Any
    }
    /// `from..=to`.
    pub const fn float(from: f64, to: f64) -> Range {
        Range::Float {
            from,
            to,
            step: 0.0,
        }
    }
    /// `from..=to` in steps of `step`.
    pub const fn float_step(from: f64, to: f64, step: f64) -> Range {
        Range::Float { from, to, step }
    }
    /// `(from, to]`: above `from`.
    pub const fn float_above(from: f64, to: f64) -> Range {
        Range::FloatAbove { from, to }
    }
    /// `from..=to`.
    pub const fn int(from: i64, to: i64) -> Range {
        Range::Integer { from, to, step: 0 }
    }
    /// `from..=to` in steps of `step`.
    pub const fn int_step(from: i64, to: i64, step: u64) -> Range {
        Range::Integer { from, to, step }
    }
    /// One of `values`.
    pub const fn one_of(values: &'static [&'static str]) -> Range {
        Range::OneOf(values)
    }

    /// The range in words (the descriptor's `additional_constraints`, the README's Range
    /// column): `0.01..=3600`, `(0, 600]`, `0..=100 in steps of 5`, `one of: a, b`; empty
    /// for [`Range::Any`].
    pub fn text(&self) -> String {
        match self {
            Range::Any => String::new(),
            Range::Float { from, to, step } if *step > 0.0 => {
                format!("{from}..={to} in steps of {step}")
            }
            Range::Float { from, to, .. } => format!("{from}..={to}"),
            Range::FloatAbove { from, to } => format!("({from}, {to}]"),
            Range::Integer { from, to, step } if *step > 0 => {
                format!("{from}..={to} in steps of {step}")
            }
            Range::Integer { from, to, .. } => format!("{from}..={to}"),
            Range::OneOf(v) => format!("one of: {}", v.join(", ")),
        }
    }

    /// Checks the double `value` of the setting `name`: returns it when allowed. A range
    /// of another type allows it (the type check is the caller's).
    ///
    /// # Errors
    /// The reason, naming the setting, the range and the value.
    pub fn check_f64(&self, name: &'static str, value: f64) -> Result<f64, RangeError> {
        let outside = || RangeError {
            name,
            range: *self,
            value: Value::Float(value),
        };
        match *self {
            Range::Float { from, to, step } => {
                if !value.is_finite() || value < from || value > to {
                    return Err(outside());
                }
                if step > 0.0 && value != to {
                    let k = ((value - from) / step).round();
                    let on = from + k * step;
                    if (on - value).abs() > 1e-9 * step.max(value.abs()) {
                        return Err(outside());
                    }
                }
                Ok(value)
            }
            Range::FloatAbove { from, to } => {
                if value.is_finite() && value > from && value <= to {
                    Ok(value)
                } else {
                    Err(outside())
                }
            }
            _ => Ok(value),
        }
    }

    /// Checks the integer `value` of the setting `name` (see [`Range::check_f64`]).
    ///
    /// # Errors
    /// The reason, naming the setting, the range and the value.
    pub fn check_i64(&self, name: &'static str, value: i64) -> Result<i64, RangeError> {
        if let Range::Integer { from, to, step } = *self {
            let off_step = step > 0 && value != to && value.abs_diff(from) % step != 0;
            if value < from || value > to || off_step {
                return Err(RangeError {
                    name,
                    range: *self,
                    value: Value::Integer(value),
                });
            }
        }
        Ok(value)
    }

    /// Checks the string `value` of the setting `name` (see [`Range::check_f64`]).
    ///
    /// # Errors
    /// The reason, naming the setting and the allowed strings.
    pub fn check_str(&self, name: &'static str, value: &str) -> Result<(), RangeError> {
        match self {
            Range::OneOf(allowed) if !allowed.contains(&value) => Err(RangeError {
                name,
                range: *self,
                value: Value::String(value.to_string()),
            }),
            _ => Ok(()),
        }
    }
}

/// A refused value, as it was given.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A double.
    Float(f64),
    /// An integer.
    Integer(i64),
    /// A string.
    String(String),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Float(v) => write!(f, "{v}"),
            Value::Integer(v) => write!(f, "{v}"),
            Value::String(v) => write!(f, "{v:?}"),
        }
    }
}

/// A value outside its setting's [`Range`]: `tick_period_s must be in 0.01..=3600, not
/// 0`, `planner_timeout_s must be in (0, 600], not 0`, `period_ms must be 0 + k·5 (in
/// 0..=100), not 3`, `motion must be one of "a", "b", not "c"`.
#[derive(Clone, Debug, PartialEq)]
pub struct RangeError {
    /// The setting.
    pub name: &'static str,
    /// Its range.
    pub range: Range,
    /// The value given.
    pub value: Value,
}

impl fmt::Display for RangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (name, value) = (self.name, &self.value);
        match self.range {
            Range::Float { from, to, step } if step > 0.0 => {
                write!(
                    f,
                    "{name} must be {from} + k·{step} (in {from}..={to}), not {value}"
                )
            }
            Range::Integer { from, to, step } if step > 0 => {
                write!(
                    f,
                    "{name} must be {from} + k·{step} (in {from}..={to}), not {value}"
                )
            }
            Range::OneOf(allowed) => write!(
                f,
                "{name} must be one of {}, not {value}",
                allowed
                    .iter()
                    .map(|a| format!("{a:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            r => write!(f, "{name} must be in {}, not {value}", r.text()),
        }
    }
}

impl RangeError {
    /// The words after the setting's name (`must be in 0.01..=3600, not 0`), for an error
    /// type that names the setting its own way.
    pub fn reason(&self) -> String {
        let text = self.to_string();
        text[self.name.len()..].trim_start().to_string()
    }
}

impl std::error::Error for RangeError {}

impl From<RangeError> for crate::ConfigError {
    /// The same words, as the one shape of a refused setting (`name must be in ...`).
    fn from(e: RangeError) -> Self {
        crate::ConfigError::new(e.name, e.reason())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_ranges_refuse_outside_nan_and_off_step() {
        let r = Range::float(0.01, 3600.0);
        assert!(r.check_f64("x", 0.01).is_ok() && r.check_f64("x", 3600.0).is_ok());
        let e = r.check_f64("x", 1e-12).unwrap_err();
        assert_eq!(
            e.to_string(),
            "x must be in 0.01..=3600, not 0.000000000001"
        );
        assert!(r.check_f64("x", f64::NAN).is_err());
        assert!(r.check_f64("x", f64::INFINITY).is_err());
        let r = Range::float_step(0.0, 1.0, 0.25);
        assert!(r.check_f64("x", 0.75).is_ok());
        let e = r.check_f64("x", 0.3).unwrap_err().to_string();
        assert_eq!(e, "x must be 0 + k·0.25 (in 0..=1), not 0.3");
    }

    #[test]
    fn an_open_lower_end_refuses_the_end_itself() {
        let r = Range::float_above(0.0, 600.0);
        assert!(r.check_f64("t", 1e-9).is_ok() && r.check_f64("t", 600.0).is_ok());
        let e = r.check_f64("t", 0.0).unwrap_err().to_string();
        assert_eq!(e, "t must be in (0, 600], not 0");
        assert!(r.check_f64("t", f64::NAN).is_err());
        assert_eq!(r.text(), "(0, 600]");
    }

    #[test]
    fn integer_ranges_and_steps() {
        let r = Range::int_step(-10, 10, 5);
        assert!(r.check_i64("n", -5).is_ok() && r.check_i64("n", 10).is_ok());
        assert!(r.check_i64("n", 3).is_err() && r.check_i64("n", 15).is_err());
        let r = Range::int(i64::MIN, i64::MAX);
        assert!(r.check_i64("n", i64::MAX).is_ok() && r.check_i64("n", i64::MIN).is_ok());
        let e = Range::int(1, 1000)
            .check_i64("sample_factor", 0)
            .unwrap_err();
        assert_eq!(e.to_string(), "sample_factor must be in 1..=1000, not 0");
    }

    #[test]
    fn one_of_names_the_choices_and_other_types_pass() {
        let r = Range::one_of(&["move_to", "topic"]);
        assert!(r.check_str("m", "topic").is_ok());
        let e = r.check_str("m", "x").unwrap_err().to_string();
        assert_eq!(e, "m must be one of \"move_to\", \"topic\", not \"x\"");
        assert_eq!(r.text(), "one of: move_to, topic");
        assert!(r.check_f64("m", 1.0).is_ok() && r.check_i64("m", 1).is_ok());
        assert!(Range::any().check_str("m", "x").is_ok());
    }

    #[test]
    fn as_a_config_error_the_words_stay() {
        let e: crate::ConfigError = Range::int(10, 600_000)
            .check_i64("diagnostics_period_ms", 0)
            .unwrap_err()
            .into();
        assert_eq!(e.name, "diagnostics_period_ms");
        assert_eq!(
            e.to_string(),
            "diagnostics_period_ms must be in 10..=600000, not 0"
        );
    }
}
