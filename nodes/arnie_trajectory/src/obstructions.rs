//! What the arm learned by touching: [`KnownObstruction`]s, small regions placed where a
//! move was stopped, cleared again by the arm passing through them, with a time-to-live,
//! capped in number (issue 46: occupancy learned from evidence).
//!
//! Time: `now_ms` is passed in, in milliseconds since any fixed origin that never goes
//! back (the node's start on a monotonic clock). No clock is read here.
//! Units: millimetres; frame: `world` (the arm's frame, as every point of this crate).
//!
//! # A contact becomes a region ([`Contact::region`])
//! The evidence of a stop: the arm's **measured** position `m` (where it stands, stopped),
//! the set-point `e` it was sent and could not follow, the approach speed `v` (measured
//! while it still moved) and the period `T` between two checks. The obstacle is just
//! ahead of the arm, along the way it was pulled, `d = (e − m) / |e − m|`, beyond the
//! taper's own radius `ρ` (`tool_radius_mm`): its surface is at `m + ρ·d`. What is
//! believed solid is a ball of radius
//!
//! `s = clamp(|e − m| / 2 + v·T, min_size_mm, max_size_mm)`
//!
//! touching that surface point from behind (centre `m + (ρ + s)·d`): half the stretch the
//! set-point ran ahead without the arm (the arm could not enter it), plus how far the arm
//! moves in one period at its approach speed (where along the way it was really stopped is
//! known to about that). The planner keeps the arm's point out of the ball grown by
//! `ρ + margin_mm` (the obstruction's `radius_mm`): the region is a few centimetres
//! ahead of the contact, never a ball around where the arm *wanted* to be (the set-point,
//! which in the case lay beyond the box, next to the target).
//!
//! # A surface, not a ball
//! Every stop adds a region; stops on one object leave several overlapping small regions
//! along its face (the planner keeps out of their union), so after two or three contacts
//! the planner knows the face it must pass. A stop at (nearly) the same place as a region
//! already known (centres closer than half the smaller size) **merges** into it: `hits`
//! grows, its TTL starts again, its size is the larger one. A burst of identical contacts
//! is one region.
//!
//! # Evidence clears ([`ObstructionMemory::free_pass`])
//! The arm moving through space without being stopped is evidence that it is free
//! (occupancy mapping: a cell marked by a hit is cleared by a pass through it). When the
//! arm's way from one measured position to the next (a step it was not stopped on) comes
//! closer than `s + ρ` to a region's centre (its taper overlapped what was believed
//! solid), the region shrinks to `s = distance − ρ`; below `min_size_mm` it is removed.
//! Both are returned (the node counts and logs them).
//!
//! # Bounds
//! At most `max_obstructions` are kept: beyond, the oldest is dropped, returned and
//! counted ([`ObstructionMemory::dropped_total`]). An obstruction recorded at `t` with TTL
//! `ttl` is alive for `now < t + ttl`; nothing expires by itself: the caller calls
//! [`ObstructionMemory::expire`] (e.g. a few times a second) and publishes what went.
//! A contact with a NaN, while the set-points were not moving, or with the arm outside the
//! workspace is refused with its reason (nothing learned).

use std::collections::VecDeque;

use nalgebra::{Point3, Vector3};

use crate::detour::Workspace;
use crate::error::TrajectoryError;

/// Largest accepted `max_obstructions`.
pub const MAX_OBSTRUCTIONS: usize = 10_000;
/// Largest accepted size of a learned region, and taper radius or margin [mm] (1 m: more
/// than the arm reaches).
pub const MAX_SIZE_MM: f64 = 1000.0;

fn invalid(field: &'static str, reason: String) -> TrajectoryError {
    TrajectoryError::InvalidConfig { field, reason }
}

fn check_mm(field: &'static str, v: f64, lo: f64) -> Result<(), TrajectoryError> {
    if v.is_finite() && v >= lo && v <= MAX_SIZE_MM {
        Ok(())
    } else {
        Err(invalid(
            field,
            format!("{v} is not a number in [{lo}, {MAX_SIZE_MM}]"),
        ))
    }
}

/// How a stop becomes a region (module doc): the taper's radius, the margin kept around a
/// region, and the bounds of a region's size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactModel {
    tool_radius_mm: f64,
    margin_mm: f64,
    min_size_mm: f64,
    max_size_mm: f64,
}

