//! [`SimArm`]: the simulated arm (a point: the tool tip the encoders report), moving
//! toward its last target with bounded speed and acceleration, stopped by box obstacles.
//!
//! # Motion (vector limits, not per axis)
//! Every [`SimArm::step`] of `dt` seconds:
//! 1. the wanted velocity points straight at the target with magnitude
//!    `min(max_speed, v_brake(d), d / dt)`, where `d` is the distance left and
//!    `v_brake(d)` the highest speed from which the arm can still stop within `d`
//!    decelerating by `max_accel · dt` per step (so it never overshoots);
//! 2. the velocity changes toward it by at most `max_accel · dt` (vector norm);
//! 3. the position moves by `velocity · dt`.
//!
//! So `|v| ≤ max_speed` and `|Δv| ≤ max_accel · dt` on every step, with one exception:
//! hitting an obstacle stops the arm at once (a crash, velocity 0). A straight move of
//! length `D` takes about `D / v + v / a` seconds (`v = max_speed`, `a = max_accel`) when
//! the arm reaches full speed, `2·sqrt(D / a)` when it does not.
//!
//! # Obstacles
//! Axis-aligned boxes in global millimetres. The arm may touch a face but never enters
//! the open interior: a step that would enter stops exactly on the face (the entered
//! coordinate is set to the face value) and sets [`SimArm::blocked`], which stays true
//! until a step moves the arm again. Targets are not checked: a target inside a box is
//! simply never reached.

use nalgebra::Vector3;
use serde::{Deserialize, Serialize};

/// A position or velocity [mm, mm/s], global frame.
pub type Vec3 = Vector3<f64>;

/// An axis-aligned box obstacle, global frame [mm].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Obstacle {
    /// Name used in logs and ground truth.
    pub name: String,
    /// Lowest corner.
    pub min_mm: [f64; 3],
    /// Highest corner (above `min_mm` on every axis).
    pub max_mm: [f64; 3],
}

impl Obstacle {
    /// Whether `p` is strictly inside (faces do not count).
    pub fn contains(&self, p: &Vec3) -> bool {
        (0..3).all(|i| self.min_mm[i] < p[i] && p[i] < self.max_mm[i])
    }

    /// Where the segment `from → from + delta` first enters the open interior: the
    /// fraction `t ∈ [0, 1)` of `delta` and the axis whose face it crosses. `None` when
    /// the segment stays outside (running along a face is outside).
    pub fn entry(&self, from: &Vec3, delta: &Vec3) -> Option<(f64, usize)> {
        let (mut t_in, mut t_out, mut axis) = (f64::NEG_INFINITY, f64::INFINITY, 0usize);
        for i in 0..3 {
            let (lo, hi) = (self.min_mm[i], self.max_mm[i]);
            if delta[i] == 0.0 {
                if from[i] <= lo || from[i] >= hi {
                    return None;
                }
                continue;
            }
            let (a, b) = ((lo - from[i]) / delta[i], (hi - from[i]) / delta[i]);
            let (near, far) = if a < b { (a, b) } else { (b, a) };
            if near > t_in {
                t_in = near;
                axis = i;
            }
            t_out = t_out.min(far);
        }
        let t = t_in.max(0.0);
        (t_in < t_out && t < 1.0 && t_out > 0.0).then_some((t, axis))
    }

    /// The face coordinate on `axis` met when moving along `delta`.
    fn face(&self, axis: usize, delta: &Vec3) -> f64 {
        if delta[axis] > 0.0 {
            self.min_mm[axis]
        } else {
            self.max_mm[axis]
        }
    }
}

/// Speed and acceleration limits of the arm.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// Largest speed [mm/s] (> 0).
    pub max_speed_mm_s: f64,
    /// Largest acceleration [mm/s²] (> 0).
    pub max_accel_mm_s2: f64,
}

/// What one [`SimArm::step`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum StepOutcome {
    /// No target, or at the target and at rest.
    Idle,
    /// Moved freely.
    Moving,
    /// Stopped by this obstacle (index into the obstacle list).
    Blocked(usize),
}

/// The simulated arm. Pure: time comes in as `dt`.
#[derive(Debug, Clone)]
pub struct SimArm {
    limits: Limits,
    obstacles: Vec<Obstacle>,
    pos: Vec3,
    vel: Vec3,
    target: Option<Vec3>,
    blocked_by: Option<usize>,
}

