//! The simulated world between two packets: the opponent, the range sensors and the
//! robot's motion (true pose and odometry).
use super::*;

impl Board {
    pub(super) fn opponent_disc(&self, t_ms: u64) -> Option<Disc> {
        self.opponent.as_ref().map(|o| {
            let (x, y, _) = o.pose_at(self.opponent_time_s(t_ms));
            Disc {
                x_m: x,
                y_m: y,
                radius_m: o.radius_m,
            }
        })
    }

    pub(super) fn sense(&mut self, i: usize) {
        let sensor = &self.s.sensors[i];
        let (range, bearing) = (sensor.range_m, sensor.bearing_rad);
        let radius = self.s.robot.radius_m;
        let angle = self.truth.theta + bearing;
        let mover = self.opponent_disc(self.now_ms);
        let hit = cast(
            &self.s,
            self.truth.x,
            self.truth.y,
            angle,
            radius + range,
            mover.as_ref(),
        );
        self.in_range[i] = hit.is_some();
        let Some((t, what)) = hit else {
            return;
        };
        // The hit point, true frame → odometry frame (the base's view).
        let (hx, hy) = (
            self.truth.x + t * angle.cos(),
            self.truth.y + t * angle.sin(),
        );
        let (dx, dy) = (hx - self.truth.x, hy - self.truth.y);
        let rel = dy.atan2(dx) - self.truth.theta;
        let dist = dx.hypot(dy);
        let oa = self.odom.theta + rel;
        let (ox, oy) = (self.odom.x + dist * oa.cos(), self.odom.y + dist * oa.sin());
        let edge_mm = ((t - radius).max(0.0) * 1000.0).round().min(65_535.0) as u16;
        self.outputs.push(Output::Obstacle(ObstacleReport {
            seq: self.obstacle_seq,
            sensor: u8::try_from(i).unwrap_or(u8::MAX),
            distance_mm: edge_mm,
            bearing_mrad: (wrap_angle(bearing) * 1000.0)
                .round()
                .clamp(-32768.0, 32767.0) as i16,
            x_mm: (ox * 1000.0) as f32,
            y_mm: (oy * 1000.0) as f32,
        }));
        self.obstacle_seq = self.obstacle_seq.wrapping_add(1);
        if matches!(what, Hit::Mover) {
            self.event("sees_opponent", format!("sensor {i} at {edge_mm} mm"));
        }
    }

    /// Clearance of the robot's disc at `(x, y)`: distance from its centre to the nearest
    /// wall, fixed obstacle or opponent, minus nothing (compare with the radius).
    pub(super) fn clearance(&self, x: f64, y: f64, t_ms: u64) -> f64 {
        let t = &self.s.table;
        let mut c = x.min(y).min(t.width_m - x).min(t.height_m - y);
        for o in &self.s.obstacles {
            c = c.min(shape_distance(&o.shape(), x, y));
        }
        if let Some(d) = self.opponent_disc(t_ms) {
            c = c.min(((x - d.x_m).hypot(y - d.y_m) - d.radius_m).max(0.0));
        }
        c
    }

    pub(super) fn step(&mut self, dt_ms: u64) {
        if dt_ms == 0 {
            return;
        }
        let dt = dt_ms as f64 / 1000.0;
        let r = self.s.robot;
        let (acc_v, acc_w) = if self.mode == Mode::Stopped {
            let k = r.emergency_decel_m_s2 / r.max_linear_accel_m_s2;
            (
                r.emergency_decel_m_s2,
                r.max_angular_accel_rad_s2 * k.max(1.0),
            )
        } else {
            (r.max_linear_accel_m_s2, r.max_angular_accel_rad_s2)
        };
        self.v = approach(self.v, self.cmd_v, acc_v * dt);
        self.w = approach(self.w, self.cmd_w, acc_w * dt);
        if self.v == 0.0 && self.w == 0.0 {
            return;
        }
        let ds = self.v * dt;
        let dth = self.w * dt;
        let mid = self.truth.theta + dth / 2.0;
        let (nx, ny) = (self.truth.x + ds * mid.cos(), self.truth.y + ds * mid.sin());
        let t_next = self.now_ms + dt_ms;
        let before = self.clearance(self.truth.x, self.truth.y, t_next);
        let after = self.clearance(nx, ny, t_next);
        let blocked = ds != 0.0 && after < r.radius_m && after < before;
        let ds = if blocked {
            if !self.colliding {
                self.event(
                    "collision",
                    format!("at ({:.3}, {:.3})", self.truth.x, self.truth.y),
                );
            }
            self.colliding = true;
            self.v = 0.0;
            0.0
        } else {
            self.colliding = false;
            self.truth.x = nx;
            self.truth.y = ny;
            ds
        };
        self.truth.theta = wrap_angle(self.truth.theta + dth);
        // Odometry: the same increments with errors.
        let (ln, an) = self.noise;
        let ds_o = if ln > 0.0 && ds != 0.0 {
            ds + ln * ds.abs().sqrt() * self.rng.gauss()
        } else {
            ds
        };
        let dth_o = if an > 0.0 && dth != 0.0 {
            dth + an * dth.abs().sqrt() * self.rng.gauss()
        } else {
            dth
        };
        let mid_o = self.odom.theta + dth_o / 2.0;
        self.odom.x += ds_o * mid_o.cos();
        self.odom.y += ds_o * mid_o.sin();
        self.odom.theta = wrap_angle(self.odom.theta + dth_o);
    }
}
