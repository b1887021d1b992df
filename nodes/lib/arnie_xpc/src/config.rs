//! The Spine config file: [`RawConfig`] (serde, exactly as written) → [`Config`]
//! (checked and resolved: addresses, matrices and their inverses, formats, units).
//!
//! The original `config.json` loads unchanged. Schema (millimetres throughout):
//! `host` (bind address of every input), `loglevel`, `transforms` (must hold `default`;
//! others keyed by interface name, shared by an input and an output of the same name),
//! `interfaces.input.<name> = {port, streamed, format}`,
//! `interfaces.output.<name> = {host, port, format, threshold?, checkElementsCount? (3)}`,
//! `connections = [{input, output}]`.
//!
//! Extensions (new, optional, on any interface): `topic` (the ROS topic it maps to),
//! `kind` (`"point"` = geometry_msgs/PointStamped, `"coordinates"` =
//! arnie_interfaces/Coordinates, the default), `qos` (the topic's QoS, see [`TopicQos`];
//! default: [`TopicQos::default_for_input`] / [`TopicQos::default_for_output`]), on inputs
//! only `allowedSources` (`["127.0.0.1", "127.0.0.1:5000"]`: an IP allows any port,
//! `ip:port` only that one), and on outputs only `resendIntervalMs` (re-send the last
//! value sent when the output has been silent that long; absent or 0 = off, as the
//! original).
//!
//! Unknown keys inside an interface or a connection are errors (a misspelt `threshold`
//! must not silently disable the radius check); unknown top-level keys are ignored.
//! Every error names the field it is about, e.g. `interfaces.output.arm.port: ...`.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::Path;

use glue_core::topics;
use serde::Deserialize;

use crate::error::LoadError;
use crate::transform::Transform;
use crate::wire::Format;

/// The file as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RawConfig {
    /// Bind address of every input.
    pub host: String,
    /// The original's log level (kept for the glue; not interpreted here).
    #[serde(default)]
    pub loglevel: Option<String>,
    /// Matrix strings by interface name; must hold `default`.
    pub transforms: BTreeMap<String, String>,
    /// Inputs and outputs.
    pub interfaces: RawInterfaces,
    /// Legacy UDP → UDP routes.
    #[serde(default)]
    pub connections: Vec<RawConnection>,
}

/// `interfaces` as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawInterfaces {
    /// Inputs by name.
    #[serde(default)]
    pub input: BTreeMap<String, RawInput>,
    /// Outputs by name.
    #[serde(default)]
    pub output: BTreeMap<String, RawOutput>,
}

/// `interfaces.input.<name>` as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawInput {
    /// UDP port to bind.
    pub port: i64,
    /// Streamed (keep the latest value) or not (block until the next packet).
    #[serde(default = "yes")]
    pub streamed: bool,
    /// `csv` or `simulink`.
    pub format: String,
    /// Extension: ROS topic the decoded (global-frame) values are published on.
    #[serde(default)]
    pub topic: Option<String>,
    /// Extension: `point` or `coordinates`.
    #[serde(default)]
    pub kind: Option<String>,
    /// Extension: allowed source addresses.
    #[serde(default)]
    pub allowed_sources: Option<Vec<String>>,
    /// Extension: QoS of the published topic (`sensor`, `command` / `reliable`, `latched`).
    #[serde(default)]
    pub qos: Option<String>,
}

/// `interfaces.output.<name>` as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawOutput {
    /// Destination IP address.
    pub host: String,
    /// Destination UDP port.
    pub port: i64,
    /// `csv` or `simulink`.
    pub format: String,
    /// Radius check \[mm, global frame\]; absent = no check.
    #[serde(default)]
    pub threshold: Option<f64>,
    /// How many leading values of the first item the radius check uses (default 3).
    #[serde(default)]
    pub check_elements_count: Option<i64>,
    /// Extension: ROS topic whose (global-frame) values are written to this output.
    #[serde(default)]
    pub topic: Option<String>,
    /// Extension: `point` or `coordinates`.
    #[serde(default)]
    pub kind: Option<String>,
    /// Extension: QoS of the subscription to `topic` (`sensor`, `command` / `reliable`,
    /// `latched`).
    #[serde(default)]
    pub qos: Option<String>,
    /// Extension: re-send the last value sent after this long without a send \[ms\];
    /// absent or 0 = off.
    #[serde(default)]
    pub resend_interval_ms: Option<i64>,
}

/// One `connections` entry as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawConnection {
    /// Input name.
    pub input: String,
    /// Output name.
    pub output: String,
}