impl Default for ContactModel {
    /// A 5 mm taper, 5 mm of margin, regions of 5 to 30 mm.
    fn default() -> Self {
        Self {
            tool_radius_mm: 5.0,
            margin_mm: 5.0,
            min_size_mm: 5.0,
            max_size_mm: 30.0,
        }
    }
}

impl ContactModel {
    /// Checks and builds the model.
    ///
    /// # Errors
    /// [`TrajectoryError::InvalidConfig`] naming the first bad one: `tool_radius_mm`,
    /// `contact_margin_mm` (each in [0, [`MAX_SIZE_MM`]]), `obstruction_min_size_mm` (in
    /// [0.1, [`MAX_SIZE_MM`]]), `obstruction_max_size_mm` (in [min, [`MAX_SIZE_MM`]]).
    pub fn new(
        tool_radius_mm: f64,
        margin_mm: f64,
        min_size_mm: f64,
        max_size_mm: f64,
    ) -> Result<Self, TrajectoryError> {
        check_mm("tool_radius_mm", tool_radius_mm, 0.0)?;
        check_mm("contact_margin_mm", margin_mm, 0.0)?;
        check_mm("obstruction_min_size_mm", min_size_mm, 0.1)?;
        check_mm("obstruction_max_size_mm", max_size_mm, min_size_mm)?;
        Ok(Self {
            tool_radius_mm,
            margin_mm,
            min_size_mm,
            max_size_mm,
        })
    }
    /// The taper's radius `ρ` [mm].
    pub fn tool_radius_mm(&self) -> f64 {
        self.tool_radius_mm
    }
    /// Margin kept around a region beyond the taper's radius [mm].
    pub fn margin_mm(&self) -> f64 {
        self.margin_mm
    }
    /// Smallest region size (object radius); a region shrunk below it is removed [mm].
    pub fn min_size_mm(&self) -> f64 {
        self.min_size_mm
    }
    /// Largest region size (object radius) [mm].
    pub fn max_size_mm(&self) -> f64 {
        self.max_size_mm
    }
}

/// Checked parameters of the memory: built by [`ObstructionConfig::new`] or [`Default`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ObstructionConfig {
    ttl_ms: u64,
    max_obstructions: usize,
    contact: ContactModel,
}

impl Default for ObstructionConfig {
    /// One minute of memory, at most 16 regions, the default [`ContactModel`].
    fn default() -> Self {
        Self {
            ttl_ms: 60_000,
            max_obstructions: 16,
            contact: ContactModel::default(),
        }
    }
}

impl ObstructionConfig {
    /// Checks and builds the parameters.
    ///
    /// # Errors
    /// [`TrajectoryError::InvalidConfig`] naming the first bad one:
    /// `obstruction_ttl_ms` (0), `max_obstructions` (0 or above [`MAX_OBSTRUCTIONS`]).
    pub fn new(
        ttl_ms: u64,
        max_obstructions: usize,
        contact: ContactModel,
    ) -> Result<Self, TrajectoryError> {
        if ttl_ms == 0 {
            return Err(invalid("obstruction_ttl_ms", "must be at least 1".into()));
        }
        if max_obstructions == 0 || max_obstructions > MAX_OBSTRUCTIONS {
            return Err(invalid(
                "max_obstructions",
                format!("{max_obstructions} is not in 1..={MAX_OBSTRUCTIONS}"),
            ));
        }
        Ok(Self {
            ttl_ms,
            max_obstructions,
            contact,
        })
    }
    /// Time-to-live of a new (or merged) region [ms].
    pub fn ttl_ms(&self) -> u64 {
        self.ttl_ms
    }
    /// Most regions kept at once.
    pub fn max_obstructions(&self) -> usize {
        self.max_obstructions
    }
    /// How stops become regions.
    pub fn contact(&self) -> &ContactModel {
        &self.contact
    }
}

/// The evidence of one stop (module doc).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contact {
    /// Where the arm stood, stopped: the measured position [mm].
    pub measured_mm: Point3<f64>,
    /// The set-point it was sent and could not follow [mm].
    pub expected_mm: Point3<f64>,
    /// The set-points were moving (the move commanded motion); a stop of a move that
    /// commanded none (the arm pushed off a still set-point) has no "ahead".
    pub moving: bool,
    /// The arm's speed while it still moved, before the stop [mm/s].
    pub speed_mm_s: f64,
    /// Time between two checks of the arm [ms].
    pub period_ms: u64,
}

