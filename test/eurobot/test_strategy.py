"""The strategy node on a real graph, against rclpy test peers.

- the trajectory server is a MoveTo action server that reaches every target at once,
  fails the targets it is told to (ABORTED_HELP_NEEDED), or holds a goal until cancelled;
- the planner is a PlanPath service returning straight two-point paths with their length;
- the comms bridge is a SendPacket service that records packets; /comms/rx is published
  by the test.

The main test injects a failure (one task's approach point is unreachable) and checks the
order in which tasks ran: the next pick is scored (points per metre, so a rich far task
beats the next task in the file), the failed task comes back in default order after a
success, and is dropped after its second failure.
"""
import json
import math
import time

from action_msgs.msg import GoalStatus
from helpers.brain import move_result
from helpers.diagnostics import Diagnostics
from helpers.graph import ROOT
from helpers import qos
from arnie_interfaces.action import MoveTo, RunStrategy
from arnie_interfaces.msg import Packet, StrategyEvent
from arnie_interfaces.srv import PlanPath, SendPacket
from geometry_msgs.msg import PoseStamped
from rclpy.action import ActionClient, ActionServer, CancelResponse

EVENTS = "/strategy/events"
# Deep enough that no event of a run is dropped while the test is busy.
EVENT_QOS = qos.reliable(1000)


def key(p):
    return (round(p.x, 3), round(p.y, 3), round(p.z, 3))


class TrajectoryPeer:
    """MoveTo on /trajectory/move_to: REACHED at once (final position = target), except
    targets in `fail` (ABORTED_HELP_NEEDED) and, with `hold`, every goal runs until it is
    cancelled."""

    def __init__(self, node, fail=(), hold=False):
        self.fail = {tuple(round(v, 3) for v in f) for f in fail}
        self.hold = hold
        self.targets = []
        self.cancelled = []
        self._release = None
        self.server = ActionServer(
            node, MoveTo, "/trajectory/move_to", execute_callback=self._execute, cancel_callback=self._cancel
        )

    def _cancel(self, goal_handle):
        self.cancelled.append(key(goal_handle.request.target))
        if self._release is not None and not self._release.done():
            self._release.set_result(True)
        return CancelResponse.ACCEPT

    async def _execute(self, goal_handle):
        target = goal_handle.request.target
        self.targets.append(key(target))
        if self.hold:
            from rclpy.task import Future

            self._release = Future()
            await self._release
            if goal_handle.is_cancel_requested:
                goal_handle.canceled()
            else:
                goal_handle.abort()
            return move_result(MoveTo.Result.CANCELLED, "cancelled")
        if key(target) in self.fail:
            goal_handle.abort()
            return move_result(MoveTo.Result.ABORTED_HELP_NEEDED, "obstacle on the way back too")
        goal_handle.succeed()
        return move_result(MoveTo.Result.REACHED, "reached", target)


class PlannerPeer:
    """PlanPath on /planner/plan_path: the straight path start -> goal."""

    def __init__(self, node):
        self.calls = 0
        self.service = node.create_service(PlanPath, "/planner/plan_path", self._plan)

    def _plan(self, req, resp):
        self.calls += 1
        for p in (req.start, req.goal):
            pose = PoseStamped()
            pose.header.frame_id = "world"
            pose.pose.position = p
            resp.path.poses.append(pose)
        resp.path.header.frame_id = "world"
        resp.error_code = PlanPath.Response.OK
        resp.length_m = math.dist((req.start.x, req.start.y, req.start.z), (req.goal.x, req.goal.y, req.goal.z))
        return resp


class CommsPeer:
    """SendPacket on /comms/send: records each packet, always succeeds."""

    def __init__(self, node):
        self.packets = []
        self.service = node.create_service(SendPacket, "/comms/send", self._send)

    def _send(self, req, resp):
        self.packets.append(req.packet)
        resp.success = True
        resp.message = "sent"
        return resp


