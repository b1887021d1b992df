//! [`Eyes`]: what the simulated eyes see. Three flames, in this order:
//! 1. `source`: lit from `source_lit_at_s`, always reported once lit (the task's
//!    `start` action captures the FIRST observation as the source);
//! 2. `taper`: on the arm (`arm + taper_offset_mm`); lit once its tip has stayed within
//!    `light_radius_mm` of the lit source for `hold_s` without leaving; reported once lit;
//! 3. `candle`: lit once the lit taper has stayed within `light_radius_mm` of it for
//!    `hold_s`; an unlit candle is not reported.
//!
//! Leaving the radius resets the hold timer. Flames stay lit. Pure: time comes in as
//! `dt` with the arm position in [`Eyes::update`].

use serde::Serialize;

use crate::arm::Vec3;
use crate::scenario::EyesSpec;

/// The flames, in report order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Flame {
    /// The flame the task starts from.
    Source,
    /// The taper held by the arm.
    Taper,
    /// The second candle.
    Candle,
}

impl Flame {
    /// The name used in ground truth and logs.
    pub fn name(self) -> &'static str {
        match self {
            Flame::Source => "source",
            Flame::Taper => "taper",
            Flame::Candle => "candle",
        }
    }
}

/// One flame the eyes report [mm, global].
#[derive(Debug, Clone, PartialEq)]
pub struct Sighting {
    /// Which flame.
    pub flame: Flame,
    /// Where it is [mm, global].
    pub pos_mm: Vec3,
    /// Reported confidence.
    pub confidence: f64,
}

/// A flame that lit during an update.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LitEvent {
    /// Which flame.
    pub flame: Flame,
    /// Scenario time [s].
    pub at_s: f64,
}

/// The eyes and the flames' state.
#[derive(Debug, Clone)]
pub struct Eyes {
    spec: EyesSpec,
    now_s: f64,
    taper_mm: Vec3,
    lit: [bool; 3],
    taper_hold_s: f64,
    candle_hold_s: f64,
}

impl Eyes {
    /// The eyes at time 0, the taper at `arm_mm + taper_offset_mm`.
    pub fn new(spec: EyesSpec, arm_mm: Vec3) -> Self {
        let taper_mm = arm_mm + spec.taper_offset_mm;
        let mut eyes = Self {
            spec,
            now_s: 0.0,
            taper_mm,
            lit: [false; 3],
            taper_hold_s: 0.0,
            candle_hold_s: 0.0,
        };
        eyes.lit[0] = eyes.spec.source_lit_at_s <= 0.0;
        eyes
    }

    /// Advances by `dt_s` with the arm now at `arm_mm`; returns the flames that lit.
    /// A non-positive or non-finite `dt_s` only moves the taper.
    pub fn update(&mut self, dt_s: f64, arm_mm: Vec3) -> Vec<LitEvent> {
        self.taper_mm = arm_mm + self.spec.taper_offset_mm;
        let mut events = Vec::new();
        if !(dt_s.is_finite() && dt_s > 0.0) {
            return events;
        }
        self.now_s += dt_s;
        let s = &self.spec;
        if !self.lit[0] && self.now_s >= s.source_lit_at_s {
            self.lit[0] = true;
            events.push(LitEvent {
                flame: Flame::Source,
                at_s: self.now_s,
            });
        }
        let near = |a: Vec3, b: Vec3| (a - b).norm() <= s.light_radius_mm;
        if self.lit[0] && !self.lit[1] {
            if near(self.taper_mm, s.source_mm) {
                self.taper_hold_s += dt_s;
                if self.taper_hold_s >= s.hold_s {
                    self.lit[1] = true;
                    events.push(LitEvent {
                        flame: Flame::Taper,
                        at_s: self.now_s,
                    });
                }
            } else {
                self.taper_hold_s = 0.0;
            }
        } else if self.lit[1] && !self.lit[2] {
            if near(self.taper_mm, s.candle_mm) {
                self.candle_hold_s += dt_s;
                if self.candle_hold_s >= s.hold_s {
                    self.lit[2] = true;
                    events.push(LitEvent {
                        flame: Flame::Candle,
                        at_s: self.now_s,
                    });
                }
            } else {
                self.candle_hold_s = 0.0;
            }
        }
        events
    }

    /// Whether `flame` is lit.
    pub fn is_lit(&self, flame: Flame) -> bool {
        self.lit[flame as usize]
    }

    /// The lit flames, in report order.
    pub fn lit(&self) -> Vec<Flame> {
        [Flame::Source, Flame::Taper, Flame::Candle]
            .into_iter()
            .filter(|f| self.is_lit(*f))
            .collect()
    }

