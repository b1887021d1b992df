//! QoS profiles as rosbag2 stores them, and rosbag2's two QoS choices: what the
//! recorder requests from a set of publishers, and what the player offers.
//!
//! Stored forms: metadata v9 writes each policy as its rmw name (`keep_last`,
//! `reliable`, `transient_local`, `automatic`, `unknown`), v8 and before as the rmw enum
//! integer; readers detect which from `history`. Channel metadata holds the same list as
//! YAML text. Durations are `{sec, nsec}`; the infinite duration is
//! `{9223372036, 854775807}` (Foxy's per-RMW "infinities" read as infinite).

use yaml_rust2::Yaml;

use crate::yaml::{self, Node};

mod overrides;
pub use overrides::{OverridesError, QosOverrides};

/// rmw history policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum History {
    /// The rmw implementation's default.
    SystemDefault,
    /// Keep the last `depth` samples.
    KeepLast,
    /// Keep all samples (up to resource limits).
    KeepAll,
    /// Not known (rosbag2 writes it for a policy it cannot name).
    Unknown,
}

/// rmw reliability policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reliability {
    /// The rmw implementation's default.
    SystemDefault,
    /// Every sample delivered, retransmitted if needed.
    Reliable,
    /// Samples may be lost.
    BestEffort,
    /// Not known.
    Unknown,
    /// Match the publishers found (a subscription setting).
    BestAvailable,
}

/// rmw durability policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// The rmw implementation's default.
    SystemDefault,
    /// Late-joining subscriptions get the last samples (latched).
    TransientLocal,
    /// Only samples published after a subscription joins.
    Volatile,
    /// Not known.
    Unknown,
    /// Match the publishers found (a subscription setting).
    BestAvailable,
}

/// rmw liveliness policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Liveliness {
    /// The rmw implementation's default.
    SystemDefault,
    /// Asserted by the middleware while the node lives.
    Automatic,
    /// Deprecated in rmw; kept so old bags read.
    ManualByNode,
    /// Asserted by publishing on the topic.
    ManualByTopic,
    /// Not known.
    Unknown,
    /// Match the publishers found (a subscription setting).
    BestAvailable,
}

macro_rules! policy {
    ($t:ty, $($v:ident = $n:expr, $s:expr;)*) => {
        impl $t {
            /// The rmw enum value (metadata v8 and before).
            pub fn to_int(self) -> i64 { match self { $(Self::$v => $n,)* } }
            /// From the rmw enum value.
            pub fn from_int(i: i64) -> Option<Self> { match i { $($n => Some(Self::$v),)* _ => None } }
            /// The rmw name (metadata v9).
            pub fn name(self) -> &'static str { match self { $(Self::$v => $s,)* } }
            /// From the rmw name; rmw's `*_from_str` gives UNKNOWN for anything else.
            pub fn from_name(s: &str) -> Self {
                match s { $($s => Self::$v,)* _ => Self::unknown() }
            }
        }
    };
}

policy!(History, SystemDefault = 0, "system_default"; KeepLast = 1, "keep_last"; KeepAll = 2, "keep_all"; Unknown = 3, "unknown";);
policy!(Reliability, SystemDefault = 0, "system_default"; Reliable = 1, "reliable"; BestEffort = 2, "best_effort"; Unknown = 3, "unknown"; BestAvailable = 4, "best_available";);
policy!(Durability, SystemDefault = 0, "system_default"; TransientLocal = 1, "transient_local"; Volatile = 2, "volatile"; Unknown = 3, "unknown"; BestAvailable = 4, "best_available";);
policy!(Liveliness, SystemDefault = 0, "system_default"; Automatic = 1, "automatic"; ManualByNode = 2, "manual_by_node"; ManualByTopic = 3, "manual_by_topic"; Unknown = 4, "unknown"; BestAvailable = 5, "best_available";);

impl History {
    fn unknown() -> Self {
        History::Unknown
    }
}
impl Reliability {
    fn unknown() -> Self {
        Reliability::Unknown
    }
}
impl Durability {
    fn unknown() -> Self {
        Durability::Unknown
    }
}
impl Liveliness {
    fn unknown() -> Self {
        Liveliness::Unknown
    }
}