/// A learned region's geometry ([`Contact::region`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Region {
    /// Centre of what is believed solid [mm].
    pub centre_mm: Point3<f64>,
    /// Its radius: what is believed solid [mm].
    pub size_mm: f64,
    /// The clearance radius the arm's point keeps from the centre: `size + ρ + margin` [mm].
    pub radius_mm: f64,
    /// Where the arm stood when it was stopped [mm].
    pub contact_mm: Point3<f64>,
    /// The way it was moving (unit vector; zero for a region given by hand).
    pub direction: Vector3<f64>,
}

fn finite(p: &Point3<f64>) -> bool {
    p.iter().all(|v| v.is_finite())
}

impl Contact {
    /// The region this stop teaches (module doc, "A contact becomes a region").
    ///
    /// # Errors
    /// [`TrajectoryError::ContactNotFinite`] (NaN or ∞ in a position or the speed),
    /// [`TrajectoryError::ContactNotMoving`] (no commanded motion, or the arm on its
    /// set-point), [`TrajectoryError::ContactOutsideWorkspace`] (the arm outside the
    /// workspace: evidence from where the arm must never be is not used).
    pub fn region(
        &self,
        model: &ContactModel,
        workspace: &Workspace,
    ) -> Result<Region, TrajectoryError> {
        let (m, e) = (self.measured_mm, self.expected_mm);
        if !finite(&m) || !finite(&e) || !self.speed_mm_s.is_finite() {
            return Err(TrajectoryError::ContactNotFinite {
                measured_mm: m,
                expected_mm: e,
            });
        }
        let lag = e - m;
        let gap = lag.norm();
        if !self.moving || gap < 1e-6 {
            return Err(TrajectoryError::ContactNotMoving { measured_mm: m });
        }
        if let Some(axis) =
            (0..3).find(|&i| m[i] < workspace.min_mm()[i] || m[i] > workspace.max_mm()[i])
        {
            return Err(TrajectoryError::ContactOutsideWorkspace {
                axis: ['x', 'y', 'z'][axis],
                value_mm: m[axis],
                min_mm: workspace.min_mm()[axis],
                max_mm: workspace.max_mm()[axis],
            });
        }
        let d = lag / gap;
        let step = self.speed_mm_s.max(0.0) * self.period_ms as f64 / 1000.0;
        let size = (gap / 2.0 + step).clamp(model.min_size_mm, model.max_size_mm);
        let rho = model.tool_radius_mm;
        Ok(Region {
            centre_mm: m + d * (rho + size),
            size_mm: size,
            radius_mm: size + rho + model.margin_mm,
            contact_mm: m,
            direction: d,
        })
    }
}

/// One remembered region: a ball of clearance the arm keeps out of (a learned obstruction:
/// it never refuses a target by itself, the planner approaches a target inside it from
/// another side).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KnownObstruction {
    /// Unique in its memory, increasing from 1 in recording order (never reused).
    pub id: u64,
    /// Centre, world frame [mm].
    pub centre_mm: Point3<f64>,
    /// Clearance radius [mm] (> 0): points closer than this to the centre are inside.
    pub radius_mm: f64,
    /// What is believed solid: the ball of this radius around the centre (≤ `radius_mm`).
    pub size_mm: f64,
    /// Where the arm stood when it was stopped [mm].
    pub contact_mm: Point3<f64>,
    /// The way the arm was moving when stopped (unit; zero when unknown).
    pub direction: Vector3<f64>,
    /// Stops merged into it (1 for a new one).
    pub hits: u32,
    /// When it was recorded (or last hit) [ms since the caller's origin].
    pub recorded_at_ms: u64,
    /// First time at which it is expired [ms]: `recorded_at_ms + ttl` (saturating).
    pub expires_at_ms: u64,
}

/// What a pass through a region did to it ([`KnownObstruction::free_pass`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PassEffect {
    /// The pass did not come near what is believed solid.
    None,
    /// It shrank to this size [mm].
    Shrunk {
        /// The size before [mm].
        from_mm: f64,
        /// The size now [mm].
        to_mm: f64,
    },
    /// The pass went through it: it is gone.
    Cleared,
}

