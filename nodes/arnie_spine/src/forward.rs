//! [`Router`]: the Spine's forwarding core. No sockets, no clock: the glue hands it each
//! datagram (or topic value) and sends / publishes what it returns.
//!
//! Per datagram on an input: source check (`allowedSources`) → decode (bad bytes are
//! [`Rejected`]) → device → global transform (non-finite results rejected) → publish
//! (every accepted datagram, if the input has a topic) → de-duplication against the
//! previous value of that input → fan-out to every connected output. Per output:
//! global → device transform, then the [`OutputGate`] (de-duplication against the last
//! value sent, radius check in the global frame, drop never clamp), then encoding.
//! Several inputs (and a topic) may feed one output: they share its gate.
//!
//! Everything is in the file's units (mm); convert at the topic edge with
//! [`crate::units::Scale`].

use std::net::SocketAddr;

use crate::config::Config;
use crate::counters::Counters;
use crate::gate::{OutputGate, Verdict};
use crate::wire::{self, Limits, Rejected};
use crate::Item;

/// An input of a [`Router`] (an index into [`Config::inputs`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InputId(usize);

/// An output of a [`Router`] (an index into [`Config::outputs`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OutputId(usize);

impl InputId {
    /// Index into [`Config::inputs`].
    pub fn index(self) -> usize {
        self.0
    }
}

impl OutputId {
    /// Index into [`Config::outputs`].
    pub fn index(self) -> usize {
        self.0
    }
}

/// What happened to the message as a whole.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A new value: offered to the outputs.
    Fresh,
    /// The same value as the previous one on this input: not forwarded.
    Duplicate,
    /// Unusable (counted as malformed, by kind).
    Rejected(Rejected),
    /// The source is not in the input's `allowedSources` (counted).
    Unauthorised(SocketAddr),
    /// The id does not belong to this router (nothing counted).
    UnknownInterface,
}

/// A datagram to send.
#[derive(Debug, Clone, PartialEq)]
pub struct Emit {
    /// The output.
    pub output: OutputId,
    /// Its destination.
    pub to: SocketAddr,
    /// Encoded in the output's format and device frame.
    pub bytes: Vec<u8>,
    /// The same value in the global frame \[mm\] (for logs and echoes).
    pub global: Vec<Item>,
}

/// An output that did not send (for the log; already counted).
#[derive(Debug, Clone, PartialEq)]
pub struct Held {
    /// The output.
    pub output: OutputId,
    /// Why.
    pub reason: HoldReason,
}

/// Why an output did not send a value it was offered.
#[derive(Debug, Clone, PartialEq)]
pub enum HoldReason {
    /// The gate said no ([`Verdict::Send`] never appears here).
    Gate(Verdict),
    /// The device-frame value could not be sent (non-finite after the inverse
    /// transform, or too long for one datagram); counted as malformed.
    Unsendable(Rejected),
}

/// The result of one datagram or topic value.
#[derive(Debug, Clone, PartialEq)]
pub struct Routed {
    /// What happened to the message.
    pub outcome: Outcome,
    /// Global-frame items \[mm\] to publish on the input's topic: set for every accepted
    /// datagram (duplicates too, so a late subscriber learns a still arm's position)
    /// when the input has a topic.
    pub publish: Option<Vec<Item>>,
    /// Datagrams to send.
    pub emits: Vec<Emit>,
    /// Outputs that were offered the value but did not send it.
    pub held: Vec<Held>,
}

impl Routed {
    fn only(outcome: Outcome) -> Self {
        Self {
            outcome,
            publish: None,
            emits: Vec::new(),
            held: Vec::new(),
        }
    }
}

#[derive(Debug, Clone)]
struct InputState {
    last: Option<Vec<Item>>,
    fanout: Vec<usize>,
    counters: Counters,
}

#[derive(Debug, Clone)]
struct OutputState {
    gate: OutputGate,
    counters: Counters,
}

