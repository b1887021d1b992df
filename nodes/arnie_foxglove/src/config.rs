//! The node's settings, validated once: nothing downstream handles raw strings.

use std::net::IpAddr;

use regex::Regex;

/// A setting that cannot be used, naming the parameter: the workspace's one shape,
/// `glue_core`'s, shown `name: reason`.
pub use glue_core::ConfigError;

/// The raw settings as the parameters give them.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Address to bind (`127.0.0.1`: this machine only; `0.0.0.0`: every interface).
    pub address: String,
    /// TCP port (0: any free port).
    pub port: i64,
    /// Topics advertised: a regex matched against the whole name (empty = all).
    pub topic_allow: String,
    /// Topics never advertised, even when allowed (empty = none).
    pub topic_deny: String,
    /// Topics a client may publish on (empty = none).
    pub publish_allow: String,
    /// Services advertised to clients and callable by them (empty = none).
    pub service_allow: String,
    /// Messages kept per latched topic for late subscribers.
    pub latched_depth: i64,
    /// Messages each ROS subscription may hold for the bridge before it counts drops
    /// (`subscription_overflow`); raised to the publishers' summed depths.
    pub subscription_queue: i64,
    /// Subscribe/unsubscribe operations per client and second above which the client is
    /// counted as storming (it is still served).
    pub storm_ops_per_s: i64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            address: "127.0.0.1".into(),
            port: 8765,
            topic_allow: String::new(),
            topic_deny: String::new(),
            publish_allow: "/arm/target".into(),
            service_allow: ".*".into(),
            latched_depth: 10,
            subscription_queue: 1000,
            storm_ops_per_s: 200,
        }
    }
}

/// The checked settings.
#[derive(Debug, Clone)]
pub struct Config {
    /// Bind address.
    pub address: IpAddr,
    /// Bind port.
    pub port: u16,
    allow: Option<Regex>,
    deny: Option<Regex>,
    publish: Option<Regex>,
    services: Option<Regex>,
    /// Messages kept per latched topic (1..=1000).
    pub latched_depth: usize,
    /// See [`Settings::subscription_queue`] (1..=100000).
    pub subscription_queue: usize,
    /// See [`Settings::storm_ops_per_s`].
    pub storm_ops_per_s: u32,
}

/// A whole-name regex; empty means "no pattern".
fn anchored(param: &'static str, pattern: &str) -> Result<Option<Regex>, ConfigError> {
    if pattern.is_empty() {
        return Ok(None);
    }
    Regex::new(&format!("^(?:{pattern})$"))
        .map(Some)
        .map_err(|e| ConfigError::new(param, format!("not a regex: {e}")))
}

impl Config {
    /// Checks `s`.
    ///
    /// # Errors
    /// An address that is not an IP address, a port outside 0..=65535, a pattern that is
    /// not a regex, a depth or storm limit out of range.
    pub fn new(s: &Settings) -> Result<Config, ConfigError> {
        let address: IpAddr = s.address.parse().map_err(|_| {
            ConfigError::new("address", format!("`{}` is not an IP address", s.address))
        })?;
        let port = u16::try_from(s.port)
            .map_err(|_| ConfigError::new("port", format!("{} is not in 0..=65535", s.port)))?;
        if !(1..=1000).contains(&s.latched_depth) {
            return Err(ConfigError::new(
                "latched_depth",
                format!("{} is not in 1..=1000", s.latched_depth),
            ));
        }
        if !(1..=100_000).contains(&s.subscription_queue) {
            return Err(ConfigError::new(
                "subscription_queue",
                format!("{} is not in 1..=100000", s.subscription_queue),
            ));
        }
        let storm_ops_per_s = u32::try_from(s.storm_ops_per_s)
            .ok()
            .filter(|n| *n >= 1)
            .ok_or_else(|| {
                ConfigError::new(
                    "storm_ops_per_s",
                    format!("{} is not >= 1", s.storm_ops_per_s),
                )
            })?;
        Ok(Config {
            address,
            port,
            allow: anchored("topic_allow", &s.topic_allow)?,
            deny: anchored("topic_deny", &s.topic_deny)?,
            publish: anchored("publish_allow", &s.publish_allow)?,
            services: anchored("service_allow", &s.service_allow)?,
            latched_depth: s.latched_depth as usize,
            subscription_queue: s.subscription_queue as usize,
            storm_ops_per_s,
        })
    }

