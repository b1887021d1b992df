//! Reads the ROS graph for the `connectionGraph` capability (the r2r patch's graph
//! queries: subscriptions by topic, node names, services by node).

use crate::graph::{node_id, GraphView};

/// Every topic's publishers and subscribers and every node's services, now.
///
/// # Errors
/// The first graph query rcl refuses.
pub(super) fn read(node: &r2r::Node) -> r2r::Result<GraphView> {
    let mut v = GraphView::default();
    for topic in node.get_topic_names_and_types()?.keys() {
        // Both sides listed, empty or not: a topic whose last publisher left while it
        // keeps subscribers is then sent with no publishers (the SDK sends only changes).
        v.published.entry(topic.clone()).or_default();
        v.subscribed.entry(topic.clone()).or_default();
        for p in node.get_publishers_info_by_topic(topic, false)? {
            GraphView::add(
                &mut v.published,
                topic,
                node_id(&p.node_name, &p.node_namespace),
            );
        }
        for s in node.get_subscriptions_info_by_topic(topic, false)? {
            GraphView::add(
                &mut v.subscribed,
                topic,
                node_id(&s.node_name, &s.node_namespace),
            );
        }
    }
    for (id, services) in node_services(node)? {
        for service in services.keys() {
            GraphView::add(&mut v.services, service, id.clone());
        }
    }
    Ok(v)
}

/// A node's services: name → types.
pub(super) type NodeServices = std::collections::HashMap<String, Vec<String>>;

/// Every node (by fully qualified name) with its services and their types: the one
/// reading of the graph's services, for the connection graph and the `services`
/// capability.
///
/// # Errors
/// rcl refused to list the nodes.
pub(super) fn node_services(node: &r2r::Node) -> r2r::Result<Vec<(String, NodeServices)>> {
    let mut out = Vec::new();
    for (name, ns) in node.get_node_names()? {
        // A node that left between the two queries has no services to list.
        if let Ok(services) = node.get_service_names_and_types_by_node(&name, &ns) {
            out.push((node_id(&name, &ns), services));
        }
    }
    Ok(out)
}
