"""The base's parameters on a real graph (`ros2 param`, rclpy as the client).

Declared once (the library's BaseConfig is the navigator's parameters, the glue adds its
own at the same level): a bad value at start stops the node with the reason (exit 2);
`ros2 param set` out of range is refused with the reason and the value stays, on a
library parameter and on a glue one; a start-only parameter says so; a valid value is
taken; `ros2 param describe` shows the description.
"""
import pytest

from helpers.graph import require_ros2

NODE = "/base"


def test_a_bad_value_at_start_is_refused_with_the_reason(graph):
    graph.start_refused("base", params={"link_timeout_s": 1e-12},
                        expect="link_timeout_s: 0.000000000001 is not in 0.02..=60")


@pytest.mark.long(60)
def test_param_set_is_checked(graph):
    require_ros2()
    graph.start("base")
    graph.wait_for_nodes([NODE])

    for name, value, reason in [
        ("max_speed_mps", "100.0", "max_speed_mps: 100 is not in 0.01..=5"),
        ("max_failures", "5000", "max_failures: 5000 is not in 0..=1000"),
        ("planner_timeout_s", "0.0", "planner_timeout_s: 0 is not in (0, 600]"),
    ]:
        graph.param_refused(NODE, name, value, reason)
    graph.param_says("get", NODE, "max_speed_mps", expect="Double value is: 0.5")

    graph.param_refused(NODE, "frame_id", "odom", "read only at start")

    graph.param_says("describe", NODE, "link_timeout_s", expect="No odometry for this long: motors stopped, goal LINK_LOST [s]")

    graph.param_says("set", NODE, "max_failures", "5", expect="Set parameter successful")
