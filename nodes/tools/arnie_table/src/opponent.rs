//! The opponent's scripted motion: a pure function of time.
//!
//! It waits `start_delay_s` at the first waypoint, then drives each leg in a straight
//! line at `speed_m_s`, waiting `wait_s` on arriving at a waypoint. With `loop` it then
//! drives back to the first waypoint and starts over; without, it stays at the last.
use crate::scenario::Opponent;

/// One stretch of the timeline: from `t0` (s), at `(x0, y0)`, moving with `(vx, vy)` for `dt`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Piece {
    t0: f64,
    dt: f64,
    x0: f64,
    y0: f64,
    vx: f64,
    vy: f64,
}

/// The opponent's path as a timeline.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    pieces: Vec<Piece>,
    /// One loop's duration (s); `None` = no looping.
    period: Option<f64>,
    /// When the first lap starts (after the start delay and the first wait) [s].
    loop_start: f64,
    /// The opponent's disc radius [m].
    pub radius_m: f64,
}

impl Script {
    /// Builds the timeline of a (validated) opponent.
    pub fn new(op: &Opponent) -> Script {
        let mut pieces = Vec::new();
        let mut t = 0.0;
        let first = op.waypoints[0];
        let push_wait = |pieces: &mut Vec<Piece>, t: &mut f64, x: f64, y: f64, dt: f64| {
            if dt > 0.0 {
                pieces.push(Piece {
                    t0: *t,
                    dt,
                    x0: x,
                    y0: y,
                    vx: 0.0,
                    vy: 0.0,
                });
                *t += dt;
            }
        };
        push_wait(
            &mut pieces,
            &mut t,
            first.x_m,
            first.y_m,
            op.start_delay_s + first.wait_s,
        );
        let mut legs: Vec<(usize, usize)> = (1..op.waypoints.len()).map(|i| (i - 1, i)).collect();
        if op.r#loop && op.waypoints.len() > 1 {
            legs.push((op.waypoints.len() - 1, 0));
        }
        let loop_start = t;
        for (a, b) in legs {
            let (pa, pb) = (op.waypoints[a], op.waypoints[b]);
            let len = (pb.x_m - pa.x_m).hypot(pb.y_m - pa.y_m);
            if len > 0.0 {
                let dt = len / op.speed_m_s;
                let (vx, vy) = ((pb.x_m - pa.x_m) / dt, (pb.y_m - pa.y_m) / dt);
                pieces.push(Piece {
                    t0: t,
                    dt,
                    x0: pa.x_m,
                    y0: pa.y_m,
                    vx,
                    vy,
                });
                t += dt;
            }
            // On a loop the first waypoint's wait is part of every lap.
            push_wait(&mut pieces, &mut t, pb.x_m, pb.y_m, pb.wait_s);
        }
        let period = (op.r#loop && t > loop_start).then_some(t - loop_start);
        let last = op.waypoints[op.waypoints.len() - 1];
        let end = if op.r#loop { first } else { last };
        // The resting piece after the script (non-looping), or a zero-length sentinel.
        pieces.push(Piece {
            t0: t,
            dt: f64::INFINITY,
            x0: end.x_m,
            y0: end.y_m,
            vx: 0.0,
            vy: 0.0,
        });
        Script {
            pieces,
            period,
            loop_start,
            radius_m: op.radius_m,
        }
    }

    /// Position and heading (direction of travel, 0 while standing) at `t_s` seconds.
    pub fn pose_at(&self, t_s: f64) -> (f64, f64, f64) {
        let mut t = t_s.max(0.0);
        if let Some(period) = self.period {
            if t >= self.loop_start {
                t = self.loop_start + (t - self.loop_start) % period;
            }
        }
        // Linear scan: scripts are short (<= 1024 waypoints) and this runs at 200 Hz.
        let piece = self
            .pieces
            .iter()
            .rev()
            .find(|p| p.t0 <= t)
            .unwrap_or(&self.pieces[0]);
        let dt = (t - piece.t0).min(piece.dt);
        let heading = if piece.vx != 0.0 || piece.vy != 0.0 {
            piece.vy.atan2(piece.vx)
        } else {
            0.0
        };
        (piece.x0 + piece.vx * dt, piece.y0 + piece.vy * dt, heading)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Waypoint;

    fn op(looping: bool, delay: f64) -> Opponent {
        Opponent {
            radius_m: 0.1,
            speed_m_s: 0.5,
            r#loop: looping,
            start_delay_s: delay,
            start_on: Default::default(),
            waypoints: vec![
                Waypoint {
                    x_m: 0.0,
                    y_m: 0.0,
                    wait_s: 0.0,
                },
                Waypoint {
                    x_m: 1.0,
                    y_m: 0.0,
                    wait_s: 2.0,
                },
                Waypoint {
                    x_m: 1.0,
                    y_m: 1.0,
                    wait_s: 0.0,
                },
            ],
        }
    }

    fn near(a: (f64, f64, f64), x: f64, y: f64) -> bool {
        (a.0 - x).abs() < 1e-9 && (a.1 - y).abs() < 1e-9
    }

    #[test]
    fn drives_waits_and_stays() {
        let s = Script::new(&op(false, 1.0));
        assert!(near(s.pose_at(0.5), 0.0, 0.0), "start delay");
        assert!(near(s.pose_at(2.0), 0.5, 0.0));
        assert!(near(s.pose_at(3.0), 1.0, 0.0));
        assert!(near(s.pose_at(4.9), 1.0, 0.0), "waiting 2 s");
        assert!(near(s.pose_at(6.0), 1.0, 0.5));
        assert!(near(s.pose_at(100.0), 1.0, 1.0), "stays at the end");
        assert!((s.pose_at(6.0).2 - std::f64::consts::FRAC_PI_2).abs() < 1e-9);
    }

    #[test]
    fn loops_back_to_the_start() {
        let s = Script::new(&op(true, 1.0));
        // Lap: 2 s + 2 s wait + 2 s + back sqrt(2)/0.5 s.
        let lap = 6.0 + 2f64.sqrt() / 0.5;
        for t in [2.0, 3.5, 6.0, 7.5] {
            let (a, b) = (s.pose_at(t), s.pose_at(t + lap));
            assert!(near(b, a.0, a.1), "t {t}: {a:?} vs {b:?}");
        }
        assert!(near(s.pose_at(1.0 + lap), 0.0, 0.0));
    }
}
