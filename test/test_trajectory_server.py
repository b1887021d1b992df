"""trajectory_server on a real graph: rclpy is the MoveTo client and a tiny simulated arm.

The arm (`Arm`, in this process) subscribes /arm/command and publishes /arm/position
(sensor-data QoS, as the node subscribes) every few milliseconds and after every command:
a perfect arm one message behind the server, optionally stopped by a wall (cannot pass
y > wall_y) or frozen for good once it reached y >= freeze_y.

Checked: a goal is reached with N + 1 set-points (N = ceil(distance_mm) * factor);
an obstacle makes the server reverse to the start (REVERSED_TO_START); a blocked way
back aborts with "help needed"; cancel holds the measured position and stops commanding;
a new goal preempts the running one and starts from the measured position; a lost arm
position aborts with "help needed"; each bad goal is answered REJECTED with its reason;
the legacy /arm/target topic ignores repeats and lets the newest target win;
/trajectory/plan carries the path; bad parameters stop the node at start-up with a
clear message.
"""
import math
import time

import pytest
from action_msgs.msg import GoalStatus
from arnie_interfaces.action import MoveTo
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import Point, PointStamped
from nav_msgs.msg import Path
from rclpy.action import ActionClient
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data

NODE = "trajectory_server"
START = (0.1, 0.0, 0.2)  # metres, world
# Fast but not fragile on a loaded machine: the arm may lag by ~10 periods.
PARAMS = {"period_ms": 20, "position_timeout_ms": 1000, "stale_abort_periods": 200}
EPS = 1e-9  # metres; the server converts m -> mm -> m


def close(a, b, tol=EPS):
    return all(math.isclose(x, y, rel_tol=0.0, abs_tol=tol) for x, y in zip(a, b))


def xyz(p):
    return (p.x, p.y, p.z)


class Arm:
    """Simulated arm: follows /arm/command at once, streams /arm/position."""

    def __init__(self, graph, start=START, wall_y=None, freeze_y=None, streaming=True):
        self.position = tuple(start)
        self.wall_y = wall_y
        self.freeze_y = freeze_y
        self.frozen = False
        self.streaming = streaming
        self.commands = []  # every set-point received, metres
        self.published = []  # every position published, metres
        self.pub = graph.node.create_publisher(PointStamped, "/arm/position", qos_profile_sensor_data)
        graph.node.create_subscription(PointStamped, "/arm/command", self.on_command, 50)
        graph.node.create_timer(0.005, self.publish)

    def on_command(self, msg):
        p = xyz(msg.point)
        self.commands.append(p)
        if self.frozen:
            return
        if self.freeze_y is not None and self.position[1] >= self.freeze_y:
            self.frozen = True
            return
        y = p[1] if self.wall_y is None else min(p[1], self.wall_y)
        self.position = (p[0], y, p[2])
        self.publish()

    def publish(self):
        if not self.streaming:
            return
        msg = PointStamped()
        msg.header.frame_id = "world"
        msg.point = Point(x=self.position[0], y=self.position[1], z=self.position[2])
        self.pub.publish(msg)
        self.published.append(self.position)

    def was_at(self, p):
        return any(close(p, q) for q in self.published)


