//! One declaration per parameter: name, type, default, range (and step), whether it is
//! read only after start, its description and when a change takes effect. From it come the
//! `ParameterDescriptor` that `ros2 param describe` shows (ranges, `read_only`,
//! description, additional constraints), the range checks at start and on every set, and
//! the parameter table of the node's README ([`markdown_table`], checked by each node's
//! test).
//!
//! A node declares its parameters with [`crate::declare_parameters!`]:
//! ```ignore
//! node_glue::declare_parameters! {
//!     /// The trajectory server's parameters.
//!     pub(crate) struct TrajectoryParams(d = RawTrajectoryConfig::default()) {
//!         /// Time between two set-points on /arm/command [ms] (original: 35)
//!         period_ms: i64 = d.period_ms as i64, int(1, 60_000), "next goal";
//!         /// Where targets go
//!         command_mode: String = "move_to".into(), one_of(&["move_to", "topic"]), "start only";
//!     }
//! }
//! ```
//! The effect `"start only"` makes the parameter read only after start (the descriptor's
//! `read_only`; a set is refused as rclcpp refuses it).
use r2r::ParameterValue;

/// The effect text that makes a parameter read only after start.
pub const START_ONLY: &str = "start only";

/// The allowed values of a parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum Range {
    /// Any value of the parameter's type.
    Any,
    /// `from..=to`, and `from + k·step` when `step > 0` (the descriptor's
    /// `floating_point_range`). Non-finite values are refused.
    Float {
        /// Lowest value.
        from: f64,
        /// Highest value.
        to: f64,
        /// 0: any value in the range.
        step: f64,
    },
    /// `from..=to`, and `from + k·step` when `step > 0` (the descriptor's `integer_range`).
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

/// Constructors for [`crate::declare_parameters!`]'s range column.
pub mod range {
    use super::Range;
    /// Any value.
    pub fn any() -> Range {
        Range::Any
    }
    /// `from..=to`.
    pub fn float(from: f64, to: f64) -> Range {
        Range::Float {
            from,
            to,
            step: 0.0,
        }
    }
    /// `from..=to` in steps of `step`.
    pub fn float_step(from: f64, to: f64, step: f64) -> Range {
        Range::Float { from, to, step }
    }
    /// `from..=to`.
    pub fn int(from: i64, to: i64) -> Range {
        Range::Integer { from, to, step: 0 }
    }
    /// `from..=to` in steps of `step`.
    pub fn int_step(from: i64, to: i64, step: u64) -> Range {
        Range::Integer { from, to, step }
    }
    /// One of `values`.
    pub fn one_of(values: &'static [&'static str]) -> Range {
        Range::OneOf(values)
    }
}

/// One parameter's declaration (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct Declaration {
    /// The parameter's name.
    pub name: &'static str,
    /// What it is, with its unit (the field's doc comment).
    pub description: &'static str,
    /// The allowed values.
    pub range: Range,
    /// When a change takes effect (`"at once"`, `"next goal"` ...; [`START_ONLY`]).
    pub effect: &'static str,
}

impl Declaration {
    /// True when a set after start is refused (the descriptor's `read_only`).
    pub fn read_only(&self) -> bool {
        self.effect == START_ONLY
    }

