"""The strategy's parameters on a real graph (`ros2 param`, rclpy as the client).

Declared once (nodes/arnie_strategy/src/ros/params.rs): a bad value at start stops the
node with the reason (exit 2), never a panic; `ros2 param set` out of range is refused
with the reason and the value stays; a start-only parameter says so; a valid value is
taken; `ros2 param describe` shows the range and when a change takes effect.
"""
import pytest

from helpers.diagnostics import Diagnostics, as_dict
from helpers.graph import require_ros2

NODE = "/strategy"


@pytest.mark.parametrize("params,reason", [
    ({"call_timeout_ms": 0}, "call_timeout_ms must be in 1..=600000 [ms], got 0"),
    ({"diagnostics_period_ms": 0}, "diagnostics_period_ms must be in 10..=600000 [ms], got 0"),
    ({"motion": "fly"}, 'motion must be "move_to", "navigate_to" or "navigate_to_pose", got "fly"'),
    ({"match_time_s": 1e12}, "match_time_s must be in (0, 3600] [s]"),
])
def test_a_bad_value_at_start_is_refused_with_the_reason(graph, params, reason):
    graph.start_refused("strategy", params=params, expect=reason)


def parameters_status(diagnostics):
    """The counters of the last `strategy: parameters` status seen, or None."""
    st = diagnostics.status("/strategy: parameters")
    return None if st is None else {k: int(v) for k, v in as_dict(st).items()}


@pytest.mark.long(75)
def test_param_set_is_checked(graph):
    require_ros2()
    diagnostics = Diagnostics(graph)
    proc = graph.start("strategy")
    graph.wait_for_nodes([NODE])

    for name, value, reason in [
        ("feedback_period_ms", "1", "feedback_period_ms must be in 10..=600000 [ms], got 1"),
        ("server_wait_ms", "-1", "server_wait_ms must be in 0..=600000 [ms], got -1"),
        ("match_time_s", "0.0", "match_time_s must be in (0, 3600] [s], got 0"),
        ("max_file_bytes", "0", "max_file_bytes"),
    ]:
        graph.param_refused(NODE, name, value, reason)
    graph.param_says("get", NODE, "feedback_period_ms", expect="Integer value is: 500")

    for name, value in [("motion", "navigate_to"), ("wait_topics", "/x=std_msgs/msg/String"),
                        ("diagnostics_period_ms", "500")]:
        graph.param_refused(NODE, name, value, "read only at start")

    graph.param_says("describe", NODE, "call_timeout_ms", expect=("1..=600000", "Next run"))
    graph.param_says("describe", NODE, "motion", expect="Start only")

    graph.param_says("set", NODE, "match_time_s", "30.0", expect="Set parameter successful")
    graph.param_says("get", NODE, "match_time_s", expect="Double value is: 30.0")

    # Every set is counted on /diagnostics (7 refused, 1 applied) and each refusal logged.
    want = {"parameter_sets_applied": 1, "parameter_sets_refused": 7}
    graph.spin_until(lambda: want.items() <= (parameters_status(diagnostics) or {}).items(), 15.0,
                     f"the parameters status {want} (last: {parameters_status(diagnostics)})")
    assert "ros2 param set refused" in graph.output(proc)
