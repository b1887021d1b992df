//! `cmd_vel`: manual driving through the library's [`crate::Teleop`] (limits, ramps,
//! watchdog); a manual command takes over from a running goal.
use node_glue::r2r::geometry_msgs::msg::Twist;

use super::{Control, CMD_VEL};
use crate::{Output, TeleopRefused};

impl Control {
    /// A velocity command: manual driving. It takes over from a running goal (which ends
    /// PREEMPTED, as an operator grabbing the joystick expects).
    pub(super) fn on_cmd_vel(&mut self, t: &Twist, frame: Option<&str>, now: f64) -> Vec<Output> {
        self.counters.cmd_vel.inc();
        if let Some(why) = self.nav.match_over() {
            self.counters.cmd_vel_after_match.inc();
            node_glue::warn_limited!(
                self.logs,
                "cmd_vel",
                "{CMD_VEL}: dropped: the match is over ({why})"
            );
            return Vec::new();
        }
        if let Some(f) = frame {
            let base = self.frames.base_frame();
            if !(f.is_empty() || f == base || f == "base_footprint") {
                self.counters.cmd_vel_wrong_frame.inc();
                node_glue::warn_limited!(
                    self.logs,
                    "cmd_vel",
                    "{CMD_VEL}: dropped a command in frame '{f}' (commands are in '{base}')"
                );
                return Vec::new();
            }
        }
        let clamped = self.teleop.clamped();
        match self.teleop.command(t.linear.x, t.angular.z, now) {
            Err(TeleopRefused::NotFinite) => {
                self.counters.cmd_vel_not_finite.inc();
                node_glue::warn_limited!(
                    self.logs,
                    "cmd_vel",
                    "{CMD_VEL}: dropped a command that is not finite ({}, {})",
                    t.linear.x,
                    t.angular.z
                );
                Vec::new()
            }
            Ok(starts) => {
                if self.teleop.clamped() > clamped {
                    self.counters.cmd_vel_clamped.inc();
                }
                if starts {
                    node_glue::log_info!("{CMD_VEL}: manual driving");
                }
                let mut outs = Vec::new();
                self.end_behavior(&format!("preempted by a manual command on {CMD_VEL}"));
                if let Some(a) = self.active.take() {
                    self.counters.manual_takeovers.inc();
                    node_glue::log_warn!(
                        "{CMD_VEL}: a manual command takes over; the running goal is preempted"
                    );
                    a.door.end(
                        self.ended_here(format!("preempted by a manual command on {CMD_VEL}")),
                    );
                    // The navigator drops the goal (its Done finds no active goal).
                    outs.extend(
                        self.nav
                            .cancel(now)
                            .into_iter()
                            .filter(|o| !matches!(o, Output::Stop)),
                    );
                }
                outs
            }
        }
    }
}
