//! The arm's memory of what stopped it: [`KnownObstruction`]s (a sphere of clearance
//! around where a move was obstructed) with a time-to-live, capped in number.
//!
//! Time: `now_ms` is passed in, in milliseconds since any fixed origin that never goes
//! back (the node's start on a monotonic clock). No clock is read here.
//! Units: millimetres; frame: `world` (the arm's frame, as every point of this crate).
//!
//! - [`ObstructionMemory::record`] remembers a centre with the configured radius and
//!   TTL. At the cap, the oldest one is dropped first; it is returned and counted
//!   ([`ObstructionMemory::dropped_total`]).
//! - [`ObstructionMemory::expire`] removes (and returns) those whose TTL has run out:
//!   an obstruction recorded at `t` with TTL `ttl` is alive for `now < t + ttl`.
//!   Nothing expires by itself: the caller calls `expire` (e.g. once a period, or before
//!   planning) and can publish what went.
//! - [`ObstructionMemory::clear`] forgets everything (the "clear" service).

use std::collections::VecDeque;

use nalgebra::Point3;

use crate::error::TrajectoryError;

/// Largest accepted `max_obstructions`.
pub const MAX_OBSTRUCTIONS: usize = 10_000;
/// Largest accepted `obstruction_radius_mm` (10 m: more than any arm reaches).
pub const MAX_RADIUS_MM: f64 = 10_000.0;

/// Checked parameters of the memory: built by [`ObstructionConfig::new`] or [`Default`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ObstructionConfig {
    radius_mm: f64,
    ttl_ms: u64,
    max_obstructions: usize,
}

impl Default for ObstructionConfig {
    /// 60 mm clearance (more than the 25 mm tracking tolerance plus a margin), one minute
    /// of memory, at most 16 obstructions.
    fn default() -> Self {
        Self {
            radius_mm: 60.0,
            ttl_ms: 60_000,
            max_obstructions: 16,
        }
    }
}

fn invalid(field: &'static str, reason: String) -> TrajectoryError {
    TrajectoryError::InvalidConfig { field, reason }
}

impl ObstructionConfig {
    /// Checks and builds the parameters.
    ///
    /// # Errors
    /// [`TrajectoryError::InvalidConfig`] naming the first bad one:
    /// `obstruction_radius_mm` (NaN, ∞, ≤ 0 or above [`MAX_RADIUS_MM`]),
    /// `obstruction_ttl_ms` (0), `max_obstructions` (0 or above [`MAX_OBSTRUCTIONS`]).
    pub fn new(
        radius_mm: f64,
        ttl_ms: u64,
        max_obstructions: usize,
    ) -> Result<Self, TrajectoryError> {
        if !radius_mm.is_finite() || radius_mm <= 0.0 || radius_mm > MAX_RADIUS_MM {
            return Err(invalid(
                "obstruction_radius_mm",
                format!("{radius_mm} is not a number in (0, {MAX_RADIUS_MM}]"),
            ));
        }
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
            radius_mm,
            ttl_ms,
            max_obstructions,
        })
    }
    /// Clearance radius of a new obstruction [mm].
    pub fn radius_mm(&self) -> f64 {
        self.radius_mm
    }
    /// Time-to-live of a new obstruction [ms].
    pub fn ttl_ms(&self) -> u64 {
        self.ttl_ms
    }
    /// Most obstructions kept at once.
    pub fn max_obstructions(&self) -> usize {
        self.max_obstructions
    }
}

/// One remembered obstruction: a sphere of clearance the arm keeps out of.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KnownObstruction {
    /// Unique in its memory, increasing from 1 in recording order (never reused).
    pub id: u64,
    /// Centre, world frame [mm].
    pub centre_mm: Point3<f64>,
    /// Clearance radius [mm] (> 0): points closer than this to the centre are inside.
    pub radius_mm: f64,
    /// When it was recorded [ms since the caller's origin].
    pub recorded_at_ms: u64,
    /// First time at which it is expired [ms]: `recorded_at_ms + ttl` (saturating).
    pub expires_at_ms: u64,
}

