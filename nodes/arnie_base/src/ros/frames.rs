//! The base in the TF world (REP 105): what each odometry packet and each proximity
//! report becomes on ROS topics.
//!
//! - `odom` (`nav_msgs/Odometry`, reliable, depth 10): `frame_id` = `odom_frame_id`,
//!   `child_frame_id` = `child_frame_id`, the board's pose as it reports it, twist in
//!   the robot's frame, covariances from the noise model ([`crate::OdomCovariance`]);
//! - `/tf` (tf2's broadcaster QoS), when `publish_tf`: `odom` → `base_link` (the same
//!   pose) and `map` → `odom` ([`crate::MapOdom`]: identity until a pose estimate moves
//!   it), both with the odometry's stamp;
//! - `base/pose` (`geometry_msgs/PoseStamped`): the robot in `map`, what the navigator,
//!   the strategy and the planner work with;
//! - `amcl_pose` (`geometry_msgs/PoseWithCovarianceStamped`, reliable, transient local,
//!   depth 1: AMCL's topic and QoS, what Nav2's clients read the localizer's pose from):
//!   the robot in `map` with the odometry's covariance turned into `map`, at most every
//!   `localizer_pose_period_s` and at once after a pose estimate;
//! - `base/range` (`sensor_msgs/Range`): each `ObstacleReport`, in the frame of its
//!   sensor (`range_frames[sensor]`, links of the base's URDF at the robot's edge on the
//!   sensor's ray): `range` = the distance from the edge. The board reports hits only, so
//!   a silent sensor publishes nothing. A report from a sensor without a frame is
//!   dropped and counted (`ranges_unknown_sensor`).
use std::time::Instant;

use node_glue::lifecycle::{Lifecycle, LifecyclePublisher};
use node_glue::r2r::{
    self,
    geometry_msgs::msg::{Point, Pose, PoseStamped, PoseWithCovarianceStamped, Quaternion},
    nav_msgs::msg::Odometry,
    sensor_msgs::msg::Range,
    tf2_msgs::msg::TFMessage,
};
use node_glue::{qos, time, App, Error};

use super::params::BaseParams;
use crate::{MapOdom, OdomCovariance, Pose2};

/// Odometry out (REP 105 name).
pub const ODOM: &str = "odom";
/// The robot's pose in the map frame out (the strategy's name too: one place).
pub use node_glue::topics::BASE_POSE;
/// The proximity sensors' readings out.
pub const BASE_RANGE: &str = "base/range";
/// The localizer's pose out (AMCL's name: Nav2's clients subscribe to it).
pub const AMCL_POSE: &str = "amcl_pose";

/// What became of a pose estimate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Relocation {
    /// `map` → `odom` moved now.
    Applied,
    /// No odometry yet: kept, applied with the first odometry packet.
    Pending,
    /// Not finite.
    Refused,
}

/// The publishers and state of the base's frames (see the module doc).
pub(super) struct Frames {
    odom_pub: LifecyclePublisher<Odometry>,
    pose_pub: LifecyclePublisher<PoseStamped>,
    tf_pub: Option<LifecyclePublisher<TFMessage>>,
    range_pub: LifecyclePublisher<Range>,
    map: String,
    odom: String,
    base: String,
    map_odom: MapOdom,
    covariance: OdomCovariance,
    range_frames: Vec<String>,
    range_max_m: Vec<f64>,
    field_of_view_rad: f32,
    /// The last odometry pose (in `odom`), for a later pose estimate.
    last: Option<Pose2>,
    amcl_pub: r2r::Publisher<PoseWithCovarianceStamped>,
    amcl_period_s: f64,
    amcl_last: Option<Instant>,
    /// A pose estimate that came before any odometry (applied with the first).
    pending: Option<Pose2>,
}

/// Why a proximity report was not published.
pub(super) enum RangeDropped {
    /// The sensor index has no frame in `range_frames`.
    UnknownSensor,
    /// Publishing failed.
    Publish(r2r::Error),
}

impl Frames {
    /// Creates the publishers (silent unless the node is active).
    pub(super) fn new(app: &mut App, lc: &Lifecycle, p: &BaseParams) -> Result<Frames, Error> {
        let node = &mut app.node;
        let tf_pub = if p.publish_tf {
            Some(lc.publisher::<TFMessage>(
                node,
                node_glue::tf::TF,
                node_glue::tf::broadcaster_qos(),
            )?)
        } else {
            None
        };
        Ok(Frames {
            odom_pub: lc.publisher::<Odometry>(node, ODOM, qos::commands())?,
            pose_pub: lc.publisher::<PoseStamped>(node, BASE_POSE, qos::commands())?,
            tf_pub,
            range_pub: lc.publisher::<Range>(node, BASE_RANGE, qos::sensor())?,
            map: p.frame_id.clone(),
            odom: p.odom_frame_id.clone(),
            base: p.child_frame_id.clone(),
            map_odom: MapOdom::default(),
            covariance: OdomCovariance::new(p.noise()),
            range_frames: p.range_frames.to_vec(),
            range_max_m: p.range_max_m.to_vec(),
            field_of_view_rad: p.range_field_of_view_rad as f32,
            last: None,
            amcl_pub: node
                .create_publisher::<PoseWithCovarianceStamped>(AMCL_POSE, qos::latched())?,
            amcl_period_s: p.localizer_pose_period_s,
            amcl_last: None,
            pending: None,
        })
    }

