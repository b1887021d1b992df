//! [`SimLidar`]: the LD06 the simulated board streams: rays cast from the robot's
//! `laser` frame against the table's walls, its fixed obstacles and the opponent, with the
//! LD06's angular resolution (`samples_per_s` / `rate_hz` measurements per turn), range
//! limits, Gaussian distance noise and dropouts from the scenario's `lidar` section,
//! written as LD06 packets ([`ld06::Packet`]).
//!
//! Pure, time passed in: measurement `k` of the stream is taken `k / samples_per_s`
//! seconds after the LiDAR was switched on, at device angle `k · 360 · rate_hz /
//! samples_per_s` degrees (clockwise from its 0° mark, as the LD06 turns); every 12
//! measurements make a packet, complete at its last measurement's time. The caller gives
//! the laser's pose and the opponent at that time ([`SimLidar::emit`]).
//!
//! What the device sends for a measurement: the distance from the laser's origin to the
//! first hit [mm], with noise; 0 (no return) when nothing is within `range_max_m`,
//! nearer than `range_min_m`, or for a dropout (intensity 0 then). Intensity: 200 on a
//! wall, 180 on a fixed obstacle, 220 on the opponent.
use arnie_math::{Pose2, Rng};
use ld06::{Packet, Point, POINTS_PER_PACKET};

use crate::geometry::{cast, Hit};
use crate::scenario::{Disc, Lidar, Scenario};

/// The simulated LiDAR (see the module doc).
#[derive(Clone, Debug)]
pub struct SimLidar {
    spec: Lidar,
    rng: Rng,
    /// Board time it was switched on [ms]; `None` while off.
    on_since_ms: Option<u64>,
    /// The next measurement's index since it was switched on.
    next: u64,
    /// Where its 0° mark was when switched on [degrees]: it keeps turning while off.
    phase_deg: f64,
    bytes: Vec<u8>,
    packets: u64,
}

impl SimLidar {
    /// A LiDAR of `spec`, off; `seed` replaces the spec's own.
    pub fn new(spec: Lidar, seed: Option<u64>) -> SimLidar {
        SimLidar {
            rng: Rng::new(seed.unwrap_or(spec.seed) ^ 0x1d06_1d06),
            spec,
            on_since_ms: None,
            next: 0,
            phase_deg: 0.0,
            bytes: Vec::new(),
            packets: 0,
        }
    }

    /// Its spec.
    pub fn spec(&self) -> &Lidar {
        &self.spec
    }

    /// Whether it streams.
    pub fn is_on(&self) -> bool {
        self.on_since_ms.is_some()
    }

    /// Packets made so far.
    pub fn packets(&self) -> u64 {
        self.packets
    }

    /// Switches it on (streaming from `now_ms`) or off (silent).
    pub fn set_on(&mut self, on: bool, now_ms: u64) {
        match (on, self.on_since_ms) {
            (true, None) => {
                self.on_since_ms = Some(now_ms);
                self.next = 0;
                // Its motor never stopped: a new turn starts where the old one would be.
                self.phase_deg = (now_ms as f64 / 1000.0 * self.spec.rate_hz * 360.0) % 360.0;
            }
            (false, Some(_)) => self.on_since_ms = None,
            _ => {}
        }
    }

    fn sample_ms(&self, k: u64) -> f64 {
        let on = self.on_since_ms.unwrap_or(0) as f64;
        on + k as f64 * 1000.0 / self.spec.samples_per_s
    }

    fn step_deg(&self) -> f64 {
        360.0 * self.spec.rate_hz / self.spec.samples_per_s
    }

    /// Board time the next packet is complete [ms, rounded up]; `None` while off.
    pub fn next_packet_ms(&self) -> Option<u64> {
        self.on_since_ms?;
        let last = self.next + POINTS_PER_PACKET as u64 - 1;
        Some(self.sample_ms(last).ceil() as u64)
    }

    /// Makes every packet complete at or before `now_ms`, the laser at `laser` (its world
    /// pose) and the opponent at `opponent`; the bytes wait in [`SimLidar::take_bytes`].
    pub fn emit(&mut self, now_ms: u64, s: &Scenario, laser: Pose2, opponent: Option<&Disc>) {
        while self.next_packet_ms().is_some_and(|t| t <= now_ms) {
            let p = self.packet(s, laser, opponent);
            self.bytes.extend_from_slice(&p.encode());
            self.packets += 1;
        }
    }

