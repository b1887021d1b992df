//! The parameter services of a node (`~/list_parameters`, `~/get_parameters`,
//! `~/get_parameter_types`, `~/describe_parameters`, `~/set_parameters`,
//! `~/set_parameters_atomically`) and its `/parameter_events`, served by the glue as
//! rclcpp serves them: descriptors with ranges and `read_only` from the declarations,
//! every set through [`Checked`], and every accepted change (and the declarations at
//! start) published as `rcl_interfaces/msg/ParameterEvent` with the node's fully qualified
//! name. A reply that cannot be sent is logged, never a panic (r2r's handler panics).
use futures::StreamExt;
use r2r::indexmap::IndexMap;
use r2r::rcl_interfaces::msg::{
    FloatingPointRange, IntegerRange, ListParametersResult, Parameter as ParamMsg,
    ParameterDescriptor, ParameterEvent, ParameterValue as ValueMsg, SetParametersResult,
};
use r2r::rcl_interfaces::srv::{
    DescribeParameters, GetParameterTypes, GetParameters, ListParameters, SetParameters,
    SetParametersAtomically,
};
use r2r::{Parameter, ParameterValue, RosParams};
use std::sync::{Arc, Mutex};

use super::{Checked, Declaration, Range};

/// `rcl_interfaces/msg/ParameterType`'s values.
mod kind {
    pub const NOT_SET: u8 = 0;
    pub const BOOL: u8 = 1;
    pub const INTEGER: u8 = 2;
    pub const DOUBLE: u8 = 3;
    pub const STRING: u8 = 4;
    pub const BYTE_ARRAY: u8 = 5;
    pub const BOOL_ARRAY: u8 = 6;
    pub const INTEGER_ARRAY: u8 = 7;
    pub const DOUBLE_ARRAY: u8 = 8;
    pub const STRING_ARRAY: u8 = 9;
}

/// `/parameter_events`' QoS (rclcpp's `ParameterEventsQoS`: reliable, volatile, keep last 1000).
pub fn events_qos() -> r2r::QosProfile {
    r2r::QosProfile::default()
        .keep_last(1000)
        .reliable()
        .volatile()
}

/// A value as the `rcl_interfaces/msg/ParameterValue` message.
pub fn to_msg(v: &ParameterValue) -> ValueMsg {
    let mut m = ValueMsg::default();
    match v {
        ParameterValue::NotSet => m.type_ = kind::NOT_SET,
        ParameterValue::Bool(b) => {
            m.type_ = kind::BOOL;
            m.bool_value = *b;
        }
        ParameterValue::Integer(i) => {
            m.type_ = kind::INTEGER;
            m.integer_value = *i;
        }
        ParameterValue::Double(d) => {
            m.type_ = kind::DOUBLE;
            m.double_value = *d;
        }
        ParameterValue::String(s) => {
            m.type_ = kind::STRING;
            m.string_value = s.clone();
        }
        ParameterValue::ByteArray(a) => {
            m.type_ = kind::BYTE_ARRAY;
            m.byte_array_value = a.clone();
        }
        ParameterValue::BoolArray(a) => {
            m.type_ = kind::BOOL_ARRAY;
            m.bool_array_value = a.clone();
        }
        ParameterValue::IntegerArray(a) => {
            m.type_ = kind::INTEGER_ARRAY;
            m.integer_array_value = a.clone();
        }
        ParameterValue::DoubleArray(a) => {
            m.type_ = kind::DOUBLE_ARRAY;
            m.double_array_value = a.clone();
        }
        ParameterValue::StringArray(a) => {
            m.type_ = kind::STRING_ARRAY;
            m.string_array_value = a.clone();
        }
    }
    m
}

