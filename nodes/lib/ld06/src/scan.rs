//! [`Assembler`]: decoded packets → one [`Scan`] per revolution, in the `laser` frame.
//!
//! **Frames and angles.** The device measures clockwise from its 0° mark. The `laser`
//! frame is the URDF link the LiDAR is mounted on (REP 103: x forward, z up, angles
//! counter-clockwise); [`Mounting`] says where the device's 0° points in it
//! (`angle_offset_rad`) and which way it turns (`clockwise`: true for an LD06 mounted
//! upright, false upside down). A measurement at device angle `a` lies at
//! `angle_offset_rad ∓ a` in the laser frame.
//!
//! **Revolutions.** A revolution runs from the direction `cut_angle_rad` (laser frame) all
//! the way round back to it. The scan lists its rays **in the order they were measured**:
//! `angle_min` is the first ray's (the cut, or less than one ray past it: the grid is
//! aligned on the measurements), `angle_increment` is negative when the device turns clockwise,
//! `time_increment` positive, and the stamp is the time of the first ray. Rays sit on a
//! fixed grid of `n` = 360° / (the revolution's mean point spacing) bins; a lost packet
//! leaves its bins NaN instead of shifting the rest, and two points in one bin keep the
//! nearer. The first revolution after a start or a silence (`gap_s`) is partial and
//! dropped (counted), as is anything too short to be a revolution.
//!
//! **Values (REP 117).** A distance of 0 (no return) or an intensity below
//! `min_intensity` is NaN; closer than `range_min_m` is −∞; farther than `range_max_m`
//! +∞; a bin no point fell in is NaN. Intensities are the device's 0-255 (0 in empty
//! bins).
//!
//! **Time.** Each packet arrives at a time `t` [s] (the caller's clock, e.g. the
//! moment its last byte was read); its last point is taken to be measured then and the
//! others earlier, one point spacing ÷ speed apart. The scan's `scan_time` and
//! `time_increment` come from the packets' speed field (the arrival times jitter with
//! the host's reads); the stamp is the first ray's time from its packet's arrival.
use std::f64::consts::{PI, TAU};

use crate::{Packet, POINTS_PER_PACKET, SAMPLES_PER_S};

/// How the device sits in the `laser` frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mounting {
    /// The laser-frame angle of the device's 0° mark [rad, CCW from the laser's +x].
    pub angle_offset_rad: f64,
    /// The device turns clockwise in the laser frame (an LD06 mounted upright); false:
    /// counter-clockwise (upside down).
    pub clockwise: bool,
}

impl Default for Mounting {
    fn default() -> Self {
        Mounting {
            angle_offset_rad: 0.0,
            clockwise: true,
        }
    }
}

/// The assembler's settings (the driver node's parameters of the same names).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScanConfig {
    /// Where the device sits.
    pub mounting: Mounting,
    /// Where one revolution ends and the next begins [rad, laser frame].
    pub cut_angle_rad: f64,
    /// Nearer is −∞ [m] (the LD06: 0.02).
    pub range_min_m: f64,
    /// Farther is +∞ [m] (the LD06: 12).
    pub range_max_m: f64,
    /// Points weaker than this are NaN (0 keeps all).
    pub min_intensity: u8,
    /// A silence this long drops the revolution in progress [s].
    pub gap_s: f64,
}

impl Default for ScanConfig {
    fn default() -> Self {
        ScanConfig {
            mounting: Mounting::default(),
            cut_angle_rad: PI,
            range_min_m: 0.02,
            range_max_m: 12.0,
            min_intensity: 0,
            gap_s: 0.2,
        }
    }
}

/// A setting the assembler cannot use (its `Display` names the parameter).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ScanConfigError {
    /// A value not finite.
    #[error("{0}: {1} is not a finite number")]
    NotFinite(&'static str, f64),
    /// `range_min_m` not in `[0, range_max_m)`, or `range_max_m` over 100 m.
    #[error("range_min_m {min} and range_max_m {max}: need 0 <= range_min_m < range_max_m <= 100")]
    Ranges {
        /// `range_min_m`.
        min: f64,
        /// `range_max_m`.
        max: f64,
    },
    /// `gap_s` not in `(0, 10]`.
    #[error("gap_s: {0} is not in (0, 10]")]
    Gap(f64),
}

impl ScanConfig {
    /// Checks every value.
    ///
    /// # Errors
    /// The first bad value.
    pub fn check(&self) -> Result<(), ScanConfigError> {
        for (name, v) in [
            ("angle_offset_rad", self.mounting.angle_offset_rad),
            ("cut_angle_rad", self.cut_angle_rad),
            ("range_min_m", self.range_min_m),
            ("range_max_m", self.range_max_m),
            ("gap_s", self.gap_s),
        ] {
            if !v.is_finite() {
                return Err(ScanConfigError::NotFinite(name, v));
            }
        }
        if !(self.range_min_m >= 0.0
            && self.range_min_m < self.range_max_m
            && self.range_max_m <= 100.0)
        {
            return Err(ScanConfigError::Ranges {
                min: self.range_min_m,
                max: self.range_max_m,
            });
        }
        if !(self.gap_s > 0.0 && self.gap_s <= 10.0) {
            return Err(ScanConfigError::Gap(self.gap_s));
        }
        Ok(())
    }

