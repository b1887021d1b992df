"""arnie_base on the real stack: planner (the table scenario as its map), comms_bridge over
a pty to the simulated motor board (board_sim), arnie_base; rclpy as the action client.

- a goal is reached (odometry on /odom, the pose at the goal); bad goals (NaN, off the
  table, inside an obstacle) are refused with a reason and the robot does not move;
- the board dies mid-move (SIGKILL): LINK_LOST, and no DriveSpeed after the result; a
  new board (a new pty: the bridge is restarted on its path, as comms_bridge does not
  reopen a serial port) lets the next goal succeed;
- the opponent plugs the alcove mouth: the base marks it on the planner's map (99 cells on
  /map), re-plans, and after max_failures returns BLOCKED;
- 5 % corrupted bytes on the serial link: the goal is still reached and the bridge counts
  the corruption;
- REP 105: with arnie_state serving the base's URDF, over a drive `/tf` + `/tf_static`
  hold map -> odom -> base_link -> every URDF link, odom -> base_link equals /odom's pose,
  the odometry's covariances are non-zero and grow with the distance driven, proximity
  reports come as sensor_msgs/Range in sensor frames of the tree, every stamped topic's
  frame is in the tree; a pose estimate on /initialpose moves map -> odom (and
  base/pose), odometry goes on unchanged; an estimate in another frame is refused and
  counted;
- cmd_vel (TwistStamped at 20 Hz, `cmd_vel_stamped: true`) drives the board, silence stops it (one Stop, no
  DriveSpeed after it); a manual command during a goal preempts the goal; NaN and
  foreign-frame commands are counted, never sent;
- nav2_msgs/NavigateToPose from an rclpy ActionClient: a goal in `map` is reached with a
  decreasing distance_remaining; a goal in `odom` after a pose estimate lands where the
  transform says; a goal in the rock: ABORTED with GOAL_OCCUPIED (206) and the reason; a
  frame unknown to TF: TF_ERROR (9002) naming both frames; rviz's goal_pose drives there.
"""
import json
import math
import signal

from action_msgs.msg import GoalStatus
from arnie_interfaces.action import NavigateTo
from arnie_interfaces.msg import Packet
from helpers.diagnostics import Diagnostics
from helpers.graph import ROOT
from helpers import qos
from geometry_msgs.msg import PoseStamped, PoseWithCovarianceStamped, TwistStamped
from nav2_msgs.action import NavigateToPose
from nav_msgs.msg import OccupancyGrid, Odometry, Path
from rclpy.qos import HistoryPolicy, qos_profile_sensor_data
from sensor_msgs.msg import Range
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage
import xml.etree.ElementTree as ET
from rclpy.action import ActionClient
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

PACKETS = ROOT / "nodes" / "lib" / "arnie_packets" / "packets"
TABLE = ROOT / "params" / "eurobot" / "table.json"
SCENARIO = json.loads(TABLE.read_text())
RADIUS = SCENARIO["robot"]["radius_m"]
ACTION = "/base/navigate_to"


class Stack:
    """board_sim + comms_bridge + planner + arnie_base, and the client side."""

    def __init__(self, graph, board_args=(), base_params=None):
        self.graph = graph
        self.board_args = list(board_args)
        self.board = None
        self.bridge = None
        self.start_board_and_bridge()
        graph.start("planner", params=dict(map_file=str(TABLE), resolution_m=0.02, robot_radius_m=RADIUS, frame_id="map"))
        self.base = graph.start("base", params=dict(robot_radius_m=RADIUS, **(base_params or {})))
        self.odom = graph.collect(Odometry, "/odom")
        self.tx = graph.collect(Packet, "/comms/tx")
        self.diagnostics = Diagnostics(graph)
        latched = qos.latched(1)
        self.maps = graph.collect(OccupancyGrid, "/map", latched)
        self.client = ActionClient(graph.node, NavigateTo, ACTION)
        graph.wait_for_action(self.client, ACTION, timeout=60.0)
        self.wait_for_odometry()

    def start_board_and_bridge(self):
        g = self.graph
        link = g.tmp / f"board-{len(g.procs)}.link"
        self.board = g.start("board_sim", "--scenario", str(TABLE), "--packets", str(PACKETS), "pty",
                             "--link-file", str(link), *self.board_args)
        g.spin_until(link.exists, what="board_sim's link file")
        self.bridge = g.start("comms_bridge", params=dict(packets_dir=str(PACKETS), transport="uart",
                                                          serial_port=link.read_text().strip()))

    def wait_for_odometry(self):
        n = len(self.odom)
        self.graph.spin_until(lambda: len(self.odom) > n + 5, timeout=60.0, what="odometry on /odom")

    def navigate(self, x, y, theta=None, timeout=90.0, on_feedback=None):
        goal = NavigateTo.Goal(x=float(x), y=float(y), theta=float(theta or 0.0), use_heading=theta is not None)
        sent = self.client.send_goal_async(goal, feedback_callback=on_feedback)
        handle = self.graph.wait_future(sent, what="the goal's acceptance")
        assert handle.accepted
        got = self.graph.wait_future(handle.get_result_async(), timeout=timeout, what="the NavigateTo result")
        return got.status, got.result


