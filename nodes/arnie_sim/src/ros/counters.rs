//! The glue's own counters, declared once with `node_glue::counters!` (the world keeps
//! its own counters, the truth log its own); [`super::status`] puts all of them in the
//! `sim` status on `/diagnostics`.

node_glue::counters! {
    /// Counters of the glue itself.
    pub(crate) struct Counters {
        /// The UDP sockets.
        link {
            /// Datagrams the OS refused to send.
            send_errors,
            /// Receive errors on the arm socket.
            recv_errors,
            /// Arm datagrams from an address other than the spine's, dropped.
            foreign_sources,
        }
    }
}