fn yes() -> bool {
    true
}

/// Runs the file on one machine: every host (the bind host, output hosts, allowed
/// sources) becomes 127.0.0.1 and every port is shifted by `port_offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LoopbackMap {
    /// Added to every port; a result outside 0..65535 is an error.
    pub port_offset: i32,
}

/// The ROS message kind of a topic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MsgKind {
    /// geometry_msgs/PointStamped: the first item's first three values.
    Point,
    /// arnie_interfaces/Coordinates: every item.
    Coordinates,
}

/// The QoS of an interface's topic (the glue maps it to `node_glue::qos`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TopicQos {
    /// `"sensor"`: measurements, best effort, keep-last 5. As a subscription (output) it
    /// accepts reliable and best-effort publishers alike.
    Sensor,
    /// `"command"` (or `"reliable"`): commands, reliable, keep-last 10. Reliable
    /// subscribers (the trajectory server's `/arm/command` peers, rclpy defaults) match it.
    Command,
    /// `"latched"`: reliable, transient local, depth 1 (a late subscriber gets the last).
    Latched,
}

/// The shortest `resendIntervalMs` accepted \[ms\] (a shorter one would flood the peer).
pub const MIN_RESEND_INTERVAL_MS: i64 = 10;
/// The longest `resendIntervalMs` accepted \[ms\] (one hour).
pub const MAX_RESEND_INTERVAL_MS: i64 = 3_600_000;

/// Topics that carry commands: an input mapped to one of these publishes reliable by
/// default (compared without a leading `/`, or as the tail of a namespaced name).
pub const COMMAND_TOPICS: [&str; 2] = [topics::ARM_TARGET, topics::ARM_COMMAND];

impl TopicQos {
    /// Parses the config value.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "sensor" => Some(TopicQos::Sensor),
            "command" | "reliable" => Some(TopicQos::Command),
            "latched" => Some(TopicQos::Latched),
            _ => None,
        }
    }

    /// An input without `qos`: [`TopicQos::Command`] if its topic is one of
    /// [`COMMAND_TOPICS`] (a legacy target mapped to `arm/target`), else
    /// [`TopicQos::Sensor`] (measurements).
    pub fn default_for_input(topic: &str) -> Self {
        let bare = topic.trim_start_matches('/');
        let is_command = COMMAND_TOPICS
            .iter()
            .any(|c| bare == *c || bare.ends_with(&format!("/{c}")));
        if is_command {
            TopicQos::Command
        } else {
            TopicQos::Sensor
        }
    }

    /// An output without `qos`: [`TopicQos::Command`] (its topic carries commands).
    pub fn default_for_output() -> Self {
        TopicQos::Command
    }

    /// The config spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            TopicQos::Sensor => "sensor",
            TopicQos::Command => "command",
            TopicQos::Latched => "latched",
        }
    }
}

/// The topic an interface maps to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicMap {
    /// Topic name as written.
    pub name: String,
    /// Message kind.
    pub kind: MsgKind,
    /// QoS (as written, or the default for the interface's role and topic).
    pub qos: TopicQos,
}

/// One allowed source of an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceRule {
    /// Any port of this IP.
    Ip(IpAddr),
    /// Exactly this address.
    Addr(SocketAddr),
}

impl SourceRule {
    /// Whether a datagram from `from` is allowed by this rule.
    pub fn matches(&self, from: SocketAddr) -> bool {
        match self {
            SourceRule::Ip(ip) => from.ip() == *ip,
            SourceRule::Addr(a) => from == *a,
        }
    }
}

/// A resolved input.
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    /// Name in the file.
    pub name: String,
    /// Address to bind.
    pub bind: SocketAddr,
    /// Streamed or blocking (for the glue).
    pub streamed: bool,
    /// Wire format.
    pub format: Format,
    /// Device → global.
    pub to_global: Transform,
    /// Topic the global values are published on.
    pub topic: Option<TopicMap>,
    /// `None`: any source; `Some`: only these.
    pub allowed_sources: Option<Vec<SourceRule>>,
}

impl Input {
    /// Whether a datagram from `from` may be used.
    pub fn allows(&self, from: SocketAddr) -> bool {
        match &self.allowed_sources {
            None => true,
            Some(rules) => rules.iter().any(|r| r.matches(from)),
        }
    }
}