def test_reaches_a_goal_and_refuses_bad_goals(graph):
    s = Stack(graph)
    status, r = s.navigate(1.0, 0.6, theta=-1.0)
    assert (status, r.outcome) == (GoalStatus.STATUS_SUCCEEDED, NavigateTo.Result.REACHED), r.message
    assert math.hypot(r.pose.position.x - 1.0, r.pose.position.y - 0.6) < 0.06, r.pose
    assert r.driven_m > 0.5
    last = s.odom[-1]
    assert (last.header.frame_id, last.child_frame_id) == ("odom", "base_link")
    assert math.hypot(last.pose.pose.position.x - 1.0, last.pose.pose.position.y - 0.6) < 0.08
    assert any(p.name == "DriveSpeed" for p in s.tx)
    # The map the planner loaded from the scenario is on /map for rviz (latched).
    graph.spin_until(lambda: s.maps, what="/map")
    assert s.maps[-1].header.frame_id == "map" and 100 in s.maps[-1].data
    here = (last.pose.pose.position.x, last.pose.pose.position.y)
    for (x, y), why in [((float("nan"), 1.0), "not finite"), ((3.5, 1.0), "outside"),
                        ((1.5, 1.1), "blocked")]:  # the rock's centre
        status, r = s.navigate(x, y)
        assert (status, r.outcome) == (GoalStatus.STATUS_ABORTED, NavigateTo.Result.REJECTED), (x, y, r.message)
        assert why in r.message, r.message
    now = s.odom[-1].pose.pose.position
    assert math.hypot(now.x - here[0], now.y - here[1]) < 0.03, "refused goals do not move the robot"


def test_link_lost_mid_move_then_a_new_board(graph):
    s = Stack(graph, base_params=dict(link_timeout_s=0.5))
    driving = []

    def on_feedback(fb):
        if fb.feedback.phase == NavigateTo.Feedback.DRIVING:
            driving.append(fb)

    goal = NavigateTo.Goal(x=1.2, y=0.4, theta=0.0, use_heading=False)
    handle = graph.wait_future(s.client.send_goal_async(goal, feedback_callback=on_feedback), what="acceptance")
    assert handle.accepted
    graph.spin_until(lambda: driving, timeout=60.0, what="the robot driving")
    s.board.must_live = False
    s.board.send_signal(signal.SIGKILL)
    got = graph.wait_future(handle.get_result_async(), timeout=30.0, what="LINK_LOST")
    assert got.result.outcome == NavigateTo.Result.LINK_LOST, got.result.message
    assert "no odometry" in got.result.message
    sent = len(s.tx)
    graph.spin_for(1.0)
    assert [p.name for p in s.tx[sent:] if p.name == "DriveSpeed"] == [], "no motion commands after LINK_LOST"
    assert any(p.name == "Stop" for p in s.tx), "the motors were stopped"
    # A new board on a new pty; the bridge follows it.
    graph.stop(s.bridge)
    s.start_board_and_bridge()
    s.wait_for_odometry()
    status, r = s.navigate(0.8, 1.3)
    assert (status, r.outcome) == (GoalStatus.STATUS_SUCCEEDED, NavigateTo.Result.REACHED), r.message


