//! [`World`]: the arm, its lossy link, the eyes and the clock of the simulation, tied
//! together. Pure: datagrams come in as bytes, time as `dt`; what to send comes out as
//! [`Datagram`]s the glue writes to the sockets of [`crate::wiring::Wiring`].
//!
//! Per [`World::step`] (`dt`, e.g. 5 ms): the clock advances; targets whose simulated
//! delay has passed reach the arm; the arm moves; the eyes update (flames may light);
//! an encoder position is produced every `position_period_s` (subject to loss and
//! jitter, in the arm input's frame and format) and an observation packet every eyes
//! period (in the eyes' frame; nothing when no flame is lit). Delays are quantised to the
//! step. Jitter can reorder datagrams, as UDP can.

use std::collections::BTreeMap;

use arnie_xpc::{wire, Item, Rejected};
use serde::Serialize;

use crate::arm::{SimArm, StepOutcome, Vec3};
use crate::eyes::{Eyes, LitEvent};
use crate::scenario::{LinkSpec, Scenario};
use crate::wiring::{Port, Wiring};
use arnie_math::Rng;

/// Why an arm datagram was not used. Normal flow: counted by [`TargetRejected::kind`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TargetRejected {
    /// The bytes do not decode (see [`Rejected`]).
    #[error("{0}")]
    Wire(Rejected),
    /// The first item has fewer than three values.
    #[error("target has {values} values, expected 3")]
    TooShort {
        /// Values found.
        values: usize,
    },
    /// The transformed target is not finite.
    #[error("target is not finite after the transform")]
    NotFinite,
}

impl TargetRejected {
    /// A stable short name, used as a counter key.
    pub fn kind(&self) -> &'static str {
        match self {
            TargetRejected::Wire(r) => r.kind(),
            TargetRejected::TooShort { .. } => "too_short",
            TargetRejected::NotFinite => "not_finite_after_transform",
        }
    }
}

/// What happened to a valid arm target datagram.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arrival {
    /// It will reach the arm after `delay_s` (global target).
    Accepted {
        /// The target [mm, global].
        target_mm: Vec3,
        /// Simulated extra delay [s].
        delay_s: f64,
    },
    /// The simulated packet loss dropped it.
    Dropped {
        /// The target it carried [mm, global].
        target_mm: Vec3,
    },
}

/// Where a datagram goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dest {
    /// The spine's arm input (encoder positions).
    ArmInput,
    /// The spine's eyes input (observations).
    EyesInput,
}

/// One datagram to send now.
#[derive(Debug, Clone, PartialEq)]
pub struct Datagram {
    /// Destination.
    pub dest: Dest,
    /// Payload.
    pub bytes: Vec<u8>,
}

/// Something worth a log line.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A flame lit.
    Lit(LitEvent),
    /// An obstacle started stopping the arm.
    Blocked {
        /// Obstacle name.
        obstacle: String,
        /// Where the arm stopped [mm, global].
        at_mm: Vec3,
    },
    /// The arm moves freely again.
    Freed,
}

/// What one step produced.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StepOut {
    /// Datagrams to send now.
    pub datagrams: Vec<Datagram>,
    /// Events of this step.
    pub events: Vec<Event>,
}

/// Counters for /diagnostics and the ground truth.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Counters {
    /// Valid arm target datagrams that arrived (including those then dropped).
    pub commands_received: u64,
    /// Of those, dropped by the simulated loss.
    pub commands_dropped: u64,
    /// Arm datagrams rejected, by [`TargetRejected::kind`].
    pub commands_rejected: BTreeMap<&'static str, u64>,
    /// Encoder positions sent.
    pub positions_sent: u64,
    /// Encoder positions dropped by the simulated loss.
    pub positions_dropped: u64,
    /// Observation packets sent.
    pub observations_sent: u64,
}

/// The ground truth at one instant (global frame, mm).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Truth {
    /// Scenario time [s].
    pub t_s: f64,
    /// Where the arm really is [mm].
    pub arm_mm: [f64; 3],
    /// Its velocity [mm/s].
    pub velocity_mm_s: [f64; 3],
    /// The last target that reached the arm [mm].
    pub target_mm: Option<[f64; 3]>,
    /// The obstacle stopping the arm, if any.
    pub blocked_by: Option<String>,
    /// Names of the lit flames, in report order.
    pub lit: Vec<&'static str>,
    /// Arm targets received (valid datagrams, including dropped ones).
    pub commands_received: u64,
    /// Arm targets dropped by the simulated loss.
    pub commands_dropped: u64,
}