    /// The bytes made since the last call.
    pub fn take_bytes(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.bytes)
    }

    fn packet(&mut self, s: &Scenario, laser: Pose2, opponent: Option<&Disc>) -> Packet {
        let step = self.step_deg();
        let first = self.next;
        let phase = self.phase_deg;
        let angle = move |k: u64| (phase + k as f64 * step).rem_euclid(360.0);
        let cdeg = |a: f64| ((a * 100.0).round() as u32 % 36_000) as u16;
        let mut points = [Point::default(); POINTS_PER_PACKET];
        let sign = if self.spec.clockwise { -1.0 } else { 1.0 };
        for (i, p) in points.iter_mut().enumerate() {
            let a = angle(first + i as u64).to_radians();
            let world = laser.theta + self.spec.angle_offset_rad + sign * a;
            *p = self.measure(s, laser, world, opponent);
        }
        let last = first + POINTS_PER_PACKET as u64 - 1;
        let packet = Packet {
            speed_deg_s: (self.spec.rate_hz * 360.0).round().clamp(0.0, 65_535.0) as u16,
            start_angle_cdeg: cdeg(angle(first)),
            points,
            end_angle_cdeg: cdeg(angle(last)),
            timestamp_ms: (self.sample_ms(last).round() as u64 % u64::from(ld06::TIMESTAMP_WRAP_MS))
                as u16,
        };
        self.next += POINTS_PER_PACKET as u64;
        packet
    }

    fn measure(
        &mut self,
        s: &Scenario,
        laser: Pose2,
        angle: f64,
        opponent: Option<&Disc>,
    ) -> Point {
        if self.spec.dropout > 0.0 && self.rng.chance(self.spec.dropout) {
            return Point::default();
        }
        let Some((t, what)) = cast(s, laser.x, laser.y, angle, self.spec.range_max_m, opponent)
        else {
            return Point::default();
        };
        let d = if self.spec.noise_m > 0.0 {
            t + self.spec.noise_m * self.rng.gauss()
        } else {
            t
        };
        if d < self.spec.range_min_m || d > self.spec.range_max_m {
            return Point::default();
        }
        Point {
            distance_mm: (d * 1000.0).round().clamp(1.0, 65_535.0) as u16,
            intensity: match what {
                Hit::Wall => 200,
                Hit::Obstacle(_) => 180,
                Hit::Mover => 220,
            },
        }
    }
}