/// The value a `rcl_interfaces/msg/ParameterValue` message carries.
pub fn from_msg(m: &ValueMsg) -> ParameterValue {
    match m.type_ {
        kind::BOOL => ParameterValue::Bool(m.bool_value),
        kind::INTEGER => ParameterValue::Integer(m.integer_value),
        kind::DOUBLE => ParameterValue::Double(m.double_value),
        kind::STRING => ParameterValue::String(m.string_value.clone()),
        kind::BYTE_ARRAY => ParameterValue::ByteArray(m.byte_array_value.clone()),
        kind::BOOL_ARRAY => ParameterValue::BoolArray(m.bool_array_value.clone()),
        kind::INTEGER_ARRAY => ParameterValue::IntegerArray(m.integer_array_value.clone()),
        kind::DOUBLE_ARRAY => ParameterValue::DoubleArray(m.double_array_value.clone()),
        kind::STRING_ARRAY => ParameterValue::StringArray(m.string_array_value.clone()),
        _ => ParameterValue::NotSet,
    }
}

/// `next goal` -> `Next goal` (when a change takes effect, as the description ends).
fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The `ParameterDescriptor` of `decl` for a parameter whose value is `value`.
pub fn descriptor(decl: &Declaration, value: &ParameterValue) -> ParameterDescriptor {
    let mut d = ParameterDescriptor {
        name: decl.name.to_string(),
        type_: to_msg(value).type_,
        description: format!("{} ({})", decl.text(), capitalized(decl.effect)),
        additional_constraints: decl.constraints(),
        read_only: decl.read_only(),
        dynamic_typing: false,
        ..Default::default()
    };
    match &decl.range {
        Range::Float { from, to, step } => d.floating_point_range.push(FloatingPointRange {
            from_value: *from,
            to_value: *to,
            step: *step,
        }),
        Range::Integer { from, to, step } => d.integer_range.push(IntegerRange {
            from_value: *from,
            to_value: *to,
            step: *step,
        }),
        Range::Any | Range::OneOf(_) => {}
    }
    d
}

/// What the services need: the checked struct, the node's value table (r2r's, which
/// also holds `use_sim_time`), the events publisher and the node's name.
struct State<P> {
    checked: Checked<P>,
    table: Arc<Mutex<IndexMap<String, Parameter>>>,
    events: r2r::Publisher<ParameterEvent>,
    fqn: String,
}

impl<P: RosParams + Clone> State<P> {
    fn value(&self, name: &str) -> ParameterValue {
        self.checked.get(name).unwrap_or_else(|| {
            self.table
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(name)
                .map(|p| p.value.clone())
                .unwrap_or(ParameterValue::NotSet)
        })
    }

    fn publish(&self, new: Vec<ParamMsg>, changed: Vec<ParamMsg>) {
        let event = ParameterEvent {
            stamp: crate::time::now(),
            node: self.fqn.clone(),
            new_parameters: new,
            changed_parameters: changed,
            deleted_parameters: vec![],
        };
        if self.events.publish(&event).is_err() {
            self.checked.counters().parameter_events_lost.inc();
        }
    }

    fn store(&self, name: &str, value: &ParameterValue) {
        let mut table = self.table.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = table.get_mut(name) {
            p.value = value.clone();
        }
    }

    fn set_one(&mut self, p: &ParamMsg) -> SetParametersResult {
        let value = from_msg(&p.value);
        match self.checked.set(&p.name, &value) {
            Ok(()) => {
                self.store(&p.name, &value);
                crate::log_info!("parameter {} set to {}", p.name, super::decl::show(&value));
                self.publish(
                    vec![],
                    vec![ParamMsg {
                        name: p.name.clone(),
                        value: to_msg(&value),
                    }],
                );
                SetParametersResult {
                    successful: true,
                    reason: String::new(),
                }
            }
            Err(reason) => SetParametersResult {
                successful: false,
                reason: reason.to_string(),
            },
        }
    }