/// Distance from `c` to the segment `a → b`.
fn segment_distance(a: Point3<f64>, b: Point3<f64>, c: Point3<f64>) -> f64 {
    let d = b - a;
    let len2 = d.norm_squared();
    let t = if len2 > 0.0 {
        ((c - a).dot(&d) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (a + d * t - c).norm()
}

impl KnownObstruction {
    /// An obstruction that never expires (recorded at 0): a known ball of clearance given
    /// by hand, e.g. a scene in a test or a benchmark (what is solid = the whole ball, no
    /// known direction).
    pub fn permanent(id: u64, centre_mm: Point3<f64>, radius_mm: f64) -> Self {
        KnownObstruction {
            id,
            centre_mm,
            radius_mm,
            size_mm: radius_mm,
            contact_mm: centre_mm,
            direction: Vector3::zeros(),
            hits: 1,
            recorded_at_ms: 0,
            expires_at_ms: u64::MAX,
        }
    }

    /// A region learned at `now_ms`, alive for `ttl_ms`.
    pub fn learned(id: u64, region: &Region, now_ms: u64, ttl_ms: u64) -> Self {
        KnownObstruction {
            id,
            centre_mm: region.centre_mm,
            radius_mm: region.radius_mm,
            size_mm: region.size_mm,
            contact_mm: region.contact_mm,
            direction: region.direction,
            hits: 1,
            recorded_at_ms: now_ms,
            expires_at_ms: now_ms.saturating_add(ttl_ms),
        }
    }

    /// `point` is strictly closer than the radius to the centre.
    pub fn contains(&self, point: Point3<f64>) -> bool {
        (point - self.centre_mm).norm() < self.radius_mm
    }
    /// The TTL has run out at `now_ms` (`now_ms ≥ expires_at_ms`).
    pub fn is_expired(&self, now_ms: u64) -> bool {
        now_ms >= self.expires_at_ms
    }

    /// The arm went from `a` to `b` without being stopped (module doc, "Evidence
    /// clears"): shrinks this region (or says it is cleared) when the taper of radius
    /// `tool_radius_mm` overlapped what is believed solid. A region shrunk below
    /// `min_size_mm` is [`PassEffect::Cleared`] (the caller removes it).
    pub fn free_pass(
        &mut self,
        a: Point3<f64>,
        b: Point3<f64>,
        tool_radius_mm: f64,
        min_size_mm: f64,
    ) -> PassEffect {
        if !finite(&a) || !finite(&b) {
            return PassEffect::None;
        }
        let q = segment_distance(a, b, self.centre_mm);
        if q >= self.size_mm + tool_radius_mm {
            return PassEffect::None;
        }
        let size = q - tool_radius_mm;
        if size < min_size_mm {
            return PassEffect::Cleared;
        }
        let from_mm = self.size_mm;
        let extra = self.radius_mm - self.size_mm;
        self.size_mm = size;
        self.radius_mm = size + extra;
        PassEffect::Shrunk {
            from_mm,
            to_mm: size,
        }
    }
}

/// What [`ObstructionMemory::learn`] did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Recorded {
    /// The region as remembered now (new, or the one the stop merged into).
    pub obstruction: KnownObstruction,
    /// The stop merged into a region already known (same place).
    pub merged: bool,
    /// The oldest one, dropped to keep within the cap.
    pub dropped: Option<KnownObstruction>,
}

/// What a pass did to one region ([`ObstructionMemory::free_pass`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Passed {
    /// The region before the pass.
    pub before: KnownObstruction,
    /// What happened to it.
    pub effect: PassEffect,
}

/// The remembered regions, oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct ObstructionMemory {
    config: ObstructionConfig,
    items: VecDeque<KnownObstruction>,
    next_id: u64,
    dropped_total: u64,
}

/// Two regions are the same place when their centres are closer than this fraction of
/// the smaller size.
const MERGE_FRACTION: f64 = 0.5;

impl ObstructionMemory {
    /// An empty memory.
    pub fn new(config: ObstructionConfig) -> Self {
        Self {
            config,
            items: VecDeque::with_capacity(config.max_obstructions.min(64)),
            next_id: 1,
            dropped_total: 0,
        }
    }

    /// The parameters.
    pub fn config(&self) -> &ObstructionConfig {
        &self.config
    }