def test_the_opponent_in_the_alcove_mouth_gives_blocked(graph):
    s = Stack(graph, base_params=dict(max_failures=3, mark_ttl_s=20.0))
    replans = []
    # The opponent starts with the robot's first motion, reaches the mouth about 2.8 s
    # later and stays 22 s.
    status, r = s.navigate(2.5, 1.65, on_feedback=lambda fb: replans.append(fb.feedback.replans), timeout=120.0)
    assert r.outcome in (NavigateTo.Result.BLOCKED, NavigateTo.Result.NO_PATH), r.message
    assert r.outcome == NavigateTo.Result.BLOCKED, r.message
    assert r.replans >= 1 and max(replans) >= 1
    # Any /map since the start: under load the goal can outlast a mark's ttl, and the
    # planner republishes /map without the expired mark.
    graph.spin_until(lambda: any(99 in m.data for m in s.maps), timeout=30.0,
                     what="the opponent marked on /map (99)")
    graph.spin_until(lambda: (s.diagnostics.counter_in("base", "obstacle_stops") or 0) >= 1, timeout=30.0,
                     what="obstacle_stops on /diagnostics")


def test_corrupted_bytes_still_reach_the_goal(graph):
    s = Stack(graph, board_args=["--corrupt-rate", "0.05", "--seed", "3", "--watchdog-ms", "1000"],
              base_params=dict(link_timeout_s=2.0, progress_timeout_s=5.0))
    status, r = s.navigate(1.0, 0.6)
    assert (status, r.outcome) == (GoalStatus.STATUS_SUCCEEDED, NavigateTo.Result.REACHED), r.message

    def corrupted():
        v = [s.diagnostics.counter_in("comms_bridge", k) for k in ("checksum", "garbage_bytes")]
        return any(x for x in v if x)
    graph.spin_until(corrupted, what="corruption counted by comms_bridge")


BASE_URDF = ROOT / "nodes" / "arnie_bringup" / "urdf" / "eurobot_base.urdf"
TF_STATIC = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=100, reliability=ReliabilityPolicy.RELIABLE,
                       durability=DurabilityPolicy.TRANSIENT_LOCAL)
TF = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=100, reliability=ReliabilityPolicy.RELIABLE,
                durability=DurabilityPolicy.VOLATILE)


def yaw(q):
    return 2.0 * math.atan2(q.z, q.w)


def planar(t):
    """(x, y, yaw) of a geometry_msgs/Transform."""
    return (t.translation.x, t.translation.y, yaw(t.rotation))


def root_of(edges, frame):
    """The root frame reached from `frame` up its parents (None: a loop)."""
    seen = set()
    while frame in edges:
        if frame in seen:
            return None
        seen.add(frame)
        frame = edges[frame][0]
    return frame


