"""The brain's parameters on a real graph (`ros2 param`, rclpy as the client):

- a tick period of 1e-12 s at start stops the node with the reason (exit 2), never a
  panic of the tick timer;
- `ros2 param set` of an out-of-range period or timeout is refused with the reason and
  the value stays; a start-only parameter says so; a valid value is taken, and the next
  run uses it; `ros2 param describe` shows the range and when a change takes effect.
"""
import json
import pytest

from action_msgs.msg import GoalStatus
from arnie_interfaces.action import RunTask
from helpers.graph import require_ros2
from rclpy.action import ActionClient

# A task that never ends by itself: one step, then its decision starts it again.
LOOP = {
    "initialAction": "a",
    "actions": {
        "a": {
            "trajectory": [{"x": 10, "y": 20, "z": 30}],
            "decisions": [{
                "executeAfter": 0,
                "state": {"arm": {"x": -1, "y": -1, "z": -1}, "objects": []},
                "success": {"action": "a", "delay": 0},
                "fail": {"action": "a", "delay": 0},
            }],
        }
    },
}


def test_a_tiny_tick_period_at_start_is_refused_with_the_reason(graph):
    graph.start_refused("brain", params={"tick_period_s": 1e-12},
                        expect="tick_period_s must be in 0.01..=3600 [s], got 0.000000000001")


@pytest.mark.long(50)
def test_param_set_is_checked_and_applies_to_the_next_run(graph):
    require_ros2()
    node = graph.start("brain", params={"command_mode": "topic", "markers_rate_hz": 0.0})
    client = ActionClient(graph.node, RunTask, "/brain/run_task")
    graph.spin_until(client.server_is_ready, 60.0, "the /brain/run_task server")

    # Out of range: refused with the reason; the value stays.
    for name, value, reason in [
        ("tick_period_s", "0.000000000001", "tick_period_s must be in 0.01..=3600 [s]"),
        ("position_timeout_s", "-1.0", "position_timeout_s must be in 0.01..=3600 [s]"),
        ("observation_timeout_s", "1000000000.0", "observation_timeout_s must be in 0.01..=3600 [s]"),
    ]:
        graph.param_refused("/brain", name, value, reason)
    r = graph.param("get", "/brain", "tick_period_s")
    assert "Double value is: 10.0" in r.stdout, r.stdout + r.stderr

    # A start-only parameter says so.
    graph.param_refused("/brain", "command_mode", "move_to", "read only at start")

    # describe: the range and when a change takes effect.
    r = graph.param("describe", "/brain", "tick_period_s")
    assert "0.01..=3600" in r.stdout and "Next run" in r.stdout, r.stdout + r.stderr
    r = graph.param("describe", "/brain", "markers_rate_hz")
    assert "0..=100" in r.stdout and "Start only" in r.stdout, r.stdout + r.stderr

    # A valid value is taken, and the next run ticks with it: 3 ticks at 0.05 s.
    r = graph.param("set", "/brain", "tick_period_s", "0.05")
    assert "Set parameter successful" in r.stdout, r.stdout + r.stderr
    goal = RunTask.Goal(task_json=json.dumps(LOOP), max_ticks=3)
    handle = graph.wait_future(client.send_goal_async(goal), what="the goal response")
    assert handle.accepted
    res = graph.wait_future(handle.get_result_async(), 60.0, "the RunTask result")
    assert res.status == GoalStatus.STATUS_SUCCEEDED, res.result.message
    assert (res.result.outcome, res.result.ticks) == (RunTask.Result.FINISHED, 3), res.result.message
    assert "running task_json (tick 0.050 s)" in graph.output(node)
