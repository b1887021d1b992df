//! Array parameters for [`crate::declare_parameters!`]: r2r 0.9.7's `RosParams` knows
//! only scalar leaf types (bool, integers, doubles, strings), so a `double[]` parameter
//! (`fixed_obstacles_mm: [...]` in a params file) has nothing to be stored in. [`Doubles`]
//! is that leaf, written like r2r's own leaves, and [`Strings`] the `string[]` one. Drop
//! them once r2r implements `RosParams` for `Vec<f64>` and `Vec<String>` (then the
//! fields' types become those).
use std::ops::Deref;

use r2r::indexmap::IndexMap;
use r2r::{Error, Parameter, ParameterValue, Result, RosParams};

macro_rules! array_leaf {
    ($(#[$doc:meta])* $name:ident, $elem:ty, $variant:ident, $ty:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct $name(pub Vec<$elem>);

        impl Deref for $name {
            type Target = [$elem];
            fn deref(&self) -> &[$elem] {
                &self.0
            }
        }

        impl From<Vec<$elem>> for $name {
            fn from(v: Vec<$elem>) -> Self {
                $name(v)
            }
        }

        impl $name {
            fn of(v: &ParameterValue) -> Result<Vec<$elem>> {
                // The own variant is listed again among the empty ones (unreachable there).
                #[allow(unreachable_patterns)]
                match v {
                    ParameterValue::$variant(a) => Ok(a.clone()),
                    // An empty list in YAML (`[]`) or on the command line has no element type.
                    ParameterValue::IntegerArray(a) if a.is_empty() => Ok(Vec::new()),
                    ParameterValue::DoubleArray(a) if a.is_empty() => Ok(Vec::new()),
                    ParameterValue::StringArray(a) if a.is_empty() => Ok(Vec::new()),
                    ParameterValue::BoolArray(a) if a.is_empty() => Ok(Vec::new()),
                    _ => Err(Error::InvalidParameterType {
                        name: String::new(),
                        ty: $ty,
                    }),
                }
            }
        }

        impl RosParams for $name {
            fn register_parameters(
                &mut self,
                prefix: &str,
                param: Option<Parameter>,
                params: &mut IndexMap<String, Parameter>,
            ) -> Result<()> {
                if let Some(given) = params.get(prefix) {
                    self.set_parameter("", &given.value)
                        .map_err(|e| e.update_param_name(prefix))?;
                    params.shift_remove(prefix);
                }
                let mut param = param.unwrap_or_else(|| Parameter::new(ParameterValue::NotSet));
                param.value = ParameterValue::$variant(self.0.clone());
                params.insert(prefix.to_owned(), param);
                Ok(())
            }

            fn get_parameter(&mut self, param_name: &str) -> Result<ParameterValue> {
                leaf_only(param_name)?;
                Ok(ParameterValue::$variant(self.0.clone()))
            }

            fn set_parameter(&mut self, param_name: &str, param_val: &ParameterValue) -> Result<()> {
                leaf_only(param_name)?;
                self.0 = Self::of(param_val)?;
                Ok(())
            }

            fn check_parameter(&self, param_name: &str, param_val: &ParameterValue) -> Result<()> {
                leaf_only(param_name)?;
                Self::of(param_val).map(|_| ())
            }
        }
    };
}

fn leaf_only(name: &str) -> Result<()> {
    if name.is_empty() {
        Ok(())
    } else {
        Err(Error::InvalidParameterName {
            name: name.to_owned(),
        })
    }
}

array_leaf!(
    /// A `double[]` parameter.
    Doubles,
    f64,
    DoubleArray,
    "ParameterValue::DoubleArray"
);
array_leaf!(
    /// A `string[]` parameter.
    Strings,
    String,
    StringArray,
    "ParameterValue::StringArray"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_double_array_round_trips_and_other_types_are_refused() {
        let mut d = Doubles::default();
        d.set_parameter("", &ParameterValue::DoubleArray(vec![1.0, -2.5]))
            .unwrap();
        assert_eq!(&*d, &[1.0, -2.5]);
        assert_eq!(
            d.get_parameter("").unwrap(),
            ParameterValue::DoubleArray(vec![1.0, -2.5])
        );
        assert!(d.check_parameter("", &ParameterValue::Double(1.0)).is_err());
        assert!(d
            .check_parameter("", &ParameterValue::IntegerArray(vec![1]))
            .is_err());
        d.set_parameter("", &ParameterValue::IntegerArray(vec![]))
            .unwrap();
        assert!(d.is_empty());
        assert!(d.get_parameter("x").is_err());
        let mut s = Strings::default();
        s.set_parameter("", &ParameterValue::StringArray(vec!["a".into()]))
            .unwrap();
        assert_eq!(&*s, &["a".to_string()]);
        assert!(s
            .check_parameter("", &ParameterValue::DoubleArray(vec![1.0]))
            .is_err());
    }
}
