//! `/diagnostics` (one status per interface, every counter).

use std::sync::Arc;

use node_glue::diagnostics::{Level, Status};

use super::bridge::Shared;
use super::counters::GlueCounters;
use super::Settings;
use crate::counters::Counters;
use node_glue::counters::CounterSet;

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
            .with("m_per_unit", settings.scale.m_per_unit())
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
    /// counter (router counters, then the glue's [`super::counters::GlueCounters`]).
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
            let glue = glue(self.shared.input_extra.get(k), "input");
            out.push(self.status(slot, format!("input.{name}"), what, &counters, &glue));
            slot += 1;
        }
        for (k, (name, what, counters)) in outputs.into_iter().enumerate() {
            let glue = glue(self.shared.output_extra.get(k), "output");
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

/// The glue counters of one interface now (of its `group`: "input" or "output").
fn glue(extra: Option<&GlueCounters>, group: &str) -> Vec<(&'static str, u64)> {
    let none = GlueCounters::default();
    extra
        .unwrap_or(&none)
        .groups()
        .into_iter()
        .filter(|(g, _)| *g == group)
        .flat_map(|(_, values)| values)
        .collect()
}