/// An rmw duration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RmwTime {
    /// Whole seconds.
    pub sec: u64,
    /// Nanoseconds (below 1e9 in valid profiles).
    pub nsec: u64,
}

impl RmwTime {
    /// `RMW_DURATION_INFINITE`.
    pub const INFINITE: RmwTime = RmwTime {
        sec: 9_223_372_036,
        nsec: 854_775_807,
    };
    /// `RMW_DURATION_UNSPECIFIED` (the default for deadline, lifespan, lease).
    pub const UNSPECIFIED: RmwTime = RmwTime { sec: 0, nsec: 0 };

    fn node(self) -> Node {
        Node::map(vec![
            ("sec", Node::int(self.sec)),
            ("nsec", Node::int(self.nsec)),
        ])
    }

    fn parse(y: &Yaml) -> Result<Self, QosError> {
        let sec = yaml::get(y, "sec")
            .and_then(yaml::as_u64)
            .ok_or(QosError::DurationWithout("sec"))?;
        let nsec = yaml::get(y, "nsec")
            .and_then(yaml::as_u64)
            .ok_or(QosError::DurationWithout("nsec"))?;
        let t = RmwTime { sec, nsec };
        // Foxy-era infinities (Cyclone, Fast DDS, Connext), as rosbag2 maps them.
        let foxy = [
            RmwTime {
                sec: 0x7FFF_FFFF_FFFF_FFFF / 1_000_000_000,
                nsec: 0x7FFF_FFFF_FFFF_FFFF % 1_000_000_000,
            },
            RmwTime {
                sec: 0x7FFF_FFFF,
                nsec: 0xFFFF_FFFF,
            },
            RmwTime {
                sec: 0x7FFF_FFFF,
                nsec: 0x7FFF_FFFF,
            },
        ];
        Ok(if foxy.contains(&t) {
            RmwTime::INFINITE
        } else {
            t
        })
    }
}