/// The whole simulation.
#[derive(Debug, Clone)]
pub struct World {
    arm: SimArm,
    eyes: Eyes,
    link: LinkSpec,
    rng: Rng,
    targets: Port,
    positions: Port,
    eyes_port: Port,
    position_period_s: f64,
    eyes_period_s: f64,
    now_s: f64,
    next_position_s: f64,
    next_eyes_s: f64,
    /// Targets on their way to the arm: (due time, global target), in arrival order.
    inbound: Vec<(f64, Vec3)>,
    /// Encoder packets on their way to the spine: (due time, bytes).
    outbound: Vec<(f64, Vec<u8>)>,
    was_blocked: bool,
    counters: Counters,
}

impl World {
    /// A world at time 0 from a checked scenario and the wiring (formats and frames).
    pub fn new(scenario: Scenario, wiring: &Wiring) -> Self {
        let Scenario {
            seed,
            arm,
            link,
            eyes,
        } = scenario;
        let sim_arm = SimArm::new(arm.start_mm, arm.limits, arm.obstacles);
        let eyes_period_s = eyes.period_s;
        Self {
            eyes: Eyes::new(eyes, arm.start_mm),
            arm: sim_arm,
            link,
            rng: Rng::new(seed),
            targets: wiring.arm_targets.clone(),
            positions: wiring.arm_positions.clone(),
            eyes_port: wiring.eyes.clone(),
            position_period_s: arm.position_period_s,
            eyes_period_s,
            now_s: 0.0,
            next_position_s: 0.0,
            next_eyes_s: 0.0,
            inbound: Vec::new(),
            outbound: Vec::new(),
            was_blocked: false,
            counters: Counters::default(),
        }
    }

    /// An arm target datagram arrived (device frame, the arm output's format). The first
    /// item's first three values are the target; more items are ignored.
    ///
    /// # Errors
    /// [`TargetRejected`] (counted) when it cannot be used.
    pub fn on_arm_datagram(&mut self, bytes: &[u8]) -> Result<Arrival, TargetRejected> {
        let result = self.decode_target(bytes);
        let target_mm = match result {
            Ok(t) => t,
            Err(e) => {
                *self.counters.commands_rejected.entry(e.kind()).or_insert(0) += 1;
                return Err(e);
            }
        };
        self.counters.commands_received += 1;
        if self.rng.chance(self.link.loss_probability) {
            self.counters.commands_dropped += 1;
            return Ok(Arrival::Dropped { target_mm });
        }
        let delay_s = self.jitter();
        self.inbound.push((self.now_s + delay_s, target_mm));
        Ok(Arrival::Accepted { target_mm, delay_s })
    }

    fn decode_target(&self, bytes: &[u8]) -> Result<Vec3, TargetRejected> {
        let items = wire::decode(self.targets.format, bytes).map_err(TargetRejected::Wire)?;
        let first = items.first().ok_or(TargetRejected::Wire(Rejected::Empty))?;
        if first.len() < 3 {
            return Err(TargetRejected::TooShort {
                values: first.len(),
            });
        }
        let g = self.targets.transform.apply(&first[..3]);
        let t = Vec3::new(g[0], g[1], g[2]);
        if t.iter().all(|v| v.is_finite()) {
            Ok(t)
        } else {
            Err(TargetRejected::NotFinite)
        }
    }

    fn jitter(&mut self) -> f64 {
        if self.link.jitter_s > 0.0 {
            self.rng.next_f64() * self.link.jitter_s
        } else {
            0.0
        }
    }

