//! The manager's counters, declared once; published in its `managed_nodes` status.

node_glue::counters! {
    /// What the manager did.
    pub(crate) struct Counters {
        managed_nodes {
            /// Commands run (manage_nodes requests, autostart, the reset after a node went down).
            commands,
            /// Commands that failed (the first failure is in `last_failure`).
            commands_failed,
            /// Nodes found down by the heartbeat.
            nodes_down,
            /// Times a node was found alive but no longer active.
            nodes_left_active,
        }
    }
}