    /// The description without the doc comment's leading blanks.
    pub fn text(&self) -> String {
        self.description
            .split('\n')
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The descriptor's `additional_constraints` text: the range in words.
    pub fn constraints(&self) -> String {
        match &self.range {
            Range::Any => String::new(),
            Range::Float { from, to, step } if *step > 0.0 => {
                format!("{from}..={to} in steps of {step}")
            }
            Range::Float { from, to, .. } => format!("{from}..={to}"),
            Range::Integer { from, to, step } if *step > 0 => {
                format!("{from}..={to} in steps of {step}")
            }
            Range::Integer { from, to, .. } => format!("{from}..={to}"),
            Range::OneOf(v) => format!("one of: {}", v.join(", ")),
        }
    }

    /// Checks `value` against the range (not the type: the node's struct does that).
    ///
    /// # Errors
    /// The reason, naming the parameter, the range and the value.
    pub fn check(&self, value: &ParameterValue) -> Result<(), RangeError> {
        let name = self.name;
        match (&self.range, value) {
            (Range::Float { from, to, step }, ParameterValue::Double(v)) => {
                let (from, to, step, value) = (*from, *to, *step, *v);
                if !value.is_finite() || value < from || value > to {
                    return Err(RangeError::Float {
                        name,
                        from,
                        to,
                        value,
                    });
                }
                if step > 0.0 && value != to {
                    let k = ((value - from) / step).round();
                    let on = from + k * step;
                    if (on - value).abs() > 1e-9 * step.max(value.abs()) {
                        return Err(RangeError::FloatStep {
                            name,
                            from,
                            to,
                            step,
                            value,
                        });
                    }
                }
                Ok(())
            }
            (Range::Integer { from, to, step }, ParameterValue::Integer(v)) => {
                let (from, to, step, value) = (*from, *to, *step, *v);
                if value < from || value > to {
                    return Err(RangeError::Integer {
                        name,
                        from,
                        to,
                        value,
                    });
                }
                let off = value.abs_diff(from);
                if step > 0 && value != to && off % step != 0 {
                    return Err(RangeError::IntegerStep {
                        name,
                        from,
                        to,
                        step,
                        value,
                    });
                }
                Ok(())
            }
            (Range::OneOf(allowed), ParameterValue::String(s)) => {
                if allowed.contains(&s.as_str()) {
                    Ok(())
                } else {
                    Err(RangeError::NotOneOf {
                        name,
                        allowed,
                        value: s.clone(),
                    })
                }
            }
            // The range does not apply to this type: the type check says what is wrong.
            _ => Ok(()),
        }
    }
}

/// A value outside its parameter's declared range ([`Declaration::check`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RangeError {
    /// A double outside `from..=to` (or not finite).
    #[error("{name} must be in {from}..={to}, not {value}")]
    Float {
        /// The parameter.
        name: &'static str,
        /// The lowest allowed value.
        from: f64,
        /// The highest allowed value.
        to: f64,
        /// The value given.
        value: f64,
    },
    /// A double within the range but not on its steps.
    #[error("{name} must be {from} + k·{step} (in {from}..={to}), not {value}")]
    FloatStep {
        /// The parameter.
        name: &'static str,
        /// The lowest allowed value.
        from: f64,
        /// The highest allowed value.
        to: f64,
        /// The step.
        step: f64,
        /// The value given.
        value: f64,
    },
    /// An integer outside `from..=to`.
    #[error("{name} must be in {from}..={to}, not {value}")]
    Integer {
        /// The parameter.
        name: &'static str,
        /// The lowest allowed value.
        from: i64,
        /// The highest allowed value.
        to: i64,
        /// The value given.
        value: i64,
    },
    /// An integer within the range but not on its steps.
    #[error("{name} must be {from} + k·{step} (in {from}..={to}), not {value}")]
    IntegerStep {
        /// The parameter.
        name: &'static str,
        /// The lowest allowed value.
        from: i64,
        /// The highest allowed value.
        to: i64,
        /// The step.
        step: u64,
        /// The value given.
        value: i64,
    },
    /// A string that is none of the allowed ones.
    #[error(
        "{name} must be one of {}, not {value:?}",
        .allowed.iter().map(|a| format!("{a:?}")).collect::<Vec<_>>().join(", ")
    )]
    NotOneOf {
        /// The parameter.
        name: &'static str,
        /// The allowed strings.
        allowed: &'static [&'static str],
        /// The string given.
        value: String,
    },
}

/// A node's parameter struct with its declarations ([`crate::declare_parameters!`]).
pub trait Declared {
    /// Every parameter of the struct, in declaration order.
    fn declarations() -> Vec<Declaration>;
}

/// The README table of `decls` with their defaults (`defaults`' values):
/// `| Parameter | Type | Default | Range | Meaning | A change takes effect |`.
pub fn markdown_table(
    decls: &[Declaration],
    defaults: &r2r::indexmap::IndexMap<String, r2r::Parameter>,
) -> String {
    let mut out = String::from(
        "| Parameter | Type | Default | Range | Meaning | A change takes effect |\n\
         |---|---|---|---|---|---|\n",
    );
    for d in decls {
        let value = defaults.get(d.name).map(|p| &p.value);
        let (ty, default) = match value {
            // A `|` in a default (a regex) would end the cell.
            Some(v) => (v.type_name(), show(v).replace('|', "\\|")),
            None => ("?", String::new()),
        };
        let constraints = d.constraints().replace('|', "\\|");
        out.push_str(&format!(
            "| `{}` | {ty} | `{default}` | {constraints} | {} | {} |\n",
            d.name,
            d.text().replace('|', "\\|"),
            d.effect
        ));
    }
    out
}