    /// True when `topic` is advertised: allowed (or no allowlist) and not denied.
    pub fn advertises(&self, topic: &str) -> bool {
        self.allow.as_ref().is_none_or(|r| r.is_match(topic))
            && !self.deny.as_ref().is_some_and(|r| r.is_match(topic))
    }

    /// True when a client may publish on `topic`.
    pub fn may_publish(&self, topic: &str) -> bool {
        self.publish.as_ref().is_some_and(|r| r.is_match(topic))
    }

    /// True when `service` is advertised to clients and may be called by them.
    pub fn may_call(&self, service: &str) -> bool {
        self.services.as_ref().is_some_and(|r| r.is_match(service))
    }

    /// True when the bind address is reachable from other machines.
    pub fn exposed(&self) -> bool {
        !self.address.is_loopback()
    }
}

/// `pkg/Type` or `pkg/msg/Type` (as a Foxglove client may write a schema name) as the
/// ROS type name `pkg/msg/Type`; `None` when it is neither.
pub fn ros_type_name(schema_name: &str) -> Option<String> {
    let ok = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let parts: Vec<&str> = schema_name.split('/').collect();
    match parts.as_slice() {
        [p, t] if ok(p) && ok(t) => Some(format!("{p}/msg/{t}")),
        [p, "msg", t] if ok(p) && ok(t) => Some(format!("{p}/msg/{t}")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_are_matched_whole_and_deny_wins() {
        let c = Config::new(&Settings {
            topic_allow: "/arm/.*|/brain/state".into(),
            topic_deny: "/arm/secret".into(),
            ..Settings::default()
        })
        .unwrap();
        assert!(c.advertises("/arm/position"));
        assert!(c.advertises("/brain/state"));
        assert!(!c.advertises("/brain/state2"), "whole-name match");
        assert!(!c.advertises("/arm/secret"));
        assert!(!c.advertises("/sim/truth"));
        assert!(c.may_publish("/arm/target"));
        assert!(!c.may_publish("/arm/target2"));
        assert!(
            c.may_call("/anything/get_parameters"),
            "services: all by default"
        );
        let none = Config::new(&Settings {
            service_allow: String::new(),
            ..Settings::default()
        })
        .unwrap();
        assert!(!none.may_call("/a"));
        assert!(!c.exposed());
        let all = Config::new(&Settings {
            publish_allow: String::new(),
            ..Settings::default()
        })
        .unwrap();
        assert!(all.advertises("/anything"));
        assert!(
            !all.may_publish("/arm/target"),
            "empty publish allowlist: nothing"
        );
    }

    #[test]
    fn bad_settings_name_the_parameter() {
        let bad = |s: Settings| Config::new(&s).unwrap_err().to_string();
        assert!(bad(Settings {
            address: "localhost:1".into(),
            ..Settings::default()
        })
        .starts_with("address"));
        assert!(bad(Settings {
            port: 70000,
            ..Settings::default()
        })
        .starts_with("port"));
        assert!(bad(Settings {
            topic_deny: "(".into(),
            ..Settings::default()
        })
        .starts_with("topic_deny"));
        assert!(bad(Settings {
            latched_depth: 0,
            ..Settings::default()
        })
        .starts_with("latched_depth"));
        assert!(bad(Settings {
            subscription_queue: 0,
            ..Settings::default()
        })
        .starts_with("subscription_queue"));
        assert!(Config::new(&Settings {
            address: "0.0.0.0".into(),
            ..Settings::default()
        })
        .unwrap()
        .exposed());
    }

    #[test]
    fn schema_names_become_ros_type_names() {
        assert_eq!(
            ros_type_name("geometry_msgs/Point").as_deref(),
            Some("geometry_msgs/msg/Point")
        );
        assert_eq!(
            ros_type_name("geometry_msgs/msg/Point").as_deref(),
            Some("geometry_msgs/msg/Point")
        );
        assert_eq!(ros_type_name("Point"), None);
        assert_eq!(ros_type_name("a/srv/B"), None);
        assert_eq!(ros_type_name("a b/C"), None);
    }
}