    /// The device angle [degrees, 0 .. 360] where revolutions are cut.
    fn cut_device_deg(&self) -> f64 {
        let s = if self.mounting.clockwise { -1.0 } else { 1.0 };
        let a = (self.cut_angle_rad - self.mounting.angle_offset_rad) * s;
        a.rem_euclid(TAU).to_degrees()
    }
}

/// One revolution, ready to become a `sensor_msgs/LaserScan` (same field names).
#[derive(Clone, Debug, PartialEq)]
pub struct Scan {
    /// Time of the first ray [s, the caller's clock].
    pub stamp_s: f64,
    /// The first ray's angle [rad, laser frame, wrapped to (−π, π]]: the cut, or up to
    /// one ray past it (the grid is aligned on the measurements).
    pub angle_min: f64,
    /// The last ray's angle [rad] (`angle_min + (n − 1) · angle_increment`).
    pub angle_max: f64,
    /// Between rays [rad]; negative when the device turns clockwise.
    pub angle_increment: f64,
    /// Between rays [s].
    pub time_increment: f64,
    /// The revolution's duration [s].
    pub scan_time: f64,
    /// [m]
    pub range_min: f64,
    /// [m]
    pub range_max: f64,
    /// One per ray [m] (NaN, ±∞ as in the module doc).
    pub ranges: Vec<f32>,
    /// One per ray (the device's 0-255; 0 where no point fell).
    pub intensities: Vec<f32>,
    /// Points the revolution's packets carried.
    pub points: u32,
    /// Of which: distance 0 (no return).
    pub no_return: u32,
    /// Of which: in a bin another point had already taken (the nearer kept).
    pub merged: u32,
}

impl Scan {
    /// Rays that hold a finite range.
    pub fn finite_rays(&self) -> usize {
        self.ranges.iter().filter(|r| r.is_finite()).count()
    }

    /// The laser-frame angle of ray `i` [rad].
    pub fn angle(&self, i: usize) -> f64 {
        self.angle_min + self.angle_increment * i as f64
    }
}

/// What the assembler has done, for `/diagnostics`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScanCounters {
    /// Revolutions made into scans.
    pub revolutions: u64,
    /// Revolutions dropped as partial (the first after a start or a silence, a restart).
    pub partial_revolutions: u64,
    /// Packets whose speed was 0 (the motor starting; their points are timed at the
    /// nominal 4 500 samples per second).
    pub zero_speed_packets: u64,
}

#[derive(Clone, Copy, Debug)]
struct Sample {
    /// Phase from the cut, clockwise in device terms [degrees, 0 .. 360).
    phase: f64,
    t: f64,
    distance_mm: u16,
    intensity: u8,
}

/// Packets in, scans out (see the module doc).
#[derive(Clone, Debug)]
pub struct Assembler {
    cfg: ScanConfig,
    cut_deg: f64,
    samples: Vec<Sample>,
    /// Sum of the packets' point spacings [degrees] and their number, this revolution.
    spacing: (f64, u32),
    /// Sum of the packets' non-zero speeds [degrees per second] and their number.
    speeds: (f64, u32),
    /// The revolution in progress began after a cut (else it is partial).
    whole: bool,
    last_phase: Option<f64>,
    last_t: Option<f64>,
    counters: ScanCounters,
}

impl Assembler {
    /// An assembler with `cfg` (checked by the caller with [`ScanConfig::check`]).
    pub fn new(cfg: ScanConfig) -> Assembler {
        Assembler {
            cut_deg: cfg.cut_device_deg(),
            cfg,
            samples: Vec::with_capacity(512),
            spacing: (0.0, 0),
            speeds: (0.0, 0),
            whole: false,
            last_phase: None,
            last_t: None,
            counters: ScanCounters::default(),
        }
    }

    /// The settings.
    pub fn config(&self) -> &ScanConfig {
        &self.cfg
    }

    /// The counters so far.
    pub fn counters(&self) -> &ScanCounters {
        &self.counters
    }

    /// Takes one packet that arrived at `t` [s]; returns the revolution it completed, if
    /// it completed one.
    pub fn push(&mut self, p: &Packet, t: f64) -> Option<Scan> {
        let mut out = None;
        if self
            .last_t
            .is_some_and(|last| t - last > self.cfg.gap_s || t < last)
        {
            // A silence (or time going back): what was collected is not a revolution.
            self.drop_partial();
        }
        self.last_t = Some(t);
        let span_deg = f64::from(p.span_cdeg()) / 100.0;
        let step_deg = span_deg / (POINTS_PER_PACKET - 1) as f64;
        let dt = if p.speed_deg_s == 0 {
            self.counters.zero_speed_packets += 1;
            1.0 / SAMPLES_PER_S
        } else {
            step_deg / f64::from(p.speed_deg_s)
        };
        for (i, pt) in p.points.iter().enumerate() {
            let phase = (p.angle_deg(i) - self.cut_deg).rem_euclid(360.0);
            if self.last_phase.is_some_and(|last| phase + 180.0 < last) {
                // Past the cut: a revolution is complete.
                if self.whole {
                    out = self.finish();
                } else {
                    if !self.samples.is_empty() {
                        self.counters.partial_revolutions += 1;
                    }
                    self.clear();
                }
                self.whole = true;
            }
            self.last_phase = Some(phase);
            self.samples.push(Sample {
                phase,
                t: t - dt * (POINTS_PER_PACKET - 1 - i) as f64,
                distance_mm: pt.distance_mm,
                intensity: pt.intensity,
            });
        }
        if step_deg > 0.0 {
            self.spacing.0 += step_deg;
            self.spacing.1 += 1;
        }
        if p.speed_deg_s > 0 {
            self.speeds.0 += f64::from(p.speed_deg_s);
            self.speeds.1 += 1;
        }
        out
    }