class Rig:
    """The server process, the arm, the action client and the observers of one test."""

    def __init__(self, graph, params=None, **arm):
        self.graph = graph
        self.proc = graph.start(NODE, params=dict(PARAMS, **(params or {})))
        self.arm = Arm(graph, **arm)
        latched = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.plans = graph.collect(Path, "/trajectory/plan", latched)
        self.diags = graph.collect(DiagnosticArray, "/diagnostics")
        self.client = ActionClient(graph.node, MoveTo, "/trajectory/move_to")
        graph.wait_for_action(self.client, "/trajectory/move_to")
        graph.wait_for_subscriber("/arm/position")
        graph.wait_for_publisher("/arm/command")

    def ready(self):
        """Readiness on the graph: zero-length moves until the server has a position and
        its first set-point reached the arm (discovery done both ways)."""
        deadline = time.monotonic() + 20.0
        while not self.arm.commands:
            assert time.monotonic() < deadline, "server never commanded the arm\n" + self.graph.logs()
            res = self.result(self.send(self.arm.position))
            assert res.result.outcome in (MoveTo.Result.REACHED, MoveTo.Result.REJECTED), res
            self.graph.spin_for(0.05)
        self.arm.commands.clear()
        self.plans.clear()

    def send(self, target, period_s=0.0, sample_factor=0, feedback=None):
        goal = MoveTo.Goal()
        goal.target = Point(x=float(target[0]), y=float(target[1]), z=float(target[2]))
        goal.period_s = float(period_s)
        goal.sample_factor = sample_factor
        cb = (lambda f: feedback.append(f.feedback)) if feedback is not None else None
        handle = self.graph.wait_future(self.client.send_goal_async(goal, feedback_callback=cb), what="goal response")
        assert handle.accepted  # bad goals too: they end REJECTED with a reason (README)
        return handle

    def result(self, handle, timeout=30.0):
        return self.graph.wait_future(handle.get_result_async(), timeout, what="MoveTo result")

    def rejection(self, target, **kw):
        res = self.result(self.send(target, **kw))
        assert res.status == GoalStatus.STATUS_ABORTED, res
        assert res.result.outcome == MoveTo.Result.REJECTED, res
        return res.result.message

    def diag(self, key):
        """The latest /diagnostics value of `key` ("message": the status message)."""
        for d in reversed(self.diags):
            for s in d.status:
                if s.name == f"/{NODE}: move_to":
                    return s.message if key == "message" else {kv.key: kv.value for kv in s.values}.get(key)
        return None


def expected_setpoints(a, b, factor=1):
    return math.ceil(math.dist(a, b) * 1000.0) * factor + 1


def test_goal_reached_with_expected_setpoints_and_plan(graph):
    rig = Rig(graph)
    rig.ready()
    target = (0.1, 0.03, 0.2)
    n = expected_setpoints(START, target)
    assert n == 31  # 30 mm, factor 1
    feedback = []
    res = rig.result(rig.send(target, feedback=feedback))
    assert res.status == GoalStatus.STATUS_SUCCEEDED, res
    assert res.result.outcome == MoveTo.Result.REACHED
    assert "reached" in res.result.message
    assert close(xyz(res.result.final_position), target)
    graph.spin_until(lambda: len(rig.arm.commands) >= n, what=f"{n} set-points")
    graph.spin_for(0.2)  # ten periods: nothing more may come
    cmds = rig.arm.commands
    assert len(cmds) == n
    assert close(cmds[0], START) and close(cmds[-1], target)
    assert all(b[1] >= a[1] for a, b in zip(cmds, cmds[1:]))
    # feedback
    assert feedback and feedback[-1].count == n and feedback[-1].progress == 1.0
    assert all(f.phase == MoveTo.Feedback.FORWARD for f in feedback)
    # the plan: world frame, N + 1 poses, equal to the set-points
    graph.spin_until(lambda: rig.plans, what="/trajectory/plan")
    plan = rig.plans[-1]
    assert plan.header.frame_id == "world"
    assert [xyz(p.pose.position) for p in plan.poses] == cmds
    # goal override: back to the start at 2 samples/mm -> 2N + 1 set-points
    rig.arm.commands.clear()
    res = rig.result(rig.send(START, sample_factor=2))
    assert res.result.outcome == MoveTo.Result.REACHED
    n2 = expected_setpoints(target, START, 2)
    assert n2 == 61
    graph.spin_until(lambda: len(rig.arm.commands) >= n2, what=f"{n2} set-points")
    graph.spin_for(0.2)
    assert len(rig.arm.commands) == n2