/// The forwarding state of a whole config.
#[derive(Debug, Clone)]
pub struct Router {
    config: Config,
    limits: Limits,
    inputs: Vec<InputState>,
    outputs: Vec<OutputState>,
}

impl Router {
    /// A router with nothing received yet.
    pub fn new(config: Config, limits: Limits) -> Self {
        let inputs = (0..config.inputs.len())
            .map(|i| InputState {
                last: None,
                fanout: config
                    .connections
                    .iter()
                    .filter(|c| c.input == i)
                    .map(|c| c.output)
                    .collect(),
                counters: Counters::default(),
            })
            .collect();
        let outputs = config
            .outputs
            .iter()
            .map(|o| OutputState {
                gate: OutputGate::new(o.threshold_mm, o.check_elements),
                counters: Counters::default(),
            })
            .collect();
        Self {
            config,
            limits,
            inputs,
            outputs,
        }
    }

    /// The config it routes.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The input called `name`.
    pub fn input_id(&self, name: &str) -> Option<InputId> {
        self.config.input_index(name).map(InputId)
    }

    /// The output called `name`.
    pub fn output_id(&self, name: &str) -> Option<OutputId> {
        self.config.output_index(name).map(OutputId)
    }

    /// Every input, in config order.
    pub fn input_ids(&self) -> impl Iterator<Item = InputId> {
        (0..self.inputs.len()).map(InputId)
    }

    /// Every output, in config order.
    pub fn output_ids(&self) -> impl Iterator<Item = OutputId> {
        (0..self.outputs.len()).map(OutputId)
    }

    /// Counters of an input.
    pub fn input_counters(&self, id: InputId) -> Option<&Counters> {
        self.inputs.get(id.0).map(|s| &s.counters)
    }

    /// Counters of an output.
    pub fn output_counters(&self, id: OutputId) -> Option<&Counters> {
        self.outputs.get(id.0).map(|s| &s.counters)
    }

    /// The output's gate (its last value sent, in the global frame).
    pub fn gate(&self, id: OutputId) -> Option<&OutputGate> {
        self.outputs.get(id.0).map(|s| &s.gate)
    }

    /// Every counter as `(key, value)`: `input.<name>.<counter>`, `output.<name>.<counter>`.
    pub fn diagnostics(&self) -> Vec<(String, u64)> {
        let mut out = Vec::new();
        for (cfg, st) in self.config.inputs.iter().zip(&self.inputs) {
            out.extend(st.counters.pairs(&format!("input.{}", cfg.name)));
        }
        for (cfg, st) in self.config.outputs.iter().zip(&self.outputs) {
            out.extend(st.counters.pairs(&format!("output.{}", cfg.name)));
        }
        out
    }

    /// Counts `n` datagrams the glue skipped on `input` because a newer one was waiting
    /// (only the newest packet per input matters).
    pub fn note_stale(&mut self, input: InputId, n: u64) {
        if let Some(st) = self.inputs.get_mut(input.0) {
            st.counters.received += n;
            st.counters.stale_dropped += n;
        }
    }

    /// Handles one datagram received on `input` from `from`.
    pub fn on_datagram(&mut self, input: InputId, from: SocketAddr, bytes: &[u8]) -> Routed {
        let (Some(cfg), Some(st)) = (
            self.config.inputs.get(input.0),
            self.inputs.get_mut(input.0),
        ) else {
            return Routed::only(Outcome::UnknownInterface);
        };
        st.counters.received += 1;
        if !cfg.allows(from) {
            st.counters.unauthorised += 1;
            return Routed::only(Outcome::Unauthorised(from));
        }
        let decoded = match wire::decode_with(cfg.format, bytes, self.limits) {
            Ok(items) => items,
            Err(r) => {
                st.counters.count_malformed(r.kind());
                return Routed::only(Outcome::Rejected(r));
            }
        };
        let global = cfg.to_global.apply_all(&decoded);
        if let Some(r) = first_non_finite(&global) {
            st.counters.count_malformed(r.kind());
            return Routed::only(Outcome::Rejected(r));
        }
        let publish = cfg.topic.as_ref().map(|_| global.clone());
        if st.last.as_ref() == Some(&decoded) {
            st.counters.deduplicated += 1;
            return Routed {
                outcome: Outcome::Duplicate,
                publish,
                emits: Vec::new(),
                held: Vec::new(),
            };
        }
        st.last = Some(decoded);
        st.counters.forwarded += 1;
        let fanout_len = st.fanout.len();
        let mut routed = Routed {
            outcome: Outcome::Fresh,
            publish,
            emits: Vec::with_capacity(fanout_len),
            held: Vec::new(),
        };
        for k in 0..fanout_len {
            if let Some(&o) = self.inputs.get(input.0).and_then(|s| s.fanout.get(k)) {
                self.offer(OutputId(o), &global, &mut routed);
            }
        }
        routed
    }

