//! `/diagnostics` publishing: one `DiagnosticStatus` per component, key/value counters.
use crate::{qos, time, topics};
use r2r::diagnostic_msgs::msg::{DiagnosticArray, DiagnosticStatus, KeyValue};

pub use glue_core::Counter;

/// `DiagnosticStatus.level` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// All is well (`OK`, 0).
    Ok = 0,
    /// Working, but something needs a look: e.g. rejected inputs counted (`WARN`, 1).
    Warn = 1,
    /// Not working (`ERROR`, 2).
    Error = 2,
    /// No recent data to judge by (`STALE`, 3).
    Stale = 3,
}

/// One status to publish: `name` is shown as "<fully qualified node>: <name>"
/// (`/left/brain: run`), so two robots' statuses never overwrite each other.
#[derive(Clone, Debug)]
pub struct Status {
    /// The component's name (the node's name is put in front when published).
    pub name: String,
    /// How the component is doing.
    pub level: Level,
    /// One human-readable line (may be empty).
    pub message: String,
    /// Key/value pairs (`DiagnosticStatus.values`), e.g. counters, in this order.
    pub values: Vec<(String, String)>,
}

impl Status {
    /// A status at level [`Level::Ok`] with no values yet.
    pub fn ok(name: impl Into<String>, message: impl Into<String>) -> Self {
        Status {
            name: name.into(),
            level: Level::Ok,
            message: message.into(),
            values: vec![],
        }
    }
    /// Adds a key/value pair (builder style).
    pub fn with(mut self, key: impl Into<String>, value: impl ToString) -> Self {
        self.values.push((key.into(), value.to_string()));
        self
    }
    /// Adds counters `(name, value)` (builder style; see [`crate::counters`]).
    pub fn with_counters<'a>(mut self, counters: impl IntoIterator<Item = (&'a str, u64)>) -> Self {
        self.values.extend(
            counters
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string())),
        );
        self
    }
    /// Sets the message (builder style).
    pub fn message(mut self, message: impl Into<String>) -> Self {
        self.message = message.into();
        self
    }
    /// Sets the level (builder style).
    pub fn level(mut self, level: Level) -> Self {
        self.level = level;
        self
    }
}

/// Publisher of `/diagnostics` for one node.
pub struct Diagnostics {
    /// The node's fully qualified name: every status name starts with it.
    node_name: String,
    /// The device behind the node (`DiagnosticStatus.hardware_id`); the node by default.
    hardware_id: String,
    publisher: r2r::Publisher<DiagnosticArray>,
    qos: Option<std::sync::Arc<crate::qos_check::QosCounters>>,
    params: Option<std::sync::Arc<crate::params::ParamCounters>>,
    lifecycle: Option<crate::lifecycle::Lifecycle>,
}

impl Diagnostics {
    /// Creates the `/diagnostics` publisher on `node` (QoS [`qos::commands`]);
    /// `node_name` (the fully qualified name) prefixes every status name and is the
    /// `hardware_id` until [`Diagnostics::with_hardware_id`] names the device.
    /// Errors: rcl's, if the publisher cannot be created.
    pub fn new(node: &mut r2r::Node, node_name: &str) -> r2r::Result<Self> {
        let publisher =
            node.create_publisher::<DiagnosticArray>(topics::DIAGNOSTICS, qos::commands())?;
        Ok(Diagnostics {
            node_name: node_name.to_string(),
            hardware_id: node_name.to_string(),
            publisher,
            qos: None,
            params: None,
            lifecycle: None,
        })
    }

    /// Names the device behind the node in every status's `hardware_id` (the xPC
    /// target's `host:port`, a serial port, a CAN interface), as rqt_robot_monitor shows it.
    pub fn with_hardware_id(mut self, id: impl Into<String>) -> Self {
        self.hardware_id = id.into();
        self
    }

    /// Adds the `qos` status (`incompatible_qos_peers`, see [`crate::qos_check`]) to
    /// every array published.
    pub fn with_qos(mut self, counters: std::sync::Arc<crate::qos_check::QosCounters>) -> Self {
        self.qos = Some(counters);
        self
    }

    /// Adds the `parameters` status (refused and applied `ros2 param set` calls, see
    /// [`crate::params::ParamCounters`]) to every array published.
    pub fn with_params(mut self, counters: std::sync::Arc<crate::params::ParamCounters>) -> Self {
        self.params = Some(counters);
        self
    }

    /// Adds the `lifecycle` status (the node's state, last transition and failure, see
    /// [`crate::lifecycle::Lifecycle::status`]) to every array published.
    pub fn with_lifecycle(mut self, lifecycle: crate::lifecycle::Lifecycle) -> Self {
        self.lifecycle = Some(lifecycle);
        self
    }

    /// Publishes one array with all `statuses` (and the `lifecycle`, `qos` and
    /// `parameters` statuses, if set, and the `logging` one: records on `/rosout`, see
    /// [`crate::log`]).
    pub fn publish(&self, statuses: &[Status]) -> r2r::Result<()> {
        let lifecycle = self.lifecycle.as_ref().map(|l| l.status());
        let qos = self.qos.as_ref().map(|c| c.status());
        let params = self.params.as_ref().map(|c| c.status());
        let logging = crate::log::status();
        let status = statuses
            .iter()
            .chain(lifecycle.iter())
            .chain(qos.iter())
            .chain(params.iter())
            .chain(std::iter::once(&logging))
            .map(|s| DiagnosticStatus {
                level: s.level as u8,
                name: format!("{}: {}", self.node_name, s.name),
                message: s.message.clone(),
                hardware_id: self.hardware_id.clone(),
                values: s
                    .values
                    .iter()
                    .map(|(k, v)| KeyValue {
                        key: k.clone(),
                        value: v.clone(),
                    })
                    .collect(),
            })
            .collect();
        self.publisher.publish(&DiagnosticArray {
            header: time::header(""),
            status,
        })
    }

    /// Spawns a task that publishes `make()` every `period` of the node's ROS clock
    /// ([`crate::time::interval`]: with `use_sim_time`, on `/clock`) until shutdown.
    pub fn spawn_periodic<F>(
        self,
        period: std::time::Duration,
        shutdown: crate::Shutdown,
        mut make: F,
    ) where
        F: FnMut() -> Vec<Status> + Send + 'static,
    {
        tokio::spawn(async move {
            let mut interval = time::interval(period);
            loop {
                tokio::select! {
                    _ = shutdown.wait() => break,
                    _ = interval.tick() => {
                        if let Err(e) = self.publish(&make()) {
                            crate::log_warn!("could not publish /diagnostics: {e}");
                        }
                    }
                }
            }
        });
    }
}