/// Why YAML is not a QoS profile (or a list of them, or one profile's overrides).
#[derive(Debug, thiserror::Error)]
pub enum QosError {
    /// A duration without `sec` or `nsec`.
    #[error("QoS duration without {0}")]
    DurationWithout(&'static str),
    /// A profile without one of its fields.
    #[error("QoS profile without {0}")]
    ProfileWithout(&'static str),
    /// A v8 policy (or the depth) that is not an integer.
    #[error("QoS {0} is not an integer")]
    NotInteger(&'static str),
    /// A v9 policy that is not a name.
    #[error("QoS {0} is not a name")]
    NotName(&'static str),
    /// `avoid_ros_namespace_conventions` that is not a boolean.
    #[error("QoS avoid_ros_namespace_conventions is not a boolean")]
    NotBoolean,
    /// Overrides that are not a map.
    #[error("not a map of QoS fields")]
    NotFieldMap,
    /// An override policy number that names no policy.
    #[error("{key}: {number} is not a policy number")]
    PolicyNumber {
        /// The field.
        key: String,
        /// The number.
        number: i64,
    },
    /// An override policy that is neither a number nor a name.
    #[error("{0}: not a policy name")]
    NotPolicyName(String),
    /// An override policy name that names no policy.
    #[error("{key}: unknown policy {name:?}")]
    UnknownPolicy {
        /// The field.
        key: String,
        /// The name.
        name: String,
    },
    /// An override depth that is not a non-negative integer.
    #[error("depth: not a non-negative integer")]
    Depth,
    /// An override duration that is not one.
    #[error("{field}: {reason}")]
    Duration {
        /// The field.
        field: &'static str,
        /// Why.
        reason: Box<QosError>,
    },
    /// An override `avoid_ros_namespace_conventions` that is not a boolean.
    #[error("avoid_ros_namespace_conventions: not true or false")]
    NotTrueOrFalse,
    /// An override of a field a profile does not have.
    #[error("unknown QoS field {0:?}")]
    UnknownField(String),
    /// Profile list text that is not YAML.
    #[error("{0}")]
    Yaml(#[from] yaml_rust2::ScanError),
    /// Profile list text holding a string, not a list.
    #[error("offered_qos_profiles text is not a list")]
    TextNotList,
    /// A profile list that is neither a list nor text.
    #[error("offered_qos_profiles is neither a list nor YAML text")]
    NotList,
}

/// One QoS profile, field for field as `rmw_qos_profile_t` (and rosbag2's YAML).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Qos {
    /// History policy.
    pub history: History,
    /// Queue depth with `KeepLast` [samples].
    pub depth: u64,
    /// Reliability policy.
    pub reliability: Reliability,
    /// Durability policy.
    pub durability: Durability,
    /// Longest expected time between samples (0 = none).
    pub deadline: RmwTime,
    /// How long a sample stays valid (0 = forever).
    pub lifespan: RmwTime,
    /// Liveliness policy.
    pub liveliness: Liveliness,
    /// How long a publisher may stay silent before it counts as gone (0 = forever).
    pub liveliness_lease_duration: RmwTime,
    /// Skip the ROS name mangling (`rt/`, `rq/`, `rr/` prefixes).
    pub avoid_ros_namespace_conventions: bool,
}

impl Default for Qos {
    /// rosbag2's `Rosbag2QoS{}`: `rmw_qos_profile_default` (keep last 10, reliable,
    /// volatile, everything else unspecified / system default).
    fn default() -> Self {
        Qos {
            history: History::KeepLast,
            depth: 10,
            reliability: Reliability::Reliable,
            durability: Durability::Volatile,
            deadline: RmwTime::UNSPECIFIED,
            lifespan: RmwTime::UNSPECIFIED,
            liveliness: Liveliness::SystemDefault,
            liveliness_lease_duration: RmwTime::UNSPECIFIED,
            avoid_ros_namespace_conventions: false,
        }
    }
}

/// What [`Qos::adapt_request_to_offers`] had to compromise on (rosbag2 logs each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QosCompromise {
    /// Some but not all publishers are reliable: subscribed best-effort.
    MixedReliability,
    /// Some but not all publishers are transient-local: subscribed volatile, latched
    /// messages from the transient-local ones are not received.
    MixedDurability,
}

impl Qos {
    /// The profile as a YAML node (v9 names, or v8 integers when `version < 9`).
    pub fn to_node(&self, version: u32) -> Node {
        let p = |name: &'static str, int: i64| {
            if version < 9 {
                Node::int(int)
            } else {
                Node::str(name)
            }
        };
        Node::map(vec![
            ("history", p(self.history.name(), self.history.to_int())),
            ("depth", Node::int(self.depth)),
            (
                "reliability",
                p(self.reliability.name(), self.reliability.to_int()),
            ),
            (
                "durability",
                p(self.durability.name(), self.durability.to_int()),
            ),
            ("deadline", self.deadline.node()),
            ("lifespan", self.lifespan.node()),
            (
                "liveliness",
                p(self.liveliness.name(), self.liveliness.to_int()),
            ),
            (
                "liveliness_lease_duration",
                self.liveliness_lease_duration.node(),
            ),
            (
                "avoid_ros_namespace_conventions",
                Node::bool(self.avoid_ros_namespace_conventions),
            ),
        ])
    }

    /// Reads one profile, detecting the v8 (integer) or v9 (name) form from `history`
    /// as rosbag2 does.
    pub fn from_yaml(y: &Yaml) -> Result<Qos, QosError> {
        let field = |k: &'static str| yaml::get(y, k).ok_or(QosError::ProfileWithout(k));
        let hist = field("history")?;
        let v8 = matches!(yaml::as_i64(hist), Some(0..=3));
        let int = |k: &'static str| -> Result<i64, QosError> {
            yaml::as_i64(field(k)?).ok_or(QosError::NotInteger(k))
        };
        let name = |k: &'static str| -> Result<String, QosError> {
            yaml::as_string(field(k)?).ok_or(QosError::NotName(k))
        };
        let (history, reliability, durability, liveliness) = if v8 {
            (
                History::from_int(int("history")?).unwrap_or(History::Unknown),
                Reliability::from_int(int("reliability")?).unwrap_or(Reliability::Unknown),
                Durability::from_int(int("durability")?).unwrap_or(Durability::Unknown),
                Liveliness::from_int(int("liveliness")?).unwrap_or(Liveliness::Unknown),
            )
        } else {
            (
                History::from_name(&name("history")?),
                Reliability::from_name(&name("reliability")?),
                Durability::from_name(&name("durability")?),
                Liveliness::from_name(&name("liveliness")?),
            )
        };
        Ok(Qos {
            history,
            depth: yaml::as_u64(field("depth")?).ok_or(QosError::NotInteger("depth"))?,
            reliability,
            durability,
            deadline: RmwTime::parse(field("deadline")?)?,
            lifespan: RmwTime::parse(field("lifespan")?)?,
            liveliness,
            liveliness_lease_duration: RmwTime::parse(field("liveliness_lease_duration")?)?,
            avoid_ros_namespace_conventions: yaml::as_bool(field(
                "avoid_ros_namespace_conventions",
            )?)
            .ok_or(QosError::NotBoolean)?,
        })
    }

