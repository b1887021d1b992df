//! Stage two of the config: [`RawConfig`] → [`Config`], every check naming its field.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use crate::config::{
    parse_host, Config, Connection, Input, LoopbackMap, MsgKind, Output, RawConfig, SourceRule,
    TopicMap, TopicQos, MAX_RESEND_INTERVAL_MS, MIN_RESEND_INTERVAL_MS,
};
use crate::error::LoadError;
use crate::transform::Transform;
use crate::wire::Format;

const LOOPBACK: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

pub(crate) fn resolve(raw: &RawConfig, loopback: Option<LoopbackMap>) -> Result<Config, LoadError> {
    let offset = loopback.map_or(0, |l| l.port_offset);
    let map_ip = |ip: IpAddr| if loopback.is_some() { LOOPBACK } else { ip };

    let bind_ip = parse_host(&raw.host).ok_or_else(|| LoadError::BadHost {
        field: "host".into(),
        value: raw.host.clone(),
    })?;
    let bind_ip = map_ip(bind_ip);

    let transforms = parse_transforms(&raw.transforms)?;
    let transform_for = |name: &str| -> (Transform, String) {
        match transforms.get(name) {
            Some(t) => (*t, format!("transforms.{name}")),
            None => (
                transforms.get("default").copied().unwrap_or_default(),
                "transforms.default".into(),
            ),
        }
    };

    let mut inputs = Vec::with_capacity(raw.interfaces.input.len());
    let mut bound: BTreeMap<u16, String> = BTreeMap::new();
    for (name, ri) in &raw.interfaces.input {
        let base = format!("interfaces.input.{name}");
        let port = port(&format!("{base}.port"), ri.port, offset)?;
        if let Some(other) = bound.get(&port) {
            return Err(LoadError::DuplicatePort {
                field: format!("{base}.port"),
                port,
                other: other.clone(),
            });
        }
        bound.insert(port, name.clone());
        let allowed_sources = match &ri.allowed_sources {
            None => None,
            Some(list) => {
                let mut rules = Vec::with_capacity(list.len());
                for (k, text) in list.iter().enumerate() {
                    let field = format!("{base}.allowedSources[{k}]");
                    rules.push(source_rule(&field, text, loopback)?);
                }
                Some(rules)
            }
        };
        inputs.push(Input {
            name: name.clone(),
            bind: SocketAddr::new(bind_ip, port),
            streamed: ri.streamed,
            format: format(&format!("{base}.format"), &ri.format)?,
            to_global: transform_for(name.as_str()).0,
            topic: topic(
                &base,
                ri.topic.as_deref(),
                ri.kind.as_deref(),
                ri.qos.as_deref(),
                Role::Input,
            )?,
            allowed_sources,
        });
    }

    let mut outputs = Vec::with_capacity(raw.interfaces.output.len());
    for (name, ro) in &raw.interfaces.output {
        let base = format!("interfaces.output.{name}");
        let ip = parse_host(&ro.host).ok_or_else(|| LoadError::BadHost {
            field: format!("{base}.host"),
            value: ro.host.clone(),
        })?;
        let port = port(&format!("{base}.port"), ro.port, offset)?;
        let threshold_mm = match ro.threshold {
            Some(t) if !(t.is_finite() && t >= 0.0) => {
                return Err(LoadError::BadThreshold {
                    field: format!("{base}.threshold"),
                    value: t,
                })
            }
            t => t,
        };
        let check = ro.check_elements_count.unwrap_or(3);
        let check_elements = usize::try_from(check)
            .ok()
            .filter(|c| *c >= 1)
            .ok_or_else(|| LoadError::BadCheckElements {
                field: format!("{base}.checkElementsCount"),
                value: check,
            })?;
        let (to_global, tfield) = transform_for(name.as_str());
        let to_device = to_global.inverse().ok_or_else(|| LoadError::Singular {
            field: tfield,
            output: name.clone(),
        })?;
        outputs.push(Output {
            name: name.clone(),
            addr: SocketAddr::new(map_ip(ip), port),
            format: format(&format!("{base}.format"), &ro.format)?,
            threshold_mm,
            check_elements,
            to_global,
            to_device,
            topic: topic(
                &base,
                ro.topic.as_deref(),
                ro.kind.as_deref(),
                ro.qos.as_deref(),
                Role::Output,
            )?,
            resend_interval_ms: resend_interval(
                &format!("{base}.resendIntervalMs"),
                ro.resend_interval_ms,
            )?,
        });
    }

    let mut connections: Vec<Connection> = Vec::with_capacity(raw.connections.len());
    for (k, rc) in raw.connections.iter().enumerate() {
        let input = inputs
            .iter()
            .position(|i| i.name == rc.input)
            .ok_or_else(|| LoadError::UnknownInput {
                field: format!("connections[{k}].input"),
                name: rc.input.clone(),
            })?;
        let output = outputs
            .iter()
            .position(|o| o.name == rc.output)
            .ok_or_else(|| LoadError::UnknownOutput {
                field: format!("connections[{k}].output"),
                name: rc.output.clone(),
            })?;
        let c = Connection { input, output };
        if let Some(first) = connections.iter().position(|x| *x == c) {
            return Err(LoadError::DuplicateConnection {
                field: format!("connections[{k}]"),
                first,
            });
        }
        connections.push(c);
    }

    let is_interface = |name: &str| {
        raw.interfaces.input.contains_key(name) || raw.interfaces.output.contains_key(name)
    };
    let (interface_transforms, unused_transforms) = transforms
        .iter()
        .filter(|(name, _)| name.as_str() != "default")
        .fold(
            (Vec::new(), Vec::new()),
            |(mut used, mut unused), (name, t)| {
                if is_interface(name) {
                    used.push((name.clone(), *t));
                } else {
                    unused.push(name.clone());
                }
                (used, unused)
            },
        );
    Ok(Config {
        loglevel: raw.loglevel.clone(),
        inputs,
        outputs,
        connections,
        interface_transforms,
        unused_transforms,
    })
}

