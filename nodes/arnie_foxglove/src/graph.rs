//! The `connectionGraph` capability: who publishes, subscribes to and serves what, as
//! foxglove_bridge reports it (ids are the nodes' fully qualified names), for Foxglove's
//! Topic Graph panel. The glue reads the ROS graph into a [`GraphView`]; a new view is
//! sent to the clients only when it differs from the last one sent (the SDK sends the
//! difference).

use std::collections::{BTreeMap, BTreeSet};

use foxglove::websocket::ConnectionGraph;

/// Name → the ids (fully qualified node names) on that side.
pub type Sides = BTreeMap<String, BTreeSet<String>>;

/// One reading of the ROS graph.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GraphView {
    /// Topic → its publishers.
    pub published: Sides,
    /// Topic → its subscribers.
    pub subscribed: Sides,
    /// Service → the nodes that serve it.
    pub services: Sides,
}

/// A node's fully qualified name from its name and namespace (`/`, `/ns`).
pub fn node_id(name: &str, namespace: &str) -> String {
    let ns = namespace.trim_end_matches('/');
    format!("{ns}/{name}")
}

impl GraphView {
    /// Adds `id` on one side of `name`.
    pub fn add(side: &mut Sides, name: &str, id: String) {
        side.entry(name.to_string()).or_default().insert(id);
    }

    /// The SDK's form of this view.
    pub fn to_connection_graph(&self) -> ConnectionGraph {
        let mut g = ConnectionGraph::new();
        for (t, ids) in &self.published {
            g.set_published_topic(t.as_str(), ids.iter().cloned());
        }
        for (t, ids) in &self.subscribed {
            g.set_subscribed_topic(t.as_str(), ids.iter().cloned());
        }
        for (s, ids) in &self.services {
            g.set_advertised_service(s.as_str(), ids.iter().cloned());
        }
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_fully_qualified_node_names() {
        assert_eq!(node_id("talker", "/"), "/talker");
        assert_eq!(node_id("talker", "/left"), "/left/talker");
        assert_eq!(node_id("talker", "/left/"), "/left/talker");
        assert_eq!(node_id("talker", ""), "/talker");
    }

    #[test]
    fn views_compare_by_content() {
        let mut a = GraphView::default();
        GraphView::add(&mut a.published, "/chatter", node_id("talker", "/"));
        GraphView::add(&mut a.services, "/talker/get_parameters", "/talker".into());
        let mut b = GraphView::default();
        GraphView::add(&mut b.services, "/talker/get_parameters", "/talker".into());
        assert_ne!(a, b);
        GraphView::add(&mut b.published, "/chatter", "/talker".into());
        assert_eq!(a, b);
        let _ = a.to_connection_graph();
    }
}