    /// rosbag2's `adapt_request_to_offers`: the subscription QoS for recording a topic
    /// with these publishers. Reliable only when every publisher is reliable,
    /// transient-local only when every publisher is; history keep-last 10, nothing else
    /// specified. No publishers: the default.
    pub fn adapt_request_to_offers(offers: &[Qos]) -> (Qos, Vec<QosCompromise>) {
        let mut q = Qos::default();
        let mut notes = Vec::new();
        if offers.is_empty() {
            return (q, notes);
        }
        let reliable = offers
            .iter()
            .filter(|o| o.reliability == Reliability::Reliable)
            .count();
        let latched = offers
            .iter()
            .filter(|o| o.durability == Durability::TransientLocal)
            .count();
        if reliable == offers.len() {
            q.reliability = Reliability::Reliable;
        } else {
            if reliable > 0 {
                notes.push(QosCompromise::MixedReliability);
            }
            q.reliability = Reliability::BestEffort;
        }
        if latched == offers.len() {
            q.durability = Durability::TransientLocal;
        } else {
            if latched > 0 {
                notes.push(QosCompromise::MixedDurability);
            }
            q.durability = Durability::Volatile;
        }
        (q, notes)
    }

    /// rosbag2's `adapt_offer_to_recorded_offers`: the publisher QoS for playing a topic.
    /// When all recorded profiles agree on what affects compatibility (reliability,
    /// durability, deadline, liveliness, lease), the first one with keep-last 10;
    /// otherwise (or with none recorded) the default, and `false`.
    pub fn adapt_offer_to_recorded_offers(profiles: &[Qos]) -> (Qos, bool) {
        let Some(first) = profiles.first() else {
            return (Qos::default(), true);
        };
        let same = profiles.iter().all(|p| {
            p.reliability == first.reliability
                && p.durability == first.durability
                && p.deadline == first.deadline
                && p.liveliness == first.liveliness
                && p.liveliness_lease_duration == first.liveliness_lease_duration
        });
        if same {
            let mut q = *first;
            q.history = History::KeepLast;
            q.depth = 10;
            (q, true)
        } else {
            (Qos::default(), false)
        }
    }
}

/// A profile list as rosbag2 writes it into channel metadata (`serialize_rclcpp_qos_vector`,
/// v9 names): a YAML block sequence, `[]` when empty.
pub fn profiles_to_yaml(profiles: &[Qos], version: u32) -> String {
    yaml::dump(&profiles_node(profiles, version))
}

/// A profile list as a YAML sequence node.
pub fn profiles_node(profiles: &[Qos], version: u32) -> Node {
    Node::Seq(profiles.iter().map(|q| q.to_node(version)).collect())
}

/// Reads a profile list from YAML text (channel metadata, metadata v4..v8); empty text
/// is no profiles.
pub fn profiles_from_yaml_text(text: &str) -> Result<Vec<Qos>, QosError> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    match yaml::parse(text)? {
        // The text holds the list itself: a string in the string is not one (and
        // following it would recurse until the stack overflows; found by fuzzing).
        Yaml::String(_) => Err(QosError::TextNotList),
        y => profiles_from_yaml(&y),
    }
}