    /// What the eyes report now, in order source, taper, candle; unlit flames are not
    /// reported.
    pub fn sightings(&self) -> Vec<Sighting> {
        self.lit()
            .into_iter()
            .map(|flame| Sighting {
                flame,
                pos_mm: match flame {
                    Flame::Source => self.spec.source_mm,
                    Flame::Taper => self.taper_mm,
                    Flame::Candle => self.spec.candle_mm,
                },
                confidence: self.spec.confidence,
            })
            .collect()
    }

    /// Scenario time [s].
    pub fn now_s(&self) -> f64 {
        self.now_s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    const DT: f64 = 0.005;

    fn spec() -> EyesSpec {
        Scenario::default().eyes
    }

    fn hold(eyes: &mut Eyes, at: Vec3, seconds: f64) -> Vec<LitEvent> {
        let mut all = Vec::new();
        for _ in 0..(seconds / DT).round() as usize {
            all.extend(eyes.update(DT, at));
        }
        all
    }

    #[test]
    fn taper_lights_only_after_the_hold_time_at_the_source() {
        let s = spec();
        let mut eyes = Eyes::new(s.clone(), Vec3::zeros());
        assert_eq!(eyes.lit(), vec![Flame::Source]);
        let near = s.source_mm + Vec3::new(0.0, 0.0, 0.5 * s.light_radius_mm);
        assert!(hold(&mut eyes, near, s.hold_s - 0.05).is_empty());
        assert!(!eyes.is_lit(Flame::Taper));
        let ev = hold(&mut eyes, near, 0.1);
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].flame, Flame::Taper);
        assert!(eyes.is_lit(Flame::Taper));
        // Reported second, where the arm is.
        let seen = eyes.sightings();
        assert_eq!(
            seen.iter().map(|x| x.flame).collect::<Vec<_>>(),
            vec![Flame::Source, Flame::Taper]
        );
        assert_eq!(seen[1].pos_mm, near);
        let away = Vec3::new(0.0, 40.0, 0.0);
        eyes.update(DT, away);
        assert_eq!(eyes.sightings()[1].pos_mm, away);
    }

    #[test]
    fn leaving_the_source_resets_the_hold() {
        let s = spec();
        let mut eyes = Eyes::new(s.clone(), Vec3::zeros());
        hold(&mut eyes, s.source_mm, 0.7 * s.hold_s);
        hold(&mut eyes, Vec3::zeros(), 0.1);
        hold(&mut eyes, s.source_mm, 0.7 * s.hold_s);
        assert!(!eyes.is_lit(Flame::Taper));
        hold(&mut eyes, s.source_mm, 0.4 * s.hold_s);
        assert!(eyes.is_lit(Flame::Taper));
    }

    #[test]
    fn just_outside_the_radius_never_lights() {
        let s = spec();
        let mut eyes = Eyes::new(s.clone(), Vec3::zeros());
        let outside = s.source_mm + Vec3::new(s.light_radius_mm * 1.01, 0.0, 0.0);
        hold(&mut eyes, outside, 5.0 * s.hold_s);
        assert!(!eyes.is_lit(Flame::Taper));
    }

    #[test]
    fn candle_lights_only_with_a_lit_taper() {
        let s = spec();
        let mut eyes = Eyes::new(s.clone(), Vec3::zeros());
        hold(&mut eyes, s.candle_mm, 3.0 * s.hold_s);
        assert!(!eyes.is_lit(Flame::Candle), "an unlit taper lit the candle");
        assert_eq!(eyes.sightings().len(), 1);
        hold(&mut eyes, s.source_mm, s.hold_s + 0.01);
        assert!(eyes.is_lit(Flame::Taper));
        let ev = hold(&mut eyes, s.candle_mm, s.hold_s + 0.01);
        assert_eq!(
            ev.iter().map(|e| e.flame).collect::<Vec<_>>(),
            vec![Flame::Candle]
        );
        let seen = eyes.sightings();
        assert_eq!(seen.len(), 3);
        assert_eq!(seen[2].pos_mm, s.candle_mm);
        assert!(seen.iter().all(|x| x.confidence == s.confidence));
    }

    #[test]
    fn source_appears_at_its_time_and_nothing_before() {
        let mut s = spec();
        s.source_lit_at_s = 0.5;
        let mut eyes = Eyes::new(s.clone(), Vec3::zeros());
        assert!(eyes.sightings().is_empty());
        // Sitting at the unlit source lights nothing.
        assert!(hold(&mut eyes, s.source_mm, 0.45).is_empty());
        assert!(eyes.sightings().is_empty());
        let ev = hold(&mut eyes, Vec3::zeros(), 0.1);
        assert_eq!(
            ev.iter().map(|e| e.flame).collect::<Vec<_>>(),
            vec![Flame::Source]
        );
        assert_eq!(eyes.sightings()[0].flame, Flame::Source);
    }
}
