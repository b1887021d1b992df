//! `lifecycle_manager`: brings the managed nodes of `node_names` up, pauses and shuts
//! them down in order, with Nav2's interface (see README.md). The glue lives in
//! [`arnie_lifecycle_manager::ros`].

fn main() {
    arnie_lifecycle_manager::ros::run()
}
