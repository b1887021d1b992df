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

Detours (issue "the arm finds another way"): a box on the straight line (the arm cannot
enter it) ends REACHED_BY_DETOUR with the arm never inside the box; the stop is
remembered on /trajectory/obstructions and /trajectory/obstruction_markers (latched); the
next goal is planned around it from the start; a target inside what was learned is
approached from another side (never REJECTED for it); the clear service forgets it; it expires after its TTL; a wall across the whole workspace still
ends in the reverse to the start, with why no detour was taken.

Frames: a goal whose target is in another frame (`frame_id`, a static transform on
/tf_static) is moved to in world; an unknown frame is REJECTED naming both frames; a point
on /clicked_point (rviz's Publish Point) moves the arm there; one outside the workspace is
refused and counted, and nothing is commanded.
"""
import math
import time

import pytest
from action_msgs.msg import GoalStatus
from arnie_interfaces.action import MoveTo
from arnie_interfaces.msg import KnownObstructions
from arnie_interfaces.srv import ClearObstructions
from geometry_msgs.msg import Point, PointStamped, TransformStamped
from tf2_msgs.msg import TFMessage
from visualization_msgs.msg import MarkerArray
from helpers import qos
from helpers.trajectory import NODE, Rig, START, close, xyz

# A result's final position is the last measured one. On a loaded machine the fake arm's
# echo of the last set-point (a step of a few um at the end of a minimum-jerk path) can
# still be on its way when the server settles (seen once: 3.9 um short), so results are
# compared within 0.1 mm; a frame or unit mistake would be centimetres off.
MEASURED = 1e-4


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
    assert close(xyz(res.result.final_position), target, MEASURED)
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
    assert close(xyz(res.result.final_position), START, MEASURED)
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
    assert close(xyz(r2.result.final_position), target, MEASURED)
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


# --- Detours ----------------------------------------------------------------------------

# A box on the straight line from START to TARGET (y from 0 to 0.2 m at x = 0.1, z = 0.2).
BOX = ((0.06, 0.08, 0.15), (0.14, 0.11, 0.25))
TARGET = (0.1, 0.2, 0.2)


def curved(path, tol=0.001):
    """A planned path that leaves its chord by more than `tol` metres (a detour)."""
    pts = [xyz(p.pose.position) for p in path.poses]
    a, b = pts[0], pts[-1]
    ab = [v - u for u, v in zip(a, b)]
    n2 = sum(v * v for v in ab)
    for p in pts[1:-1]:
        ap = [v - u for u, v in zip(a, p)]
        t = sum(x * y for x, y in zip(ap, ab)) / n2
        if math.dist(ap, [t * v for v in ab]) > tol:
            return True
    return False


class DetourRig(Rig):
    def __init__(self, graph, params=None, **arm):
        super().__init__(graph, params=params, box=BOX, **arm)
        latched = qos.latched(1)
        self.known = graph.collect(KnownObstructions, "/trajectory/obstructions", latched)
        self.markers = graph.collect(MarkerArray, "/trajectory/obstruction_markers", latched)
        graph.spin_until(lambda: self.known, what="the latched /trajectory/obstructions")

    def remembered(self):
        return list(self.known[-1].obstructions) if self.known else []


def test_a_box_on_the_line_is_passed_by_a_detour_and_remembered(graph):
    rig = DetourRig(graph)
    rig.ready()
    assert rig.remembered() == []
    feedback = []
    res = rig.result(rig.send(TARGET, feedback=feedback), timeout=60.0)
    assert res.status == GoalStatus.STATUS_SUCCEEDED, res
    assert res.result.outcome == MoveTo.Result.REACHED_BY_DETOUR, res.result
    assert "detour" in res.result.message
    assert close(xyz(res.result.final_position), TARGET, MEASURED)
    assert not any(rig.arm.inside_box(p) for p in rig.arm.published), "the arm entered the box"
    phases = [f.phase for f in feedback]
    assert MoveTo.Feedback.WAITING in phases and MoveTo.Feedback.DETOUR in phases
    assert phases.index(MoveTo.Feedback.WAITING) < phases.index(MoveTo.Feedback.DETOUR), "the first stop pauses"
    assert MoveTo.Feedback.REVERSING not in phases
    # Learned where the arm was stopped: a small region just beyond the box's face
    # (y = 0.08 m) the arm stood on, in world, metres; and drawn for rviz.
    graph.spin_until(lambda: rig.remembered(), what="a remembered obstruction")
    known = rig.known[-1]
    assert known.header.frame_id == "world"
    o = known.obstructions[0]
    assert abs(o.contact.y - 0.08) < 0.002 and o.direction.y > 0.9, o
    assert o.contact.y < o.centre.y < 0.08 + 0.005 + 0.030 + 1e-6, o
    assert 0.005 <= o.size <= 0.030 and math.isclose(o.radius, o.size + 0.010, abs_tol=1e-9), o
    assert o.hits >= 1
    assert (o.expires_at.sec, o.expires_at.nanosec) > (o.recorded_at.sec, o.recorded_at.nanosec)
    for ns in ("obstructions", "obstruction_cores", "obstruction_contacts"):
        graph.spin_until(lambda: any(m.ns == ns and m.action == 0 for a in rig.markers for m in a.markers),
                         what=f"obstruction markers ({ns})")
    # /trajectory/plan showed the detour: a curved path ending at the target.
    assert any(curved(p) and close(xyz(p.poses[-1].pose.position), TARGET, 1e-6) for p in rig.plans)
    graph.spin_until(lambda: int(rig.diag("detours_after_stop", "detours") or 0) >= 1, what="detours_after_stop")

    # The next goal (back to the start) is planned around what was learned from its start
    # (a detour from the first set-point, not the straight line into the box); the box's
    # far face was never touched, so it may be stopped there and learn it too.
    n_known = len(rig.remembered())
    feedback = []
    res = rig.result(rig.send(START, feedback=feedback), timeout=60.0)
    assert res.result.outcome == MoveTo.Result.REACHED_BY_DETOUR, res.result
    assert feedback[0].phase == MoveTo.Feedback.DETOUR, [f.phase for f in feedback[:3]]
    assert MoveTo.Feedback.REVERSING not in {f.phase for f in feedback}
    assert len(rig.remembered()) >= n_known
    assert not any(rig.arm.inside_box(p) for p in rig.arm.published)

    # A target inside the learned clearance (in front of the box's face) is not refused:
    # it is approached from another side than the one the arm was stopped from.
    o = rig.remembered()[0]
    inside = (o.centre.x, o.contact.y - 0.003, o.centre.z)
    assert math.dist(inside, (o.centre.x, o.centre.y, o.centre.z)) < o.radius
    res = rig.result(rig.send(inside), timeout=60.0)
    assert res.result.outcome == MoveTo.Result.REACHED_BY_DETOUR, res.result
    assert "approached from" in res.result.message, res.result.message
    assert not any(rig.arm.inside_box(p) for p in rig.arm.published)
    graph.spin_until(lambda: int(rig.diag("approaches", "detours") or 0) >= 1, what="approaches counted")
    n_known = len(rig.remembered())

    # The clear service forgets it (a human removed the box); unknown ids are named.
    client = graph.node.create_client(ClearObstructions, "/trajectory/clear_obstructions")
    graph.wait_for_service(client, "/trajectory/clear_obstructions")
    req = ClearObstructions.Request(ids=[999])
    r = graph.wait_future(client.call_async(req), what="clear response")
    assert r.cleared == 0 and list(r.unknown_ids) == [999]
    r = graph.wait_future(client.call_async(ClearObstructions.Request()), what="clear response")
    assert r.cleared == n_known, r
    graph.spin_until(lambda: rig.remembered() == [], what="an empty /trajectory/obstructions")


def test_a_wrong_guess_is_cleared_by_a_pass_through_it(graph):
    # Learned at the box; then the box is taken away (a human moved it): a goal to where
    # the box was is not refused, the arm goes there unhindered, and that pass clears what
    # was learned (occupancy: marked by a hit, cleared by a pass).
    rig = DetourRig(graph)
    rig.ready()
    res = rig.result(rig.send(TARGET), timeout=60.0)
    assert res.result.outcome == MoveTo.Result.REACHED_BY_DETOUR, res.result
    graph.spin_until(lambda: rig.remembered(), what="a remembered obstruction")
    o = rig.remembered()[0]
    rig.arm.box = None
    res = rig.result(rig.send((o.centre.x, o.centre.y, o.centre.z)), timeout=60.0)
    assert res.result.outcome in (MoveTo.Result.REACHED, MoveTo.Result.REACHED_BY_DETOUR), res.result
    graph.spin_until(lambda: int(rig.diag("obstructions_cleared_by_pass", "detours") or 0) >= 1,
                     what="obstructions_cleared_by_pass")
    graph.spin_until(lambda: all(k.id != o.id for k in rig.remembered()), what=f"obstruction {o.id} gone")
    assert "cleared: the arm passed through it" in graph.logs()


def test_a_remembered_obstruction_expires_after_its_ttl(graph):
    rig = DetourRig(graph, params={"obstruction_ttl_s": 1.5})
    rig.ready()
    res = rig.result(rig.send(TARGET), timeout=60.0)
    assert res.result.outcome == MoveTo.Result.REACHED_BY_DETOUR, res.result
    # Remembered (every change is published; it may have expired during the detour already).
    graph.spin_until(lambda: any(m.obstructions for m in rig.known), what="a remembered obstruction")
    graph.spin_until(lambda: rig.remembered() == [], timeout=30.0, what="the obstruction to expire")
    graph.spin_until(lambda: int(rig.diag("obstructions_expired", "detours") or 0) >= 1, what="obstructions_expired")
    # Forgotten: the next goal runs the straight line again (and is stopped again).
    feedback = []
    res = rig.result(rig.send(START, feedback=feedback), timeout=60.0)
    assert res.result.outcome in (MoveTo.Result.REACHED, MoveTo.Result.REACHED_BY_DETOUR), res.result


def test_a_wall_across_the_workspace_ends_in_the_reverse_with_the_reason(graph):
    rig = Rig(graph, wall_y=0.05, params={"workspace_min_x_mm": 0.0, "workspace_max_x_mm": 200.0,
                                          "workspace_min_z_mm": 100.0, "workspace_max_z_mm": 300.0,
                                          "workspace_min_y_mm": -100.0, "workspace_max_y_mm": 300.0})
    rig.ready()
    res = rig.result(rig.send(TARGET), timeout=60.0)
    assert res.result.outcome == MoveTo.Result.REVERSED_TO_START, res.result
    assert "no detour" in res.result.message, res.result.message
    assert close(xyz(res.result.final_position), START, MEASURED)
    assert max(c[1] for c in rig.arm.commands) <= 0.05 + 0.025 + 0.003


# --- Frames -----------------------------------------------------------------------------

def test_targets_and_clicked_points_in_other_frames(graph):
    rig = Rig(graph)
    rig.ready()
    # "lab": turned 90 degrees about z and 0.1 m along x from world: world = R lab + t.
    latched = qos.latched(1)
    tf_static = graph.node.create_publisher(TFMessage, "/tf_static", latched)
    t = TransformStamped()
    t.header.frame_id, t.child_frame_id = "world", "lab"
    t.transform.translation.x = 0.1
    t.transform.rotation.z, t.transform.rotation.w = math.sin(math.pi / 4), math.cos(math.pi / 4)
    tf_static.publish(TFMessage(transforms=[t]))

    def lab_to_world(p):
        return (0.1 - p[1], p[0], p[2])

    # The server gets the latched transform once discovery matched: until then a goal in
    # "lab" is refused because the frame does not exist yet (retried, nothing moves).
    deadline = time.monotonic() + 20.0
    while True:
        res = rig.result(rig.send((0.05, 0.0, 0.2), frame_id="lab"))
        if res.result.outcome != MoveTo.Result.REJECTED or time.monotonic() > deadline:
            break
        assert "does not exist" in res.result.message, res.result.message
        graph.spin_for(0.1)
    assert res.result.outcome == MoveTo.Result.REACHED, res.result
    # The result within MEASURED; the arm itself ends exactly at the target.
    assert close(xyz(res.result.final_position), lab_to_world((0.05, 0.0, 0.2)), MEASURED)
    graph.spin_until(lambda: close(rig.arm.position, (0.1, 0.05, 0.2), 1e-6), what="the arm at the target")

    message = rig.rejection((0.1, 0.0, 0.2), frame_id="kitchen")
    assert '"kitchen"' in message and '"world"' in message, message

    # rviz's Publish Point: in the workspace, the arm goes there.
    clicked = graph.node.create_publisher(PointStamped, "/clicked_point", 10)
    graph.wait_for_subscriber("/clicked_point")
    msg = PointStamped()
    msg.header.frame_id = "lab"
    msg.point = Point(x=0.1, y=0.0, z=0.2)
    clicked.publish(msg)
    graph.spin_until(lambda: close(rig.arm.position, lab_to_world((0.1, 0.0, 0.2)), 1e-6), 30.0,
                     "the arm at the clicked point")
    # Outside the workspace (y = 5 m in world): refused with the reason, nothing sent.
    n = len(rig.arm.commands)
    msg.point = Point(x=5.0, y=0.0, z=0.2)
    clicked.publish(msg)
    graph.spin_until(lambda: int(rig.diag("clicked_refused") or 0) >= 1, what="clicked_refused counted")
    assert int(rig.diag("clicked_points")) >= 2
    graph.spin_for(0.3)
    assert len(rig.arm.commands) == n, "a refused clicked point commanded the arm"
    graph.spin_until(lambda: "refused" in graph.logs() and "outside the workspace" in graph.logs(),
                     what="the refusal logged with its reason")