    fn set_atomically(&mut self, ps: &[ParamMsg]) -> SetParametersResult {
        // Every value must pass on the struct as it will be: try them on a copy in turn.
        for p in ps {
            if let Err(reason) = self.checked.check(&p.name, &from_msg(&p.value)) {
                return SetParametersResult {
                    successful: false,
                    reason: reason.to_string(),
                };
            }
        }
        let before = self.checked.snapshot();
        let mut changed = vec![];
        for p in ps {
            let value = from_msg(&p.value);
            if let Err(reason) = self.checked.set(&p.name, &value) {
                self.checked.restore(before);
                return SetParametersResult {
                    successful: false,
                    reason: reason.to_string(),
                };
            }
            changed.push((p.name.clone(), value));
        }
        for (name, value) in &changed {
            self.store(name, value);
            crate::log_info!("parameter {name} set to {}", super::decl::show(value));
        }
        self.publish(
            vec![],
            changed
                .iter()
                .map(|(name, value)| ParamMsg {
                    name: name.clone(),
                    value: to_msg(value),
                })
                .collect(),
        );
        SetParametersResult {
            successful: true,
            reason: String::new(),
        }
    }

    fn list(&self, prefixes: &[String], depth: u64) -> ListParametersResult {
        let mut out = ListParametersResult::default();
        for d in self.checked.declarations() {
            let name = d.name;
            let dots = name.matches('.').count() as u64;
            if depth != 0 && dots >= depth {
                continue;
            }
            let under = prefixes.is_empty()
                || prefixes
                    .iter()
                    .any(|p| name == p || name.starts_with(&format!("{p}.")));
            if !under {
                continue;
            }
            out.names.push(name.to_string());
            if let Some((prefix, _)) = name.rsplit_once('.') {
                if !out.prefixes.iter().any(|p| p == prefix) {
                    out.prefixes.push(prefix.to_string());
                }
            }
        }
        out
    }
}

