//! The glue's counters, declared once with `node_glue::counters!`, and the node's one
//! status on `/diagnostics` (`navigate_to`: the navigator's counters, then the glue's).
use std::sync::Mutex;

use node_glue::counters::CounterSet;
use node_glue::diagnostics::{Level, Status};

node_glue::counters! {
    /// The glue's counters (declared once; the navigator's own, [`crate::NavCounters`],
    /// are copied in after each event and listed by [`crate::NavCounters::pairs`]).
    pub(super) struct Counters {
        navigate_to {
            drive_sent,
            stops_sent,
            publish_errors,
            bad_packets,
            obstacle_reports,
            ranges_unknown_sensor,
            cmd_vel,
            cmd_vel_not_finite,
            cmd_vel_wrong_frame,
            cmd_vel_clamped,
            cmd_vel_timeouts,
            manual_takeovers,
            goal_poses,
            goals_tf_refused,
            acks,
            acks_not_ok,
            maps,
            pose_estimates,
            pose_estimates_refused,
            pose_estimates_pending,
            pose_estimates_repeated,
            plan_requests,
            mark_requests,
            scans_no_tf,
            scan_rays_nan,
            scan_rays_zero,
            scan_rays_infinite,
            scan_rays_out_of_range,
            match_states,
            match_states_unknown,
            cmd_vel_after_match,
            /// Goals, goal poses and cmd_vel refused while the node was not active.
            inactive_refused,
        }
        ;
        pub(super) nav: Mutex<crate::NavCounters>,
        /// Navigating (else idle).
        pub(super) busy: std::sync::atomic::AtomicBool,
    }
}

impl Counters {
    pub(super) fn status(&self) -> Status {
        let nav = self.nav.lock().map(|n| n.clone()).unwrap_or_default();
        let busy = self.busy.load(std::sync::atomic::Ordering::Relaxed);
        let mut s = Status::ok("navigate_to", if busy { "navigating" } else { "idle" });
        if nav.odometry == 0 {
            s.level = Level::Warn;
            s.message = "no odometry from the motor board yet".into();
        }
        let glue = self.groups().into_iter().flat_map(|(_, v)| v);
        s.with_counters(nav.pairs()).with_counters(glue)
    }
}
