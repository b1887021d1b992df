//! Building common ROS messages from plain values.
use r2r::geometry_msgs::msg::{Point, Pose, PoseStamped, Quaternion};
use r2r::nav_msgs::msg::Path;
use r2r::std_msgs::msg::Header;

/// A `nav_msgs/Path` through `points` (metres), every pose with `header` and no rotation.
pub fn path(header: Header, points: impl IntoIterator<Item = Point>) -> Path {
    let poses = points
        .into_iter()
        .map(|position| PoseStamped {
            header: header.clone(),
            pose: Pose {
                position,
                orientation: Quaternion {
                    x: 0.0,
                    y: 0.0,
                    z: 0.0,
                    w: 1.0,
                },
            },
        })
        .collect();
    Path { header, poses }
}
