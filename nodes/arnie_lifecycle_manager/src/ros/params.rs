//! The manager's ROS parameters: Nav2's names where Nav2's manager has the parameter
//! (`node_names`, `autostart`, `bond_timeout`, `bond_respawn_max_duration`,
//! `attempt_respawn_reconnection`), so a Nav2 params file works unchanged.
use node_glue::ConfigError;

node_glue::declare_parameters! {
    /// The lifecycle manager's parameters, read at start.
    pub(crate) struct ManagerParams(_d = ()) {
        /// The managed nodes, in bring-up order (relative to this node's namespace, or absolute)
        pub(crate) node_names: node_glue::params::Strings = Default::default(), any(), "start only";
        /// Configure and activate node_names at start (STARTUP)
        pub(crate) autostart: bool = false, any(), "start only";
        /// Time between two heartbeats: get_state of every node while they are active [s]
        pub(crate) heartbeat_period_s: f64 = 0.5, float(0.01, 60.0), "start only";
        /// A node that has not answered a heartbeat within this is down; 0 = no heartbeat [s] (Nav2's bond timeout)
        pub(crate) bond_timeout: f64 = 4.0, float(0.0, 600.0), "start only";
        /// After a node went down and the others were brought down, start them all again once every node answers
        pub(crate) attempt_respawn_reconnection: bool = true, any(), "start only";
        /// How long to wait for a node that went down to answer again [s]
        pub(crate) bond_respawn_max_duration: f64 = 10.0, float(0.0, 3600.0), "start only";
        /// How long to wait for a node's lifecycle services to appear, per call [s]
        pub(crate) service_timeout_s: f64 = 10.0, float(0.01, 3600.0), "start only";
        /// How long to wait for the answer to a transition (the node's callback) or to get_state [s]
        pub(crate) transition_timeout_s: f64 = 30.0, float(0.01, 3600.0), "start only";
    }
}

impl ManagerParams {
    /// The checks beyond the ranges: the node names.
    pub(crate) fn check(&self) -> Result<(), ConfigError> {
        self.names()
            .map(|_| ())
            .map_err(|e| ConfigError::new("node_names", e.to_string()))
    }

    /// The node names, checked (a ROS name: not empty, no spaces, not twice).
    pub(crate) fn names(&self) -> Result<Vec<String>, super::SetupError> {
        let mut out: Vec<String> = Vec::new();
        for n in self.node_names.iter() {
            let n = n.trim().to_string();
            let ok = !n.is_empty()
                && !n.ends_with('/')
                && n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '/')
                && !n.contains("//")
                && !n
                    .trim_start_matches('/')
                    .starts_with(|c: char| c.is_ascii_digit());
            if !ok {
                return Err(super::SetupError::BadName(n));
            }
            if out.contains(&n) {
                return Err(super::SetupError::Twice(n));
            }
            out.push(n);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readme_table_is_the_declarations() {
        node_glue::params::check_readme::<ManagerParams>(include_str!("../../README.md")).unwrap();
    }

    #[test]
    fn node_names_are_checked() {
        let mut p = ManagerParams {
            node_names: vec!["sim".to_string(), "/left/spine_bridge".to_string()].into(),
            ..Default::default()
        };
        assert_eq!(p.names().unwrap().len(), 2);
        p.node_names.0.push("sim".into());
        assert!(p.check().unwrap_err().to_string().contains("twice"));
        p.node_names = vec!["bad name".to_string()].into();
        assert!(p.check().is_err());
        p.node_names = vec![String::new()].into();
        assert!(p.check().is_err());
    }
}
