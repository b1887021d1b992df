"""Nav2's interfaces on the Eurobot stack (planner on the table, comms_bridge over a pty to
board_sim, base), used as Nav2's own client does: the test's `Navigator` sends the
goals, feedback callbacks and cancels that `nav2_simple_commander`'s `BasicNavigator`
(Jazzy) sends, on the same action and service names and types.

- goToPose (NavigateToPose) with its feedback fields; goThroughPoses (every pose passed,
  `number_of_poses_remaining` counting down); followWaypoints with one waypoint in the
  rock: reported in `missed_waypoints` (index 1, GOAL_OCCUPIED 206), the others reached;
  getPath and getPathThroughPoses (use_start false: from the robot's pose in TF) equal to
  the PlanPath service's answer from the same start; an unknown planner_id: ABORTED with
  INVALID_PLANNER (201) and Nav2's message; followPath along getPath's path; spin, backup,
  driveOnHeading with their feedback; wait; cancelTask mid-way (CANCELED, the base
  stopped); clearGlobalCostmap / clearLocalCostmap; global_costmap/costmap latched with
  the inflation as 99;
- an initial pose before the stack is up (the launch argument's way, AMCL's
  set_initial_pose, with the board started later): applied with the board's first
  odometry, amcl_pose (transient local, AMCL's QoS) says where the robot is; then
  setInitialPose as BasicNavigator sends it, twice: applied once;
- teleop's way: plain Twist at 10 Hz (the default) moves the base; a TwistStamped
  publisher beside it is named in one warning with the parameter to set, and counted.
"""
import json
import math

from action_msgs.msg import GoalStatus
from arnie_interfaces.msg import Packet
from arnie_interfaces.srv import PlanPath
from builtin_interfaces.msg import Duration
from geometry_msgs.msg import Point, PoseStamped, PoseWithCovarianceStamped, Twist, TwistStamped, Vector3
from helpers import qos
from helpers.diagnostics import Diagnostics
from helpers.graph import ROOT
from nav2_msgs.action import (BackUp, ComputePathThroughPoses, ComputePathToPose, DriveOnHeading,
                              FollowPath, FollowWaypoints, NavigateThroughPoses, NavigateToPose,
                              Spin, Wait)
from nav2_msgs.srv import ClearEntireCostmap
from nav_msgs.msg import OccupancyGrid, Odometry
import pytest
import rclpy
from rclpy.action import ActionClient

PACKETS = ROOT / "nodes" / "lib" / "arnie_packets" / "packets"
TABLE = ROOT / "params" / "eurobot" / "table.json"
SCENARIO = json.loads(TABLE.read_text())
RADIUS = SCENARIO["robot"]["radius_m"]


def pose(x, y, yaw=0.0, frame="map"):
    p = PoseStamped()
    p.header.frame_id = frame
    p.pose.position.x, p.pose.position.y = float(x), float(y)
    p.pose.orientation.z, p.pose.orientation.w = math.sin(yaw / 2), math.cos(yaw / 2)
    return p


def yaw_of(q):
    return math.atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z))


class Navigator:
    """What BasicNavigator does, on the test's rclpy node: the same action clients, goals,
    feedback callbacks, cancels and result reads."""

    def __init__(self, graph):
        self.graph = graph
        n = graph.node
        self.clients = {
            "navigate_to_pose": ActionClient(n, NavigateToPose, "navigate_to_pose"),
            "navigate_through_poses": ActionClient(n, NavigateThroughPoses, "navigate_through_poses"),
            "follow_waypoints": ActionClient(n, FollowWaypoints, "follow_waypoints"),
            "follow_path": ActionClient(n, FollowPath, "follow_path"),
            "compute_path_to_pose": ActionClient(n, ComputePathToPose, "compute_path_to_pose"),
            "compute_path_through_poses": ActionClient(n, ComputePathThroughPoses, "compute_path_through_poses"),
            "spin": ActionClient(n, Spin, "spin"),
            "backup": ActionClient(n, BackUp, "backup"),
            "drive_on_heading": ActionClient(n, DriveOnHeading, "drive_on_heading"),
            "wait": ActionClient(n, Wait, "wait"),
        }
        for name, c in self.clients.items():
            graph.wait_for_action(c, f"/{name}", timeout=60.0)
        self.feedback = []
        self.handle = None

    def send(self, name, goal):
        """send_goal_async with the feedback callback; the handle (accepted)."""
        self.feedback = []
        sent = self.clients[name].send_goal_async(goal, feedback_callback=lambda m: self.feedback.append(m.feedback))
        self.handle = self.graph.wait_future(sent, what=f"{name}: acceptance")
        assert self.handle.accepted, f"{name} was rejected"
        return self.handle

    def result(self, timeout=90.0):
        got = self.graph.wait_future(self.handle.get_result_async(), timeout=timeout, what="the result")
        return got.status, got.result

    def run(self, name, goal, timeout=90.0):
        self.send(name, goal)
        return self.result(timeout)

    def cancel_task(self):
        self.graph.wait_future(self.handle.cancel_goal_async(), what="the cancel answer")


