"""trajectory_server never commands a stale arm position (issue 13, item 3).

A hold (cancel, shutdown) publishes the measured arm position on /arm/command so the arm
stays where it is; that position must be fresh (no older than position_timeout_ms). Here
the arm stops streaming /arm/position in the middle of a move; once the server says it
waits for a position (feedback phase WAITING), the goal is cancelled, or the node shut
down: no command at all may follow (counted on /arm/command), the result says why, and
/diagnostics counts the skipped hold. The positive case (a fresh hold is commanded) is
test_trajectory_server.py::test_cancel_holds_position_and_stops.

Uses the trajectory server's rig of helpers/trajectory.py (the node binary, an rclpy arm and client).
"""
from action_msgs.msg import GoalStatus
from arnie_interfaces.action import MoveTo
from helpers.trajectory import Rig


# A move that cannot end by itself while the test looks: 201 set-points, and the stale
# abort far away (200 periods of 20 ms), the position stale after 200 ms.
PARAMS = {"position_timeout_ms": 200, "stale_abort_periods": 100000}


def start_move_then_stop_positions(graph):
    rig = Rig(graph, params=PARAMS)
    rig.ready()
    feedback = []
    handle = rig.send((0.1, 0.2, 0.2), feedback=feedback)
    graph.spin_until(lambda: len(rig.arm.commands) >= 10, what="the move to start")
    rig.arm.streaming = False
    # The server itself says the position is stale: it waits instead of sending.
    graph.spin_until(lambda: feedback and feedback[-1].phase == MoveTo.Feedback.WAITING,
                     timeout=30.0, what="the WAITING feedback (stale position)")
    return rig, handle, settled_count(graph, rig.arm.commands)


def settled_count(graph, commands, quiet=1.0, timeout=30.0):
    """How many commands arrived, once none has for `quiet` s: a set-point the server sent
    just before it said WAITING may still be on its way (feedback and commands are two
    topics, with no order between them). A server that never stops commanding fails here."""
    import time
    end = time.monotonic() + timeout
    seen, since = len(commands), time.monotonic()
    while time.monotonic() < end:
        graph.spin_for(0.05)
        if len(commands) != seen:
            seen, since = len(commands), time.monotonic()
        elif time.monotonic() - since >= quiet:
            return seen
    raise AssertionError(f"commands kept coming while the position was stale: {len(commands)}")


def test_cancel_with_a_stale_position_commands_nothing(graph):
    rig, handle, n = start_move_then_stop_positions(graph)
    cancel = graph.wait_future(handle.cancel_goal_async(), what="cancel response")
    assert len(cancel.goals_canceling) == 1
    res = rig.result(handle)
    assert res.status == GoalStatus.STATUS_CANCELED, res
    assert res.result.outcome == MoveTo.Result.CANCELLED
    # The skipped hold is counted: wait for /diagnostics to say so, then look again.
    graph.spin_until(lambda: rig.diag("holds_skipped") == "1", timeout=30.0,
                     what="holds_skipped = 1 on /diagnostics")
    assert len(rig.arm.commands) == n, f"commanded after cancel: {rig.arm.commands[n:]}"
    assert "nothing commanded" in graph.output(rig.proc)


def test_shutdown_with_a_stale_position_commands_nothing(graph):
    rig, _handle, n = start_move_then_stop_positions(graph)
    assert graph.stop(rig.proc) == 0
    # (The goal's result may not outlive the node: the log says what the hold did.)
    assert "shutting down during a move; no arm position" in graph.output(rig.proc)
    # The node is gone; anything it published before exiting has had its chance to arrive.
    graph.spin_for(0.5)
    assert len(rig.arm.commands) == n, f"commanded at shutdown: {rig.arm.commands[n:]}"
