//! [`ConfigError`]: the one shape of "this setting cannot be used": the setting's name
//! and why. Nodes check their parameters into it (the refusal of a `ros2 param set`,
//! the line a node exits with), and `node_glue::Error::Config` carries it out of a
//! node's set-up.
use std::borrow::Cow;
use std::fmt;

/// A setting refused: its `name` (the ROS parameter, or a dotted field of a file) and
/// the `reason`.
///
/// Shown as `name reason` when the reason is the rule the value broke, worded as one
/// (`tick_period_s must be in 0.01..=3600 [s], got 0`), else as `name: reason`
/// (`link_timeout_s: 0 is not in 0.02..=60`).
///
/// ```
/// use glue_core::ConfigError;
/// let e = ConfigError::new("max_ticks", "must be >= 0, got -1");
/// assert_eq!(e.to_string(), "max_ticks must be >= 0, got -1");
/// let e = ConfigError::new("port", "70000 is outside 0..=65535");
/// assert_eq!(e.to_string(), "port: 70000 is outside 0..=65535");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The setting, e.g. `tick_period_s`.
    pub name: Cow<'static, str>,
    /// Why, e.g. `must be in 0.01..=3600 [s], got 1e-12`.
    pub reason: String,
}

impl ConfigError {
    /// The error for setting `name`, refused for `reason`.
    pub fn new(name: impl Into<Cow<'static, str>>, reason: impl Into<String>) -> Self {
        ConfigError {
            name: name.into(),
            reason: reason.into(),
        }
    }

    /// Whether the reason is worded as the rule (`must ...`), read on from the name.
    fn is_rule(&self) -> bool {
        self.reason.starts_with("must ")
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sep = if self.is_rule() { " " } else { ": " };
        write!(f, "{}{sep}{}", self.name, self.reason)
    }
}

impl std::error::Error for ConfigError {}

#[cfg(test)]
mod tests {
    use super::ConfigError;

    #[test]
    fn a_rule_reads_on_and_a_finding_follows_a_colon() {
        let rule = ConfigError::new("tick_period_s", "must be in 0.01..=3600 [s], got 0");
        assert_eq!(
            rule.to_string(),
            "tick_period_s must be in 0.01..=3600 [s], got 0"
        );
        let finding = ConfigError::new(String::from("a.b"), "5 is not in 0..=1");
        assert_eq!(finding.to_string(), "a.b: 5 is not in 0..=1");
        assert_eq!(finding.name, "a.b");
        // "must" inside a reason is not a rule.
        let other = ConfigError::new("x", "mustard is not a number");
        assert_eq!(other.to_string(), "x: mustard is not a number");
    }
}
