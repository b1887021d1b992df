//! Foxglove parameters ⇄ ROS parameters.
//!
//! A Foxglove parameter name is `<fully qualified node>.<parameter>` (as the ROS 2
//! foxglove_bridge names them): `/sim.step_ms`. Values are converted through
//! [`RosValue`], a plain copy of `rcl_interfaces/msg/ParameterValue` (the ROS glue maps
//! it to and from the message).

use foxglove::websocket::{Parameter, ParameterValue};

/// `rcl_interfaces/msg/ParameterValue` without ROS.
#[derive(Debug, Clone, PartialEq)]
pub enum RosValue {
    /// `PARAMETER_NOT_SET` (0).
    NotSet,
    /// `PARAMETER_BOOL` (1).
    Bool(bool),
    /// `PARAMETER_INTEGER` (2).
    Integer(i64),
    /// `PARAMETER_DOUBLE` (3).
    Double(f64),
    /// `PARAMETER_STRING` (4).
    String(String),
    /// `PARAMETER_BYTE_ARRAY` (5).
    ByteArray(Vec<u8>),
    /// `PARAMETER_BOOL_ARRAY` (6).
    BoolArray(Vec<bool>),
    /// `PARAMETER_INTEGER_ARRAY` (7).
    IntegerArray(Vec<i64>),
    /// `PARAMETER_DOUBLE_ARRAY` (8).
    DoubleArray(Vec<f64>),
    /// `PARAMETER_STRING_ARRAY` (9).
    StringArray(Vec<String>),
}

/// `/node.param` → (`/node`, `param`). The node part has no dots (ROS names cannot);
/// the parameter may (`qos_overrides./x.depth`).
pub fn split_name(name: &str) -> Option<(&str, &str)> {
    let (node, param) = name.split_once('.')?;
    (node.starts_with('/') && node.len() > 1 && !param.is_empty()).then_some((node, param))
}

/// The Foxglove name of `param` of `node`.
pub fn join_name(node: &str, param: &str) -> String {
    format!("{node}.{param}")
}

/// A ROS value as a Foxglove parameter named `name`.
pub fn to_foxglove(name: String, v: &RosValue) -> Parameter {
    let arr = |values: Vec<ParameterValue>| Parameter {
        name: name.clone(),
        r#type: None,
        value: Some(ParameterValue::Array(values)),
    };
    match v {
        RosValue::NotSet => Parameter::empty(name),
        RosValue::Bool(b) => Parameter::bool(name, *b),
        RosValue::Integer(i) => Parameter::integer(name, *i),
        RosValue::Double(d) => Parameter::float64(name, *d),
        RosValue::String(s) => Parameter::string(name, s.clone()),
        RosValue::ByteArray(b) => Parameter::byte_array(name, b),
        RosValue::BoolArray(b) => arr(b.iter().map(|x| ParameterValue::Bool(*x)).collect()),
        RosValue::IntegerArray(i) => Parameter::integer_array(name, i.iter().copied()),
        RosValue::DoubleArray(d) => Parameter::float64_array(name, d.iter().copied()),
        RosValue::StringArray(s) => arr(s
            .iter()
            .map(|x| ParameterValue::String(x.clone()))
            .collect()),
    }
}

/// Why a Foxglove parameter has no ROS value (each names the parameter).
#[derive(Debug, thiserror::Error)]
pub enum ValueError {
    /// No value: ROS parameters cannot be unset from here.
    #[error("{0}: no value (ROS parameters cannot be unset here)")]
    NoValue(String),
    /// A byte array that does not decode.
    #[error("{name}: {source}")]
    ByteArray {
        /// The parameter.
        name: String,
        /// Why.
        source: foxglove::websocket::ParameterDecodeError,
    },
    /// A dictionary.
    #[error("{0}: a dictionary is not a ROS parameter value")]
    Dict(String),
    /// An array of mixed (or nested) values.
    #[error("{0}: a ROS array holds one type (bool, integer, double or string)")]
    Mixed(String),
}