class Stack:
    def __init__(self, graph, base_params=None, start_board=True):
        self.graph = graph
        graph.start("planner", params=dict(map_file=str(TABLE), resolution_m=0.02, robot_radius_m=RADIUS,
                                           frame_id="map"))
        self.base = graph.start("base", params=dict(robot_radius_m=RADIUS, **(base_params or {})))
        self.odom = graph.collect(Odometry, "/odom")
        self.tx = graph.collect(Packet, "/comms/tx")
        if start_board:
            self.start_board()

    def start_board(self):
        g = self.graph
        link = g.tmp / "board.link"
        g.start("board_sim", "--scenario", str(TABLE), "--packets", str(PACKETS), "pty", "--link-file", str(link))
        g.spin_until(link.exists, what="board_sim's link file")
        g.start("comms_bridge", params=dict(packets_dir=str(PACKETS), transport="uart",
                                            serial_port=link.read_text().strip()))
        g.spin_until(lambda: len(self.odom) > 5, timeout=60.0, what="odometry on /odom")

    def where(self):
        p = self.odom[-1].pose.pose
        return p.position.x, p.position.y, yaw_of(p.orientation)


@pytest.mark.long(150)
def test_basic_navigator_calls_on_every_server(graph):
    s = Stack(graph)
    nav = Navigator(graph)
    plan_path = graph.node.create_client(PlanPath, "/planner/plan_path")
    graph.wait_for_service(plan_path, "/planner/plan_path")
    costmaps = graph.collect(OccupancyGrid, "/global_costmap/costmap", qos.latched(1))
    graph.spin_until(lambda: costmaps, what="global_costmap/costmap")
    assert {0, 99, 100} <= set(costmaps[-1].data), "free, inscribed (inflation) and lethal cells"

    # goToPose: Nav2's feedback fields, the distance coming down.
    status, r = nav.run("navigate_to_pose", NavigateToPose.Goal(pose=pose(1.0, 0.6, -1.0)))
    assert (status, r.error_code) == (GoalStatus.STATUS_SUCCEEDED, 0), r.error_msg
    fb = nav.feedback
    assert len(fb) >= 3 and fb[0].current_pose.header.frame_id == "map"
    assert fb[-1].distance_remaining < fb[0].distance_remaining
    assert fb[-1].navigation_time.sec + fb[-1].navigation_time.nanosec * 1e-9 > 0
    x, y, th = s.where()
    assert math.hypot(x - 1.0, y - 0.6) < 0.06 and abs(th + 1.0) < 0.1, (x, y, th)

    # goThroughPoses: every pose passed, number_of_poses_remaining counting down.
    poses = [pose(0.6, 0.4), pose(0.6, 0.8), pose(1.1, 0.8, 0.0)]
    seen = []
    odom_from = len(s.odom)
    status, r = nav.run("navigate_through_poses", NavigateThroughPoses.Goal(poses=poses))
    assert (status, r.error_code) == (GoalStatus.STATUS_SUCCEEDED, 0), r.error_msg
    left = [f.number_of_poses_remaining for f in nav.feedback]
    assert left[0] == 3 and left[-1] == 1 and left == sorted(left, reverse=True), left
    track = [(o.pose.pose.position.x, o.pose.pose.position.y) for o in s.odom[odom_from:]]
    for p in poses[:2]:
        closest = min(math.hypot(tx - p.pose.position.x, ty - p.pose.position.y) for tx, ty in track)
        seen.append(closest)
    assert max(seen) < 0.12, f"a pose was not passed: {seen}"
    assert math.hypot(s.where()[0] - 1.1, s.where()[1] - 0.8) < 0.06

    # followWaypoints: the middle one in the rock is missed (GOAL_OCCUPIED), the run goes on.
    wps = [pose(0.8, 0.5), pose(1.5, 1.1), pose(1.0, 0.5)]
    status, r = nav.run("follow_waypoints", FollowWaypoints.Goal(poses=wps))
    assert status == GoalStatus.STATUS_SUCCEEDED, r.error_msg
    assert [(m.index, m.error_code) for m in r.missed_waypoints] == [(1, 206)], r.missed_waypoints
    assert r.missed_waypoints[0].goal.pose.position.x == 1.5
    assert {f.current_waypoint for f in nav.feedback} == {0, 1, 2}
    assert math.hypot(s.where()[0] - 1.0, s.where()[1] - 0.5) < 0.06

    # getPath (use_start false: the robot's pose from TF) against PlanPath from the same start.
    here = s.where()
    goal = pose(0.5, 1.5, 1.0)
    status, r = nav.run("compute_path_to_pose", ComputePathToPose.Goal(goal=goal, planner_id="", use_start=False))
    assert (status, r.error_code) == (GoalStatus.STATUS_SUCCEEDED, 0), r.error_msg
    got = [(p.pose.position.x, p.pose.position.y) for p in r.path.poses]
    # From TF (the planner) against the last /odom message (the test): two paths, two
    # moments; the robot may still settle by a few cm after its last goal's result.
    assert math.hypot(got[0][0] - here[0], got[0][1] - here[1]) < 0.05, ("starts where the robot is", got[0], here)
    # PlanPath from the start the planner took from TF: the same path, pose for pose.
    req = PlanPath.Request(start=Point(x=got[0][0], y=got[0][1]), goal=Point(x=0.5, y=1.5), simplify=True, smooth=True)
    ref = graph.wait_future(plan_path.call_async(req), what="PlanPath").path.poses
    want = [(p.pose.position.x, p.pose.position.y) for p in ref]
    assert len(got) == len(want) and got[1:-1] == want[1:-1], (got, want)
    assert got[-1] == (0.5, 1.5) and abs(yaw_of(r.path.poses[-1].pose.orientation) - 1.0) < 1e-6
    assert r.path.header.frame_id == "map"

    # getPathThroughPoses (use_start true): the legs of PlanPath, joined.
    start = pose(1.0, 0.5)
    goals = [pose(0.5, 0.5), pose(0.5, 1.5)]
    status, r = nav.run("compute_path_through_poses",
                        ComputePathThroughPoses.Goal(goals=goals, start=start, planner_id="GridBased", use_start=True))
    assert (status, r.error_code) == (GoalStatus.STATUS_SUCCEEDED, 0), r.error_msg
    legs = []
    for a, b in [((1.0, 0.5), (0.5, 0.5)), ((0.5, 0.5), (0.5, 1.5))]:
        req = PlanPath.Request(start=Point(x=a[0], y=a[1]), goal=Point(x=b[0], y=b[1]), simplify=True, smooth=True)
        legs.append([(p.pose.position.x, p.pose.position.y)
                     for p in graph.wait_future(plan_path.call_async(req), what="PlanPath").path.poses])
    joined = legs[0] + legs[1][1:]
    got = [(p.pose.position.x, p.pose.position.y) for p in r.path.poses]
    assert got[1:-1] == joined[1:-1] and got[0] == (1.0, 0.5) and got[-1] == (0.5, 1.5), (got, joined)

    # A planner the robot does not have: Nav2's code and message.
    status, r = nav.run("compute_path_to_pose", ComputePathToPose.Goal(goal=goal, planner_id="NavFn"))
    assert (status, r.error_code) == (GoalStatus.STATUS_ABORTED, ComputePathToPose.Result.INVALID_PLANNER)
    assert "Planner id NavFn is invalid" in r.error_msg, r.error_msg
    status, r = nav.run("compute_path_through_poses", ComputePathThroughPoses.Goal(goals=[]))
    assert (status, r.error_code) == (GoalStatus.STATUS_ABORTED, ComputePathThroughPoses.Result.NO_VIAPOINTS_GIVEN)

    # followPath along getPath's answer.
    status, r = nav.run("compute_path_to_pose", ComputePathToPose.Goal(goal=pose(0.5, 1.2, 0.0)))
    path = r.path
    status, r = nav.run("follow_path", FollowPath.Goal(path=path, controller_id="", goal_checker_id=""))
    assert (status, r.error_code) == (GoalStatus.STATUS_SUCCEEDED, 0), r.error_msg
    d = [f.distance_to_goal for f in nav.feedback]
    assert d and d[-1] < d[0] and max(f.speed for f in nav.feedback) > 0.05
    assert math.hypot(s.where()[0] - 0.5, s.where()[1] - 1.2) < 0.06
    status, r = nav.run("follow_path", FollowPath.Goal(path=path, controller_id="DWB"))
    assert (status, r.error_code) == (GoalStatus.STATUS_ABORTED, FollowPath.Result.INVALID_CONTROLLER)

    # spin, backup, driveOnHeading: BasicNavigator's goals, Nav2's feedback.
    before = s.where()
    status, r = nav.run("spin", Spin.Goal(target_yaw=1.57, time_allowance=Duration(sec=10)))
    assert (status, r.error_code) == (GoalStatus.STATUS_SUCCEEDED, 0), r.error_msg
    assert nav.feedback and 1.4 < nav.feedback[-1].angular_distance_traveled < 1.75
    turned = math.remainder(s.where()[2] - before[2], math.tau)
    assert 1.45 < turned < 1.75, turned
    before = s.where()
    status, r = nav.run("backup", BackUp.Goal(target=Point(x=0.15), speed=0.1, time_allowance=Duration(sec=10)))
    assert (status, r.error_code) == (GoalStatus.STATUS_SUCCEEDED, 0), r.error_msg
    assert nav.feedback[-1].distance_traveled >= 0.14
    after = s.where()
    back = -((after[0] - before[0]) * math.cos(before[2]) + (after[1] - before[1]) * math.sin(before[2]))
    assert 0.13 < back < 0.2, f"backed up {back:.3f} m"
    status, r = nav.run("drive_on_heading",
                        DriveOnHeading.Goal(target=Point(x=0.15), speed=0.1, time_allowance=Duration(sec=10)))
    assert (status, r.error_code) == (GoalStatus.STATUS_SUCCEEDED, 0), r.error_msg
    assert r.total_elapsed_time.sec + r.total_elapsed_time.nanosec * 1e-9 > 0.5
    status, r = nav.run("drive_on_heading", DriveOnHeading.Goal(target=Point(x=0.15), speed=-0.1))
    assert (status, r.error_code) == (GoalStatus.STATUS_ABORTED, DriveOnHeading.Result.INVALID_INPUT), r.error_msg
    status, r = nav.run("wait", Wait.Goal(time=Duration(sec=0, nanosec=500_000_000)))
    assert status == GoalStatus.STATUS_SUCCEEDED and nav.feedback, "time_left feedback"

    # cancelTask mid-way: CANCELED, and the base is told to stop.
    nav.send("navigate_to_pose", NavigateToPose.Goal(pose=pose(1.0, 0.4)))
    graph.spin_until(lambda: any(f.distance_remaining > 0.1 for f in nav.feedback), timeout=30.0,
                     what="the goal under way")
    stops = sum(p.name == "Stop" for p in s.tx)
    nav.cancel_task()
    status, r = nav.result()
    assert status == GoalStatus.STATUS_CANCELED
    # The Stop on comms/tx and the result travel on different topics: either may come first.
    graph.spin_until(lambda: sum(p.name == "Stop" for p in s.tx) > stops, timeout=10.0,
                     what="a Stop on comms/tx after the cancel")

    # clearGlobalCostmap / clearLocalCostmap answer.
    for name in ["/global_costmap/clear_entirely_global_costmap", "/local_costmap/clear_entirely_local_costmap"]:
        c = graph.node.create_client(ClearEntireCostmap, name)
        graph.wait_for_service(c, name)
        graph.wait_future(c.call_async(ClearEntireCostmap.Request()), what=name)