impl SimArm {
    /// An arm at rest at `start_mm` with no target. The caller (the checked scenario)
    /// guarantees positive limits and a start outside every obstacle.
    pub fn new(start_mm: Vec3, limits: Limits, obstacles: Vec<Obstacle>) -> Self {
        Self {
            limits,
            obstacles,
            pos: start_mm,
            vel: Vec3::zeros(),
            target: None,
            blocked_by: None,
        }
    }

    /// Sets the target (global mm). A target with a NaN or infinite value is ignored
    /// (returns false), as mock hardware ignores unset commands.
    pub fn write(&mut self, target_mm: Vec3) -> bool {
        if target_mm.iter().all(|v| v.is_finite()) {
            self.target = Some(target_mm);
            true
        } else {
            false
        }
    }

    /// The encoder position [mm, global].
    pub fn read(&self) -> Vec3 {
        self.pos
    }

    /// The current velocity [mm/s].
    pub fn velocity(&self) -> Vec3 {
        self.vel
    }

    /// The last accepted target.
    pub fn target(&self) -> Option<Vec3> {
        self.target
    }

    /// The obstacle stopping the arm now, if any.
    pub fn blocked(&self) -> Option<&Obstacle> {
        self.blocked_by.and_then(|i| self.obstacles.get(i))
    }

    /// The obstacles.
    pub fn obstacles(&self) -> &[Obstacle] {
        &self.obstacles
    }

    /// Advances the arm by `dt_s` seconds (a non-positive or non-finite `dt_s` does
    /// nothing). See the module doc for the motion law.
    pub fn step(&mut self, dt_s: f64) -> StepOutcome {
        if !(dt_s.is_finite() && dt_s > 0.0) {
            return self.outcome_now();
        }
        let Some(target) = self.target else {
            return StepOutcome::Idle;
        };
        let (vmax, amax) = (self.limits.max_speed_mm_s, self.limits.max_accel_mm_s2);
        let to_go = target - self.pos;
        let d = to_go.norm();
        let dv_max = amax * dt_s;
        if d == 0.0 && self.vel.norm() <= dv_max {
            self.vel = Vec3::zeros();
            self.blocked_by = None;
            return StepOutcome::Idle;
        }
        let wanted = if d > 0.0 {
            let speed = vmax.min(brake_speed(d, amax, dt_s)).min(d / dt_s);
            to_go * (speed / d)
        } else {
            Vec3::zeros()
        };
        let mut dv = wanted - self.vel;
        let n = dv.norm();
        if n > dv_max {
            dv *= dv_max / n;
        }
        let mut vel = self.vel + dv;
        let speed = vel.norm();
        if speed > vmax {
            vel *= vmax / speed;
        }
        let mut delta = vel * dt_s;
        // Land exactly on the target when this step reaches it (no float dust).
        if (self.pos + delta - target).norm() <= 1e-9 {
            delta = target - self.pos;
        }
        match self.first_entry(&delta) {
            Some((t, axis, k)) => {
                let face = self.obstacles[k].face(axis, &delta);
                let mut stop = self.pos + delta * t;
                stop[axis] = face;
                self.pos = stop;
                self.vel = Vec3::zeros();
                self.blocked_by = Some(k);
                StepOutcome::Blocked(k)
            }
            None => {
                self.pos += delta;
                self.vel = vel;
                self.blocked_by = None;
                StepOutcome::Moving
            }
        }
    }

    fn outcome_now(&self) -> StepOutcome {
        match (self.blocked_by, self.target) {
            (Some(k), _) => StepOutcome::Blocked(k),
            (None, Some(t)) if t != self.pos || self.vel != Vec3::zeros() => StepOutcome::Moving,
            _ => StepOutcome::Idle,
        }
    }

    /// The earliest obstacle entry along `delta`: (fraction, axis, obstacle index).
    fn first_entry(&self, delta: &Vec3) -> Option<(f64, usize, usize)> {
        self.obstacles
            .iter()
            .enumerate()
            .filter_map(|(k, o)| o.entry(&self.pos, delta).map(|(t, axis)| (t, axis, k)))
            .min_by(|a, b| a.0.total_cmp(&b.0))
    }
}