/// A Foxglove parameter's value as a ROS value.
///
/// # Errors
/// No value, a dictionary, a mixed or nested array, or a byte array that is not base64.
pub fn from_foxglove(p: &Parameter) -> Result<RosValue, ValueError> {
    use foxglove::websocket::ParameterType;
    let Some(value) = &p.value else {
        return Err(ValueError::NoValue(p.name.clone()));
    };
    if p.r#type == Some(ParameterType::ByteArray) {
        return match p.decode_byte_array() {
            Ok(Some(b)) => Ok(RosValue::ByteArray(b)),
            Ok(None) => Ok(RosValue::ByteArray(Vec::new())),
            Err(source) => Err(ValueError::ByteArray {
                name: p.name.clone(),
                source,
            }),
        };
    }
    let float =
        p.r#type == Some(ParameterType::Float64) || p.r#type == Some(ParameterType::Float64Array);
    Ok(match value {
        ParameterValue::Bool(b) => RosValue::Bool(*b),
        ParameterValue::Integer(i) if float => RosValue::Double(*i as f64),
        ParameterValue::Integer(i) => RosValue::Integer(*i),
        ParameterValue::Float64(d) => RosValue::Double(*d),
        ParameterValue::String(s) => RosValue::String(s.clone()),
        ParameterValue::Dict(_) => return Err(ValueError::Dict(p.name.clone())),
        ParameterValue::Array(items) => array(&p.name, items, float)?,
    })
}

fn array(name: &str, items: &[ParameterValue], float: bool) -> Result<RosValue, ValueError> {
    let all = |f: fn(&ParameterValue) -> bool| items.iter().all(f);
    if items.is_empty() {
        return Ok(if float {
            RosValue::DoubleArray(Vec::new())
        } else {
            RosValue::IntegerArray(Vec::new())
        });
    }
    if all(|v| matches!(v, ParameterValue::Bool(_))) {
        Ok(RosValue::BoolArray(
            items
                .iter()
                .filter_map(|v| {
                    if let ParameterValue::Bool(b) = v {
                        Some(*b)
                    } else {
                        None
                    }
                })
                .collect(),
        ))
    } else if !float && all(|v| matches!(v, ParameterValue::Integer(_))) {
        Ok(RosValue::IntegerArray(
            items
                .iter()
                .filter_map(|v| {
                    if let ParameterValue::Integer(i) = v {
                        Some(*i)
                    } else {
                        None
                    }
                })
                .collect(),
        ))
    } else if all(|v| matches!(v, ParameterValue::Integer(_) | ParameterValue::Float64(_))) {
        Ok(RosValue::DoubleArray(
            items
                .iter()
                .filter_map(|v| match v {
                    ParameterValue::Integer(i) => Some(*i as f64),
                    ParameterValue::Float64(d) => Some(*d),
                    _ => None,
                })
                .collect(),
        ))
    } else if all(|v| matches!(v, ParameterValue::String(_))) {
        Ok(RosValue::StringArray(
            items
                .iter()
                .filter_map(|v| {
                    if let ParameterValue::String(s) = v {
                        Some(s.clone())
                    } else {
                        None
                    }
                })
                .collect(),
        ))
    } else {
        Err(ValueError::Mixed(name.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_at_the_first_dot() {
        assert_eq!(split_name("/sim.step_ms"), Some(("/sim", "step_ms")));
        assert_eq!(
            split_name("/ns/brain.qos_overrides./x.depth"),
            Some(("/ns/brain", "qos_overrides./x.depth"))
        );
        assert_eq!(split_name("sim.step_ms"), None);
        assert_eq!(split_name("/sim"), None);
        assert_eq!(split_name("/sim."), None);
        assert_eq!(join_name("/sim", "step_ms"), "/sim.step_ms");
    }

    #[test]
    fn values_round_trip() {
        let values = [
            RosValue::Bool(true),
            RosValue::Integer(-3),
            RosValue::Double(2.5),
            RosValue::String("x".into()),
            RosValue::ByteArray(vec![0, 255, 7]),
            RosValue::BoolArray(vec![true, false]),
            RosValue::IntegerArray(vec![1, 2]),
            RosValue::DoubleArray(vec![1.0, 0.5]),
            RosValue::StringArray(vec!["a".into(), "b".into()]),
        ];
        for v in values {
            let p = to_foxglove("/n.p".into(), &v);
            assert_eq!(from_foxglove(&p).unwrap(), v, "{p:?}");
        }
    }

    #[test]
    fn values_ros_cannot_hold_are_refused() {
        assert!(from_foxglove(&Parameter::empty("/n.p")).is_err());
        let mixed = Parameter {
            name: "/n.p".into(),
            r#type: None,
            value: Some(ParameterValue::Array(vec![
                ParameterValue::Bool(true),
                ParameterValue::String("s".into()),
            ])),
        };
        assert!(from_foxglove(&mixed)
            .unwrap_err()
            .to_string()
            .contains("one type"));
        assert!(from_foxglove(&Parameter::dict("/n.p", Default::default())).is_err());
    }
}
