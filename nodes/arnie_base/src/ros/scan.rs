//! The LiDAR and the match, into the navigator: `scan` (`sensor_msgs/LaserScan`, any
//! frame TF links to `base_link`) becomes map points for the gate ([`crate::avoid`]);
//! `match/state` (`arnie_interfaces/MatchState`) ends every move at the match's end; and
//! `base/avoid_markers` (`visualization_msgs/MarkerArray`) draws the zone and the
//! opponent's marks.
//!
//! - A scan's frame is placed on the robot through TF (`laser` → `base_link`, the URDF's
//!   fixed joint on `/tf_static`); without that transform the scan is counted
//!   (`scans_no_tf`), logged and not used, so with `scan_avoidance` the base stops for
//!   want of scans instead of driving blind. Rays that are NaN, ±∞, 0 or outside the
//!   scan's limits are counted by kind and never used.
//! - `match/state`: ENDED → `Stop`, the running goal ends PREEMPTED, goals and `cmd_vel`
//!   are refused; RUNNING → the base keeps its own clock of the end (`remaining_s` from
//!   the message), so the robot stops on time even if the strategy dies; IDLE or WAITING
//!   (a new match armed) → moves are allowed again.
use std::time::Duration;

use node_glue::r2r::{
    arnie_interfaces::msg::MatchState,
    builtin_interfaces::msg::Duration as RosDuration,
    geometry_msgs::msg::{Point, Pose, Quaternion, Vector3},
    sensor_msgs::msg::LaserScan,
    std_msgs::msg::{ColorRGBA, Header},
    visualization_msgs::msg::{Marker, MarkerArray},
};

use super::Control;
use crate::avoid::{scan_points, zone_length, ScanRays};
use crate::{Output, Pose2};

/// The markers' topic.
pub const AVOID_MARKERS: &str = "base/avoid_markers";

use arnie_constants::msg::match_state as phase;

impl Control {
    pub(super) fn on_scan(&mut self, s: &LaserScan, now: f64) -> Vec<Output> {
        let base = self.frames.base_frame().to_string();
        let frame = if s.header.frame_id.is_empty() {
            base.clone()
        } else {
            s.header.frame_id.clone()
        };
        let laser = match self.tf.lookup(&base, &frame, None) {
            Ok(t) => {
                let (_, _, yaw) = t.rotation.euler_angles();
                Pose2::new(t.translation.x, t.translation.y, yaw)
            }
            Err(e) => {
                self.counters.scans_no_tf.inc();
                node_glue::warn_limited!(
                    self.logs,
                    "scan",
                    "{}: scan in '{frame}' not used: no transform to '{base}': {e}",
                    node_glue::topics::SCAN
                );
                return Vec::new();
            }
        };
        let Some(robot) = self.nav.pose() else {
            return Vec::new();
        };
        let rays = ScanRays {
            angle_min: f64::from(s.angle_min),
            angle_increment: f64::from(s.angle_increment),
            range_min: f64::from(s.range_min),
            range_max: f64::from(s.range_max),
            ranges: &s.ranges,
        };
        let p = scan_points(&rays, laser, robot);
        self.counters.scan_rays_nan.add(u64::from(p.nan));
        self.counters.scan_rays_zero.add(u64::from(p.zero));
        self.counters.scan_rays_infinite.add(u64::from(p.infinite));
        self.counters
            .scan_rays_out_of_range
            .add(u64::from(p.out_of_range));
        let outs = self.nav.on_scan(&p.points, now);
        self.zone_marker(robot);
        outs
    }

    pub(super) fn on_match(&mut self, m: &MatchState, now: f64) -> Vec<Output> {
        self.counters.match_states.inc();
        match m.phase {
            phase::ENDED => self.match_ended(format!("match/state ENDED: {}", m.message), now),
            phase::RUNNING => {
                let left = if m.remaining_s.is_finite() {
                    m.remaining_s.max(0.0)
                } else {
                    0.0
                };
                self.match_end = Some(now + left);
                self.match_allowed(now)
            }
            phase::IDLE | phase::WAITING => {
                self.match_end = None;
                self.match_allowed(now)
            }
            other => {
                self.counters.match_states_unknown.inc();
                node_glue::warn_limited!(
                    self.logs,
                    "match",
                    "{}: unknown phase {other} ignored",
                    node_glue::topics::MATCH_STATE
                );
                Vec::new()
            }
        }
    }

