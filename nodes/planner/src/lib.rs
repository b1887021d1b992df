//! Grid path planning (A*, Jump Point Search) as a ROS 2 service.
