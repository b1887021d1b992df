//! The LiDAR's gate on the navigator ([`crate::avoid`]) and the end of the match: scans in,
//! drive steps held or stopped, goals refused once the match is over.
use super::*;

impl Navigator {
    /// The linear speed last commanded [m/s] (0 after a stop or a turn).
    pub fn commanded_speed(&self) -> f64 {
        self.commanded_v
    }

    /// Whether the LiDAR's gate held the last drive step (the zone blocked, or not clear
    /// for long enough).
    pub fn held(&self) -> bool {
        self.held
    }

    /// A LiDAR scan's points (map frame, [`crate::avoid::scan_points`]) at `now`: kept for
    /// the gate; a drive in progress is checked at once (no wait for the next odometry).
    pub fn on_scan(&mut self, points: &[(f64, f64)], now: f64) -> Vec<Output> {
        let mut out = Vec::new();
        let Some(pose) = self.pose else {
            self.avoid
                .on_scan(&[], Pose2::default(), None, &self.cfg, now);
            self.counters.avoid = self.avoid.counters().clone();
            return out;
        };
        self.avoid
            .on_scan(points, pose, self.known.as_ref(), &self.cfg, now);
        if self.cfg.scan_avoidance && self.commanded_v != 0.0 {
            let left = match self.active.as_ref().map(|a| &a.state) {
                Some(State::Following { follower, .. }) => Some(follower.remaining_m(&pose)),
                _ => None,
            };
            if let Some(left) = left {
                let gate = self
                    .avoid
                    .gate(&self.cfg, &pose, self.commanded_v, left, now);
                self.gated(&mut out, gate, now);
            }
        }
        self.counters.avoid = self.avoid.counters().clone();
        out
    }

    /// The match is over (`Some(why)`: stop, end the running goal PREEMPTED, refuse goals)
    /// or a new one begins (`None`: goals are taken again).
    pub fn set_match_over(&mut self, over: Option<String>, now: f64) -> Vec<Output> {
        let _ = now;
        let mut out = Vec::new();
        if let Some(why) = &over {
            if self.match_over.is_none() {
                out.push(Output::Stop);
                self.commanded_v = 0.0;
                if self.active.is_some() {
                    self.counters.stopped_match_over += 1;
                    self.finish(
                        &mut out,
                        Outcome::Preempted,
                        format!("preempted: the match is over ({why}): motors stopped"),
                    );
                }
            }
        }
        self.match_over = over;
        out
    }

    /// Whether the match is over (goals refused).
    pub fn match_over(&self) -> Option<&str> {
        self.match_over.as_deref()
    }

    /// No scan for `scan_timeout_s`: Stop, the goal ends LINK_LOST.
    pub(super) fn scan_lost(&mut self, out: &mut Vec<Output>, now: f64) {
        out.push(Output::Stop);
        self.commanded_v = 0.0;
        self.avoid.lost();
        self.counters.avoid = self.avoid.counters().clone();
        let since = self
            .avoid
            .scan_at()
            .map(|t| format!("{:.2} s", now - t))
            .unwrap_or_else(|| "ever".into());
        self.finish(
            out,
            Outcome::LinkLost,
            format!(
                "no scan from the LiDAR for {since} (scan_timeout_s {}): motors stopped",
                self.cfg.scan_timeout_s
            ),
        );
    }

    /// One drive step `(v, w)` through the gate: the motion is sent when the zone is clear.
    /// True when the step ended the following (a new episode: stopped, marked, waiting to
    /// re-plan) and the caller stops there.
    pub(super) fn drive_gated(
        &mut self,
        out: &mut Vec<Output>,
        pose: &Pose2,
        (v, w): (f64, f64),
        now: f64,
    ) -> bool {
        let mut held = false;
        if self.cfg.scan_avoidance {
            let left = match self.active.as_ref().map(|a| &a.state) {
                Some(State::Following { follower, .. }) => follower.remaining_m(pose),
                _ => 0.0,
            };
            let gate = self.avoid.gate(&self.cfg, pose, v, left, now);
            held = self.gated(out, gate, now);
            self.counters.avoid = self.avoid.counters().clone();
            let following = matches!(
                self.active.as_ref().map(|a| &a.state),
                Some(State::Following { .. })
            );
            if held && !following {
                return true;
            }
        }
        if !held {
            self.commanded_v = v;
            out.push(Output::Motion { v, w });
        }
        false
    }

    /// The gate's verdict applied: a new episode is a failure with a mark; holding stops
    /// a robot still moving.
    fn gated(&mut self, out: &mut Vec<Output>, gate: Gate, now: f64) -> bool {
        self.held = gate != Gate::Clear;
        match gate {
            Gate::Clear => false,
            Gate::Blocked {
                points,
                centre,
                new: true,
            } => {
                let Some(pose) = self.pose else { return true };
                let r = self.cfg.obstacle_radius_m;
                let ray = pose.bearing_to(centre);
                let reach = (pose.distance_to(centre) + r).max(r + self.cfg.robot_radius_m + 0.05);
                let at = Pose2::new(pose.x, pose.y, ray).ahead(reach, 0.0);
                self.commanded_v = 0.0;
                self.fail_with_ttl(
                    out,
                    now,
                    format!(
                        "opponent in the zone ahead: {points} scan points around ({:.2}, {:.2})",
                        centre.0, centre.1
                    ),
                    Some(at),
                    self.cfg.scan_mark_ttl_s,
                );
                true
            }
            Gate::Blocked { .. } | Gate::Holding { .. } => {
                let (v, w) = self.speed;
                if self.commanded_v != 0.0
                    || v.abs() > SETTLED_SPEED_MPS
                    || w.abs() > SETTLED_TURN_RPS
                {
                    out.push(Output::Stop);
                    self.commanded_v = 0.0;
                }
                true
            }
        }
    }
}