def write_strategy(tmp_path, strategy, name="strategy.json"):
    path = tmp_path / name
    path.write_text(json.dumps(strategy) if not isinstance(strategy, str) else strategy)
    return str(path)


def start_node(graph, **params):
    """The node with the project's params file, planner and diagnostics periods shortened."""
    params = dict({"planner_wait_ms": 200, "diagnostics_period_ms": 200}, **params)
    node = graph.start("strategy", params_file=ROOT / "params" / "strategy.yaml", params=params)
    client = ActionClient(graph.node, RunStrategy, "/strategy/run")
    graph.wait_for_action(client, "/strategy/run")
    graph.wait_for_publisher(EVENTS)
    return node, client


def send(graph, client, file="", match_time_s=0.0, feedback=None):
    goal = RunStrategy.Goal()
    goal.strategy_file = file
    goal.match_time_s = match_time_s
    cb = (lambda f: feedback.append(f.feedback)) if feedback is not None else None
    return graph.wait_future(client.send_goal_async(goal, feedback_callback=cb), what="the goal response")


def rejected(graph, client, file="", match_time_s=0.0):
    """Sends a bad goal: it is accepted, then aborted with outcome REJECTED; the result."""
    handle = send(graph, client, file, match_time_s)
    assert handle.accepted, file
    res = graph.wait_future(handle.get_result_async(), what="the REJECTED result")
    assert res.status == GoalStatus.STATUS_ABORTED, (file, res.status)
    assert res.result.outcome == RunStrategy.Result.REJECTED, (file, res.result)
    assert res.result.message.startswith("goal rejected: "), res.result.message
    return res.result


def wait_for_end(graph, events, kind):
    """Events and the result travel separately: waits for the run's last event."""
    graph.spin_until(lambda: any(e.kind == kind and e.task == "" for e in events), what="the run's last event")


def selected(events):
    return [e.task for e in events if e.kind == StrategyEvent.TASK_SELECTED]


# Start at the origin. Default order: near, blocked, cheap, rich. `blocked`'s approach
# point cannot be reached. After `near` the arm is at (0.1, 0, 0.05): `cheap` and `rich`
# are both 0.5025 m away, so `rich` (30 points) scores 59.7 /m against `cheap`'s 9.95.
ORDER_STRATEGY = {
    "max_failures": 2,
    "start_m": [0.0, 0.0, 0.0],
    "tasks": [
        {"name": "near", "points": 10, "approach_m": [0.1, 0.0, 0.0], "steps": [{"name": "press", "move_m": [0.1, 0.0, 0.05]}]},
        {"name": "blocked", "points": 10, "approach_m": [0.2, 0.3, 0.0]},
        {"name": "cheap", "points": 5, "approach_m": [0.1, 0.5, 0.0]},
        {"name": "rich", "points": 30, "approach_m": [0.6, 0.0, 0.0]},
    ],
}


