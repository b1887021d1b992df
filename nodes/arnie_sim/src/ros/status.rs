//! The node's `/diagnostics` status: the world's counters, the glue's ([`Counters`]) and
//! the truth log's.
use node_glue::diagnostics::{Level, Status};

use super::counters::Counters;
use crate::truth_log::LogCounts;
use crate::World;

/// The `sim` status: the world's time, lit flames and counters, the glue's, the log's.
pub(super) fn status(w: &World, glue: &Counters, log: Option<&LogCounts>) -> Status {
    let c = w.counters();
    let t = w.truth();
    let message = if t.blocked_by.is_some() {
        "arm blocked"
    } else {
        "running"
    };
    let mut status = Status::ok("sim", message)
        .with("t_s", format!("{:.3}", t.t_s))
        .with("lit", t.lit.join(","))
        .with("commands_received", c.commands_received)
        .with("commands_dropped", c.commands_dropped)
        .with(
            "commands_rejected",
            c.commands_rejected.values().sum::<u64>(),
        )
        .with("positions_sent", c.positions_sent)
        .with("positions_dropped", c.positions_dropped)
        .with("observations_sent", c.observations_sent)
        .with("send_errors", glue.send_errors.get())
        .with("recv_errors", glue.recv_errors.get())
        .with("foreign_sources", glue.foreign_sources.get());
    if let Some(log) = log {
        let s = log.get();
        status = status
            .with("truth_log_written", s.written)
            .with("truth_log_dropped", s.dropped)
            .with("truth_log_errors", s.errors);
        if let Some(e) = s.first_error {
            status.level = Level::Warn;
            status.message = format!("truth_log: {e}");
        } else if s.dropped > 0 {
            status.level = Level::Warn;
            status.message = "truth_log: the writer is behind, lines dropped".into();
        }
    }
    for (kind, n) in &c.commands_rejected {
        status = status.with(format!("rejected_{kind}"), n);
    }
    status
}
