//! The node's counters, published on `/diagnostics` (declared once: `node_glue::counters!`).
use node_glue::counters::CounterSet;
use node_glue::diagnostics::{Level, Status};

node_glue::counters! {
    /// Counters published on /diagnostics (status `<node>: state`).
    pub(crate) struct Counters {
        state {
            /// `/arm/position` messages received.
            positions,
            /// Dropped: a coordinate NaN or infinite (logged, rate-limited).
            positions_not_finite,
            /// Dropped: the position's frame is neither the root link nor its parent on
            /// `/tf_static` (yet).
            positions_unknown_frame,
            /// `/joint_states` messages published.
            joint_states_published,
            /// `/tf` messages published (one per position, every stage joint in it).
            tf_published,
            /// Publications that failed.
            publish_errors,
        }
    }
}

impl Counters {
    /// The `state` status: WARN while positions are being dropped.
    pub(crate) fn status(&self, mount: Option<&str>) -> Status {
        let dropped = self.positions_not_finite.get() + self.positions_unknown_frame.get();
        let (level, message) = match mount {
            _ if self.publish_errors.get() > 0 => (Level::Warn, "publications failed".to_string()),
            _ if dropped > 0 => (
                Level::Warn,
                "positions dropped (see the counters)".to_string(),
            ),
            Some(parent) => (Level::Ok, format!("publishing; root mounted in {parent}")),
            None => (
                Level::Ok,
                "publishing; root's parent not seen on /tf_static".to_string(),
            ),
        };
        CounterSet::status(self, "state")
            .message(message)
            .level(level)
    }
}