    /// The device went silent or restarted: the revolution in progress is dropped.
    pub fn drop_partial(&mut self) {
        if !self.samples.is_empty() {
            self.counters.partial_revolutions += 1;
        }
        self.clear();
        self.whole = false;
        self.last_phase = None;
    }

    fn clear(&mut self) {
        self.samples.clear();
        self.spacing = (0.0, 0);
        self.speeds = (0.0, 0);
    }

    /// The collected samples as a scan (then cleared). `None` when too few to be one.
    fn finish(&mut self) -> Option<Scan> {
        let samples = std::mem::take(&mut self.samples);
        let (spacing, speeds) = (self.spacing, self.speeds);
        self.clear();
        let scan = self.scan_of(&samples, spacing, speeds);
        // Keep the allocation for the next revolution.
        self.samples = samples;
        self.samples.clear();
        match scan {
            Some(s) => {
                self.counters.revolutions += 1;
                Some(s)
            }
            None => {
                self.counters.partial_revolutions += 1;
                None
            }
        }
    }

    fn scan_of(&self, samples: &[Sample], spacing: (f64, u32), speeds: (f64, u32)) -> Option<Scan> {
        let (first, last) = (samples.first()?, samples.last()?);
        let step = if spacing.1 > 0 {
            spacing.0 / f64::from(spacing.1)
        } else {
            0.0
        };
        let covered = last.phase - first.phase;
        if step.is_nan() || step <= 0.0 || covered < 180.0 || last.t <= first.t {
            return None;
        }
        let n = ((360.0 / step).round() as usize).clamp(POINTS_PER_PACKET, 100_000);
        let bin = 360.0 / n as f64;
        // The grid follows the measurements: its first ray is the first sample's angle
        // modulo one bin (within one ray of the cut), so samples sit on ray centres.
        let offset = first.phase.rem_euclid(bin);
        // Turn rate [degrees per second]: the packets' own speed field (exact, where the
        // arrival times jitter with the host's reads), else from the arrival times.
        let rate = if speeds.1 > 0 {
            speeds.0 / f64::from(speeds.1)
        } else {
            covered / (last.t - first.t)
        };
        let mut ranges = vec![f32::NAN; n];
        let mut intensities = vec![0.0f32; n];
        let mut taken = vec![false; n];
        let (mut no_return, mut merged) = (0u32, 0u32);
        let (lo, hi) = (self.cfg.range_min_m, self.cfg.range_max_m);
        for s in samples {
            let k = (((s.phase - offset) / bin).round().max(0.0) as usize).min(n - 1);
            let r = if s.distance_mm == 0 {
                no_return += 1;
                f32::NAN
            } else if s.intensity < self.cfg.min_intensity {
                f32::NAN
            } else {
                let m = f64::from(s.distance_mm) / 1000.0;
                if m < lo {
                    f32::NEG_INFINITY
                } else if m > hi {
                    f32::INFINITY
                } else {
                    m as f32
                }
            };
            if taken[k] {
                merged += 1;
                let old = ranges[k];
                // Keep the nearer finite range; a finite one beats NaN and ±∞.
                let better = match (old.is_finite(), r.is_finite()) {
                    (false, true) => true,
                    (true, true) => r < old,
                    _ => false,
                };
                if !better {
                    continue;
                }
            }
            taken[k] = true;
            ranges[k] = r;
            intensities[k] = f32::from(s.intensity);
        }
        let sign = if self.cfg.mounting.clockwise {
            -1.0
        } else {
            1.0
        };
        let increment = sign * bin.to_radians();
        let angle_min = wrap(self.cfg.cut_angle_rad + sign * offset.to_radians());
        Some(Scan {
            stamp_s: first.t - (first.phase - offset) / rate,
            angle_min,
            angle_max: angle_min + increment * (n - 1) as f64,
            angle_increment: increment,
            time_increment: bin / rate,
            scan_time: 360.0 / rate,
            range_min: lo,
            range_max: hi,
            ranges,
            intensities,
            points: samples.len() as u32,
            no_return,
            merged,
        })
    }
}

/// Wraps an angle into (−π, π].
fn wrap(a: f64) -> f64 {
    let w = a.rem_euclid(TAU);
    if w > PI {
        w - TAU
    } else {
        w
    }
}

#[cfg(test)]
mod tests;