    /// The map frame's name.
    pub(super) fn map_frame(&self) -> &str {
        &self.map
    }

    /// The robot's frame's name (`base_link`).
    pub(super) fn base_frame(&self) -> &str {
        &self.base
    }

    /// `map` → `odom` now.
    pub(super) fn map_odom(&self) -> MapOdom {
        self.map_odom
    }

    /// Publishes one odometry sample (`pose` in `odom`, speeds in the robot's frame) and
    /// returns the robot's pose in `map`. `Err` when a publisher failed (the pose is
    /// still returned in it).
    pub(super) fn on_odometry(&mut self, pose: &Pose2, v: f64, w: f64) -> Result<Pose2, Pose2> {
        self.covariance.on_pose(pose);
        self.last = Some(*pose);
        if let Some(estimate) = self.pending.take() {
            if self.map_odom.relocate(&estimate, pose) {
                self.amcl_last = None;
                let o = self.map_odom.origin;
                node_glue::log_info!(
                    "the pose estimate kept until the first odometry is applied: the robot is at ({:.3}, {:.3}, {:.3} rad) in {}; {} -> {} is now ({:.3}, {:.3}, {:.3} rad)",
                    estimate.x, estimate.y, estimate.theta, self.map, self.map, self.odom, o.x, o.y, o.theta
                );
            }
        }
        let in_map = self.map_odom.to_map(pose);
        let stamp = time::now();
        let mut msg = Odometry {
            header: time::header(&self.odom),
            child_frame_id: self.base.clone(),
            ..Default::default()
        };
        msg.header.stamp = stamp.clone();
        msg.pose.pose = pose_msg(pose);
        msg.pose.covariance = self.covariance.pose().to_vec();
        msg.twist.twist.linear.x = v;
        msg.twist.twist.angular.z = w;
        msg.twist.covariance = self.covariance.twist(v, w).to_vec();
        let mut ok = self.odom_pub.publish(&msg).is_ok();
        if let Some(tf) = &self.tf_pub {
            let o = &self.map_odom.origin;
            let transforms = vec![
                node_glue::tf::planar_transform(&self.map, &self.odom, &stamp, o.x, o.y, o.theta),
                node_glue::tf::planar_transform(
                    &self.odom, &self.base, &stamp, pose.x, pose.y, pose.theta,
                ),
            ];
            ok &= tf.publish(&TFMessage { transforms }).is_ok();
        }
        let stamped = PoseStamped {
            header: r2r::std_msgs::msg::Header {
                stamp,
                frame_id: self.map.clone(),
            },
            pose: pose_msg(&in_map),
        };
        ok &= self.pose_pub.publish(&stamped).is_ok();
        let due = self
            .amcl_last
            .is_none_or(|t| t.elapsed().as_secs_f64() >= self.amcl_period_s);
        if due {
            self.amcl_last = Some(Instant::now());
            let mut amcl = PoseWithCovarianceStamped {
                header: stamped.header.clone(),
                ..Default::default()
            };
            amcl.pose.pose = stamped.pose.clone();
            amcl.pose.covariance =
                crate::odom::rotate_covariance(&self.covariance.pose(), self.map_odom.origin.theta)
                    .to_vec();
            ok &= self.amcl_pub.publish(&amcl).is_ok();
        }
        if ok {
            Ok(in_map)
        } else {
            Err(in_map)
        }
    }

    /// Moves `map` → `odom` so that the robot is at `map_pose` now (a pose estimate);
    /// before any odometry the estimate is kept and applied with the first packet.
    pub(super) fn relocate(&mut self, map_pose: &Pose2) -> Relocation {
        if !map_pose.is_finite() {
            return Relocation::Refused;
        }
        match self.last {
            Some(odom) if self.map_odom.relocate(map_pose, &odom) => {
                // The localizer's pose goes out with the next odometry packet.
                self.amcl_last = None;
                Relocation::Applied
            }
            Some(_) => Relocation::Refused,
            None => {
                self.pending = Some(*map_pose);
                Relocation::Pending
            }
        }
    }

    /// Publishes a proximity report of `sensor`: `distance_m` from the robot's edge.
    pub(super) fn on_range(&self, sensor: u8, distance_m: f64) -> Result<(), RangeDropped> {
        let i = usize::from(sensor);
        let frame = self
            .range_frames
            .get(i)
            .ok_or(RangeDropped::UnknownSensor)?;
        let max = self.range_max_m.get(i).copied().unwrap_or(f64::INFINITY);
        let msg = Range {
            header: time::header(frame),
            radiation_type: Range::INFRARED as u8,
            field_of_view: self.field_of_view_rad,
            min_range: 0.0,
            max_range: max as f32,
            range: distance_m as f32,
            variance: 0.0,
        };
        self.range_pub.publish(&msg).map_err(RangeDropped::Publish)
    }
}

/// A planar pose as a `geometry_msgs/Pose`.
pub(super) fn pose_msg(p: &Pose2) -> Pose {
    let (s, c) = (p.theta / 2.0).sin_cos();
    Pose {
        position: Point {
            x: p.x,
            y: p.y,
            z: 0.0,
        },
        orientation: Quaternion {
            x: 0.0,
            y: 0.0,
            z: s,
            w: c,
        },
    }
}