    /// Advances the simulation by `dt_s` seconds (non-positive or non-finite: nothing
    /// moves and nothing is sent).
    pub fn step(&mut self, dt_s: f64) -> StepOut {
        let mut out = StepOut::default();
        if !(dt_s.is_finite() && dt_s > 0.0) {
            return out;
        }
        self.now_s += dt_s;
        let now = self.now_s;
        // Deliver due targets in arrival order (the newest due one wins).
        let mut k = 0;
        while k < self.inbound.len() {
            if self.inbound[k].0 <= now {
                let (_, t) = self.inbound.remove(k);
                self.arm.write(t);
            } else {
                k += 1;
            }
        }
        let outcome = self.arm.step(dt_s);
        match (&outcome, self.was_blocked) {
            (StepOutcome::Blocked(_), false) => {
                let obstacle = self
                    .arm
                    .blocked()
                    .map(|o| o.name.clone())
                    .unwrap_or_default();
                out.events.push(Event::Blocked {
                    obstacle,
                    at_mm: self.arm.read(),
                });
                self.was_blocked = true;
            }
            (StepOutcome::Moving | StepOutcome::Idle, true) => {
                out.events.push(Event::Freed);
                self.was_blocked = false;
            }
            _ => {}
        }
        out.events.extend(
            self.eyes
                .update(dt_s, self.arm.read())
                .into_iter()
                .map(Event::Lit),
        );

        if now >= self.next_position_s {
            self.next_position_s = next_tick(self.next_position_s, self.position_period_s, now);
            if self.rng.chance(self.link.loss_probability) {
                self.counters.positions_dropped += 1;
            } else {
                let bytes = self.position_bytes();
                let delay = self.jitter();
                self.outbound.push((now + delay, bytes));
            }
        }
        let mut k = 0;
        while k < self.outbound.len() {
            if self.outbound[k].0 <= now {
                let (_, bytes) = self.outbound.remove(k);
                self.counters.positions_sent += 1;
                out.datagrams.push(Datagram {
                    dest: Dest::ArmInput,
                    bytes,
                });
            } else {
                k += 1;
            }
        }
        if now >= self.next_eyes_s {
            self.next_eyes_s = next_tick(self.next_eyes_s, self.eyes_period_s, now);
            if let Some(bytes) = self.observation_bytes() {
                self.counters.observations_sent += 1;
                out.datagrams.push(Datagram {
                    dest: Dest::EyesInput,
                    bytes,
                });
            }
        }
        out
    }

    /// The encoder position as the arm sends it (device frame, arm input's format).
    pub fn position_bytes(&self) -> Vec<u8> {
        let p = self.arm.read();
        let item = self.positions.transform.apply(&[p.x, p.y, p.z]);
        wire::encode(self.positions.format, &[item])
    }

    /// The observation packet as the eyes send it (`x,y,z,confidence` per lit flame in
    /// the eyes' frame and format), `None` when no flame is lit.
    pub fn observation_bytes(&self) -> Option<Vec<u8>> {
        let items: Vec<Item> = self
            .eyes
            .sightings()
            .iter()
            .map(|s| {
                self.eyes_port
                    .transform
                    .apply(&[s.pos_mm.x, s.pos_mm.y, s.pos_mm.z, s.confidence])
            })
            .collect();
        (!items.is_empty()).then(|| wire::encode(self.eyes_port.format, &items))
    }

    /// The ground truth now.
    pub fn truth(&self) -> Truth {
        let arr = |v: Vec3| [v.x, v.y, v.z];
        Truth {
            t_s: self.now_s,
            arm_mm: arr(self.arm.read()),
            velocity_mm_s: arr(self.arm.velocity()),
            target_mm: self.arm.target().map(arr),
            blocked_by: self.arm.blocked().map(|o| o.name.clone()),
            lit: self.eyes.lit().into_iter().map(|f| f.name()).collect(),
            commands_received: self.counters.commands_received,
            commands_dropped: self.counters.commands_dropped,
        }
    }

    /// The counters.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// The arm (read-only).
    pub fn arm(&self) -> &SimArm {
        &self.arm
    }

    /// The eyes (read-only).
    pub fn eyes(&self) -> &Eyes {
        &self.eyes
    }

    /// Scenario time [s].
    pub fn now_s(&self) -> f64 {
        self.now_s
    }
}

/// The next send time after `prev`: one period later, or a period after `now` when the
/// schedule fell behind by more than a period (no bursts after a stall).
fn next_tick(prev: f64, period: f64, now: f64) -> f64 {
    let next = prev + period;
    if next <= now {
        now + period
    } else {
        next
    }
}

#[cfg(test)]
#[path = "world_tests.rs"]
mod tests;