    /// The match clock on the tick: the end passed → stopped.
    pub(super) fn match_tick(&mut self, now: f64) -> Vec<Output> {
        match self.match_end {
            Some(end) if now >= end && self.nav.match_over().is_none() => {
                self.match_ended("the match time is up".into(), now)
            }
            _ => Vec::new(),
        }
    }

    fn match_ended(&mut self, why: String, now: f64) -> Vec<Output> {
        if self.nav.match_over().is_some() {
            return Vec::new();
        }
        node_glue::log_warn!("{why}: motors stopped, goals and cmd_vel refused until a new match");
        self.match_end = None;
        if self.teleop.active() {
            self.teleop.release();
        }
        self.nav.set_match_over(Some(why), now)
    }

    fn match_allowed(&mut self, now: f64) -> Vec<Output> {
        if self.nav.match_over().is_some() {
            node_glue::log_info!("a new match: goals are taken again");
        }
        self.nav.set_match_over(None, now)
    }

    /// The opponent's mark (a disc on the map until its time to live runs out).
    pub(super) fn mark_marker(&mut self, centers: &[(f64, f64)], radius_m: f64, ttl_s: f64) {
        let map = self.frames.map_frame().to_string();
        let markers = centers
            .iter()
            .map(|&(x, y)| {
                self.next_mark = self.next_mark.wrapping_add(1);
                let mut m = marker(
                    &map,
                    "opponent_marks",
                    self.next_mark,
                    Marker::CYLINDER as i32,
                );
                m.pose.position = Point { x, y, z: 0.15 };
                m.scale = Vector3 {
                    x: 2.0 * radius_m,
                    y: 2.0 * radius_m,
                    z: 0.3,
                };
                m.color = rgba(0.8, 0.1, 0.6, 0.5);
                m.lifetime = duration(ttl_s);
                m
            })
            .collect();
        self.publish_markers(markers);
    }

    /// The zone ahead at the speed last commanded (red while it holds the robot).
    fn zone_marker(&mut self, robot: Pose2) {
        let cfg = self.nav.config();
        if !cfg.scan_avoidance {
            return;
        }
        let r = cfg.robot_radius_m;
        let v = self.nav.commanded_speed().max(0.0);
        let len = zone_length(cfg, v);
        let half = r + cfg.scan_zone_margin_m;
        let base = self.frames.base_frame().to_string();
        let mut m = marker(&base, "zone", 0, Marker::LINE_STRIP as i32);
        let _ = robot;
        m.scale.x = 0.01;
        m.points = [(r, half), (r + len, half), (r + len, -half), (r, -half)]
            .iter()
            .map(|&(x, y)| Point { x, y, z: 0.02 })
            .collect();
        m.color = if self.nav.held() {
            rgba(0.9, 0.1, 0.1, 1.0)
        } else {
            rgba(0.1, 0.8, 0.2, 1.0)
        };
        m.lifetime = duration(1.0);
        self.publish_markers(vec![m]);
    }

    fn publish_markers(&mut self, markers: Vec<Marker>) {
        if let Err(e) = self.avoid_markers.publish(&MarkerArray { markers }) {
            self.counters.publish_errors.inc();
            node_glue::warn_limited!(self.logs, "markers", "{AVOID_MARKERS}: {e}");
        }
    }
}

fn marker(frame: &str, ns: &str, id: i32, kind: i32) -> Marker {
    Marker {
        header: Header {
            stamp: node_glue::time::now(),
            frame_id: frame.to_string(),
        },
        ns: ns.to_string(),
        id,
        type_: kind,
        action: Marker::ADD as i32,
        pose: Pose {
            orientation: Quaternion {
                w: 1.0,
                ..Quaternion::default()
            },
            ..Pose::default()
        },
        scale: Vector3 {
            x: 1.0,
            y: 1.0,
            z: 1.0,
        },
        ..Marker::default()
    }
}

fn rgba(r: f32, g: f32, b: f32, a: f32) -> ColorRGBA {
    ColorRGBA { r, g, b, a }
}

fn duration(s: f64) -> RosDuration {
    let d = Duration::try_from_secs_f64(s.max(0.0)).unwrap_or_default();
    RosDuration {
        sec: i32::try_from(d.as_secs()).unwrap_or(i32::MAX),
        nanosec: d.subsec_nanos(),
    }
}