def test_order_of_tasks_after_an_injected_failure(graph, tmp_path):
    trajectory = TrajectoryPeer(graph.node, fail=[(0.2, 0.3, 0.0)])
    planner = PlannerPeer(graph.node)
    events = graph.collect(StrategyEvent, EVENTS, EVENT_QOS)
    diagnostics = Diagnostics(graph)
    node, client = start_node(graph)
    file = write_strategy(tmp_path, ORDER_STRATEGY)

    feedback = []
    handle = send(graph, client, file, match_time_s=60.0, feedback=feedback)
    assert handle.accepted, graph.logs()
    res = graph.wait_future(handle.get_result_async(), timeout=40.0, what="the RunStrategy result")

    assert res.status == GoalStatus.STATUS_SUCCEEDED, res.result.message
    wait_for_end(graph, events, StrategyEvent.FINISHED)
    # Default order, the failure, a scored pick (rich before cheap), back to default
    # order (blocked again, then dropped), the last task.
    assert selected(events) == ["near", "blocked", "rich", "blocked", "cheap"], [
        (e.kind, e.task, e.step, e.message) for e in events
    ]
    assert list(res.result.done) == ["near", "rich", "cheap"]
    assert list(res.result.failed) == ["blocked"]
    assert res.result.points == 45.0
    assert trajectory.targets == [
        (0.1, 0.0, 0.0),
        (0.1, 0.0, 0.05),
        (0.2, 0.3, 0.0),
        (0.6, 0.0, 0.0),
        (0.2, 0.3, 0.0),
        (0.1, 0.5, 0.0),
    ]
    assert planner.calls >= 5

    errors = [e for e in events if e.kind == StrategyEvent.ERROR and e.task == "blocked" and e.step == ""]
    assert [e.message.split(":")[0] for e in errors] == ["failure 1/2", "dropped"]
    assert "AbortedHelpNeeded" in errors[0].message
    assert events[0].kind == StrategyEvent.STARTED and events[0].task == ""
    assert events[-1].kind == StrategyEvent.FINISHED and events[-1].task == "" and events[-1].done == 3

    # Feedback: the current task and step, and the score table of the scored pick.
    assert any(f.task == "rich" and f.step == "approach" for f in feedback)
    tables = [{s.task: s for s in f.scores} for f in feedback if f.scores]
    assert tables, "no feedback carried a score table"
    table = tables[0]
    assert set(table) == {"cheap", "rich"}
    assert table["rich"].score > table["cheap"].score
    assert math.isclose(table["rich"].cost_m, math.dist((0.1, 0.0, 0.05), (0.6, 0.0, 0.0)), rel_tol=1e-6)

    def counted():
        s = diagnostics.values("/strategy: robot")
        return (s.get("moves_reached"), s.get("moves_failed"), s.get("moves_cancelled"))

    # A snapshot may be older than the result: wait for the final counts.
    graph.spin_until(lambda: counted() == ("4", "2", "0"), what="4 moves reached, 2 failed, 0 cancelled on /diagnostics")
    assert graph.stop(node) == 0


def test_bad_files_are_rejected_with_a_reason(graph, tmp_path):
    good = write_strategy(
        tmp_path,
        {"tasks": [{"name": "here", "points": 3, "approach_m": [0, 0, 0], "steps": [{"delay_ms": 10}]}]},
        "good.json",
    )
    events = graph.collect(StrategyEvent, EVENTS, EVENT_QOS)
    node, client = start_node(graph, strategy_file=good)

    bad_value = write_strategy(tmp_path, {"tasks": [{"name": "a", "points": -1, "approach_m": [0, 0]}]}, "bad.json")
    not_json = write_strategy(tmp_path, "{ not json", "broken.json")
    unwatched = write_strategy(
        tmp_path,
        {"tasks": [{"name": "a", "points": 1, "approach_m": [0, 0], "steps": [{"wait_for": {"topic": "/nobody", "equals": {"data": "x"}}}]}]},
        "unwatched.json",
    )
    cases = [
        (bad_value, "tasks[0].points: -1 must be >= 0"),
        (not_json, "strategy file:"),
        (str(tmp_path / "missing.json"), "cannot read"),
        (unwatched, "tasks[0].steps[0].wait_for.topic: /nobody is not watched"),
    ]
    for file, reason in cases:
        n = len(events)
        # The goal policy (node_glue::action): accepted, then aborted with REJECTED and
        # the reason, so the client reads it.
        res = rejected(graph, client, file)
        assert file in res.message and reason in res.message, res.message
        graph.spin_until(lambda: len(events) > n, what=f"the rejection event for {file}")
        ev = events[-1]
        assert ev.kind == StrategyEvent.ERROR and ev.task == ""
        assert file in ev.message and reason in ev.message, ev.message

    res = rejected(graph, client, "", match_time_s=-1.0)
    assert "match_time_s" in res.message, res.message

    # The node lives on: an empty goal runs the strategy_file parameter (here, no move:
    # the approach point is the start, and no planner is running).
    handle = send(graph, client)
    assert handle.accepted, graph.logs()
    res = graph.wait_future(handle.get_result_async(), what="the RunStrategy result")
    assert res.status == GoalStatus.STATUS_SUCCEEDED
    assert (list(res.result.done), res.result.points) == (["here"], 3.0)
    assert "panicked" not in graph.output(node)