impl KnownObstruction {
    /// An obstruction that never expires (recorded at 0): a known obstacle given by hand,
    /// e.g. a scene in a test or a benchmark.
    pub fn permanent(id: u64, centre_mm: Point3<f64>, radius_mm: f64) -> Self {
        KnownObstruction {
            id,
            centre_mm,
            radius_mm,
            recorded_at_ms: 0,
            expires_at_ms: u64::MAX,
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
}

/// What [`ObstructionMemory::record`] did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Recorded {
    /// The new obstruction.
    pub obstruction: KnownObstruction,
    /// The oldest one, dropped to keep within the cap.
    pub dropped: Option<KnownObstruction>,
}

/// The remembered obstructions, oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct ObstructionMemory {
    config: ObstructionConfig,
    items: VecDeque<KnownObstruction>,
    next_id: u64,
    dropped_total: u64,
}

impl ObstructionMemory {
    /// An empty memory.
    pub fn new(config: ObstructionConfig) -> Self {
        Self {
            config,
            items: VecDeque::with_capacity(config.max_obstructions),
            next_id: 1,
            dropped_total: 0,
        }
    }

    /// The parameters.
    pub fn config(&self) -> &ObstructionConfig {
        &self.config
    }

    /// Remembers an obstruction at `centre_mm` with the configured radius and TTL.
    ///
    /// Pass where the arm *should* have been (the obstructed set-point, which lies ahead
    /// of the measured position) rather than where it stands: the detour planner lets a
    /// start inside a clearance leave it but never move towards the centre.
    /// At the cap the oldest obstruction is dropped (returned and counted); expired ones
    /// count too until [`expire`](Self::expire) removes them.
    ///
    /// # Errors
    /// [`TrajectoryError::ObstructionNotFinite`] for a NaN or infinite centre (nothing is
    /// recorded).
    pub fn record(
        &mut self,
        centre_mm: Point3<f64>,
        now_ms: u64,
    ) -> Result<Recorded, TrajectoryError> {
        if !centre_mm.iter().all(|v| v.is_finite()) {
            return Err(TrajectoryError::ObstructionNotFinite { centre_mm });
        }
        let dropped = if self.items.len() >= self.config.max_obstructions {
            self.dropped_total += 1;
            self.items.pop_front()
        } else {
            None
        };
        let obstruction = KnownObstruction {
            id: self.next_id,
            centre_mm,
            radius_mm: self.config.radius_mm,
            recorded_at_ms: now_ms,
            expires_at_ms: now_ms.saturating_add(self.config.ttl_ms),
        };
        self.next_id += 1;
        self.items.push_back(obstruction);
        Ok(Recorded {
            obstruction,
            dropped,
        })
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

    /// New parameters: the radius and TTL apply to obstructions recorded from now on; a
    /// lower cap drops the oldest at once (returned and counted as drops at the cap).
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
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn memory(ttl_ms: u64, cap: usize) -> ObstructionMemory {
        ObstructionMemory::new(ObstructionConfig::new(50.0, ttl_ms, cap).unwrap())
    }

    fn field_of(r: Result<ObstructionConfig, TrajectoryError>) -> &'static str {
        match r {
            Err(TrajectoryError::InvalidConfig { field, .. }) => field,
            other => panic!("expected InvalidConfig, got {other:?}"),
        }
    }

    #[test]
    fn config_errors_name_the_field() {
        for r in [f64::NAN, f64::INFINITY, 0.0, -1.0, 1e6] {
            assert_eq!(
                field_of(ObstructionConfig::new(r, 1, 1)),
                "obstruction_radius_mm"
            );
        }
        assert_eq!(
            field_of(ObstructionConfig::new(1.0, 0, 1)),
            "obstruction_ttl_ms"
        );
        assert_eq!(
            field_of(ObstructionConfig::new(1.0, 1, 0)),
            "max_obstructions"
        );
        assert_eq!(
            field_of(ObstructionConfig::new(1.0, 1, MAX_OBSTRUCTIONS + 1)),
            "max_obstructions"
        );
        let d = ObstructionConfig::default();
        assert_eq!(
            ObstructionConfig::new(d.radius_mm(), d.ttl_ms(), d.max_obstructions()),
            Ok(d)
        );
    }

