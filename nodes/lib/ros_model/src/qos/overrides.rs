//! rosbag2's `--qos-profile-overrides-path` file: per topic, the QoS fields that replace
//! those of the profile `record` requests or `play` offers.

use yaml_rust2::Yaml;

use super::{Durability, History, Liveliness, Qos, QosError, Reliability, RmwTime};
use crate::yaml;

/// The error of an override duration `field`.
fn in_field(field: &'static str) -> impl Fn(QosError) -> QosError {
    move |e| QosError::Duration {
        field,
        reason: Box::new(e),
    }
}

/// Why a QoS overrides file is refused (each names the file).
#[derive(Debug, thiserror::Error)]
pub enum OverridesError {
    /// Not YAML.
    #[error("{file}: not YAML: {reason}")]
    NotYaml {
        /// The file.
        file: String,
        /// The scanner's reason.
        reason: yaml_rust2::ScanError,
    },
    /// Not a map.
    #[error("{0}: not a map of topic names to QoS profiles")]
    NotMap(String),
    /// A key that is not text.
    #[error("{0}: a topic name that is not text")]
    TopicNotText(String),
    /// A topic's overrides refused.
    #[error("{file}: {topic}: {reason}")]
    Topic {
        /// The file.
        file: String,
        /// The topic.
        topic: String,
        /// Why.
        reason: QosError,
    },
}

/// rosbag2's `--qos-profile-overrides-path` file: a map from topic name to a QoS
/// profile, applied to the subscription of `record` or the publisher of `play`. As in
/// rosbag2, policies are written by name (`keep_last`, `best_effort`, `transient_local`
/// ...) or, as in v8 metadata, by rmw number, and durations as `{sec, nsec}`. A field left
/// out keeps the value of the profile it overrides (rosbag2's own file may be partial).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QosOverrides {
    topics: std::collections::BTreeMap<String, Yaml>,
}

impl QosOverrides {
    /// Parses the file's text; `source` names it in errors.
    ///
    /// # Errors
    /// Not YAML, not a map of topics to maps, an unknown field or policy name, a bad
    /// number: the message names the topic and the field.
    pub fn from_yaml_text(text: &str, source: &str) -> Result<QosOverrides, OverridesError> {
        let y = yaml::parse(text).map_err(|e| OverridesError::NotYaml {
            file: source.to_string(),
            reason: e,
        })?;
        let map = match y {
            Yaml::Hash(h) => h,
            Yaml::Null => Default::default(),
            _ => return Err(OverridesError::NotMap(source.to_string())),
        };
        let mut topics = std::collections::BTreeMap::new();
        for (k, v) in map {
            let topic = yaml::as_string(&k)
                .ok_or_else(|| OverridesError::TopicNotText(source.to_string()))?;
            let topic = if topic.starts_with('/') {
                topic
            } else {
                format!("/{topic}")
            };
            // Checked now, so a bad file stops the command before it starts.
            Self::apply_one(&v, Qos::default()).map_err(|reason| OverridesError::Topic {
                file: source.to_string(),
                topic: topic.clone(),
                reason,
            })?;
            topics.insert(topic, v);
        }
        Ok(QosOverrides { topics })
    }

    /// The topics overridden.
    pub fn topics(&self) -> impl Iterator<Item = &str> {
        self.topics.keys().map(String::as_str)
    }

    /// True when no topic is overridden.
    pub fn is_empty(&self) -> bool {
        self.topics.is_empty()
    }

    /// `base` with `topic`'s overrides (unchanged when the topic has none).
    pub fn apply(&self, topic: &str, base: Qos) -> Qos {
        match self.topics.get(topic) {
            // Checked at parse time: cannot fail here.
            Some(y) => Self::apply_one(y, base).unwrap_or(base),
            None => base,
        }
    }