/// The highest speed from which the arm stops within `d` when it slows down by
/// `a · dt` per step of `dt` (discrete, so it never overshoots): with `v = m·a·dt`, the
/// distance covered while stopping is `a·dt²·m(m+1)/2`.
fn brake_speed(d: f64, a: f64, dt: f64) -> f64 {
    let unit = a * dt * dt;
    let m = (-1.0 + (1.0 + 8.0 * d / unit).sqrt()) / 2.0;
    m * a * dt
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const DT: f64 = 0.005;
    const LIMITS: Limits = Limits {
        max_speed_mm_s: 200.0,
        max_accel_mm_s2: 1000.0,
    };

    fn v(x: f64, y: f64, z: f64) -> Vec3 {
        Vec3::new(x, y, z)
    }

    /// Steps until idle (or `max_steps`), checking the limits on every step; returns
    /// the number of steps taken.
    fn run_checked(arm: &mut SimArm, max_steps: usize) -> usize {
        let mut prev_v = arm.velocity();
        for k in 0..max_steps {
            let before = arm.read();
            let out = arm.step(DT);
            if out == StepOutcome::Idle {
                return k;
            }
            let vel = (arm.read() - before) / DT;
            assert!(
                vel.norm() <= LIMITS.max_speed_mm_s * (1.0 + 1e-9),
                "speed {} at step {k}",
                vel.norm()
            );
            if !matches!(out, StepOutcome::Blocked(_)) {
                let acc = (vel - prev_v).norm() / DT;
                assert!(
                    acc <= LIMITS.max_accel_mm_s2 * (1.0 + 1e-6) + 1e-6,
                    "accel {acc} at step {k}"
                );
            }
            prev_v = vel;
        }
        max_steps
    }

    #[test]
    fn reaches_a_far_target_in_the_expected_time() {
        let mut arm = SimArm::new(v(0.0, 0.0, 0.0), LIMITS, vec![]);
        assert!(arm.write(v(300.0, 400.0, 0.0)));
        let steps = run_checked(&mut arm, 10_000);
        assert_eq!(arm.read(), v(300.0, 400.0, 0.0));
        // 500 mm at 200 mm/s with 1000 mm/s²: 500/200 + 200/1000 = 2.7 s.
        let t = steps as f64 * DT;
        assert!((2.6..=2.9).contains(&t), "took {t} s");
        assert_eq!(arm.velocity(), Vec3::zeros());
    }

    #[test]
    fn short_move_never_reaches_full_speed() {
        let mut arm = SimArm::new(v(0.0, 0.0, 0.0), LIMITS, vec![]);
        arm.write(v(0.0, 0.0, 10.0));
        let mut top = 0.0f64;
        for _ in 0..1000 {
            if arm.step(DT) == StepOutcome::Idle {
                break;
            }
            top = top.max(arm.velocity().norm());
        }
        assert_eq!(arm.read(), v(0.0, 0.0, 10.0));
        // Triangular profile: peak sqrt(a·D) = 100 mm/s.
        assert!(top < 101.0 && top > 80.0, "peak {top}");
    }

    #[test]
    fn nan_target_is_ignored() {
        let mut arm = SimArm::new(v(1.0, 2.0, 3.0), LIMITS, vec![]);
        assert!(!arm.write(v(f64::NAN, 0.0, 0.0)));
        assert_eq!(arm.target(), None);
        assert_eq!(arm.step(DT), StepOutcome::Idle);
        arm.write(v(5.0, 2.0, 3.0));
        assert!(!arm.write(v(0.0, f64::INFINITY, 0.0)));
        assert_eq!(arm.target(), Some(v(5.0, 2.0, 3.0)));
    }

    #[test]
    fn obstacle_stops_the_arm_on_its_face() {
        let wall = Obstacle {
            name: "wall".into(),
            min_mm: [50.0, -100.0, -100.0],
            max_mm: [60.0, 100.0, 100.0],
        };
        let mut arm = SimArm::new(v(0.0, 0.0, 0.0), LIMITS, vec![wall]);
        arm.write(v(100.0, 0.0, 0.0));
        let mut blocked = false;
        for _ in 0..2000 {
            let out = arm.step(DT);
            assert!(!arm.obstacles()[0].contains(&arm.read()));
            blocked |= out == StepOutcome::Blocked(0);
        }
        assert!(blocked);
        assert_eq!(arm.read(), v(50.0, 0.0, 0.0));
        assert_eq!(arm.blocked().map(|o| o.name.as_str()), Some("wall"));
        // A new target away from the wall frees it.
        arm.write(v(0.0, 0.0, 0.0));
        run_checked(&mut arm, 2000);
        assert_eq!(arm.read(), v(0.0, 0.0, 0.0));
        assert!(arm.blocked().is_none());
    }

    #[test]
    fn sliding_along_a_face_is_allowed() {
        let table = Obstacle {
            name: "table".into(),
            min_mm: [-100.0, -100.0, -50.0],
            max_mm: [100.0, 100.0, 0.0],
        };
        let mut arm = SimArm::new(v(-50.0, 0.0, 0.0), LIMITS, vec![table]);
        arm.write(v(50.0, 0.0, 0.0));
        run_checked(&mut arm, 2000);
        assert_eq!(arm.read(), v(50.0, 0.0, 0.0));
        assert!(arm.blocked().is_none());
    }

    #[test]
    fn entry_geometry() {
        let b = Obstacle {
            name: "b".into(),
            min_mm: [0.0, 0.0, 0.0],
            max_mm: [10.0, 10.0, 10.0],
        };
        assert_eq!(
            b.entry(&v(-10.0, 5.0, 5.0), &v(20.0, 0.0, 0.0)),
            Some((0.5, 0))
        );
        assert_eq!(b.entry(&v(-10.0, 5.0, 5.0), &v(5.0, 0.0, 0.0)), None); // stops short
        assert_eq!(b.entry(&v(-10.0, 15.0, 5.0), &v(40.0, 0.0, 0.0)), None); // passes by
        assert_eq!(b.entry(&v(0.0, 5.0, 5.0), &v(-1.0, 0.0, 0.0)), None); // leaves from the face
        assert_eq!(
            b.entry(&v(0.0, 5.0, 5.0), &v(1.0, 0.0, 0.0)),
            Some((0.0, 0))
        ); // into it
        assert_eq!(
            b.entry(&v(5.0, 20.0, 5.0), &v(0.0, -20.0, 0.0)),
            Some((0.5, 1))
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// Any sequence of targets: the limits hold on every step and the arm ends at
        /// the last target within the time bound.
        #[test]
        fn limits_hold_and_target_is_reached(
            start in prop::array::uniform3(-300.0f64..300.0),
            targets in prop::collection::vec((prop::array::uniform3(-300.0f64..300.0), 1usize..200), 1..4),
        ) {
            let mut arm = SimArm::new(Vec3::from(start), LIMITS, vec![]);
            let mut prev_v = Vec3::zeros();
            let mut last = Vec3::from(start);
            for (t, steps) in &targets {
                last = Vec3::from(*t);
                arm.write(last);
                for _ in 0..*steps {
                    let before = arm.read();
                    arm.step(DT);
                    let vel = (arm.read() - before) / DT;
                    prop_assert!(vel.norm() <= LIMITS.max_speed_mm_s * (1.0 + 1e-9));
                    prop_assert!((vel - prev_v).norm() / DT <= LIMITS.max_accel_mm_s2 * (1.0 + 1e-6) + 1e-6);
                    prev_v = vel;
                }
            }
            // Worst case: stop from full speed, then cross the longest diagonal.
            let bound_s = 2.0 * 0.2 + 1040.0 / 200.0 + 0.2 + 0.5;
            let n = run_checked(&mut arm, (bound_s / DT) as usize);
            prop_assert!(n < (bound_s / DT) as usize, "not idle after {} s", bound_s);
            prop_assert_eq!(arm.read(), last);
        }

        /// Whatever the target, the arm never enters an obstacle.
        #[test]
        fn never_enters_an_obstacle(target in prop::array::uniform3(-200.0f64..200.0)) {
            let boxes = vec![
                Obstacle { name: "a".into(), min_mm: [20.0, -50.0, -50.0], max_mm: [40.0, 50.0, 50.0] },
                Obstacle { name: "b".into(), min_mm: [-80.0, -80.0, -80.0], max_mm: [-30.0, -10.0, 0.0] },
            ];
            let mut arm = SimArm::new(Vec3::zeros(), LIMITS, boxes.clone());
            arm.write(Vec3::from(target));
            for _ in 0..1000 {
                arm.step(DT);
                for b in &boxes {
                    prop_assert!(!b.contains(&arm.read()), "inside {} at {:?}", b.name, arm.read());
                }
            }
        }
    }
}
