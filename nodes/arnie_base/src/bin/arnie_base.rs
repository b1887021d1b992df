//! `arnie_base`: the Eurobot base controller node around the [`arnie_base`] library:
//! `NavigateTo` action server on `base/navigate_to` (see README.md). The glue lives in
//! [`arnie_base::ros`].
use arnie_base::ros::{setup, NODE};

fn main() {
    node_glue::main_with(NODE, setup)
}
