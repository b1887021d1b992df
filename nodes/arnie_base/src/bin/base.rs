//! `arnie_base`: the Eurobot base controller node around the [`arnie_base`] library:
//! `NavigateTo` action server on `base/navigate_to` (see README.md). The glue lives in
//! [`arnie_base::ros`].

fn main() {
    arnie_base::ros::run()
}
