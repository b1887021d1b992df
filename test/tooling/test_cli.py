"""The ROS 2 command-line tools against the whole ARNIE stack, as a ROS user pokes it:
`ros2 launch arnie_bringup arnie.launch.xml`, then `ros2 node list`, `ros2 interface
show` of every arnie interface, `ros2 topic echo --once` of each public topic, `ros2
action send_goal /brain/run_task` running the flame task to success (the simulator's
candle lit), and `ros2 param set`: a live parameter changes the next move (the trajectory
server's sample_factor: points per millimetre of the plan) and an invalid value is
refused with the reason. Skipped, saying why, where the ros2 tools are not installed.
"""
import math
import subprocess
import pytest

from arnie_interfaces.msg import SimTruth
from nav_msgs.msg import Path

from helpers.graph import ROOT, ROS2, require_ros2
from helpers.ports import spine_sim_config
from helpers import qos

NODES = ["/sim", "/spine_bridge", "/trajectory_server", "/brain"]
LATCHED = qos.latched(100)
# (topic, type, QoS options as published: see docs/ARCHITECTURE.md, "QoS of every topic")
TOPICS = [
    ("/arm/position", "geometry_msgs/msg/PointStamped", ["--qos-reliability", "best_effort"]),
    ("/eyes/observations", "arnie_interfaces/msg/Coordinates", ["--qos-reliability", "best_effort"]),
    ("/arm/command", "geometry_msgs/msg/PointStamped", ["--qos-reliability", "reliable"]),
    ("/brain/state", "arnie_interfaces/msg/BrainState", ["--qos-reliability", "reliable"]),
    ("/sim/truth", "arnie_interfaces/msg/SimTruth", ["--qos-reliability", "reliable", "--qos-durability", "transient_local"]),
    ("/trajectory/plan", "nav_msgs/msg/Path", ["--qos-reliability", "reliable", "--qos-durability", "transient_local"]),
    ("/diagnostics", "diagnostic_msgs/msg/DiagnosticArray", ["--qos-reliability", "reliable"]),
]


def interfaces():
    base = ROOT / "msg" / "arnie_interfaces"
    return sorted(f"arnie_interfaces/{kind}/{f.stem}" for kind in ("msg", "srv", "action") for f in (base / kind).iterdir())


def first_field(name):
    kind, stem = name.split("/")[1:]
    text = (ROOT / "msg" / "arnie_interfaces" / kind / f"{stem}.{kind}").read_text()
    line = next(l for l in text.splitlines() if l.strip() and not l.lstrip().startswith("#") and l.strip() != "---")
    return line.split()[1].split("=")[0]


def move(graph, plans, x, y, z):
    """A MoveTo through `ros2 action send_goal`; returns (poses, ceil(distance in mm)) of
    the plan the trajectory server published for it (the one ending at the target)."""
    seen = len(plans)
    r = graph.ros2("action", "send_goal", "/trajectory/move_to", "arnie_interfaces/action/MoveTo",
                   f"{{target: {{x: {x}, y: {y}, z: {z}}}}}", timeout=90.0)
    assert r.returncode == 0 and "SUCCEEDED" in r.stdout, r.stdout + r.stderr

    def ends_at_target(p):
        e = p.poses[-1].pose.position
        return math.dist((e.x, e.y, e.z), (x, y, z)) < 1e-6

    graph.spin_until(lambda: any(ends_at_target(p) for p in plans[seen:]), 10.0, f"the plan to {(x, y, z)}")
    plan = next(p for p in plans[seen:] if ends_at_target(p))
    a, b = plan.poses[0].pose.position, plan.poses[-1].pose.position
    d_mm = 1000.0 * math.dist((a.x, a.y, a.z), (b.x, b.y, b.z))
    return len(plan.poses), math.ceil(d_mm - 1e-6)


@pytest.mark.long(95)
def test_the_ros2_cli_against_the_stack(graph, tmp_path):
    require_ros2()
    config = spine_sim_config(tmp_path / "spine.json")
    graph.launch(ROS2, "launch", "arnie_bringup", "arnie.launch.xml", f"spine_config:={config}",
                 "tick_period_s:=2.0", "period_ms:=10", name="ros2-launch")
    truths = graph.collect(SimTruth, "/sim/truth", LATCHED)
    plans = graph.collect(Path, "/trajectory/plan", LATCHED)
    graph.wait_for_nodes(NODES, 90.0)

    # ros2 node list: every node (the CLI's own discovery may need a moment).
    for _ in range(20):
        listed = graph.ros2("node", "list", "--no-daemon", "--spin-time", "2").stdout.split()
        if set(NODES) <= set(listed):
            break
    assert set(NODES) <= set(listed), listed

    # ros2 interface show: every arnie interface.
    for name in interfaces():
        r = graph.ros2("interface", "show", name)
        assert r.returncode == 0 and first_field(name) in r.stdout, f"{name}: {r.stdout}{r.stderr}"

    # ros2 topic echo --once of each public topic: started before the task, so the ones
    # published only while the arm moves (set-points, the plan) are caught too.
    echoes = {}
    for t, ty, qos_args in TOPICS:
        out = open(tmp_path / f"echo{t.replace('/', '_')}.txt", "w+")
        proc = subprocess.Popen([ROS2, "topic", "echo", "--once", "--no-daemon", *qos_args, t, ty], env=graph.env,
                                stdout=out, stderr=subprocess.STDOUT, text=True, cwd=ROOT, start_new_session=True)
        echoes[t] = (proc, out)
    graph.spin_for(3.0)  # the echo processes start and subscribe (they print nothing till a message)

    # ros2 action send_goal: the flame task to success (tick-limited: the task loops).
    task = ROOT / "params" / "tasks" / "flame_passing.json"
    r = graph.ros2("action", "send_goal", "/brain/run_task", "arnie_interfaces/action/RunTask",
                   f"{{task_file: '{task}', max_ticks: 20}}", timeout=180.0)
    assert r.returncode == 0 and "SUCCEEDED" in r.stdout, r.stdout + r.stderr + graph.logs()
    graph.spin_until(lambda: truths and "candle" in truths[-1].lit, 20.0, "the candle lit on /sim/truth")

    # Each echo prints one message and its `---` (then it exits; a slow exit is not ours).
    def printed(out):
        out.seek(0)
        return out.read()

    for topic, (proc, out) in echoes.items():
        graph.spin_until(lambda: "\n---" in printed(out), 30.0, f"ros2 topic echo --once {topic} to print a message")
        proc.kill()
        proc.wait()
        text = printed(out)
        assert any(k in text for k in ("header:", "status:")), f"{topic}:\n{text}"

    # ros2 param set: a live parameter (read at each goal) changes the next move.
    n, d = move(graph, plans, 0.0, 0.0, 0.05)
    assert n == d + 1, (n, d)
    r = graph.param("set", "/trajectory_server", "sample_factor", "2")
    assert "Set parameter successful" in r.stdout, r.stdout + r.stderr
    n, d = move(graph, plans, 0.03, 0.0, 0.03)
    assert n == 2 * d + 1, (n, d)

    # ... and an invalid value is refused with the reason; the value stays.
    r = graph.param("set", "/trajectory_server", "sample_factor", "0")
    out = r.stdout + r.stderr
    assert "Setting parameter failed" in out and "sample_factor" in out and "0 is not in 1..=1000" in out, out
    r = graph.param("get", "/trajectory_server", "sample_factor")
    assert "Integer value is: 2" in r.stdout, r.stdout
