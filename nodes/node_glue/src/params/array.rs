//! Array parameters for [`crate::declare_parameters!`]: r2r 0.9.7's `RosParams` knows
//! only scalar leaf types (bool, integers, doubles, strings), so a `double[]` parameter
//! (`fixed_obstacles_mm: [...]` in a params file) has nothing to be stored in. [`Doubles`]
//! is that leaf, written like r2r's own leaves. Drop it once r2r implements `RosParams`
//! for `Vec<f64>` (then the field's type becomes `Vec<f64>`).
use std::ops::Deref;

use r2r::indexmap::IndexMap;
use r2r::{Error, Parameter, ParameterValue, Result, RosParams};

/// A `double[]` parameter.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Doubles(pub Vec<f64>);

impl Deref for Doubles {
    type Target = [f64];
    fn deref(&self) -> &[f64] {
        &self.0
    }
}

impl From<Vec<f64>> for Doubles {
    fn from(v: Vec<f64>) -> Self {
        Doubles(v)
    }
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

fn doubles_of(v: &ParameterValue) -> Result<Vec<f64>> {
    match v {
        ParameterValue::DoubleArray(a) => Ok(a.clone()),
        // An empty list in YAML (`[]`) or on the command line has no element type.
        ParameterValue::IntegerArray(a) if a.is_empty() => Ok(Vec::new()),
        ParameterValue::StringArray(a) if a.is_empty() => Ok(Vec::new()),
        ParameterValue::BoolArray(a) if a.is_empty() => Ok(Vec::new()),
        _ => Err(Error::InvalidParameterType {
            name: String::new(),
            ty: "ParameterValue::DoubleArray",
        }),
    }
}

impl RosParams for Doubles {
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
        param.value = ParameterValue::DoubleArray(self.0.clone());
        params.insert(prefix.to_owned(), param);
        Ok(())
    }

    fn get_parameter(&mut self, param_name: &str) -> Result<ParameterValue> {
        leaf_only(param_name)?;
        Ok(ParameterValue::DoubleArray(self.0.clone()))
    }

    fn set_parameter(&mut self, param_name: &str, param_val: &ParameterValue) -> Result<()> {
        leaf_only(param_name)?;
        self.0 = doubles_of(param_val)?;
        Ok(())
    }

    fn check_parameter(&self, param_name: &str, param_val: &ParameterValue) -> Result<()> {
        leaf_only(param_name)?;
        doubles_of(param_val).map(|_| ())
    }
}

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
    }
}
