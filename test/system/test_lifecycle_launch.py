"""Managed nodes in the launched stacks, driven with the real `ros2 lifecycle` CLI and
from rclpy, with `ros2 launch` and with `cargo xtask launch`.

- arnie.launch.xml (autostart by default): lifecycle_manager brings sim, spine_bridge,
  trajectory_server and brain up; `ros2 lifecycle nodes` lists them, `get` says active,
  `list` the transitions from there; `set /spine_bridge deactivate`: not one message on
  the spine's data topics (/arm/position, /eyes/observations) while it is inactive, the
  other nodes untouched; `set activate`: they flow again; /diagnostics shows the state.
- arnie.launch.xml autostart:=false: the nodes wait unconfigured, `set configure` and
  `set activate` bring one up.
- eurobot.launch.xml: `set /eurobot/base deactivate`: the base sends Stop on comms/tx and
  then not one message on odom, base/pose, /tf (its odometry) while inactive; a goal is
  refused with the reason; activate: they flow again.
- Nav2's clients: `base/get_state` active in the namespace (what `waitUntilNav2Active(
  navigator='base', localizer='base')` asks), then a `navigate_to_pose` goal succeeds.
- the flame task passes after a PAUSE and a RESUME of the whole arm in the middle of it
  (lifecycle_manager's manage_nodes, as Nav2's clients call it).
- the spine's configure fails while its arm port is in use (the reason on the transition
  event and in the log, the node unconfigured) and succeeds once the port is free.
"""
import json
import socket
import random

import pytest
from action_msgs.msg import GoalStatus
from arnie_interfaces.action import NavigateTo
from arnie_interfaces.msg import Coordinates, Packet
from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import PointStamped, PoseStamped
from nav2_msgs.action import NavigateToPose
from nav2_msgs.srv import ManageLifecycleNodes
from nav_msgs.msg import Odometry
from rclpy.action import ActionClient
from rclpy.qos import qos_profile_sensor_data
from std_srvs.srv import Trigger

from helpers import qos
from helpers.graph import ROS2
from helpers.launch import STARTUP_S, launcher_cmd
from helpers.lifecycle import LifecycleClient
from helpers.ports import spine_sim_config
from helpers.stack import PARAMS, Stack

ARM_MANAGED = ["sim", "spine_bridge", "trajectory_server", "brain"]
EUROBOT_MANAGED = ["planner", "comms_bridge", "lidar", "base", "strategy"]
LAUNCHERS = ["ros2", "xtask"] if ROS2 else ["xtask"]


def lifecycle(graph, *args):
    """`ros2 lifecycle ARGS`, retried while the CLI's discovery has not found the node."""
    for _ in range(20):
        r = graph.ros2("lifecycle", *args, timeout=60.0)
        if "Node not found" not in r.stdout + r.stderr and r.returncode == 0:
            return r.stdout
        graph.spin_for(0.5)
    pytest.fail(f"ros2 lifecycle {' '.join(args)}: {r.stdout}{r.stderr}\n" + graph.logs())


def lifecycle_nodes(graph, expected):
    """`ros2 lifecycle nodes` once the CLI's own discovery sees every expected node."""
    for _ in range(15):
        out = graph.ros2("lifecycle", "nodes", "--no-daemon", "--spin-time", "2", timeout=60.0).stdout
        if all(n in out.split() for n in expected):
            return out.split()
    pytest.fail(f"ros2 lifecycle nodes never listed {expected}: {out}\n" + graph.logs())


def is_active(graph, name):
    client = graph.node.create_client(Trigger, f"{name}/is_active")
    graph.wait_for_service(client, f"{name}/is_active", STARTUP_S)
    return lambda: graph.wait_future(client.call_async(Trigger.Request()), 30.0, "is_active").success


