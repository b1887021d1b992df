//! `planner`: grid path planning as a ROS 2 node around the [`arnie_planner`] library:
//! `PlanPath` on `/planner/plan_path`, `UpdateMap` on `planner/update_map` (see
//! README.md). The glue lives in [`arnie_planner::ros`].

fn main() {
    arnie_planner::ros::run()
}
