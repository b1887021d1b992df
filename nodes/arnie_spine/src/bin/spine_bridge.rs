//! `spine_bridge`: the Spine as a ROS 2 node (see nodes/arnie_spine/README.md). The glue
//! lives in [`arnie_spine::ros`].

fn main() {
    arnie_spine::ros::run()
}