/// The laser frame's world pose for the robot at `robot` (the scenario's mount).
pub fn laser_pose(robot: Pose2, spec: &Lidar) -> Pose2 {
    Pose2::compose(
        &robot,
        &Pose2::new(spec.mount.x_m, spec.mount.y_m, spec.mount.yaw_rad),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use ld06::{Assembler, Decoder, ScanConfig};

    fn scenario(extra: &str) -> Scenario {
        let text = format!(
            r#"{{"table":{{"width_m":3,"height_m":2}},"robot":{{"start":{{"x_m":1.0,"y_m":1.0}},"radius_m":0.15}},
               "obstacles":[{{"name":"box","rect":{{"x_min_m":2.0,"y_min_m":0.9,"x_max_m":2.2,"y_max_m":1.1}}}}],
               "lidar":{{{extra}}}}}"#
        );
        Scenario::from_json(&text).expect("scenario")
    }

    /// The LiDAR's bytes through the real decoder and assembler: one scan.
    fn scans(
        l: &mut SimLidar,
        s: &Scenario,
        at: Pose2,
        opp: Option<&Disc>,
        ms: u64,
    ) -> Vec<ld06::Scan> {
        let mut d = Decoder::new(0.05);
        let mut a = Assembler::new(ScanConfig::default());
        let mut out = Vec::new();
        l.set_on(true, 0);
        for t in (0..ms).step_by(5) {
            l.emit(t, s, at, opp);
            d.push(&l.take_bytes(), t as f64 / 1000.0);
            while let Some(r) = d.next_packet() {
                let p = r.expect("the simulated bytes are valid");
                out.extend(a.push(&p, t as f64 / 1000.0));
            }
        }
        out
    }

    fn ray(scan: &ld06::Scan, angle: f64) -> f32 {
        let i = (0..scan.ranges.len())
            .min_by(|&a, &b| {
                let da = arnie_math::wrap_angle(scan.angle(a) - angle).abs();
                let db = arnie_math::wrap_angle(scan.angle(b) - angle).abs();
                da.total_cmp(&db)
            })
            .unwrap();
        scan.ranges[i]
    }

    #[test]
    fn rays_hit_walls_obstacles_and_the_opponent_at_the_ld06_s_resolution() {
        let s = scenario("");
        let mut l = SimLidar::new(s.lidar.unwrap(), None);
        let robot = Pose2::new(1.0, 1.0, 0.0);
        let opp = Disc {
            x_m: 1.0,
            y_m: 1.6,
            radius_m: 0.1,
        };
        let out = scans(&mut l, &s, robot, Some(&opp), 450);
        assert!(out.len() >= 3, "{}", out.len());
        let sc = &out[1];
        assert_eq!(sc.ranges.len(), 450, "0.8° at 10 Hz and 4500 samples/s");
        assert!(
            (ray(sc, 0.0) - 1.0).abs() < 1e-3,
            "the box 1 m ahead: {}",
            ray(sc, 0.0)
        );
        assert!(
            (ray(sc, std::f64::consts::PI) - 1.0).abs() < 1e-3,
            "the wall behind"
        );
        assert!(
            (ray(sc, -std::f64::consts::FRAC_PI_2) - 1.0).abs() < 1e-3,
            "the wall on the right"
        );
        assert!(
            (ray(sc, std::f64::consts::FRAC_PI_2) - 0.5).abs() < 1e-3,
            "the opponent on the left"
        );
        // The heading turns the whole picture: facing +y, the opponent is ahead.
        let mut l = SimLidar::new(s.lidar.unwrap(), None);
        let out = scans(
            &mut l,
            &s,
            Pose2::new(1.0, 1.0, std::f64::consts::FRAC_PI_2),
            Some(&opp),
            450,
        );
        assert!((ray(&out[1], 0.0) - 0.5).abs() < 1e-3);
    }

    #[test]
    fn noise_dropouts_and_range_limits_come_from_the_scenario() {
        let s = scenario(r#""noise_m":0.01,"dropout":0.1,"range_max_m":1.2,"seed":3"#);
        let mut l = SimLidar::new(s.lidar.unwrap(), None);
        let out = scans(&mut l, &s, Pose2::new(1.0, 1.0, 0.0), None, 1050);
        let sc = &out[2];
        let nan = sc.ranges.iter().filter(|r| r.is_nan()).count();
        // Dropouts (10 %) and everything beyond 1.2 m (the far walls) are "no return".
        assert!(nan > 45, "{nan}");
        let ahead = ray(sc, 0.0);
        assert!(ahead.is_nan() || (ahead - 1.0).abs() < 0.05, "{ahead}");
        // The same seed gives the same bytes.
        let mut a = SimLidar::new(s.lidar.unwrap(), Some(9));
        let mut b = SimLidar::new(s.lidar.unwrap(), Some(9));
        for l in [&mut a, &mut b] {
            l.set_on(true, 0);
            l.emit(300, &s, Pose2::new(1.0, 1.0, 0.0), None);
        }
        assert_eq!(a.take_bytes(), b.take_bytes());
    }

    #[test]
    fn switched_off_it_is_silent_and_keeps_its_rate() {
        let s = scenario("");
        let mut l = SimLidar::new(s.lidar.unwrap(), None);
        assert_eq!(l.next_packet_ms(), None);
        l.set_on(true, 0);
        l.emit(1000, &s, Pose2::new(1.0, 1.0, 0.0), None);
        assert_eq!(l.packets(), 375, "4500 samples/s in 12-point packets");
        assert_eq!(l.take_bytes().len(), 375 * 47);
        l.set_on(false, 1000);
        l.emit(2000, &s, Pose2::new(1.0, 1.0, 0.0), None);
        assert!(l.take_bytes().is_empty());
    }
}
