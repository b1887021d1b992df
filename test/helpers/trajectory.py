"""The trajectory server's test rig: the server process, a simulated arm in this process
(follows /arm/command at once and streams /arm/position, optionally stopped by a wall or a
box or frozen), the MoveTo client and the observers of one test.
"""
import math
import time

from action_msgs.msg import GoalStatus
from arnie_interfaces.action import MoveTo
from geometry_msgs.msg import Point, PointStamped
from nav_msgs.msg import Path
from rclpy.action import ActionClient
from rclpy.qos import qos_profile_sensor_data

from helpers import qos
from helpers.diagnostics import Diagnostics, as_dict


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

    def __init__(self, graph, start=START, wall_y=None, freeze_y=None, box=None, streaming=True):
        self.position = tuple(start)
        self.wall_y = wall_y
        self.box = box  # (min, max) metres: a move into it stops where it would enter
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
        self.position = self.stopped_by_box(self.position, (p[0], y, p[2]))
        self.publish()

    def inside_box(self, p):
        return self.box is not None and all(lo < v < hi for v, lo, hi in zip(p, *self.box))

    def stopped_by_box(self, a, b):
        """The last point before the box on the step a -> b (b when the box is not in the way)."""
        last = a
        for k in range(1, 101):
            p = tuple(u + (v - u) * k / 100 for u, v in zip(a, b))
            if self.inside_box(p):
                return last
            last = p
        return b

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
        latched = qos.latched(10)
        self.plans = graph.collect(Path, "/trajectory/plan", latched)
        self.diagnostics = Diagnostics(graph)
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

    def send(self, target, period_s=0.0, sample_factor=0, feedback=None, frame_id=""):
        goal = MoveTo.Goal()
        goal.target = Point(x=float(target[0]), y=float(target[1]), z=float(target[2]))
        goal.frame_id = frame_id
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

    def diag(self, key, status="move_to"):
        """The latest /diagnostics value of `key` ("message": the status message)."""
        st = self.diagnostics.status(f"/{NODE}: {status}")
        if st is None:
            return None
        return st.message if key == "message" else as_dict(st).get(key)