@pytest.mark.long(120)
@pytest.mark.parametrize("launcher", LAUNCHERS)
def test_the_arm_comes_up_managed_and_an_inactive_spine_is_silent(graph, tmp_path, launcher):
    config = spine_sim_config(tmp_path / "spine.json")
    graph.launch(*launcher_cmd(launcher, "arnie.launch.xml", f"spine_config:={config}", "period_ms:=10"),
                 name=launcher)
    active = is_active(graph, "/lifecycle_manager")
    graph.spin_until(active, STARTUP_S, "lifecycle_manager: every node active")
    nodes = lifecycle_nodes(graph, [f"/{n}" for n in ARM_MANAGED])
    assert "/state_publisher" not in nodes and "/lifecycle_manager" not in nodes, nodes
    assert lifecycle(graph, "get", "/spine_bridge").strip() == "active [3]"
    listed = lifecycle(graph, "list", "/spine_bridge")
    assert "- deactivate [4]" in listed and "- shutdown [7]" in listed, listed

    positions = graph.collect(PointStamped, "/arm/position", qos_profile_sensor_data)
    observations = graph.collect(Coordinates, "/eyes/observations", qos_profile_sensor_data)
    graph.spin_until(lambda: positions and observations, 30.0, "the spine's data")
    out = lifecycle(graph, "set", "/spine_bridge", "deactivate")
    assert "Transitioning successful" in out, out
    assert lifecycle(graph, "get", "/spine_bridge").strip() == "inactive [2]"
    graph.spin_for(0.5)  # messages already on their way
    positions.clear()
    observations.clear()
    graph.spin_for(2.0)
    assert positions == [] and observations == [], (len(positions), len(observations))
    assert lifecycle(graph, "get", "/trajectory_server").strip() == "active [3]"
    # The manager's heartbeat notices: is_active is false while one node is not active.
    graph.spin_until(lambda: not active(), 15.0, "is_active false")
    diagnostics = graph.collect(DiagnosticArray, "/diagnostics", qos.reliable(100))

    def spine_state():
        for a in reversed(diagnostics):
            for s in a.status:
                if s.name == "/spine_bridge: lifecycle":
                    return {kv.key: kv.value for kv in s.values}.get("state")
        return None
    graph.spin_until(lambda: spine_state() == "inactive", 10.0, "the lifecycle state on /diagnostics")
    out = lifecycle(graph, "set", "/spine_bridge", "activate")
    assert "Transitioning successful" in out, out
    graph.spin_until(lambda: positions and observations, 10.0, "the spine's data again")
    graph.spin_until(active, 15.0, "is_active true again")


@pytest.mark.parametrize("launcher", LAUNCHERS)
def test_autostart_false_leaves_the_nodes_unconfigured(graph, tmp_path, launcher):
    config = spine_sim_config(tmp_path / "spine.json")
    graph.launch(*launcher_cmd(launcher, "arnie.launch.xml", f"spine_config:={config}", "autostart:=false"),
                 name=launcher)
    graph.wait_for_nodes(["/lifecycle_manager"] + [f"/{n}" for n in ARM_MANAGED], STARTUP_S)
    for n in ARM_MANAGED:
        assert lifecycle(graph, "get", f"/{n}").strip() == "unconfigured [1]", n
    positions = graph.collect(PointStamped, "/arm/position", qos_profile_sensor_data)
    for step in ("configure", "activate"):
        for n in ("sim", "spine_bridge"):
            out = lifecycle(graph, "set", f"/{n}", step)
            assert "Transitioning successful" in out, (n, step, out)
    graph.spin_until(lambda: positions, 30.0, "/arm/position once sim and spine are active")
    assert lifecycle(graph, "get", "/brain").strip() == "unconfigured [1]"


@pytest.mark.long(100)
@pytest.mark.parametrize("launcher", LAUNCHERS)
def test_an_inactive_base_stops_and_is_silent(graph, launcher):
    link = random.randrange(20000, 30000, 2)
    graph.launch(*launcher_cmd(launcher, "eurobot.launch.xml", "namespace:=eurobot", f"link_port:={link}",
                               f"board_port:={link + 1}"), name=launcher)
    active = is_active(graph, "/eurobot/lifecycle_manager")
    graph.spin_until(active, STARTUP_S, "lifecycle_manager: every node active")
    odom = graph.collect(Odometry, "/eurobot/odom", qos.reliable(100))
    pose = graph.collect(PoseStamped, "/eurobot/base/pose", qos.reliable(100))
    tx = graph.collect(Packet, "/eurobot/comms/tx", qos.reliable(100))
    graph.spin_until(lambda: odom and pose, 30.0, "odometry")
    base = LifecycleClient(graph, "/eurobot/base")
    base.wait_ready()
    assert base.change(label="deactivate") is True
    graph.spin_until(lambda: any(p.name == "Stop" for p in tx), 10.0, "Stop on comms/tx")
    graph.spin_for(0.5)
    odom.clear()
    pose.clear()
    tx.clear()
    graph.spin_for(2.0)
    assert (odom, pose, tx) == ([], [], []), (len(odom), len(pose), [p.name for p in tx])
    client = ActionClient(graph.node, NavigateTo, "/eurobot/base/navigate_to")
    graph.wait_for_action(client, "/eurobot/base/navigate_to")
    handle = graph.wait_future(client.send_goal_async(NavigateTo.Goal(x=1.0, y=1.0)), what="the goal response")
    result = graph.wait_future(handle.get_result_async(), what="the result").result
    assert result.outcome == NavigateTo.Result.REJECTED and "not active" in result.message, result
    assert tx == [], [p.name for p in tx]
    assert base.change(label="activate") is True
    graph.spin_until(lambda: odom and pose, 10.0, "odometry again")