def test_rep_105_frames_ranges_and_a_pose_estimate(graph):
    s = Stack(graph)
    graph.start("state_publisher", params=dict(robot_description_file=str(BASE_URDF), tool_link="''"))
    statics = graph.collect(TFMessage, "/tf_static", TF_STATIC)
    dynamic = graph.collect(TFMessage, "/tf", TF)
    poses = graph.collect(PoseStamped, "/base/pose")
    ranges = graph.collect(Range, "/base/range", qos_profile_sensor_data)
    paths = graph.collect(Path, "/planner/path", 10)
    latched = qos.latched(1)
    descriptions = graph.collect(String, "/robot_description", latched)
    graph.spin_until(lambda: descriptions and statics and dynamic and ranges, timeout=60.0,
                     what="robot_description, /tf_static, /tf and a Range (the wall behind the robot)")
    assert descriptions[0].data == BASE_URDF.read_text()
    start_odom = s.odom[-1]
    start_cov = list(start_odom.pose.covariance)
    assert start_cov[0] > 0 and start_cov[7] > 0 and start_cov[35] > 0, start_cov

    status, r = s.navigate(1.0, 0.6, theta=-1.0)
    assert (status, r.outcome) == (GoalStatus.STATUS_SUCCEEDED, NavigateTo.Result.REACHED), r.message
    graph.spin_for(0.5)
    edges = {}
    for msg in statics + dynamic:
        for t in msg.transforms:
            edges[t.child_frame_id] = (t.header.frame_id, t.transform)
    assert edges["odom"][0] == "map" and edges["base_link"][0] == "odom"
    assert planar(edges["odom"][1]) == (0.0, 0.0, 0.0), "map -> odom is identity until an estimate"
    links = [link.get("name") for link in ET.fromstring(BASE_URDF.read_text()).findall("link")]
    for link in links:
        assert root_of(edges, link) == "map", f"{link} has no path to map: {sorted(edges)}"
    # odom -> base_link on /tf is /odom's pose, sample for sample (same stamps).
    odom_by_stamp = {(o.header.stamp.sec, o.header.stamp.nanosec): o for o in s.odom}
    matched = 0
    for msg in dynamic:
        for t in msg.transforms:
            o = odom_by_stamp.get((t.header.stamp.sec, t.header.stamp.nanosec))
            if t.child_frame_id == "base_link" and o is not None:
                p = o.pose.pose
                assert math.isclose(t.transform.translation.x, p.position.x, abs_tol=1e-9)
                assert math.isclose(t.transform.translation.y, p.position.y, abs_tol=1e-9)
                assert math.isclose(yaw(t.transform.rotation), yaw(p.orientation), abs_tol=1e-9)
                matched += 1
    assert matched > 10, matched
    # Covariances grow with the distance driven (the board's noise model).
    end = s.odom[-1]
    assert (end.header.frame_id, end.child_frame_id) == ("odom", "base_link")
    assert end.pose.covariance[0] > start_cov[0] and end.pose.covariance[35] > start_cov[35]
    assert end.twist.covariance[0] > 0 and end.twist.covariance[35] > 0
    # Proximity readings: in sensor frames of the URDF, within their reach.
    assert {m.header.frame_id for m in ranges} <= {l for l in links if l.startswith("range_")}, ranges[-1]
    assert all(0.0 <= m.range <= m.max_range and m.max_range > 0 for m in ranges)
    # Every stamped topic names a frame of the tree.
    tree = set(edges) | {"map"}
    stamped = {"/odom": s.odom, "/base/pose": poses, "/base/range": ranges, "/map": s.maps, "/planner/path": paths}
    for topic, msgs in stamped.items():
        assert msgs, topic
        assert {m.header.frame_id for m in msgs} <= tree, (topic, {m.header.frame_id for m in msgs})
    assert {o.child_frame_id for o in s.odom} <= tree

    # A pose estimate (rviz's 2D Pose Estimate): the robot is 0.1 m further along x, turned.
    here = poses[-1].pose
    est = PoseWithCovarianceStamped()
    est.header.frame_id = "map"
    est.pose.pose.position.x = here.position.x + 0.1
    est.pose.pose.position.y = here.position.y
    est.pose.pose.orientation.z = math.sin(0.25)
    est.pose.pose.orientation.w = math.cos(0.25)
    pub = graph.node.create_publisher(PoseWithCovarianceStamped, "/initialpose", 10)
    graph.wait_for_subscriber("/initialpose")
    odom_before = s.odom[-1].pose.pose.position
    n = len(poses)
    pub.publish(est)

    def estimated():
        return any(math.isclose(p.pose.position.x, here.position.x + 0.1, abs_tol=0.01)
                   and math.isclose(yaw(p.pose.orientation), 0.5, abs_tol=0.02) for p in poses[n:])
    graph.spin_until(estimated, timeout=20.0, what="base/pose at the estimate")
    odom_after = s.odom[-1].pose.pose.position
    assert math.hypot(odom_after.x - odom_before.x, odom_after.y - odom_before.y) < 0.01, "odometry unchanged"
    k = len(dynamic)
    graph.spin_until(lambda: any(t.child_frame_id == "odom" and planar(t.transform) != (0.0, 0.0, 0.0)
                                 for m in dynamic[k:] for t in m.transforms), what="map -> odom moved")
    # An estimate in another frame: refused and counted.
    bad = PoseWithCovarianceStamped()
    bad.header.frame_id = "odom"
    bad.pose.pose.orientation.w = 1.0
    pub.publish(bad)
    graph.spin_until(lambda: (s.diagnostics.counter_in("base", "pose_estimates_refused") or 0) >= 1, timeout=30.0,
                     what="pose_estimates_refused on /diagnostics")
    assert s.diagnostics.counter_in("base", "pose_estimates") == 1


def odom_xy(s):
    p = s.odom[-1].pose.pose.position
    return p.x, p.y