/// Creates the six services and the events publisher on `node`, publishes the
/// declarations as new parameters, and spawns the tasks that answer (on the current
/// runtime: call inside it).
pub(crate) fn serve<P>(
    node: &mut r2r::Node,
    checked: Checked<P>,
    fqn: &str,
) -> Result<(), crate::Error>
where
    P: RosParams + Clone + Send + 'static,
{
    let name = node.name()?;
    let qos = r2r::QosProfile::default();
    let list = node.create_service::<ListParameters::Service>(
        &format!("{name}/list_parameters"),
        qos.clone(),
    )?;
    let get = node
        .create_service::<GetParameters::Service>(&format!("{name}/get_parameters"), qos.clone())?;
    let types = node.create_service::<GetParameterTypes::Service>(
        &format!("{name}/get_parameter_types"),
        qos.clone(),
    )?;
    let describe = node.create_service::<DescribeParameters::Service>(
        &format!("{name}/describe_parameters"),
        qos.clone(),
    )?;
    let set = node
        .create_service::<SetParameters::Service>(&format!("{name}/set_parameters"), qos.clone())?;
    let atomic = node.create_service::<SetParametersAtomically::Service>(
        &format!("{name}/set_parameters_atomically"),
        qos,
    )?;
    let events = node.create_publisher::<ParameterEvent>("/parameter_events", events_qos())?;
    let state = Arc::new(Mutex::new(State {
        checked,
        table: node.params.clone(),
        events,
        fqn: fqn.to_string(),
    }));
    {
        let s = state.lock().unwrap_or_else(|e| e.into_inner());
        let new = s
            .checked
            .declarations()
            .iter()
            .map(|d| ParamMsg {
                name: d.name.to_string(),
                value: to_msg(&s.value(d.name)),
            })
            .collect();
        s.publish(new, vec![]);
    }

    fn answered(what: &str, r: r2r::Result<()>) {
        if let Err(e) = r {
            crate::log_warn!("could not answer a {what} request: {e}");
        }
    }

    let st = state.clone();
    tokio::spawn(list.for_each(move |req| {
        let s = st.lock().unwrap_or_else(|e| e.into_inner());
        let result = s.list(&req.message.prefixes, req.message.depth);
        answered(
            "list_parameters",
            req.respond(ListParameters::Response { result }),
        );
        futures::future::ready(())
    }));
    let st = state.clone();
    tokio::spawn(get.for_each(move |req| {
        let s = st.lock().unwrap_or_else(|e| e.into_inner());
        let values = req
            .message
            .names
            .iter()
            .map(|n| to_msg(&s.value(n)))
            .collect();
        answered(
            "get_parameters",
            req.respond(GetParameters::Response { values }),
        );
        futures::future::ready(())
    }));
    let st = state.clone();
    tokio::spawn(types.for_each(move |req| {
        let s = st.lock().unwrap_or_else(|e| e.into_inner());
        let types = req
            .message
            .names
            .iter()
            .map(|n| to_msg(&s.value(n)).type_)
            .collect();
        answered(
            "get_parameter_types",
            req.respond(GetParameterTypes::Response { types }),
        );
        futures::future::ready(())
    }));
    let st = state.clone();
    tokio::spawn(describe.for_each(move |req| {
        let s = st.lock().unwrap_or_else(|e| e.into_inner());
        let descriptors = req
            .message
            .names
            .iter()
            .map(|n| match s.checked.declaration(n) {
                Some(d) => descriptor(d, &s.value(n)),
                None => ParameterDescriptor {
                    name: n.clone(),
                    ..Default::default()
                },
            })
            .collect();
        answered(
            "describe_parameters",
            req.respond(DescribeParameters::Response { descriptors }),
        );
        futures::future::ready(())
    }));
    let st = state.clone();
    tokio::spawn(set.for_each(move |req| {
        let mut s = st.lock().unwrap_or_else(|e| e.into_inner());
        let results = req
            .message
            .parameters
            .iter()
            .map(|p| s.set_one(p))
            .collect();
        answered(
            "set_parameters",
            req.respond(SetParameters::Response { results }),
        );
        futures::future::ready(())
    }));
    let st = state;
    tokio::spawn(atomic.for_each(move |req| {
        let mut s = st.lock().unwrap_or_else(|e| e.into_inner());
        let result = s.set_atomically(&req.message.parameters);
        answered(
            "set_parameters_atomically",
            req.respond(SetParametersAtomically::Response { result }),
        );
        futures::future::ready(())
    }));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_through_the_message() {
        for v in [
            ParameterValue::Bool(true),
            ParameterValue::Integer(-3),
            ParameterValue::Double(2.5),
            ParameterValue::String("x".into()),
            ParameterValue::ByteArray(vec![1, 2]),
            ParameterValue::BoolArray(vec![true]),
            ParameterValue::IntegerArray(vec![4]),
            ParameterValue::DoubleArray(vec![0.5]),
            ParameterValue::StringArray(vec!["a".into()]),
            ParameterValue::NotSet,
        ] {
            assert_eq!(from_msg(&to_msg(&v)), v);
        }
    }

    #[test]
    fn descriptors_carry_ranges_and_read_only() {
        let d = Declaration {
            name: "tick_period_s",
            description: " Time between ticks [s]\n",
            range: super::super::range::float(0.01, 3600.0),
            effect: "next run",
        };
        let m = descriptor(&d, &ParameterValue::Double(10.0));
        assert_eq!(m.type_, kind::DOUBLE);
        assert_eq!(m.floating_point_range.len(), 1);
        assert_eq!(m.floating_point_range[0].to_value, 3600.0);
        assert!(!m.read_only);
        assert_eq!(m.description, "Time between ticks [s] (Next run)");
        let d = Declaration {
            effect: super::super::START_ONLY,
            range: super::super::range::int(1, 5),
            ..d
        };
        let m = descriptor(&d, &ParameterValue::Integer(2));
        assert!(m.read_only);
        assert_eq!(m.integer_range[0].from_value, 1);
    }
}