    #[test]
    fn record_uses_the_config_and_counts_ids() {
        let mut m = memory(1000, 4);
        let a = m.record(Point3::new(1.0, 2.0, 3.0), 500).unwrap();
        assert_eq!(a.dropped, None);
        let o = a.obstruction;
        assert_eq!((o.id, o.radius_mm), (1, 50.0));
        assert_eq!((o.recorded_at_ms, o.expires_at_ms), (500, 1500));
        assert_eq!(m.record(Point3::origin(), 600).unwrap().obstruction.id, 2);
        assert_eq!(m.len(), 2);
        assert!(m.contains(Point3::new(1.0, 2.0, 52.9)));
        assert!(
            !m.contains(Point3::new(1.0, 2.0, 53.0)),
            "the sphere is open"
        );
        assert!(!m.contains(Point3::new(200.0, 0.0, 0.0)));
    }

    #[test]
    fn non_finite_centre_is_refused_and_not_recorded() {
        let mut m = memory(1000, 4);
        let bad = Point3::new(0.0, f64::NAN, 0.0);
        assert!(matches!(
            m.record(bad, 0),
            Err(TrajectoryError::ObstructionNotFinite { .. })
        ));
        assert!(m.is_empty());
    }

    #[test]
    fn expiry_at_exactly_the_ttl() {
        let mut m = memory(100, 4);
        m.record(Point3::origin(), 0).unwrap();
        m.record(Point3::new(10.0, 0.0, 0.0), 50).unwrap();
        assert!(m.expire(99).is_empty());
        let gone = m.expire(100);
        assert_eq!(gone.len(), 1);
        assert_eq!(gone[0].id, 1);
        assert_eq!(m.iter().map(|o| o.id).collect::<Vec<_>>(), vec![2]);
        assert_eq!(m.expire(u64::MAX).len(), 1);
        assert!(m.is_empty());
    }

    #[test]
    fn ttl_saturates_instead_of_wrapping() {
        let mut m = memory(u64::MAX, 1);
        let o = m.record(Point3::origin(), 10).unwrap().obstruction;
        assert_eq!(o.expires_at_ms, u64::MAX);
        assert!(m.expire(u64::MAX - 1).is_empty());
    }

    #[test]
    fn cap_drops_the_oldest_and_counts() {
        let mut m = memory(1000, 2);
        for i in 0u32..5 {
            let r = m.record(Point3::new(f64::from(i), 0.0, 0.0), 0).unwrap();
            assert_eq!(r.dropped.map(|o| o.id), (i >= 2).then(|| u64::from(i) - 1));
        }
        assert_eq!(m.dropped_total(), 3);
        assert_eq!(m.iter().map(|o| o.id).collect::<Vec<_>>(), vec![4, 5]);
        assert_eq!(m.clear(), 2);
        assert!(m.is_empty());
        assert_eq!(m.dropped_total(), 3, "clearing is not dropping");
        assert_eq!(m.record(Point3::origin(), 0).unwrap().obstruction.id, 6);
    }

    proptest! {
        #[test]
        fn never_above_the_cap_and_nothing_alive_is_expired(
            ops in proptest::collection::vec((0u64..50, any::<bool>()), 1..60),
            cap in 1usize..6,
            ttl in 1u64..40,
        ) {
            let mut m = memory(ttl, cap);
            let (mut now, mut recorded, mut expired) = (0u64, 0u64, 0usize);
            for (dt, is_record) in ops {
                now += dt;
                if is_record {
                    m.record(Point3::origin(), now).unwrap();
                    recorded += 1;
                } else {
                    let gone = m.expire(now);
                    prop_assert!(gone.iter().all(|o| o.is_expired(now)));
                    expired += gone.len();
                    prop_assert!(m.iter().all(|o| !o.is_expired(now)));
                }
                prop_assert!(m.len() <= cap);
                // Every recorded obstruction is alive, expired or dropped.
                prop_assert_eq!(
                    recorded,
                    m.len() as u64 + expired as u64 + m.dropped_total()
                );
                // Oldest first.
                let ids: Vec<u64> = m.iter().map(|o| o.id).collect();
                prop_assert!(ids.windows(2).all(|w| w[0] < w[1]));
            }
        }
    }
}