def test_cmd_vel_drives_silence_stops_and_a_manual_command_preempts_a_goal(graph):
    # TwistStamped (cmd_vel_stamped: true; plain Twist, the default, in test_base_nav2.py):
    # the stamped form is the one whose frame is checked.
    s = Stack(graph, base_params=dict(cmd_vel_timeout_s=0.4, cmd_vel_stamped=True))
    pub = graph.node.create_publisher(TwistStamped, "/cmd_vel", 10)
    graph.wait_for_subscriber("/cmd_vel")

    last_sent = [0.0]

    def command(v, w, frame="base_link"):
        t = TwistStamped()
        t.header.frame_id = frame
        t.header.stamp = graph.node.get_clock().now().to_msg()
        t.twist.linear.x, t.twist.angular.z = v, w
        pub.publish(t)
        last_sent[0] = graph.node.get_clock().now().nanoseconds * 1e-9

    start = odom_xy(s)
    # Forward at 0.2 m/s for 1.5 s (20 Hz), as a teleop node would.
    for _ in range(30):
        command(0.2, 0.0)
        graph.spin_for(0.05)
    moved = math.dist(odom_xy(s), start)
    assert moved > 0.1, f"cmd_vel moved the base only {moved:.3f} m"
    last_command = last_sent[0]
    sent = len(s.tx)
    graph.spin_until(lambda: any(p.name == "Stop" for p in s.tx[sent:]), timeout=10.0,
                     what="a Stop after cmd_vel went silent")
    stops = [p for p in s.tx[sent:] if p.name == "Stop"]
    stop_at = stops[0].stamp.sec + stops[0].stamp.nanosec * 1e-9
    # The node takes a command after it was published, and stops cmd_vel_timeout_s later.
    assert stop_at - last_command >= 0.4 - 0.01, ("not before cmd_vel_timeout_s", stop_at - last_command)
    after = s.tx.index(stops[0])
    graph.spin_for(0.5)
    assert [p.name for p in s.tx[after:] if p.name == "DriveSpeed"] == [], "no motion after the watchdog's Stop"
    graph.spin_until(lambda: abs(s.odom[-1].twist.twist.linear.x) < 1e-3, what="the base still")

    # 1 kHz of commands is 1 kHz of target updates, not of packets: at most one DriveSpeed
    # per control period (tick_ms 20: 50 per second; fewer under load, never more).
    sent = len(s.tx)
    t_start = graph.node.get_clock().now().nanoseconds * 1e-9
    for _ in range(1000):
        command(0.1, 0.0)
        if _ % 50 == 0:
            graph.spin_for(0.0)
    elapsed = graph.node.get_clock().now().nanoseconds * 1e-9 - t_start
    graph.spin_until(lambda: any(p.name == "Stop" for p in s.tx[sent:]), timeout=10.0, what="the Stop after the burst")
    drives = [p for p in s.tx[sent:] if p.name == "DriveSpeed"]
    assert 0 < len(drives) <= 50 * (elapsed + 0.4 + 0.2) + 3, (len(drives), elapsed)

    # NaN and a foreign frame: counted, nothing sent.
    sent = len(s.tx)
    command(float("nan"), 0.0)
    command(0.2, 0.0, frame="map")
    graph.spin_until(lambda: (s.diagnostics.counter_in("base", "cmd_vel_not_finite") or 0) >= 1
                     and (s.diagnostics.counter_in("base", "cmd_vel_wrong_frame") or 0) >= 1, timeout=30.0,
                     what="cmd_vel_not_finite and cmd_vel_wrong_frame on /diagnostics")
    assert [p.name for p in s.tx[sent:] if p.name == "DriveSpeed"] == []

    # A manual command during a goal preempts it (the operator wins).
    driving = []
    goal = NavigateTo.Goal(x=1.0, y=0.6, theta=0.0, use_heading=False)
    handle = graph.wait_future(s.client.send_goal_async(
        goal, feedback_callback=lambda fb: driving.append(fb) if fb.feedback.phase == NavigateTo.Feedback.DRIVING else None),
        what="acceptance")
    assert handle.accepted
    graph.spin_until(lambda: driving, timeout=60.0, what="the robot driving")
    command(0.0, 0.5)
    got = graph.wait_future(handle.get_result_async(), timeout=30.0, what="the preempted result")
    assert got.result.outcome == NavigateTo.Result.PREEMPTED, got.result.message
    assert "manual" in got.result.message and "cmd_vel" in got.result.message, got.result.message


def nav2_pose(x, y, yaw=0.0, frame="map"):
    g = NavigateToPose.Goal()
    g.pose.header.frame_id = frame
    g.pose.pose.position.x, g.pose.pose.position.y = float(x), float(y)
    g.pose.pose.orientation.z, g.pose.pose.orientation.w = math.sin(yaw / 2), math.cos(yaw / 2)
    return g