/// Reads a profile list from a YAML node: a sequence, or a string holding one.
pub fn profiles_from_yaml(y: &Yaml) -> Result<Vec<Qos>, QosError> {
    match y {
        Yaml::Array(items) => items.iter().map(Qos::from_yaml).collect(),
        Yaml::String(s) => profiles_from_yaml_text(s),
        Yaml::Null => Ok(Vec::new()),
        _ => Err(QosError::NotList),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn latched() -> Qos {
        Qos {
            durability: Durability::TransientLocal,
            depth: 1,
            ..Qos::default()
        }
    }

    #[test]
    fn v9_and_v8_forms_round_trip() {
        let q = Qos {
            deadline: RmwTime::INFINITE,
            ..latched()
        };
        for v in [8, 9] {
            let text = profiles_to_yaml(&[q], v);
            assert_eq!(profiles_from_yaml_text(&text).unwrap(), vec![q], "{text}");
        }
        assert!(profiles_to_yaml(&[q], 9).starts_with("- history: keep_last\n  depth: 1\n  reliability: reliable\n  durability: transient_local\n  deadline:\n    sec: 9223372036\n    nsec: 854775807"));
        assert!(profiles_to_yaml(&[q], 8)
            .starts_with("- history: 1\n  depth: 1\n  reliability: 1\n  durability: 1\n"));
        assert_eq!(profiles_to_yaml(&[], 9), "[]");
        assert_eq!(profiles_from_yaml_text("").unwrap(), vec![]);
    }

    #[test]
    fn rosbag2_written_v8_profile_reads() {
        // From a bag rosbag2 wrote (Jazzy test resources): unknown history, Fast DDS infinities.
        let text = "- history: 3\n  depth: 0\n  reliability: 1\n  durability: 2\n  deadline:\n    sec: 9223372036\n    nsec: 854775807\n  lifespan:\n    sec: 9223372036\n    nsec: 854775807\n  liveliness: 1\n  liveliness_lease_duration:\n    sec: 9223372036\n    nsec: 854775807\n  avoid_ros_namespace_conventions: false";
        let q = profiles_from_yaml_text(text).unwrap();
        assert_eq!(q[0].history, History::Unknown);
        assert_eq!(q[0].durability, Durability::Volatile);
        assert_eq!(q[0].lifespan, RmwTime::INFINITE);
        // Foxy Fast DDS infinity.
        let foxy = text.replace(
            "sec: 9223372036\n    nsec: 854775807",
            "sec: 2147483647\n    nsec: 4294967295",
        );
        assert_eq!(
            profiles_from_yaml_text(&foxy).unwrap()[0].deadline,
            RmwTime::INFINITE
        );
    }

    #[test]
    fn request_is_reliable_or_latched_only_when_every_offer_is() {
        let be = Qos {
            reliability: Reliability::BestEffort,
            ..Qos::default()
        };
        assert_eq!(
            Qos::adapt_request_to_offers(&[latched(), latched()])
                .0
                .durability,
            Durability::TransientLocal
        );
        let (q, notes) = Qos::adapt_request_to_offers(&[latched(), Qos::default()]);
        assert_eq!(q.durability, Durability::Volatile);
        assert_eq!(notes, vec![QosCompromise::MixedDurability]);
        let (q, notes) = Qos::adapt_request_to_offers(&[be, Qos::default()]);
        assert_eq!(q.reliability, Reliability::BestEffort);
        assert_eq!(notes, vec![QosCompromise::MixedReliability]);
        assert_eq!(Qos::adapt_request_to_offers(&[]).0, Qos::default());
    }

    #[test]
    fn offer_keeps_the_recorded_profile_with_default_history() {
        let (q, same) = Qos::adapt_offer_to_recorded_offers(&[
            latched(),
            Qos {
                depth: 3,
                ..latched()
            },
        ]);
        assert!(same);
        assert_eq!((q.durability, q.depth), (Durability::TransientLocal, 10));
        let (q, same) = Qos::adapt_offer_to_recorded_offers(&[latched(), Qos::default()]);
        assert!(!same);
        assert_eq!(q, Qos::default());
    }

    /// Fuzzing regression: a plain string as the profile list recursed until the stack
    /// overflowed (`offered_qos_profiles: x` in metadata.yaml crashed the reader).
    #[test]
    fn a_string_that_is_not_a_list_is_an_error() {
        for text in ["x", "\"x\"", "'[]'"] {
            assert!(profiles_from_yaml_text(text).is_err(), "{text}");
        }
        assert!(profiles_from_yaml(&Yaml::String("hello".into())).is_err());
        assert!(profiles_from_yaml_text("[]").unwrap().is_empty());
    }
}