def test_obstacle_reverses_to_start(graph):
    rig = Rig(graph, wall_y=0.05)
    rig.ready()
    feedback = []
    res = rig.result(rig.send((0.1, 0.1, 0.2), feedback=feedback))
    assert res.status == GoalStatus.STATUS_ABORTED, res
    assert res.result.outcome == MoveTo.Result.REVERSED_TO_START, res.result
    assert "obstacle" in res.result.message and "reversed to the start" in res.result.message
    assert close(xyz(res.result.final_position), START, 1e-6)
    phases = [f.phase for f in feedback]
    assert MoveTo.Feedback.WAITING in phases and MoveTo.Feedback.REVERSING in phases
    assert phases.index(MoveTo.Feedback.WAITING) < phases.index(MoveTo.Feedback.REVERSING)
    # The forward plan, then the way back: from the wall to the original start.
    graph.spin_until(lambda: len(rig.plans) >= 2, what="the reverse plan")
    back = [xyz(p.pose.position) for p in rig.plans[-1].poses]
    assert math.isclose(back[0][1], 0.05, abs_tol=1e-9) and close(back[-1], START)
    assert close(rig.arm.position, START)
    # The forward leg never commanded past the tolerance beyond the wall (25 mm).
    assert max(c[1] for c in rig.arm.commands) <= 0.05 + 0.025 + 0.003


def test_blocked_reverse_aborts_help_needed(graph):
    rig = Rig(graph, freeze_y=0.05)
    rig.ready()
    res = rig.result(rig.send((0.1, 0.1, 0.2)))
    assert res.status == GoalStatus.STATUS_ABORTED, res
    assert res.result.outcome == MoveTo.Result.ABORTED_HELP_NEEDED, res.result
    assert "help needed" in res.result.message and "blocked" in res.result.message
    assert close(xyz(res.result.final_position), rig.arm.position)
    graph.spin_until(lambda: rig.diag("aborted_help_needed") == "1", what="diagnostics aborted_help_needed = 1")


def test_cancel_holds_position_and_stops(graph):
    rig = Rig(graph)
    rig.ready()
    handle = rig.send((0.1, 0.2, 0.2))  # 201 set-points: ~4 s
    graph.spin_until(lambda: len(rig.arm.commands) >= 20, what="the move to start")
    cancel = graph.wait_future(handle.cancel_goal_async(), what="cancel response")
    assert len(cancel.goals_canceling) == 1
    res = rig.result(handle)
    assert res.status == GoalStatus.STATUS_CANCELED, res
    assert res.result.outcome == MoveTo.Result.CANCELLED
    assert "cancelled" in res.result.message
    # The hold: the measured position, which is behind the last set-point (y grows on the path).
    cmds = rig.arm.commands
    graph.spin_until(lambda: cmds[-1][1] <= cmds[-2][1], what="the hold command")
    n = len(cmds)
    hold = cmds[-1]
    assert rig.arm.was_at(hold)
    assert close(xyz(res.result.final_position), hold)
    graph.spin_for(0.3)  # fifteen periods
    assert len(rig.arm.commands) == n, "commands after cancel"


def test_preempt_starts_new_goal_from_measured_position(graph):
    rig = Rig(graph)
    rig.ready()
    first = rig.send((0.1, 0.2, 0.2))
    graph.spin_until(lambda: len(rig.arm.commands) >= 60, what="the first move to get going")
    # A bad goal meanwhile is rejected and does not disturb the running one.
    assert "NaN" in rig.rejection((math.nan, 0.0, 0.2))
    target = (0.15, 0.05, 0.2)
    second = rig.send(target)
    r1 = rig.result(first)
    assert r1.status == GoalStatus.STATUS_ABORTED
    assert r1.result.outcome == MoveTo.Result.PREEMPTED and "preempted" in r1.result.message
    r2 = rig.result(second)
    assert r2.result.outcome == MoveTo.Result.REACHED, r2.result
    assert close(xyz(r2.result.final_position), target)
    graph.spin_until(lambda: len(rig.plans) >= 2, what="the second plan")
    plan = [xyz(p.pose.position) for p in rig.plans[-1].poses]
    assert rig.arm.was_at(plan[0])  # started from a measured position
    assert plan[0][1] > 0.01  # ... mid-way (> 10 mm), not at the first goal's start
    assert close(plan[-1], target)
    graph.spin_until(lambda: len(rig.arm.commands) >= 60 + len(plan), what="the second move")
    assert rig.arm.commands[-len(plan):] == plan


