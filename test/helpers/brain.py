"""A lone brain against scripted rclpy peers, and its RunTask goal.

- the arm (`ArmPeer`): a MoveTo action server on /trajectory/move_to that "moves" at once
  (records each goal's target and from then on publishes /arm/position there, so
  trajectory verification passes), or, with `hold`, keeps every goal running until it is
  cancelled;
- the eyes (`EyesPeer`): /eyes/observations with the source flame F first, the taper at the
  arm once the arm has been at F, and the second candle once the lit taper has been at it.
"""
from arnie_interfaces.action import MoveTo, RunTask
from arnie_interfaces.msg import Coordinate, Coordinates
from geometry_msgs.msg import PointStamped
from rclpy.action import ActionClient, ActionServer, CancelResponse
from rclpy.qos import qos_profile_sensor_data
from rclpy.task import Future

from helpers import qos
from helpers.graph import REFERENCE, ROOT


INSTRUCTIONS = REFERENCE / "arnie" / "instructions.json"


STATE = "/brain/state"


# Deep enough that no state of a run is dropped while the test is busy.
STATE_QOS = qos.reliable(1000)


# The scene, in the millimetres of instructions.json (legacy frame = world here).
F_MM = (80.0, 60.0, 40.0)  # the source flame: x far from 0, so only the taper passes lightSelf


CANDLE_MM = (-95.0, 30.0, 45.0)  # the second candle, where lightOther holds the taper


def move_result(outcome, message, final_position=None):
    """A MoveTo result: `outcome` (a MoveTo.Result constant), `message`, and where the arm
    ended when it got there."""
    result = MoveTo.Result()
    result.outcome = outcome
    result.message = message
    if final_position is not None:
        result.final_position = final_position
    return result


def m(p_mm):
    return tuple(v / 1000.0 for v in p_mm)


def key(p):
    """A point (message or tuple, metres) rounded for comparisons."""
    if not isinstance(p, tuple):
        p = (p.x, p.y, p.z)
    return tuple(round(v, 6) + 0.0 for v in p)  # + 0.0: no -0.0


class ArmPeer:
    """MoveTo server + /arm/position (sensor QoS, every 50 ms and on each goal)."""

    def __init__(self, node, hold=False):
        self.hold = hold
        self.position = (0.0, 0.0, 0.0)
        self.publishing = True
        self.targets = []
        self.cancelled = []
        self._held = {}
        self.pub = node.create_publisher(PointStamped, "/arm/position", qos_profile_sensor_data)
        self.server = ActionServer(
            node, MoveTo, "/trajectory/move_to", execute_callback=self._execute, cancel_callback=self._cancel
        )
        self.timer = node.create_timer(0.05, self.publish)

    def publish(self):
        if not self.publishing:
            return
        msg = PointStamped()
        msg.header.frame_id = "world"
        msg.point.x, msg.point.y, msg.point.z = self.position
        self.pub.publish(msg)

    def visited(self, p_mm):
        return key(m(p_mm)) in self.targets

    def _cancel(self, goal_handle):
        self.cancelled.append(key(goal_handle.request.target))
        release = self._held.get(bytes(goal_handle.goal_id.uuid))
        if release is not None and not release.done():
            release.set_result(True)
        return CancelResponse.ACCEPT

    async def _execute(self, goal_handle):
        target = goal_handle.request.target
        self.targets.append(key(target))
        if self.hold:
            release = Future()
            self._held[bytes(goal_handle.goal_id.uuid)] = release
            await release
            goal_handle.canceled()
            return move_result(MoveTo.Result.CANCELLED, "cancelled")
        self.position = (target.x, target.y, target.z)
        self.publish()
        goal_handle.succeed()
        return move_result(MoveTo.Result.REACHED, "reached", target)


class EyesPeer:
    """/eyes/observations every 50 ms: x, y, z (metres), confidence."""

    def __init__(self, node, arm):
        self.arm = arm
        self.pub = node.create_publisher(Coordinates, "/eyes/observations", qos_profile_sensor_data)
        self.timer = node.create_timer(0.05, self.publish)

    def publish(self):
        items = [m(F_MM) + (90.0,)]
        taper_lit = self.arm.visited(F_MM)
        if taper_lit:
            items.append(self.arm.position + (80.0,))
        if taper_lit and self.arm.targets.index(key(m(F_MM))) < _last_index(self.arm.targets, key(m(CANDLE_MM))):
            items.append(m(CANDLE_MM) + (85.0,))
        msg = Coordinates()
        msg.header.frame_id = "world"
        msg.items = [Coordinate(values=list(i)) for i in items]
        self.pub.publish(msg)


def _last_index(seq, item):
    return max((i for i, v in enumerate(seq) if v == item), default=-1)


def collapse(seq):
    """Drops consecutive repeats: a step re-sent after a failed verification (a slow
    machine) is the same target twice in a row, not a different sequence."""
    out = []
    for v in seq:
        if not out or out[-1] != v:
            out.append(v)
    return out


def start_node(graph, **params):
    node = graph.start("brain", params_file=ROOT / "params" / "brain.yaml", params=params)
    client = ActionClient(graph.node, RunTask, "/brain/run_task")
    graph.wait_for_action(client, "/brain/run_task")
    graph.wait_for_publisher(STATE)
    return node, client


def wait_inputs(graph, diagnostics):
    """Until the node's /diagnostics (a `Diagnostics`) shows it has received positions and
    observations."""

    def counts():
        for v in diagnostics.history("/brain: inputs"):
            if int(v["positions"]) > 0 and int(v["observation_messages"]) > 0:
                return True
        return False

    graph.spin_until(counts, what="positions and observations counted on /diagnostics")


def send(graph, client, feedback=None, **fields):
    goal = RunTask.Goal()
    for k, v in fields.items():
        setattr(goal, k, v)
    cb = (lambda f: feedback.append(f.feedback.state)) if feedback is not None else None
    handle = graph.wait_future(client.send_goal_async(goal, feedback_callback=cb), what="the goal response")
    assert handle.accepted, graph.logs()
    return handle


def result_of(graph, handle, timeout=60.0):
    return graph.wait_future(handle.get_result_async(), timeout=timeout, what="the RunTask result")
