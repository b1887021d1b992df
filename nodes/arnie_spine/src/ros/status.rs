//! `/diagnostics` (one status per interface, every counter) and the rate-limited log.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use node_glue::diagnostics::{Level, Status};

use super::bridge::Shared;
use super::Settings;
use crate::counters::Counters;

/// At most one log line per period per interface; the lines in between are counted
/// and reported on the next one ("N similar suppressed").
#[derive(Debug)]
pub struct RateLog {
    period: Duration,
    last: Option<Instant>,
    suppressed: u64,
}

impl Default for RateLog {
    fn default() -> Self {
        Self {
            period: Duration::from_secs(1),
            last: None,
            suppressed: 0,
        }
    }
}

impl RateLog {
    /// Notes `n` events; `Some(suppressed before)` if one line may be logged now (the
    /// line stands for one event, the other `n - 1` are counted as suppressed).
    pub fn allow(&mut self, n: u64) -> Option<u64> {
        self.allow_at(Instant::now(), n)
    }

    fn allow_at(&mut self, now: Instant, n: u64) -> Option<u64> {
        match self.last {
            Some(t) if now.duration_since(t) < self.period => {
                self.suppressed += n;
                None
            }
            _ => {
                self.last = Some(now);
                let before = std::mem::take(&mut self.suppressed);
                self.suppressed = n.saturating_sub(1);
                Some(before)
            }
        }
    }

    /// `" (N similar suppressed)"`, or nothing for 0.
    pub fn suffix(suppressed: u64) -> String {
        if suppressed == 0 {
            String::new()
        } else {
            format!(" ({suppressed} similar suppressed)")
        }
    }
}

/// One interface: name, what it is (address, format, topic), its counters.
type Row = (String, String, Counters);

/// Builds the statuses published on `/diagnostics` every period.
pub struct StatusBuilder {
    shared: Arc<Shared>,
    summary: Status,
    /// Per interface (inputs then outputs): its "bad" total at the last report, so a
    /// status turns WARN only while rejections keep coming.
    last_bad: Vec<u64>,
}

impl StatusBuilder {
    /// For the node's shared state; `settings` are echoed in a `config` status.
    pub fn new(shared: Arc<Shared>, settings: &Settings) -> Self {
        let (summary, n) = {
            let router = shared.router();
            let c = router.config();
            let s = Status::ok(
                "config",
                format!(
                    "{} inputs, {} outputs, {} connections",
                    c.inputs.len(),
                    c.outputs.len(),
                    c.connections.len()
                ),
            )
            .with("config_file", settings.config_file.display())
            .with("loopback", settings.loopback.is_some())
            .with(
                "port_offset",
                settings.loopback.map(|m| m.port_offset).unwrap_or(0),
            )
            .with("m_per_unit", settings.scale.m_per_unit)
            .with("address_clashes", c.address_clashes().len());
            (s, c.inputs.len() + c.outputs.len())
        };
        StatusBuilder {
            shared,
            summary,
            last_bad: vec![0; n],
        }
    }

    /// The statuses now: `config`, then `input.<name>` and `output.<name>` with every
    /// counter (router counters, then the glue's [`super::bridge::GlueCounters`]).
    pub fn build(&mut self) -> Vec<Status> {
        // Copy under the lock, format after it.
        let (inputs, outputs): (Vec<Row>, Vec<Row>) = {
            let router = self.shared.router();
            let c = router.config();
            let inputs = router
                .input_ids()
                .zip(&c.inputs)
                .map(|(id, i)| {
                    let topic = i
                        .topic
                        .as_ref()
                        .map(|t| format!(" -> {}", t.name))
                        .unwrap_or_default();
                    let what = format!("{} {}{topic}", i.bind, i.format);
                    (
                        i.name.clone(),
                        what,
                        router.input_counters(id).cloned().unwrap_or_default(),
                    )
                })
                .collect();
            let outputs = router
                .output_ids()
                .zip(&c.outputs)
                .map(|(id, o)| {
                    let topic = o
                        .topic
                        .as_ref()
                        .map(|t| format!(" <- {}", t.name))
                        .unwrap_or_default();
                    let what = format!("{} {}{topic}", o.addr, o.format);
                    (
                        o.name.clone(),
                        what,
                        router.output_counters(id).cloned().unwrap_or_default(),
                    )
                })
                .collect();
            (inputs, outputs)
        };
        let mut out = vec![self.summary.clone()];
        let mut slot = 0;
        for (k, (name, what, counters)) in inputs.into_iter().enumerate() {
            let extra = self.shared.input_extra.get(k);
            let glue = load(&[
                ("unpublishable", extra.map(|e| &e.unpublishable)),
                ("publish_errors", extra.map(|e| &e.publish_errors)),
                ("receive_errors", extra.map(|e| &e.receive_errors)),
            ]);
            out.push(self.status(slot, format!("input.{name}"), what, &counters, &glue));
            slot += 1;
        }
        for (k, (name, what, counters)) in outputs.into_iter().enumerate() {
            let extra = self.shared.output_extra.get(k);
            let glue = load(&[
                ("send_errors", extra.map(|e| &e.send_errors)),
                ("wrong_frame", extra.map(|e| &e.wrong_frame)),
            ]);
            out.push(self.status(slot, format!("output.{name}"), what, &counters, &glue));
            slot += 1;
        }
        out
    }

    fn status(
        &mut self,
        slot: usize,
        name: String,
        what: String,
        counters: &Counters,
        glue: &[(&'static str, u64)],
    ) -> Status {
        let bad = counters.malformed_total()
            + counters.unauthorised
            + counters.rejected_radius
            + glue
                .iter()
                .filter(|(k, _)| *k != "unpublishable")
                .map(|(_, v)| v)
                .sum::<u64>();
        let new_bad = self
            .last_bad
            .get(slot)
            .map(|last| bad.saturating_sub(*last))
            .unwrap_or(0);
        if let Some(last) = self.last_bad.get_mut(slot) {
            *last = bad;
        }
        let mut status = Status::ok(name, what);
        if new_bad > 0 {
            status.level = Level::Warn;
            status.message = format!(
                "{}: {new_bad} rejected since the last report",
                status.message
            );
        }
        for (key, value) in counters.pairs("") {
            status = status.with(key.trim_start_matches('.'), value);
        }
        for (key, value) in glue {
            status = status.with(*key, value);
        }
        status
    }
}

/// The glue counters' values now.
fn load(counters: &[(&'static str, Option<&AtomicU64>)]) -> Vec<(&'static str, u64)> {
    counters
        .iter()
        .map(|(k, v)| (*k, v.map(|v| v.load(Ordering::Relaxed)).unwrap_or(0)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_log_counts_what_it_suppresses() {
        let t0 = Instant::now();
        let mut log = RateLog::default();
        assert_eq!(log.allow_at(t0, 1), Some(0));
        assert_eq!(log.allow_at(t0 + Duration::from_millis(10), 1), None);
        assert_eq!(log.allow_at(t0 + Duration::from_millis(20), 5), None);
        assert_eq!(log.allow_at(t0 + Duration::from_millis(1100), 3), Some(6));
        assert_eq!(log.allow_at(t0 + Duration::from_millis(2200), 1), Some(2));
        assert_eq!(RateLog::suffix(0), "");
        assert_eq!(RateLog::suffix(4), " (4 similar suppressed)");
    }
}