def test_bad_goals_are_rejected_with_reasons(graph):
    rig = Rig(graph, params={"workspace_max_x_mm": 500.0, "position_timeout_ms": 300}, streaming=False)
    assert "no arm position" in rig.rejection((0.1, 0.1, 0.1))
    rig.arm.streaming = True
    rig.ready()
    for bad in (math.nan, math.inf, -math.inf):
        assert "NaN or infinite" in rig.rejection((0.1, bad, 0.1))
    msg = rig.rejection((0.6, 0.0, 0.1))
    assert "x = 600 mm is outside the workspace [-1000, 500] mm" in msg, msg
    assert "period_s" in rig.rejection((0.1, 0.0, 0.1), period_s=-1.0)
    assert "sample_factor" in rig.rejection((0.1, 0.0, 0.1), sample_factor=5000)
    rig.arm.streaming = False
    graph.spin_for(0.6)  # twice position_timeout_ms without a position
    msg = rig.rejection((0.1, 0.0, 0.1))
    assert "ms old (limit 300 ms)" in msg, msg
    assert not rig.arm.commands  # no rejected goal moved the arm


def test_lost_arm_position_aborts_help_needed(graph):
    rig = Rig(graph, params={"position_timeout_ms": 200, "stale_abort_periods": 10})
    rig.ready()
    feedback = []
    handle = rig.send((0.1, 0.2, 0.2), feedback=feedback)
    graph.spin_until(lambda: len(rig.arm.commands) >= 20, what="the move to start")
    rig.arm.streaming = False
    res = rig.result(handle)
    assert res.status == GoalStatus.STATUS_ABORTED, res
    assert res.result.outcome == MoveTo.Result.ABORTED_HELP_NEEDED, res.result
    assert "no arm position for 10 periods" in res.result.message and "help needed" in res.result.message
    assert feedback[-1].phase == MoveTo.Feedback.WAITING


def test_legacy_target_topic(graph):
    rig = Rig(graph)
    rig.ready()
    pub = graph.node.create_publisher(PointStamped, "/arm/target", 10)
    graph.wait_for_subscriber("/arm/target")

    def target(p):
        msg = PointStamped()
        msg.header.frame_id = "world"
        msg.point = Point(x=p[0], y=p[1], z=p[2])
        return msg

    a = (0.1, 0.03, 0.2)
    # Resend until the move starts: the extra copies are repeats and are ignored.
    graph.spin_until(lambda: pub.publish(target(a)) or rig.plans, what="a move to the legacy target")
    n = expected_setpoints(START, a)
    graph.spin_until(lambda: len(rig.arm.commands) >= n and close(rig.arm.position, a), what="the arm at the legacy target")
    graph.spin_until(lambda: rig.diag("message") == "idle" and rig.diag("legacy_repeats") is not None, what="the legacy move to end")
    plans, cmds = len(rig.plans), len(rig.arm.commands)
    assert cmds == n
    repeats = int(rig.diag("legacy_repeats"))
    pub.publish(target(a))
    graph.spin_until(lambda: int(rig.diag("legacy_repeats")) > repeats, what="the repeat to be counted")
    assert (len(rig.plans), len(rig.arm.commands)) == (plans, cmds)  # ignored
    # Newest wins: c starts, d preempts it at once.
    c, d = (0.1, 0.08, 0.2), (0.12, 0.0, 0.2)
    pub.publish(target(c))
    pub.publish(target(d))
    graph.spin_until(lambda: close(rig.arm.position, d), what="the arm at the newest target")
    assert close(xyz(rig.plans[-1].poses[-1].pose.position), d)
    graph.spin_until(lambda: rig.diag("preempted") == "1", what="diagnostics preempted = 1")
    # A bad legacy target is rejected and counted.
    pub.publish(target((math.nan, 0.0, 0.0)))
    graph.spin_until(lambda: rig.diag("legacy_rejected") == "1", what="diagnostics legacy_rejected = 1")


@pytest.mark.parametrize("name,value", [("tracking_tolerance_mm", 0.0), ("period_ms", -5)])
def test_bad_parameter_stops_the_node(graph, name, value):
    graph.start_refused(NODE, params={name: value}, expect=name)