def test_cancel_stops_the_run_and_cancels_the_move(graph, tmp_path):
    trajectory = TrajectoryPeer(graph.node, hold=True)
    events = graph.collect(StrategyEvent, EVENTS, EVENT_QOS)
    _, client = start_node(graph)
    file = write_strategy(tmp_path, {"tasks": [{"name": "far", "points": 5, "approach_m": [0.3, 0.0, 0.0]}]})

    handle = send(graph, client, file)
    assert handle.accepted, graph.logs()
    graph.spin_until(lambda: trajectory.targets == [(0.3, 0.0, 0.0)], what="the MoveTo goal")
    # A bad goal while running: REJECTED with the reason, the run goes on.
    res = rejected(graph, client, str(tmp_path / "missing.json"))
    assert "cannot read" in res.message, res.message
    graph.wait_future(handle.cancel_goal_async(), what="the cancel response")
    res = graph.wait_future(handle.get_result_async(), what="the RunStrategy result")

    assert res.status == GoalStatus.STATUS_CANCELED
    assert list(res.result.done) == [] and res.result.points == 0.0
    graph.spin_until(lambda: trajectory.cancelled == [(0.3, 0.0, 0.0)], what="the MoveTo goal to be cancelled")
    wait_for_end(graph, events, StrategyEvent.STOPPED)
    stops = [(e.task, e.step) for e in events if e.kind == StrategyEvent.STOPPED]
    assert stops == [("far", "approach"), ("", "")]


def test_a_new_goal_preempts_the_running_one(graph, tmp_path):
    trajectory = TrajectoryPeer(graph.node, hold=True)
    _, client = start_node(graph)
    file = write_strategy(tmp_path, {"tasks": [{"name": "far", "points": 5, "approach_m": [0.3, 0.0, 0.0]}]})

    first = send(graph, client, file)
    assert first.accepted, graph.logs()
    graph.spin_until(lambda: trajectory.targets == [(0.3, 0.0, 0.0)], what="the first run's MoveTo goal")
    # The goal policy (node_glue::action): a good goal while one runs preempts it.
    second = send(graph, client, file)
    assert second.accepted, graph.logs()
    res = graph.wait_future(first.get_result_async(), what="the preempted run's result")
    assert res.status == GoalStatus.STATUS_ABORTED, res.status
    assert res.result.outcome == RunStrategy.Result.PREEMPTED, res.result
    assert res.result.message.startswith("preempted by a newer goal"), res.result.message
    graph.spin_until(lambda: trajectory.cancelled == [(0.3, 0.0, 0.0)], what="the first MoveTo goal to be cancelled")
    graph.spin_until(lambda: len(trajectory.targets) == 2, what="the second run's MoveTo goal")
    graph.wait_future(second.cancel_goal_async(), what="the cancel response")
    res = graph.wait_future(second.get_result_async(), what="the second run's result")
    assert res.status == GoalStatus.STATUS_CANCELED, res.status


