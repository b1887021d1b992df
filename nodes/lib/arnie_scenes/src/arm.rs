//! [`FollowingArm`]: a point arm that follows the set-points it is sent, late and at a
//! bounded speed, and that boxes stop on their face: the simulated contacts of library
//! tests and benchmarks (the real graph uses the simulator, `arnie_sim`).
//!
//! Each [`FollowingArm::step`] (one period) takes the set-point sent this period (if
//! any); the arm heads for the set-point sent `delay_periods` periods ago, at most
//! `max_step_mm` per period; a step that would enter a box stops exactly on the face it
//! meets (it never enters), and the arm stays there while the set-points pull it in.

use std::collections::VecDeque;

use nalgebra::Point3;

use crate::BoxSpec;

/// The arm. See the module doc.
#[derive(Debug, Clone)]
pub struct FollowingArm {
    pos: Point3<f64>,
    sent: VecDeque<Point3<f64>>,
    goal: Point3<f64>,
    delay_periods: usize,
    max_step_mm: f64,
    boxes: Vec<BoxSpec>,
    blocked: bool,
}

/// Where the step `a → a + d` first enters the open box: the fraction of `d` and the
/// axis of the face met (slab method); `None` when it stays out (along a face is out).
fn entry(b: &BoxSpec, a: Point3<f64>, d: nalgebra::Vector3<f64>) -> Option<(f64, usize)> {
    let (mut t_in, mut t_out, mut axis) = (f64::NEG_INFINITY, f64::INFINITY, 0usize);
    for i in 0..3 {
        let (lo, hi) = (b.min_mm[i], b.max_mm[i]);
        if d[i] == 0.0 {
            if a[i] <= lo || a[i] >= hi {
                return None;
            }
            continue;
        }
        let (p, q) = ((lo - a[i]) / d[i], (hi - a[i]) / d[i]);
        let (near, far) = if p < q { (p, q) } else { (q, p) };
        if near > t_in {
            t_in = near;
            axis = i;
        }
        t_out = t_out.min(far);
    }
    let t = t_in.max(0.0);
    (t_in < t_out && t < 1.0 && t_out > 0.0).then_some((t, axis))
}

impl FollowingArm {
    /// An arm at `start`, `delay_periods` behind its set-points, at most `max_step_mm`
    /// per period, stopped by `boxes`.
    pub fn new(
        start: Point3<f64>,
        delay_periods: usize,
        max_step_mm: f64,
        boxes: Vec<BoxSpec>,
    ) -> Self {
        Self {
            pos: start,
            sent: VecDeque::new(),
            goal: start,
            delay_periods,
            max_step_mm,
            boxes,
            blocked: false,
        }
    }

    /// Where the arm is (its measured position).
    pub fn position(&self) -> Point3<f64> {
        self.pos
    }

    /// A box stopped the arm on its last step.
    pub fn blocked(&self) -> bool {
        self.blocked
    }

    /// The arm is strictly inside some box (never true: tests check it).
    pub fn inside_a_box(&self) -> bool {
        self.boxes.iter().any(|b| b.contains(self.pos.into()))
    }

    /// One period: `sent` is the set-point sent this period, if any. Returns the new
    /// position.
    pub fn step(&mut self, sent: Option<Point3<f64>>) -> Point3<f64> {
        if let Some(p) = sent {
            self.sent.push_back(p);
        }
        while self.sent.len() > self.delay_periods {
            match self.sent.pop_front() {
                Some(p) => self.goal = p,
                None => break,
            }
        }
        let to_go = self.goal - self.pos;
        let n = to_go.norm();
        let d = if n > self.max_step_mm {
            to_go * (self.max_step_mm / n)
        } else {
            to_go
        };
        let first = self
            .boxes
            .iter()
            .filter_map(|b| entry(b, self.pos, d).map(|(t, axis)| (t, axis, b)))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        match first {
            Some((t, axis, b)) => {
                let mut stop = self.pos + d * t;
                stop[axis] = if d[axis] > 0.0 {
                    b.min_mm[axis]
                } else {
                    b.max_mm[axis]
                };
                self.pos = stop;
                self.blocked = true;
            }
            None => {
                self.pos += d;
                self.blocked = false;
            }
        }
        self.pos
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_follows_late_and_stops_on_a_face() {
        let b = BoxSpec {
            min_mm: [-62.0, -5.0, -20.0],
            max_mm: [-38.0, 70.0, 22.0],
        };
        let mut arm = FollowingArm::new(Point3::new(0.0, 30.0, 0.0), 2, 2.0, vec![b]);
        // Set-points 1 mm apart towards −x: the arm starts two periods late.
        let mut x = 0.0;
        for k in 0..100 {
            x -= 1.0;
            let p = arm.step(Some(Point3::new(x, 30.0, 0.0)));
            if k < 2 {
                assert_eq!(p.x, 0.0);
            }
            assert!(!arm.inside_a_box());
        }
        assert_eq!(arm.position().x, -38.0, "stopped on the face");
        assert!(arm.blocked());
        // Pulled back out: it moves again.
        for _ in 0..10 {
            arm.step(Some(Point3::new(0.0, 30.0, 0.0)));
        }
        assert!(arm.position().x > -38.0 && !arm.blocked());
    }
}