@pytest.mark.long(150)
def test_nav2_clients_wait_for_the_base_then_navigate(graph):
    """What `BasicNavigator(namespace='eurobot').waitUntilNav2Active(navigator='base',
    localizer='base')` does: `base/get_state` in the namespace, asked until `active` (once
    for the localizer, once for the navigator); then a `NavigateToPose` goal succeeds."""
    link = random.randrange(20000, 30000, 2)
    graph.launch(*launcher_cmd("xtask", "eurobot.launch.xml", "namespace:=eurobot", f"link_port:={link}",
                               f"board_port:={link + 1}"), name="xtask")
    base = LifecycleClient(graph, "/eurobot/base")
    graph.spin_until(base.get_client.service_is_ready, STARTUP_S, "/eurobot/base/get_state")
    graph.spin_until(lambda: base.state()[1] == "active", STARTUP_S, "the base active (get_state)")
    client = ActionClient(graph.node, NavigateToPose, "/eurobot/navigate_to_pose")
    graph.wait_for_action(client, "/eurobot/navigate_to_pose")
    goal = NavigateToPose.Goal()
    goal.pose.header.frame_id = "map"
    goal.pose.pose.position.x, goal.pose.pose.position.y, goal.pose.pose.orientation.w = 1.0, 0.6, 1.0
    handle = graph.wait_future(client.send_goal_async(goal), what="the goal response")
    assert handle.accepted
    got = graph.wait_future(handle.get_result_async(), timeout=90.0, what="the result")
    assert (got.status, got.result.error_code) == (GoalStatus.STATUS_SUCCEEDED, 0), got.result.error_msg


@pytest.mark.long(150)
def test_the_flame_task_passes_after_a_pause_and_resume_in_the_middle(graph, tmp_path):
    stack = Stack(graph, tmp_path)
    manager = graph.start("lifecycle_manager", params={"node_names": "[sim, spine_bridge, trajectory_server, brain]"})
    manage = graph.node.create_client(ManageLifecycleNodes, "/lifecycle_manager/manage_nodes")
    graph.wait_for_service(manage, "/lifecycle_manager/manage_nodes", STARTUP_S)
    stack.ready()
    stack.run_task()
    stack.wait_lit("taper")
    paused = graph.wait_future(manage.call_async(ManageLifecycleNodes.Request(command=1)), 60.0, "PAUSE")
    assert paused.success, graph.output(manager)
    graph.spin_for(0.5)
    n_positions, n_commands, n_states = len(stack.positions), len(stack.commands), len(stack.states)
    graph.spin_for(3.0)
    assert len(stack.positions) == n_positions, "the spine published while paused"
    assert len(stack.commands) == n_commands, "the trajectory server commanded while paused"
    assert len(stack.states) == n_states, "the brain ticked while paused"
    assert not stack.lit("candle")
    resumed = graph.wait_future(manage.call_async(ManageLifecycleNodes.Request(command=2)), 60.0, "RESUME")
    assert resumed.success, graph.output(manager)
    stack.wait_lit("candle")
    stack.assert_flame_passed_taper_first()


def test_the_spine_configure_fails_on_a_port_in_use_then_succeeds(graph, tmp_path):
    config = spine_sim_config(tmp_path / "spine.json")
    arm_in = json.loads(config.read_text())["interfaces"]["input"]["arm"]["port"]
    holder = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    holder.bind(("127.0.0.1", arm_in))
    spine = graph.start("spine_bridge", params_file=PARAMS / "spine_bridge.yaml",
                        params={"config_file": str(config), "managed": True})
    lc = LifecycleClient(graph, "/spine_bridge")
    lc.wait_ready()
    assert lc.change(label="configure") is False
    assert lc.state() == (1, "unconfigured")
    events = lc.wait_events(2)
    reason = f'input "arm": cannot bind 127.0.0.1:{arm_in}'
    assert events[-1].goal_state.label == "unconfigured"
    assert events[-1].transition.label.startswith("transition_failure: " + reason), events[-1].transition
    graph.spin_until(lambda: reason in graph.output(spine), 5.0, "the reason in the spine's log")
    holder.close()
    assert lc.change(label="configure") is True
    assert lc.change(label="activate") is True
    assert lc.state() == (3, "active")
    # The spine holds its port now; cleanup (after deactivate) gives it back.
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    with pytest.raises(OSError):
        probe.bind(("127.0.0.1", arm_in))
    assert lc.change(label="deactivate") is True and lc.change(label="cleanup") is True
    probe.bind(("127.0.0.1", arm_in))
    probe.close()