/// A value as written in a YAML parameter file.
pub fn show(v: &ParameterValue) -> String {
    fn list<T: std::fmt::Display>(v: &[T]) -> String {
        format!(
            "[{}]",
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
    match v {
        ParameterValue::NotSet => "not set".into(),
        ParameterValue::Bool(b) => b.to_string(),
        ParameterValue::Integer(i) => i.to_string(),
        ParameterValue::Double(d) => format!("{d:?}"),
        ParameterValue::String(s) => format!("{s:?}"),
        ParameterValue::BoolArray(v) => list(v),
        ParameterValue::ByteArray(v) => list(v),
        ParameterValue::IntegerArray(v) => list(v),
        ParameterValue::DoubleArray(v) => format!("{v:?}"),
        ParameterValue::StringArray(v) => format!("{v:?}"),
    }
}

/// Declares a node's parameter struct once: the struct (with r2r's `RosParams`), its
/// `Default` and its [`Declared`] table. See the [module doc](crate::params::decl).
///
/// Each field: doc comment (the description), `name: Type = default, RANGE, "effect";`
/// where RANGE is one of [`range`]'s constructors (`any()`, `float(0.01, 3600.0)`,
/// `int(1, 100)`, `int_step(0, 100, 5)`, `one_of(&["a", "b"])`) and the effect says when a
/// change takes effect (`"start only"` makes it read only after start). The defaults may
/// use the name bound in the struct header (`(d = RawConfig::default())`).
#[macro_export]
macro_rules! declare_parameters {
    (
        $(#[doc = $sdoc:literal])*
        $svis:vis struct $name:ident ($d:ident = $dexpr:expr) {
            $(
                $(#[doc = $fdoc:literal])*
                $fvis:vis $field:ident : $ty:ty = $default:expr, $kind:ident ( $($rarg:expr),* ), $effect:literal;
            )*
        }
    ) => {
        $(#[doc = $sdoc])*
        #[derive(::r2r::RosParams, Clone, Debug)]
        $svis struct $name {
            $(
                $(#[doc = $fdoc])*
                $fvis $field: $ty,
            )*
        }

        impl Default for $name {
            fn default() -> Self {
                #[allow(unused_variables)]
                let $d = $dexpr;
                $name {
                    $($field: $default,)*
                }
            }
        }

        impl $crate::params::Declared for $name {
            fn declarations() -> Vec<$crate::params::Declaration> {
                vec![$(
                    $crate::params::Declaration {
                        name: stringify!($field),
                        description: concat!($($fdoc, "\n"),*),
                        range: $crate::params::range::$kind($($rarg),*),
                        effect: $effect,
                    },
                )*]
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decl(range: Range) -> Declaration {
        Declaration {
            name: "x",
            description: " A value [m]\n more\n",
            range,
            effect: "at once",
        }
    }

    #[test]
    fn float_ranges_refuse_outside_nan_and_off_step() {
        let d = decl(range::float(0.01, 3600.0));
        assert!(d.check(&ParameterValue::Double(0.01)).is_ok());
        assert!(d.check(&ParameterValue::Double(3600.0)).is_ok());
        let e = d.check(&ParameterValue::Double(1e-12)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "x must be in 0.01..=3600, not 0.000000000001"
        );
        assert!(d.check(&ParameterValue::Double(f64::NAN)).is_err());
        assert!(d.check(&ParameterValue::Double(f64::INFINITY)).is_err());
        let d = decl(range::float_step(0.0, 1.0, 0.25));
        assert!(d.check(&ParameterValue::Double(0.75)).is_ok());
        assert!(d.check(&ParameterValue::Double(0.3)).is_err());
    }

    #[test]
    fn integer_ranges_and_steps() {
        let d = decl(range::int_step(-10, 10, 5));
        assert!(d.check(&ParameterValue::Integer(-5)).is_ok());
        assert!(d.check(&ParameterValue::Integer(10)).is_ok());
        assert!(d.check(&ParameterValue::Integer(3)).is_err());
        assert!(d.check(&ParameterValue::Integer(15)).is_err());
        let d = decl(range::int(i64::MIN, i64::MAX));
        assert!(d.check(&ParameterValue::Integer(i64::MAX)).is_ok());
        assert!(d.check(&ParameterValue::Integer(i64::MIN)).is_ok());
    }

    #[test]
    fn one_of_names_the_choices() {
        let d = decl(range::one_of(&["move_to", "topic"]));
        assert!(d.check(&ParameterValue::String("topic".into())).is_ok());
        let e = d.check(&ParameterValue::String("x".into())).unwrap_err();
        assert!(e.to_string().contains("\"move_to\", \"topic\""), "{e}");
        assert_eq!(d.constraints(), "one of: move_to, topic");
    }

    #[test]
    fn text_joins_the_doc_lines() {
        assert_eq!(decl(Range::Any).text(), "A value [m] more");
        assert!(!decl(Range::Any).read_only());
    }

    crate::declare_parameters! {
        /// Test parameters.
        struct P(base = 2) {
            /// A gain [1]
            gain: f64 = 1.5, float(0.0, 10.0), "at once";
            /// A mode
            mode: String = "a".into(), one_of(&["a", "b"]), "start only";
            /// A count
            count: i64 = base * 2, int(0, 100), "next goal";
        }
    }

    #[test]
    fn the_macro_declares_struct_defaults_and_table() {
        let p = P::default();
        assert_eq!((p.gain, p.mode.as_str(), p.count), (1.5, "a", 4));
        let d = P::declarations();
        assert_eq!(d.len(), 3);
        assert_eq!(d[0].name, "gain");
        assert_eq!(d[0].text(), "A gain [1]");
        assert!(d[1].read_only() && !d[2].read_only());
        assert_eq!(d[2].range, range::int(0, 100));
        let mut table = r2r::indexmap::IndexMap::new();
        let mut p = p;
        r2r::RosParams::register_parameters(&mut p, "", None, &mut table).unwrap();
        let md = markdown_table(&d, &table);
        assert!(
            md.contains("| `gain` | double | `1.5` | 0..=10 | A gain [1] | at once |"),
            "{md}"
        );
        assert!(md.contains("| `mode` | string | `\"a\"` | one of: a, b | A mode | start only |"));
    }
}
