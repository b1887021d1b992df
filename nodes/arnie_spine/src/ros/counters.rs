//! The glue's own counters, declared once with `node_glue::counters!` (the router counts
//! everything about messages in [`crate::counters`]); [`super::status`] publishes them
//! after the router's in each interface's `/diagnostics` status.

node_glue::counters! {
    /// Counters of the glue itself (the router counts everything about messages),
    /// published after the router's in each interface's status.
    pub struct GlueCounters {
        /// Published in an input's status.
        input {
            /// An accepted value that could not become a message (a `point` topic needs
            /// x y z in the first item).
            unpublishable,
            /// r2r refused to publish.
            publish_errors,
            /// The socket reported an error on receive.
            receive_errors,
            /// Datagrams received while the node was not active (not routed).
            inactive_dropped,
        }
        /// Published in an output's status.
        output {
            /// The socket refused to send.
            send_errors,
            /// A topic message in another frame than `frame_id` (not forwarded).
            wrong_frame,
            /// Topic values received while the node was not active (not forwarded).
            topic_inactive_dropped,
        }
    }
}