    /// Writes a global-frame value \[mm\] (from the output's ROS topic) to `output`,
    /// through the same gate as the legacy connections.
    pub fn on_topic(&mut self, output: OutputId, global: &[Item]) -> Routed {
        let Some(st) = self.outputs.get_mut(output.0) else {
            return Routed::only(Outcome::UnknownInterface);
        };
        let bad = if global.is_empty() || global.iter().any(Vec::is_empty) {
            Some(Rejected::Empty)
        } else {
            first_non_finite(global)
        };
        if let Some(r) = bad {
            st.counters.received += 1;
            st.counters.count_malformed(r.kind());
            return Routed::only(Outcome::Rejected(r));
        }
        let mut routed = Routed::only(Outcome::Fresh);
        self.offer(output, global, &mut routed);
        routed
    }

    /// The last value `output` actually sent, again (for `resendIntervalMs`): encoded
    /// as it was sent, counted `resent`, the gate unchanged. `None` if it has sent
    /// nothing yet (a value the gate dropped is never re-sent) or the id is unknown.
    pub fn resend(&mut self, output: OutputId) -> Option<Emit> {
        let (Some(cfg), Some(st)) = (
            self.config.outputs.get(output.0),
            self.outputs.get_mut(output.0),
        ) else {
            return None;
        };
        let global = st.gate.last_sent()?.to_vec();
        let bytes = wire::encode(cfg.format, &cfg.to_device.apply_all(&global));
        st.counters.resent += 1;
        Some(Emit {
            output,
            to: cfg.addr,
            bytes,
            global,
        })
    }

    fn offer(&mut self, output: OutputId, global: &[Item], routed: &mut Routed) {
        let (Some(cfg), Some(st)) = (
            self.config.outputs.get(output.0),
            self.outputs.get_mut(output.0),
        ) else {
            return;
        };
        st.counters.received += 1;
        let device = cfg.to_device.apply_all(global);
        let bytes = wire::encode(cfg.format, &device);
        let unsendable = first_non_finite(&device).or(if bytes.is_empty() {
            Some(Rejected::Empty)
        } else if bytes.len() > self.limits.max_datagram {
            Some(Rejected::Oversized { len: bytes.len() })
        } else {
            None
        });
        if let Some(r) = unsendable {
            st.counters.count_malformed(r.kind());
            routed.held.push(Held {
                output,
                reason: HoldReason::Unsendable(r),
            });
            return;
        }
        let verdict = st.gate.offer(global);
        match verdict {
            Verdict::Send => {
                st.counters.forwarded += 1;
                routed.emits.push(Emit {
                    output,
                    to: cfg.addr,
                    bytes,
                    global: global.to_vec(),
                });
                return;
            }
            Verdict::Duplicate => st.counters.deduplicated += 1,
            Verdict::TooFar { .. } | Verdict::TooShort { .. } => st.counters.rejected_radius += 1,
            Verdict::NotFinite => st.counters.count_malformed("not_finite"),
        }
        routed.held.push(Held {
            output,
            reason: HoldReason::Gate(verdict),
        });
    }
}