fn parse_transforms(
    raw: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, Transform>, LoadError> {
    if !raw.contains_key("default") {
        return Err(LoadError::MissingDefaultTransform);
    }
    let mut out = BTreeMap::new();
    for (name, text) in raw {
        let t = Transform::parse(text).map_err(|problem| LoadError::Matrix {
            field: format!("transforms.{name}"),
            problem,
        })?;
        out.insert(name.clone(), t);
    }
    Ok(out)
}

fn port(field: &str, value: i64, offset: i32) -> Result<u16, LoadError> {
    let shifted = value.saturating_add(i64::from(offset));
    u16::try_from(shifted).map_err(|_| LoadError::PortOutOfRange {
        field: field.to_string(),
        value: shifted,
        offset,
    })
}

fn format(field: &str, value: &str) -> Result<Format, LoadError> {
    value.parse().map_err(|()| LoadError::UnknownFormat {
        field: field.to_string(),
        value: value.to_string(),
    })
}

fn resend_interval(field: &str, value: Option<i64>) -> Result<Option<u64>, LoadError> {
    match value {
        None | Some(0) => Ok(None),
        Some(v) if (MIN_RESEND_INTERVAL_MS..=MAX_RESEND_INTERVAL_MS).contains(&v) => {
            Ok(u64::try_from(v).ok())
        }
        Some(v) => Err(LoadError::BadResendInterval {
            field: field.to_string(),
            value: v,
        }),
    }
}

#[derive(Clone, Copy)]
enum Role {
    Input,
    Output,
}

fn topic(
    base: &str,
    name: Option<&str>,
    kind: Option<&str>,
    qos: Option<&str>,
    role: Role,
) -> Result<Option<TopicMap>, LoadError> {
    let kind = match kind {
        None | Some("coordinates") => MsgKind::Coordinates,
        Some("point") => MsgKind::Point,
        Some(other) => {
            return Err(LoadError::UnknownKind {
                field: format!("{base}.kind"),
                value: other.to_string(),
            })
        }
    };
    match name {
        None => Ok(None),
        Some(n) if n.is_empty() || n.chars().any(char::is_whitespace) => Err(LoadError::BadTopic {
            field: format!("{base}.topic"),
            value: n.to_string(),
        }),
        Some(n) => {
            let qos = match qos {
                Some(text) => TopicQos::parse(text).ok_or_else(|| LoadError::UnknownQos {
                    field: format!("{base}.qos"),
                    value: text.to_string(),
                })?,
                None => match role {
                    Role::Input => TopicQos::default_for_input(n),
                    Role::Output => TopicQos::default_for_output(),
                },
            };
            Ok(Some(TopicMap {
                name: n.to_string(),
                kind,
                qos,
            }))
        }
    }
}

fn source_rule(
    field: &str,
    text: &str,
    loopback: Option<LoopbackMap>,
) -> Result<SourceRule, LoadError> {
    let bad = || LoadError::BadSource {
        field: field.to_string(),
        value: text.to_string(),
    };
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return match loopback {
            None => Ok(SourceRule::Addr(addr)),
            Some(l) => {
                let p = port(field, i64::from(addr.port()), l.port_offset)?;
                Ok(SourceRule::Addr(SocketAddr::new(LOOPBACK, p)))
            }
        };
    }
    let ip = parse_host(text).ok_or_else(bad)?;
    Ok(SourceRule::Ip(if loopback.is_some() {
        LOOPBACK
    } else {
        ip
    }))
}