    fn apply_one(y: &Yaml, base: Qos) -> Result<Qos, QosError> {
        let Yaml::Hash(h) = y else {
            return Err(QosError::NotFieldMap);
        };
        let mut q = base;
        for (k, v) in h {
            let key = yaml::as_string(k).unwrap_or_default();
            fn policy<T: Copy + PartialEq>(
                key: &str,
                v: &Yaml,
                from_int: fn(i64) -> Option<T>,
                from_name: fn(&str) -> T,
                unknown: T,
            ) -> Result<T, QosError> {
                if let Some(i) = yaml::as_i64(v) {
                    return from_int(i).ok_or_else(|| QosError::PolicyNumber {
                        key: key.to_string(),
                        number: i,
                    });
                }
                let name =
                    yaml::as_string(v).ok_or_else(|| QosError::NotPolicyName(key.to_string()))?;
                let p = from_name(&name.to_ascii_lowercase());
                if p == unknown && name != "unknown" {
                    return Err(QosError::UnknownPolicy {
                        key: key.to_string(),
                        name,
                    });
                }
                Ok(p)
            }
            match key.as_str() {
                "history" => {
                    q.history = policy(
                        &key,
                        v,
                        History::from_int,
                        History::from_name,
                        History::Unknown,
                    )?
                }
                "reliability" => {
                    q.reliability = policy(
                        &key,
                        v,
                        Reliability::from_int,
                        Reliability::from_name,
                        Reliability::Unknown,
                    )?
                }
                "durability" => {
                    q.durability = policy(
                        &key,
                        v,
                        Durability::from_int,
                        Durability::from_name,
                        Durability::Unknown,
                    )?
                }
                "liveliness" => {
                    q.liveliness = policy(
                        &key,
                        v,
                        Liveliness::from_int,
                        Liveliness::from_name,
                        Liveliness::Unknown,
                    )?
                }
                "depth" => q.depth = yaml::as_u64(v).ok_or(QosError::Depth)?,
                "deadline" => q.deadline = RmwTime::parse(v).map_err(in_field("deadline"))?,
                "lifespan" => q.lifespan = RmwTime::parse(v).map_err(in_field("lifespan"))?,
                "liveliness_lease_duration" => {
                    q.liveliness_lease_duration =
                        RmwTime::parse(v).map_err(in_field("liveliness_lease_duration"))?
                }
                "avoid_ros_namespace_conventions" => {
                    q.avoid_ros_namespace_conventions =
                        yaml::as_bool(v).ok_or(QosError::NotTrueOrFalse)?
                }
                other => return Err(QosError::UnknownField(other.to_string())),
            }
        }
        Ok(q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_file_changes_only_the_fields_written() {
        let text = "/chatter:\n  reliability: best_effort\n  depth: 3\n\
                    latched:\n  durability: transient_local\n  history: 1\n  \
                    deadline: {sec: 1, nsec: 5}\n";
        let o = QosOverrides::from_yaml_text(text, "f.yaml").unwrap();
        assert_eq!(o.topics().collect::<Vec<_>>(), ["/chatter", "/latched"]);
        let c = o.apply("/chatter", Qos::default());
        assert_eq!(
            (c.reliability, c.depth, c.durability),
            (Reliability::BestEffort, 3, Durability::Volatile)
        );
        let l = o.apply("/latched", Qos::default());
        assert_eq!(
            (l.durability, l.history),
            (Durability::TransientLocal, History::KeepLast)
        );
        assert_eq!(l.deadline, RmwTime { sec: 1, nsec: 5 });
        assert_eq!(o.apply("/other", Qos::default()), Qos::default());
        assert!(QosOverrides::from_yaml_text("", "f").unwrap().is_empty());
    }

    #[test]
    fn a_bad_overrides_file_names_the_topic_and_field() {
        for (text, want) in [
            (
                "/a:\n  reliability: sometimes\n",
                "/a: reliability: unknown policy",
            ),
            ("/a:\n  depht: 3\n", "/a: unknown QoS field \"depht\""),
            ("/a:\n  depth: -1\n", "/a: depth"),
            (
                "/a:\n  history: 9\n",
                "/a: history: 9 is not a policy number",
            ),
            ("/a:\n  deadline: 5\n", "/a: deadline"),
            ("- /a\n", "not a map"),
            ("/a: [1\n", "not YAML"),
        ] {
            let e = QosOverrides::from_yaml_text(text, "q.yaml")
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with("q.yaml: ") && e.contains(want),
                "{text:?}: {e}"
            );
        }
    }
}