def test_nav2_navigate_to_pose_in_map_and_odom_errors_and_goal_pose(graph):
    s = Stack(graph)
    nav2 = ActionClient(graph.node, NavigateToPose, "/navigate_to_pose")
    graph.wait_for_action(nav2, "/navigate_to_pose", timeout=60.0)
    poses = graph.collect(PoseStamped, "/base/pose")

    def send(goal, timeout=90.0):
        feedback = []
        handle = graph.wait_future(nav2.send_goal_async(goal, feedback_callback=lambda f: feedback.append(f.feedback)),
                                   what="the goal's acceptance")
        assert handle.accepted
        got = graph.wait_future(handle.get_result_async(), timeout=timeout, what="the NavigateToPose result")
        return got.status, got.result, feedback

    status, r, fb = send(nav2_pose(1.0, 0.6, -1.0))
    assert (status, r.error_code) == (GoalStatus.STATUS_SUCCEEDED, 0), r.error_msg
    assert math.dist(odom_xy(s), (1.0, 0.6)) < 0.08
    assert len(fb) >= 3 and fb[-1].distance_remaining < fb[0].distance_remaining, [f.distance_remaining for f in fb]
    assert fb[0].current_pose.header.frame_id == "map"

    # A pose estimate 0.1 m further along x: map -> odom moves; a goal in odom lands there.
    graph.spin_until(lambda: poses, what="base/pose")
    here = poses[-1].pose
    est = PoseWithCovarianceStamped()
    est.header.frame_id = "map"
    est.pose.pose = here
    est.pose.pose.position.x = here.position.x + 0.1
    pub = graph.node.create_publisher(PoseWithCovarianceStamped, "/initialpose", 10)
    graph.wait_for_subscriber("/initialpose")
    pub.publish(est)
    graph.spin_until(lambda: (s.diagnostics.counter_in("base", "pose_estimates") or 0) >= 1, timeout=30.0, what="the estimate taken")
    status, r, _ = send(nav2_pose(0.7, 0.9, 0.0, frame="odom"))
    assert (status, r.error_code) == (GoalStatus.STATUS_SUCCEEDED, 0), r.error_msg
    assert math.dist(odom_xy(s), (0.7, 0.9)) < 0.08, odom_xy(s)
    p = poses[-1].pose.position
    assert math.dist((p.x, p.y), (0.8, 0.9)) < 0.08, "in map: the odom goal plus the estimate's shift"

    # Errors: into the rock, a frame nobody publishes, NaN.
    status, r, _ = send(nav2_pose(1.6, 1.1))  # in the rock (centre 1.5, 1.1, radius 0.12)
    assert (status, r.error_code) == (GoalStatus.STATUS_ABORTED, 206), (r.error_code, r.error_msg)
    assert "blocked" in r.error_msg or "obstacle" in r.error_msg, r.error_msg
    status, r, _ = send(nav2_pose(1.0, 1.0, frame="nowhere"))
    assert (status, r.error_code) == (GoalStatus.STATUS_ABORTED, 9002), (r.error_code, r.error_msg)
    assert "nowhere" in r.error_msg and "map" in r.error_msg, r.error_msg
    status, r, _ = send(nav2_pose(float("nan"), 1.0))
    assert (status, r.error_code) == (GoalStatus.STATUS_ABORTED, 9000), (r.error_code, r.error_msg)
    assert "not finite" in r.error_msg, r.error_msg

    # A storm of goals: each preempts the one before (ABORTED, 9000, "preempted"), the
    # last one is reached.
    handles = []
    for i in range(8):
        handles.append(graph.wait_future(nav2.send_goal_async(nav2_pose(0.6 + 0.02 * i, 0.7)), what="acceptance"))
    ends = [graph.wait_future(h.get_result_async(), timeout=90.0, what="a storm goal's end") for h in handles]
    assert (ends[-1].status, ends[-1].result.error_code) == (GoalStatus.STATUS_SUCCEEDED, 0), ends[-1].result.error_msg
    for e in ends[:-1]:
        assert (e.status, e.result.error_code) == (GoalStatus.STATUS_ABORTED, 9000), (e.status, e.result.error_msg)
        assert "preempted" in e.result.error_msg, e.result.error_msg

    # rviz's 2D Goal Pose: no client, the base drives there.
    goal_pub = graph.node.create_publisher(PoseStamped, "/goal_pose", 10)
    graph.wait_for_subscriber("/goal_pose")
    target = nav2_pose(0.6, 0.6, frame="map").pose
    goal_pub.publish(target)
    graph.spin_until(lambda: math.dist(odom_xy(s), (0.5, 0.6)) < 0.08
                     and abs(s.odom[-1].twist.twist.linear.x) < 1e-3, timeout=90.0,
                     what="the base at the goal_pose (odom: map minus the 0.1 m shift)")