/// The first NaN or infinite value, as a rejection.
pub fn first_non_finite(items: &[Item]) -> Option<Rejected> {
    for (i, item) in items.iter().enumerate() {
        if let Some(v) = item.iter().position(|x| !x.is_finite()) {
            return Some(Rejected::NotFinite { item: i, value: v });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A projective input matrix (w = 0 at x = 1) and a projective output matrix: the
    /// non-finite results are rejected and counted, never offered or sent.
    fn projective() -> Router {
        let text = r#"{
            "host": "127.0.0.1",
            "transforms": {
                "default": "1 0 0 0;0 1 0 0;0 0 1 0;0 0 0 1",
                "in": "1 0 0 0;0 1 0 0;0 0 1 0;-1 0 0 1",
                "out": "1 0 0 0;0 1 0 0;0 0 1 0;0 1 0 1"
            },
            "interfaces": {
                "input": { "in": { "port": 1, "streamed": true, "format": "csv" } },
                "output": { "out": { "host": "127.0.0.1", "port": 2, "format": "csv" } }
            },
            "connections": [ { "input": "in", "output": "out" } ]
        }"#;
        let config = Config::from_json(text, None).unwrap();
        Router::new(config, Limits::default())
    }

    #[test]
    fn non_finite_after_transform_is_rejected() {
        let mut r = projective();
        let (i, o) = (r.input_id("in").unwrap(), r.output_id("out").unwrap());
        let from: SocketAddr = "127.0.0.1:9".parse().unwrap();
        let got = r.on_datagram(i, from, b"1,5,5");
        assert_eq!(
            got.outcome,
            Outcome::Rejected(Rejected::NotFinite { item: 0, value: 0 })
        );
        assert!(got.emits.is_empty());
        assert_eq!(r.input_counters(i).unwrap().malformed_of("not_finite"), 1);
        // out's inverse divides by (1 - y): y = 1 in the global frame cannot be sent.
        let held = r.on_topic(o, &[vec![0.0, 1.0, 0.0]]);
        assert!(held.emits.is_empty());
        assert!(matches!(
            held.held[..],
            [Held {
                reason: HoldReason::Unsendable(Rejected::NotFinite { .. }),
                ..
            }]
        ));
        assert_eq!(r.gate(o).unwrap().last_sent(), None);
        // A finite one goes through.
        assert_eq!(r.on_topic(o, &[vec![0.0, 0.5, 0.0]]).emits.len(), 1);
    }

    #[test]
    fn resend_repeats_only_the_last_value_sent() {
        let mut r = projective();
        let (i, o) = (r.input_id("in").unwrap(), r.output_id("out").unwrap());
        assert_eq!(r.resend(o), None); // nothing sent yet
        let from: SocketAddr = "127.0.0.1:9".parse().unwrap();
        let sent = r.on_datagram(i, from, b"0,2,3").emits;
        assert_eq!(sent.len(), 1);
        let again = r.resend(o).unwrap();
        assert_eq!(again, sent[0]);
        // A value the output could not send is not what it re-sends.
        assert!(r.on_topic(o, &[vec![0.0, 1.0, 0.0]]).emits.is_empty());
        assert_eq!(r.resend(o).unwrap().bytes, sent[0].bytes);
        let c = r.output_counters(o).unwrap();
        assert_eq!((c.resent, c.forwarded), (2, 1));
        assert_eq!(r.resend(OutputId(7)), None);
    }

    #[test]
    fn unknown_ids_are_harmless() {
        let mut small = projective();
        let bogus_in = InputId(7);
        let bogus_out = OutputId(7);
        assert_eq!(
            small
                .on_datagram(bogus_in, "127.0.0.1:9".parse().unwrap(), b"1")
                .outcome,
            Outcome::UnknownInterface
        );
        assert_eq!(
            small.on_topic(bogus_out, &[vec![1.0]]).outcome,
            Outcome::UnknownInterface
        );
        small.note_stale(bogus_in, 1);
        assert!(small.diagnostics().iter().all(|(_, v)| *v == 0));
    }
}
