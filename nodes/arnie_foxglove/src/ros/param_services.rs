//! The parameter side of the bridge: the SDK's parameter requests become commands for the
//! spin thread, which calls the nodes' `list/get/set_parameters` services.

use std::sync::Arc;

use foxglove::websocket::{
    AnyClient, GetParametersResponder, Parameter, ParameterHandler, SetParametersResponder,
};
use r2r::rcl_interfaces::msg::{
    Parameter as RosParameter, ParameterType as RosType, ParameterValue as RosMsgValue,
};
use r2r::rcl_interfaces::srv::{GetParameters, ListParameters, SetParameters};

use super::{Cmd, Shared, PARAM_TIMEOUT};
use crate::params::{join_name, to_foxglove, RosValue};

/// `.1`: the read-only server of viewer tokens (sets refused).
pub(super) struct ParamHandler(pub(super) Arc<Shared>, pub(super) bool);

impl ParameterHandler for ParamHandler {
    fn get(
        &self,
        _client: AnyClient,
        names: Vec<String>,
        _id: Option<String>,
        responder: GetParametersResponder,
    ) {
        self.0.send(Cmd::GetParams { names, responder });
    }

    fn set(
        &self,
        client: AnyClient,
        params: Vec<Parameter>,
        _id: Option<String>,
        responder: SetParametersResponder,
    ) {
        if self.1 {
            let s = &self.0;
            s.counters.read_only_refused.inc();
            let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
            let why = format!(
                "setting {} refused: a viewer token is read only",
                names.join(", ")
            );
            client.send_error(why.clone());
            s.refuse_log(&why);
            responder.respond(Vec::new());
            return;
        }
        self.0.send(Cmd::SetParams {
            params,
            client,
            responder,
        });
    }
}

/// The parameter service clients of one node.
#[derive(Clone)]
pub(super) struct ParamClients {
    pub(super) list: Arc<r2r::Client<ListParameters::Service>>,
    pub(super) get: Arc<r2r::Client<GetParameters::Service>>,
    pub(super) set: Arc<r2r::Client<SetParameters::Service>>,
}

/// Why a node's parameter services could not be used.
#[derive(Debug, thiserror::Error)]
pub(super) enum ServiceError {
    /// r2r refused the request (its words).
    #[error("{0}")]
    Ros(#[from] r2r::Error),
    /// The node's services did not appear within the timeout.
    #[error("parameter services not available")]
    NotAvailable,
    /// The node did not answer within the timeout.
    #[error("no answer")]
    NoAnswer,
}

async fn ready<T>(client: &r2r::Client<T>) -> Result<(), ServiceError>
where
    T: r2r::WrappedServiceTypeSupport + 'static + Send,
{
    let avail = r2r::Node::is_available(client)?;
    match tokio::time::timeout(PARAM_TIMEOUT, avail).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(e.into()),
        Err(_) => Err(ServiceError::NotAvailable),
    }
}

pub(super) async fn call<T, F>(fut: F) -> Result<T, ServiceError>
where
    F: std::future::Future<Output = r2r::Result<T>>,
{
    match tokio::time::timeout(PARAM_TIMEOUT, fut).await {
        Ok(Ok(r)) => Ok(r),
        Ok(Err(e)) => Err(e.into()),
        Err(_) => Err(ServiceError::NoAnswer),
    }
}

/// `names` of node `name` (all of them when empty) as Foxglove parameters.
pub(super) async fn get_params(
    name: &str,
    c: &ParamClients,
    mut names: Vec<String>,
) -> Result<Vec<Parameter>, ServiceError> {
    if names.is_empty() {
        ready(&c.list).await?;
        let req = ListParameters::Request {
            prefixes: vec![],
            depth: 0,
        };
        let list = call(c.list.request(&req)?).await?;
        names = list.result.names;
    }
    ready(&c.get).await?;
    let req = GetParameters::Request {
        names: names.clone(),
    };
    let got = call(c.get.request(&req)?).await?;
    Ok(names
        .into_iter()
        .zip(got.values.iter())
        .filter(|(_, v)| v.type_ != RosType::PARAMETER_NOT_SET as u8)
        .map(|(p, v)| to_foxglove(join_name(name, &p), &from_msg(v)))
        .collect())
}

/// Sets `values` on node `name`; returns the refusals (one line each).
pub(super) async fn set_params(
    name: &str,
    c: &ParamClients,
    values: Vec<(String, RosValue)>,
) -> Result<Vec<String>, ServiceError> {
    ready(&c.set).await?;
    let parameters: Vec<RosParameter> = values
        .iter()
        .map(|(p, v)| RosParameter {
            name: p.clone(),
            value: to_msg(v),
        })
        .collect();
    let res = call(c.set.request(&SetParameters::Request { parameters })?).await?;
    Ok(values
        .iter()
        .zip(res.results.iter())
        .filter(|(_, r)| !r.successful)
        .map(|((p, _), r)| format!("{}: refused: {}", join_name(name, p), r.reason))
        .collect())
}

pub(super) fn from_msg(v: &RosMsgValue) -> RosValue {
    match v.type_ {
        1 => RosValue::Bool(v.bool_value),
        2 => RosValue::Integer(v.integer_value),
        3 => RosValue::Double(v.double_value),
        4 => RosValue::String(v.string_value.clone()),
        5 => RosValue::ByteArray(v.byte_array_value.clone()),
        6 => RosValue::BoolArray(v.bool_array_value.clone()),
        7 => RosValue::IntegerArray(v.integer_array_value.clone()),
        8 => RosValue::DoubleArray(v.double_array_value.clone()),
        9 => RosValue::StringArray(v.string_array_value.clone()),
        _ => RosValue::NotSet,
    }
}

fn to_msg(v: &RosValue) -> RosMsgValue {
    let mut m = RosMsgValue::default();
    match v {
        RosValue::NotSet => m.type_ = 0,
        RosValue::Bool(b) => (m.type_, m.bool_value) = (1, *b),
        RosValue::Integer(i) => (m.type_, m.integer_value) = (2, *i),
        RosValue::Double(d) => (m.type_, m.double_value) = (3, *d),
        RosValue::String(s) => (m.type_, m.string_value) = (4, s.clone()),
        RosValue::ByteArray(b) => (m.type_, m.byte_array_value) = (5, b.clone()),
        RosValue::BoolArray(b) => (m.type_, m.bool_array_value) = (6, b.clone()),
        RosValue::IntegerArray(i) => (m.type_, m.integer_array_value) = (7, i.clone()),
        RosValue::DoubleArray(d) => (m.type_, m.double_array_value) = (8, d.clone()),
        RosValue::StringArray(s) => (m.type_, m.string_array_value) = (9, s.clone()),
    }
    m
}
