//! What comes in besides goals and commands: the motor board's packets (`comms/rx`:
//! odometry, obstacle reports, acks), pose estimates (`initialpose`) and the planner's
//! map (`map`).
use node_glue::r2r::{
    arnie_interfaces::msg::Packet, geometry_msgs::msg::PoseWithCovarianceStamped,
    nav_msgs::msg::OccupancyGrid,
};

use super::frames::{RangeDropped, Relocation};
use super::{Control, BASE_RANGE, INITIAL_POSE};
use crate::board::{self, FromBoard};
use crate::{KnownObstacles, Output, Pose2};

impl Control {
    pub(super) fn on_packet(&mut self, p: &Packet, now: f64) -> Vec<Output> {
        match board::parse(&p.name, &p.fields_json) {
            Ok(FromBoard::Odometry { pose, v, w, .. }) => {
                let in_map = self.frames.on_odometry(&pose, v, w).unwrap_or_else(|p| {
                    self.counters.publish_errors.inc();
                    p
                });
                let outs = self.nav.on_odometry(in_map, v, w, now);
                self.behavior_odometry(now);
                outs
            }
            Ok(FromBoard::Obstacle {
                sensor,
                distance_m,
                bearing_rad,
                hit,
            }) => {
                self.counters.obstacle_reports.inc();
                match self.frames.on_range(sensor, distance_m) {
                    Ok(()) => {}
                    Err(RangeDropped::UnknownSensor) => {
                        self.counters.ranges_unknown_sensor.inc();
                        node_glue::warn_limited!(
                            self.logs,
                            "range",
                            "{BASE_RANGE}: sensor {sensor} has no frame in range_frames; not published"
                        );
                    }
                    Err(RangeDropped::Publish(e)) => {
                        self.counters.publish_errors.inc();
                        node_glue::warn_limited!(self.logs, "publish", "{BASE_RANGE}: {e}");
                    }
                }
                let hit = self.frames.map_odom().point_to_map(hit);
                self.behavior_obstacle(distance_m, bearing_rad, now);
                self.nav.on_obstacle(distance_m, bearing_rad, hit, now)
            }
            Ok(FromBoard::Ack {
                status,
                command,
                seq,
            }) => {
                self.counters.acks.inc();
                if status != 0 {
                    self.counters.acks_not_ok.inc();
                    node_glue::warn_limited!(
                        self.logs,
                        "ack",
                        "board answered command {command} seq {seq} with status {status}"
                    );
                }
                Vec::new()
            }
            Ok(FromBoard::Other) => Vec::new(),
            Err(e) => {
                self.counters.bad_packets.inc();
                node_glue::warn_limited!(self.logs, "packet", "bad board packet: {e}");
                Vec::new()
            }
        }
    }

    /// A pose estimate (rviz's "2D Pose Estimate"): the robot is there in `map` now;
    /// `map` → `odom` moves, odometry goes on. Another frame, a non-finite or non-planar
    /// pose, or no odometry yet: refused, counted and logged.
    pub(super) fn on_estimate(&mut self, e: &PoseWithCovarianceStamped) {
        let map = self.frames.map_frame().to_string();
        let frame = if e.header.frame_id.is_empty() {
            map.as_str()
        } else {
            e.header.frame_id.as_str()
        };
        let p = &e.pose.pose;
        let q = &p.orientation;
        let theta = 2.0 * q.z.atan2(q.w);
        let pose = Pose2::new(p.position.x, p.position.y, theta);
        // The same message twice (BasicNavigator repeats its estimate until amcl_pose
        // answers) moves nothing twice.
        let key = format!("{:?}", (&e.header, &e.pose.pose));
        if self.last_estimate.as_deref() == Some(key.as_str()) {
            self.counters.pose_estimates_repeated.inc();
            return;
        }
        self.last_estimate = Some(key);
        let refused = if frame != map {
            Some(format!("frame '{frame}' is not the map frame '{map}'"))
        } else if !(pose.is_finite() && q.x.is_finite() && q.y.is_finite()) {
            Some("a value is not finite".to_string())
        } else {
            match self.frames.relocate(&pose) {
                Relocation::Refused => Some("a value is not finite".to_string()),
                Relocation::Pending => {
                    self.counters.pose_estimates_pending.inc();
                    node_glue::log_info!(
                        "{INITIAL_POSE}: ({:.3}, {:.3}, {:.3} rad) in {map} kept: no odometry from the board yet, applied with the first",
                        pose.x, pose.y, pose.theta
                    );
                    return;
                }
                Relocation::Applied => None,
            }
        };
        match refused {
            Some(why) => {
                self.counters.pose_estimates_refused.inc();
                node_glue::warn_limited!(self.logs, "estimate", "{INITIAL_POSE} refused: {why}");
            }
            None => {
                self.counters.pose_estimates.inc();
                let o = self.frames.map_odom().origin;
                node_glue::log_info!(
                    "{INITIAL_POSE}: the robot is at ({:.3}, {:.3}, {:.3} rad) in {map}; {map} -> odom is now ({:.3}, {:.3}, {:.3} rad)",
                    pose.x, pose.y, pose.theta, o.x, o.y, o.theta
                );
            }
        }
    }

    pub(super) fn on_map(&mut self, m: &OccupancyGrid) {
        self.counters.maps.inc();
        let (w, h) = (m.info.width as usize, m.info.height as usize);
        let res = f64::from(m.info.resolution);
        if w == 0 || h == 0 || m.data.len() != w * h || !(res.is_finite() && res > 0.0) {
            node_glue::warn_limited!(
                self.logs,
                "map",
                "map ignored: {w}x{h} cells, {} values, resolution {res}",
                m.data.len()
            );
            return;
        }
        let blocked = m
            .data
            .chunks(w)
            .rev()
            .flatten()
            .map(|&v| v == 100)
            .collect();
        let res = res.to_string().parse().unwrap_or(res);
        self.nav.set_known_obstacles(Some(KnownObstacles {
            width: w,
            height: h,
            resolution_m: res,
            origin_m: (m.info.origin.position.x, m.info.origin.position.y),
            blocked,
        }));
    }
}