/// A resolved output.
#[derive(Debug, Clone, PartialEq)]
pub struct Output {
    /// Name in the file.
    pub name: String,
    /// Destination.
    pub addr: SocketAddr,
    /// Wire format.
    pub format: Format,
    /// Radius check \[mm, global frame\]; `None` = no check.
    pub threshold_mm: Option<f64>,
    /// Leading values of the first item the radius check uses (≥ 1).
    pub check_elements: usize,
    /// Device → global (the file's matrix).
    pub to_global: Transform,
    /// Global → device (its inverse).
    pub to_device: Transform,
    /// Topic whose values are written to this output.
    pub topic: Option<TopicMap>,
    /// Re-send the last value sent after this long without a send \[ms\]; `None` = off.
    pub resend_interval_ms: Option<u64>,
}

/// A legacy route, by index into [`Config::inputs`] / [`Config::outputs`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Connection {
    /// Index into `inputs`.
    pub input: usize,
    /// Index into `outputs`.
    pub output: usize,
}

/// The checked config. Inputs and outputs are sorted by name.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The original's log level, as written.
    pub loglevel: Option<String>,
    /// Inputs, sorted by name.
    pub inputs: Vec<Input>,
    /// Outputs, sorted by name.
    pub outputs: Vec<Output>,
    /// Routes, in file order.
    pub connections: Vec<Connection>,
    /// The interfaces' own transforms: every interface (input or output; one entry for
    /// an input and an output of the same name) that has an entry in `transforms`,
    /// sorted by name. Interfaces using `default` are not listed.
    pub interface_transforms: Vec<(String, Transform)>,
    /// Entries of `transforms` other than `default` that name no interface (e.g. the
    /// original's `eyes-old`): loaded, checked, used by nothing.
    pub unused_transforms: Vec<String>,
}

impl RawConfig {
    /// Parses JSON text.
    ///
    /// # Errors
    /// [`LoadError::Json`] naming the field (syntax errors name the line).
    pub fn from_json(text: &str) -> Result<Self, LoadError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let field = if path == "." || path == "?" {
                "(file)".to_string()
            } else {
                path
            };
            LoadError::Json {
                field,
                message: e.into_inner().to_string(),
            }
        })
    }

    /// Checks and resolves, optionally mapping every address to loopback.
    ///
    /// # Errors
    /// The first problem found, as a [`LoadError`] naming its field.
    pub fn resolve(&self, loopback: Option<LoopbackMap>) -> Result<Config, LoadError> {
        crate::resolve::resolve(self, loopback)
    }
}

impl Config {
    /// Parses and resolves JSON text.
    ///
    /// # Errors
    /// See [`RawConfig::from_json`] and [`RawConfig::resolve`].
    pub fn from_json(text: &str, loopback: Option<LoopbackMap>) -> Result<Self, LoadError> {
        RawConfig::from_json(text)?.resolve(loopback)
    }

    /// Reads, parses and resolves a file.
    ///
    /// # Errors
    /// [`LoadError::Io`] if it cannot be read, else as [`Config::from_json`].
    pub fn load(path: &Path, loopback: Option<LoopbackMap>) -> Result<Self, LoadError> {
        let text = std::fs::read_to_string(path).map_err(|e| LoadError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Self::from_json(&text, loopback)
    }

    /// Index of the input called `name`.
    pub fn input_index(&self, name: &str) -> Option<usize> {
        self.inputs.iter().position(|i| i.name == name)
    }

    /// Index of the output called `name`.
    pub fn output_index(&self, name: &str) -> Option<usize> {
        self.outputs.iter().position(|o| o.name == name)
    }

    /// Warnings the glue should log: outputs that send to one of our own inputs (a
    /// loop), and outputs sharing one destination. Typical after a [`LoopbackMap`] of a
    /// file written for several machines.
    pub fn address_clashes(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (k, o) in self.outputs.iter().enumerate() {
            for i in &self.inputs {
                let same_ip = i.bind.ip() == o.addr.ip() || i.bind.ip().is_unspecified();
                if same_ip && i.bind.port() == o.addr.port() {
                    out.push(format!(
                        "output {:?} sends to {} where input {:?} is bound",
                        o.name, o.addr, i.name
                    ));
                }
            }
            for o2 in &self.outputs[k + 1..] {
                if o2.addr == o.addr {
                    out.push(format!(
                        "outputs {:?} and {:?} both send to {}",
                        o.name, o2.name, o.addr
                    ));
                }
            }
        }
        out
    }
}

/// Parses a host as written (an IP address, or `localhost`).
pub(crate) fn parse_host(text: &str) -> Option<IpAddr> {
    if text == "localhost" {
        return Some(IpAddr::V4(Ipv4Addr::LOCALHOST));
    }
    text.parse().ok()
}