    /// Remembers a region learned from a stop ([`Contact::region`]), or merges it into the
    /// region already known at the same place (module doc). At the cap the oldest region
    /// is dropped first (returned and counted); expired ones count too until
    /// [`expire`](Self::expire) removes them.
    ///
    /// # Errors
    /// [`TrajectoryError::ObstructionNotFinite`] for a NaN or infinite centre or size
    /// (nothing is recorded).
    pub fn learn(&mut self, region: &Region, now_ms: u64) -> Result<Recorded, TrajectoryError> {
        let sizes_ok = [region.size_mm, region.radius_mm]
            .iter()
            .all(|v| v.is_finite() && *v >= 0.0);
        if !finite(&region.centre_mm) || !finite(&region.contact_mm) || !sizes_ok {
            return Err(TrajectoryError::ObstructionNotFinite {
                centre_mm: region.centre_mm,
            });
        }
        let ttl = self.config.ttl_ms;
        if let Some(o) = self.items.iter_mut().find(|o| {
            (o.centre_mm - region.centre_mm).norm()
                <= MERGE_FRACTION * o.size_mm.min(region.size_mm)
        }) {
            o.hits = o.hits.saturating_add(1);
            o.size_mm = o.size_mm.max(region.size_mm);
            o.radius_mm = o.radius_mm.max(region.radius_mm);
            o.recorded_at_ms = now_ms;
            o.expires_at_ms = now_ms.saturating_add(ttl);
            return Ok(Recorded {
                obstruction: *o,
                merged: true,
                dropped: None,
            });
        }
        let dropped = if self.items.len() >= self.config.max_obstructions {
            self.dropped_total += 1;
            self.items.pop_front()
        } else {
            None
        };
        let obstruction = KnownObstruction::learned(self.next_id, region, now_ms, ttl);
        self.next_id += 1;
        self.items.push_back(obstruction);
        Ok(Recorded {
            obstruction,
            merged: false,
            dropped,
        })
    }

    /// The arm went from `a` to `b` without being stopped: every region it passed through
    /// shrinks or goes (module doc, "Evidence clears"). Returns what changed (the node
    /// counts and logs it).
    pub fn free_pass(&mut self, a: Point3<f64>, b: Point3<f64>) -> Vec<Passed> {
        let model = self.config.contact;
        let mut changed = Vec::new();
        self.items.retain_mut(|o| {
            let before = *o;
            match o.free_pass(a, b, model.tool_radius_mm, model.min_size_mm) {
                PassEffect::None => true,
                effect @ PassEffect::Shrunk { .. } => {
                    changed.push(Passed { before, effect });
                    true
                }
                PassEffect::Cleared => {
                    changed.push(Passed {
                        before,
                        effect: PassEffect::Cleared,
                    });
                    false
                }
            }
        });
        changed
    }

    /// Removes and returns (oldest first) every obstruction expired at `now_ms`.
    pub fn expire(&mut self, now_ms: u64) -> Vec<KnownObstruction> {
        let mut gone = Vec::new();
        self.items.retain(|o| {
            let expired = o.is_expired(now_ms);
            if expired {
                gone.push(*o);
            }
            !expired
        });
        gone
    }

    /// Forgets the obstructions with these ids: returns those forgotten and the ids that
    /// were not remembered.
    pub fn forget(&mut self, ids: &[u64]) -> (Vec<KnownObstruction>, Vec<u64>) {
        let unknown: Vec<u64> = ids
            .iter()
            .copied()
            .filter(|id| !self.items.iter().any(|o| o.id == *id))
            .collect();
        let mut gone = Vec::new();
        self.items.retain(|o| {
            let forget = ids.contains(&o.id);
            if forget {
                gone.push(*o);
            }
            !forget
        });
        (gone, unknown)
    }

    /// New parameters: the TTL and the contact model apply to regions learned from now
    /// on; a lower cap drops the oldest at once (returned and counted as drops at the
    /// cap).
    pub fn reconfigure(&mut self, config: ObstructionConfig) -> Vec<KnownObstruction> {
        self.config = config;
        let mut dropped = Vec::new();
        while self.items.len() > config.max_obstructions {
            if let Some(o) = self.items.pop_front() {
                self.dropped_total += 1;
                dropped.push(o);
            }
        }
        dropped
    }

    /// Forgets every obstruction; returns how many there were. Ids keep increasing and
    /// the dropped counter is kept.
    pub fn clear(&mut self) -> usize {
        let n = self.items.len();
        self.items.clear();
        n
    }

    /// The obstructions, oldest first.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &KnownObstruction> + '_ {
        self.items.iter()
    }

    /// How many are remembered.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// How many were dropped at the cap since this memory was made.
    pub fn dropped_total(&self) -> u64 {
        self.dropped_total
    }

    /// `point` is inside the clearance of some remembered obstruction.
    pub fn contains(&self, point: Point3<f64>) -> bool {
        self.items.iter().any(|o| o.contains(point))
    }
}

impl<'a> IntoIterator for &'a ObstructionMemory {
    type Item = &'a KnownObstruction;
    type IntoIter = std::collections::vec_deque::Iter<'a, KnownObstruction>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

#[cfg(test)]
mod tests;
