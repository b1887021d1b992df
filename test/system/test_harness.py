"""The foundation's end-to-end checks: a Rust node and rclpy on one real graph.

- a custom arnie_interfaces message goes rclpy -> Rust -> rclpy (both directions);
- a MoveTo action round trip (goal, feedback, result) served by Rust, driven by rclpy;
- parameters from a params file and from `-p` both reach the node;
- /diagnostics is published; SIGINT ends the node with exit code 0.
"""
import math

from arnie_interfaces.action import MoveTo
from arnie_interfaces.msg import Coordinate, Coordinates
from rclpy.action import ActionClient
from helpers.diagnostics import Diagnostics


def coords(*items):
    msg = Coordinates()
    msg.header.frame_id = "world"
    msg.items = [Coordinate(values=list(v)) for v in items]
    return msg


def test_custom_message_both_directions(graph):
    node = graph.start("arnie_selftest", params={"gain": 3.0})
    out = graph.collect(Coordinates, "/selftest/out")
    pub = graph.node.create_publisher(Coordinates, "/selftest/in", 10)
    graph.wait_for_subscriber("/selftest/in")
    graph.wait_for_publisher("/selftest/out")
    # Discovery of the reverse direction may lag: resend until the echo arrives.
    sent = coords([1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 0.5])
    graph.spin_until(lambda: pub.publish(sent) or len(out) > 0, what="a message relayed by the Rust node")
    got = out[0]
    assert got.header.frame_id == "world"
    assert [list(i.values) for i in got.items] == [[3.0, 6.0, 9.0], [12.0, 15.0, 18.0, 1.5]]
    assert graph.stop(node) == 0


def test_params_file_and_command_line(graph, tmp_path):
    params = tmp_path / "selftest.yaml"
    params.write_text("arnie_selftest:\n  ros__parameters:\n    gain: 0.5\n    steps: 3\n")
    graph.start("arnie_selftest", params_file=params, params={"steps": 4})
    out = graph.collect(Coordinates, "/selftest/out")
    pub = graph.node.create_publisher(Coordinates, "/selftest/in", 10)
    graph.wait_for_subscriber("/selftest/in")
    graph.spin_until(lambda: pub.publish(coords([2.0, 4.0, 8.0])) or len(out) > 0, what="relay")
    assert list(out[0].items[0].values) == [1.0, 2.0, 4.0]  # gain 0.5 from the file
    # steps: the command line (4) wins over the file (3): the action gives 4 feedbacks.
    client = ActionClient(graph.node, MoveTo, "/selftest/move_to")
    graph.wait_for_action(client, "/selftest/move_to")
    feedback = []
    goal = MoveTo.Goal()
    goal.target.x, goal.target.y, goal.target.z = 0.1, 0.2, 0.3
    handle = graph.wait_future(client.send_goal_async(goal, feedback_callback=lambda f: feedback.append(f.feedback)))
    graph.wait_future(handle.get_result_async())
    assert [f.index for f in feedback] == [1, 2, 3, 4]


def test_move_to_round_trip(graph):
    graph.start("arnie_selftest", params={"steps": 5, "step_ms": 10})
    client = ActionClient(graph.node, MoveTo, "/selftest/move_to")
    graph.wait_for_action(client, "/selftest/move_to")
    feedback = []
    goal = MoveTo.Goal()
    goal.target.x, goal.target.y, goal.target.z = 0.3, -0.1, 0.05
    handle = graph.wait_future(client.send_goal_async(goal, feedback_callback=lambda f: feedback.append(f.feedback)), what="goal response")
    assert handle.accepted
    result = graph.wait_future(handle.get_result_async(), what="result").result
    assert result.outcome == MoveTo.Result.REACHED
    assert (result.final_position.x, result.final_position.y, result.final_position.z) == (0.3, -0.1, 0.05)
    assert len(feedback) == 5
    assert feedback[-1].progress == 1.0
    assert math.isclose(feedback[2].setpoint.x, 0.3 * 3 / 5)


def test_bad_goal_is_rejected(graph):
    graph.start("arnie_selftest")
    client = ActionClient(graph.node, MoveTo, "/selftest/move_to")
    graph.wait_for_action(client, "/selftest/move_to")
    goal = MoveTo.Goal()
    goal.target.x = float("nan")
    handle = graph.wait_future(client.send_goal_async(goal))
    assert not handle.accepted


def test_diagnostics_and_clean_shutdown(graph):
    node = graph.start("arnie_selftest")
    diagnostics = Diagnostics(graph)
    graph.spin_until(lambda: "/arnie_selftest: selftest" in diagnostics, what="/diagnostics")
    keys = {kv.key for s in diagnostics.arrays[-1].status for kv in s.values}
    assert {"relayed", "goals_done"} <= keys
    assert graph.stop(node) == 0
    assert "panicked" not in graph.output(node)


def test_wrong_parameter_type_is_a_clear_error(graph):
    graph.start_refused("arnie_selftest", params={"gain": "fast"}, expect="gain")