def test_send_packet_and_wait_for_a_reply(graph, tmp_path):
    comms = CommsPeer(graph.node)
    rx = graph.node.create_publisher(Packet, "/comms/rx", 10)
    events = graph.collect(StrategyEvent, EVENTS, EVENT_QOS)
    _, client = start_node(graph)
    graph.wait_for_subscriber("/comms/rx")
    file = write_strategy(
        tmp_path,
        {
            "max_failures": 1,
            "tasks": [
                {
                    "name": "clamp",
                    "points": 6,
                    "approach_m": [0, 0, 0],
                    "steps": [
                        {"send": {"name": "ClampGoTo", "device": 2, "fields": {"position": 1}}},
                        {"name": "clamp done", "wait_for": {"topic": "/comms/rx", "equals": {"name": "ClampDone", "fields.position": 1}}, "timeout_ms": 10000},
                    ],
                },
                {
                    "name": "never",
                    "points": 1,
                    "approach_m": [0, 0, 0],
                    "steps": [{"wait_for": {"topic": "/comms/rx", "at_least": {"fields.position": 5}}, "timeout_ms": 800}],
                },
            ],
        },
    )

    def packet(position):
        p = Packet()
        p.name = "ClampDone"
        p.fields_json = json.dumps({"position": position})
        return p

    handle = send(graph, client, file)
    assert handle.accepted, graph.logs()
    result = handle.get_result_async()
    # The reply may come before the step listens: keep answering (a wrong one and the
    # right one) until the run ends.
    graph.spin_until(
        lambda: rx.publish(packet(0)) or rx.publish(packet(1)) or result.done(), timeout=30.0, what="the RunStrategy result"
    )
    res = result.result()
    assert res.status == GoalStatus.STATUS_SUCCEEDED
    assert (list(res.result.done), list(res.result.failed), res.result.points) == (["clamp"], ["never"], 6.0)
    wait_for_end(graph, events, StrategyEvent.FINISHED)
    assert [(p.name, p.device, json.loads(p.fields_json)) for p in comms.packets] == [("ClampGoTo", 2, {"position": 1})]
    timeouts = [e.message for e in events if e.kind == StrategyEvent.ERROR and e.task == "never" and e.step]
    assert len(timeouts) == 1 and "timed out after 800 ms" in timeouts[0]


def test_a_reply_that_comes_before_the_send_step_ends_is_not_missed(graph, tmp_path):
    """Over a lossy link the board's done can overtake the acknowledgement that ends the
    `send` step. Here the bridge stand-in publishes the done on /comms/rx, waits, and only
    then answers SendPacket: the next step's wait_for must still see it (it matches
    messages since the send step began), and only once."""
    rx = graph.node.create_publisher(Packet, "/comms/rx", 10)

    def done(seq):
        p = Packet()
        p.name = "ActuatorDone"
        p.fields_json = json.dumps({"seq": seq, "status": 0})
        return p

    sent = []

    def answer_late(req, resp):
        seq = json.loads(req.packet.fields_json)["seq"]
        sent.append(seq)
        rx.publish(done(seq))
        time.sleep(0.5)  # the done is on its way long before the answer
        resp.success = True
        resp.message = "acknowledged"
        return resp

    graph.node.create_service(SendPacket, "/comms/send", answer_late)
    events = graph.collect(StrategyEvent, EVENTS, EVENT_QOS)
    _, client = start_node(graph)
    graph.wait_for_subscriber("/comms/rx")
    take = lambda seq: [  # noqa: E731
        {"name": "take", "send": {"name": "Actuator", "fields": {"seq": seq}}},
        {"name": "done", "wait_for": {"topic": "/comms/rx", "equals": {"name": "ActuatorDone", "fields.seq": seq}}, "timeout_ms": 3000},
    ]
    file = write_strategy(
        tmp_path,
        {
            "max_failures": 1,
            "tasks": [
                # Two steps waiting for the same reply: the second must not match it again.
                {"name": "twice", "points": 1, "approach_m": [0, 0, 0], "steps": take(7) + [take(7)[1]]},
                {"name": "clamp", "points": 6, "approach_m": [0, 0, 0], "steps": take(8)},
            ],
        },
    )
    handle = send(graph, client, file)
    assert handle.accepted, graph.logs()
    res = graph.wait_future(handle.get_result_async(), 60.0, "the RunStrategy result")
    assert res.status == GoalStatus.STATUS_SUCCEEDED, res.result.message
    assert (list(res.result.done), list(res.result.failed)) == (["clamp"], ["twice"]), res.result.message
    assert sorted(sent) == [7, 8]
    wait_for_end(graph, events, StrategyEvent.FINISHED)
    errors = [e.message for e in events if e.kind == StrategyEvent.ERROR and e.task == "twice" and e.step]
    assert len(errors) == 1 and "timed out after 3000 ms" in errors[0], errors