def test_an_initial_pose_sent_before_the_stack_is_up(graph):
    # Before the stack: the launch argument's way (AMCL's set_initial_pose). The base runs
    # without its board for a while, then the board comes: the pose lands with its first
    # odometry.
    latched = qos.latched(1)
    s = Stack(graph, start_board=False, base_params=dict(set_initial_pose=True, initial_pose_x=0.4,
                                                         initial_pose_y=1.1, initial_pose_yaw=0.3))
    amcl = graph.collect(PoseWithCovarianceStamped, "/amcl_pose", latched)
    graph.wait_for_publisher("/amcl_pose")
    graph.spin_for(2.0)
    assert not amcl, "no pose before any odometry"
    s.start_board()

    def at(x, y, yaw):
        def ok():
            if not amcl:
                return False
            p = amcl[-1].pose.pose
            return math.hypot(p.position.x - x, p.position.y - y) < 0.01 and abs(yaw_of(p.orientation) - yaw) < 0.01
        return ok

    graph.spin_until(at(0.4, 1.1, 0.3), timeout=30.0, what="amcl_pose at the initial pose")
    a = amcl[-1]
    assert a.header.frame_id == "map"
    assert a.pose.covariance[0] > 0 and a.pose.covariance[35] > 0
    # The board's odometry is unchanged (odom -> base_link): map -> odom moved.
    o = s.odom[-1].pose.pose.position
    assert math.hypot(o.x - 0.3, o.y - 1.0) < 0.02, (o.x, o.y)
    # setInitialPose as BasicNavigator sends it (volatile, depth 10), twice: applied once.
    pub = graph.node.create_publisher(PoseWithCovarianceStamped, "/initialpose", 10)
    graph.wait_for_subscriber("/initialpose")
    est = PoseWithCovarianceStamped()
    est.header.frame_id = "map"
    est.pose.pose = pose(0.6, 0.9, -0.5).pose
    pub.publish(est)
    graph.spin_until(at(0.6, 0.9, -0.5), timeout=30.0, what="amcl_pose at setInitialPose's pose")
    pub.publish(est)
    diagnostics = Diagnostics(graph)
    graph.spin_until(lambda: (diagnostics.counter_in("base", "pose_estimates_repeated") or 0) >= 1,
                     timeout=30.0, what="the repeated estimate counted")
    assert diagnostics.counter_in("base", "pose_estimates") == 1
    # A late subscriber (BasicNavigator's amcl_pose QoS) gets the pose at once.
    late = graph.collect(PoseWithCovarianceStamped, "/amcl_pose", latched)
    graph.spin_until(lambda: late, what="amcl_pose for a late subscriber")


def test_plain_twist_at_10hz_moves_the_base_and_a_stamped_publisher_is_named(graph):
    s = Stack(graph)
    diagnostics = Diagnostics(graph)
    pub = graph.node.create_publisher(Twist, "/cmd_vel", 10)
    graph.wait_for_subscriber("/cmd_vel")
    start = s.where()
    for _ in range(20):  # teleop_twist_keyboard's rate and message
        pub.publish(Twist(linear=Vector3(x=0.2)))
        graph.spin_for(0.1)
    moved = math.hypot(s.where()[0] - start[0], s.where()[1] - start[1])
    assert moved > 0.1, f"plain Twist moved the base only {moved:.3f} m"
    assert any(p.name == "DriveSpeed" for p in s.tx)
    # A TwistStamped publisher on the same topic: never matched; the base names it.
    # (Its own participant: Fast DDS refuses two types on one topic in one participant.)
    context = rclpy.context.Context()
    rclpy.init(context=context, domain_id=graph.domain_id)
    other = rclpy.create_node("stamped_teleop", context=context)
    other.create_publisher(TwistStamped, "/cmd_vel", 10)
    graph.spin_until(lambda: "/stamped_teleop" in graph.output(s.base) and "cmd_vel_stamped:=true" in graph.output(s.base),
                     timeout=30.0, what="the warning naming the TwistStamped publisher")
    line = next(l for l in graph.output(s.base).splitlines() if "/stamped_teleop" in l)
    assert "geometry_msgs/msg/TwistStamped" in line and "WARN" in line.upper(), line
    graph.spin_until(lambda: (diagnostics.counter_in("base", "wrong_type_peers") or 0) >= 1, timeout=30.0,
                     what="wrong_type_peers on /diagnostics")
    graph.spin_for(2.5)
    lines = [l for l in graph.output(s.base).splitlines() if "/stamped_teleop" in l]
    assert len(lines) == 1, "logged once"
    other.destroy_node()
    rclpy.shutdown(context=context)
