#!/usr/bin/env python3
"""`cargo xtask bench nav2`: Nav2's actions on the simulated Eurobot board, timed from an
rclpy client as BasicNavigator uses them.

Starts board_sim (pty, the shipped table) + comms_bridge + planner + base from
`--bin-dir` (release by default) on their own ROS domain, then for each action sends
`--runs` goals (back and forth so the robot stays on the free part of the table) and
records, per goal, the time from send_goal_async to the goal's first feedback message and
to its result (rclpy's own callbacks on a SingleThreadedExecutor: both include the
client's Python overhead). Then `--plans` seeded random (start, goal) pairs on the table,
each asked once through compute_path_to_pose (use_start, the action) and once through
planner/plan_path (the service, simplify + smooth: the same search), timed
request -> answer. Prints two markdown tables. Logs in out/bench_nav2/.
"""
import argparse
import math
import os
import pathlib
import random
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]


def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * p / 100.0
    lo, hi = math.floor(k), math.ceil(k)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin-dir", default=str(ROOT / "target" / "release"))
    ap.add_argument("--runs", type=int, default=int(os.environ.get("ARNIE_BENCH_NAV2_RUNS", "5")))
    ap.add_argument("--plans", type=int, default=int(os.environ.get("ARNIE_BENCH_NAV2_PLANS", "300")))
    ap.add_argument("--domain", type=int, default=int(os.environ.get("ARNIE_BENCH_DOMAIN", "97")))
    a = ap.parse_args()
    os.environ["ROS_DOMAIN_ID"] = str(a.domain)
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"

    out = ROOT / "out" / "bench_nav2"
    out.mkdir(parents=True, exist_ok=True)
    table = ROOT / "params" / "eurobot" / "table.json"
    packets = ROOT / "nodes" / "lib" / "arnie_packets" / "packets"
    bins = pathlib.Path(a.bin_dir)
    procs = []

    def start(name, *args, params=None):
        cmd = [str(bins / name), *args]
        if params:
            cmd += ["--ros-args"] + [x for k, v in params.items() for x in ("-p", f"{k}:={v}")]
        log = open(out / f"{name}.log", "w")
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        procs.append(p)
        return p

    link = out / "board.link"
    if link.exists():
        link.unlink()
    start("board_sim", "--scenario", str(table), "--packets", str(packets), "pty", "--link-file", str(link))
    for _ in range(200):
        if link.exists():
            break
        time.sleep(0.05)
    start("comms_bridge", params=dict(packets_dir=packets, transport="uart", serial_port=link.read_text().strip()))
    start("planner", params=dict(map_file=table, resolution_m=0.02, robot_radius_m=0.2, frame_id="map"))
    start("base", params=dict(robot_radius_m=0.2, known_obstacle_margin_m=0.12))

    try:
        run(a, start, out, table)
    finally:
        for p in procs:
            try:
                os.killpg(p.pid, 2)
            except ProcessLookupError:
                pass
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, 9)


def run(a, start, out, table):
    import rclpy
    from action_msgs.msg import GoalStatus
    from arnie_interfaces.srv import PlanPath
    from builtin_interfaces.msg import Duration
    from geometry_msgs.msg import Point, PoseStamped
    from nav2_msgs.action import (BackUp, ComputePathThroughPoses, ComputePathToPose, DriveOnHeading,
                                  FollowPath, FollowWaypoints, NavigateThroughPoses, NavigateToPose, Spin, Wait)
    from rclpy.action import ActionClient
    from rclpy.executors import SingleThreadedExecutor

    rclpy.init()
    node = rclpy.create_node("nav2_bench")
    ex = SingleThreadedExecutor()
    ex.add_node(node)

    def spin_until(pred, timeout, what):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if pred():
                return
            ex.spin_once(timeout_sec=0.01)
        raise SystemExit(f"nav2_bench: timed out waiting for {what} (logs in {out})")

    def pose(x, y, yaw=0.0):
        p = PoseStamped()
        p.header.frame_id = "map"
        p.pose.position.x, p.pose.position.y = float(x), float(y)
        p.pose.orientation.z, p.pose.orientation.w = math.sin(yaw / 2), math.cos(yaw / 2)
        return p

    types = dict(navigate_to_pose=NavigateToPose, navigate_through_poses=NavigateThroughPoses,
                 follow_waypoints=FollowWaypoints, follow_path=FollowPath, compute_path_to_pose=ComputePathToPose,
                 compute_path_through_poses=ComputePathThroughPoses, spin=Spin, backup=BackUp,
                 drive_on_heading=DriveOnHeading, wait=Wait)
    clients = {n: ActionClient(node, t, n) for n, t in types.items()}
    for n, c in clients.items():
        spin_until(c.server_is_ready, 120.0, f"the action server {n}")
    plan_path = node.create_client(PlanPath, "planner/plan_path")
    spin_until(plan_path.service_is_ready, 60.0, "planner/plan_path")
    # The base needs odometry before it takes goals; discovery needs a margin too.
    end = time.monotonic() + 3.0
    while time.monotonic() < end:
        ex.spin_once(timeout_sec=0.05)

    def timed(name, goal, timeout=120.0):
        t = {"fb": None}
        t0 = time.monotonic()

        def on_fb(_):
            if t["fb"] is None:
                t["fb"] = time.monotonic()

        fut = clients[name].send_goal_async(goal, feedback_callback=on_fb)
        spin_until(fut.done, timeout, f"{name}: acceptance")
        handle = fut.result()
        res = handle.get_result_async()
        spin_until(res.done, timeout, f"{name}: result")
        t1 = time.monotonic()
        r = res.result()
        ok = r.status == GoalStatus.STATUS_SUCCEEDED
        return ((t["fb"] - t0) * 1e3 if t["fb"] else None), (t1 - t0) * 1e3, ok, r.result

    a_, b_ = (0.6, 0.6), (1.0, 0.9)
    path_goal = None
    rows = []
    goals = {
        "navigate_to_pose": lambda i: NavigateToPose.Goal(pose=pose(*(b_ if i % 2 == 0 else a_))),
        "navigate_through_poses": lambda i: NavigateThroughPoses.Goal(
            poses=[pose(0.8, 0.5), pose(*(a_ if i % 2 == 0 else b_))]),
        "follow_waypoints": lambda i: FollowWaypoints.Goal(poses=[pose(0.8, 0.5), pose(*(b_ if i % 2 == 0 else a_))]),
        "compute_path_to_pose": lambda i: ComputePathToPose.Goal(goal=pose(*(b_ if i % 2 == 0 else a_))),
        "compute_path_through_poses": lambda i: ComputePathThroughPoses.Goal(goals=[pose(0.8, 0.5), pose(*b_)]),
        "follow_path": None,
        "spin": lambda i: Spin.Goal(target_yaw=1.57 if i % 2 == 0 else -1.57, time_allowance=Duration(sec=10)),
        "backup": lambda i: BackUp.Goal(target=Point(x=0.1), speed=0.1, time_allowance=Duration(sec=10)),
        "drive_on_heading": lambda i: DriveOnHeading.Goal(target=Point(x=0.1), speed=0.1,
                                                          time_allowance=Duration(sec=10)),
        "wait": lambda i: Wait.Goal(time=Duration(sec=0, nanosec=200_000_000)),
    }
    for name, make in goals.items():
        fbs, res, fails = [], [], 0
        for i in range(a.runs):
            if name == "follow_path":
                # The planner's path from where the robot is to the other end.
                _, _, _, r = timed("compute_path_to_pose", ComputePathToPose.Goal(goal=pose(*(b_ if i % 2 == 0 else a_))))
                goal = FollowPath.Goal(path=r.path)
            else:
                goal = make(i)
            fb, total, ok, _ = timed(name, goal)
            fails += not ok
            if fb is not None:
                fbs.append(fb)
            res.append(total)
        rows.append((name, fbs, res, fails))
        print(f"nav2_bench: {name} done", file=sys.stderr)

    rng = random.Random(49)
    pairs = []
    while len(pairs) < a.plans:
        s = (rng.uniform(0.25, 2.75), rng.uniform(0.3, 1.75))
        g = (rng.uniform(0.25, 2.75), rng.uniform(0.3, 1.75))
        pairs.append((s, g))
    act, srv, act_ok, srv_ok = [], [], 0, 0
    for s, g in pairs:
        t0 = time.monotonic()
        _, total, ok, _ = timed("compute_path_to_pose",
                                ComputePathToPose.Goal(start=pose(*s), goal=pose(*g), use_start=True))
        act.append(total)
        act_ok += ok
        req = PlanPath.Request(start=Point(x=s[0], y=s[1]), goal=Point(x=g[0], y=g[1]), simplify=True, smooth=True)
        t0 = time.monotonic()
        fut = plan_path.call_async(req)
        spin_until(fut.done, 60.0, "PlanPath")
        srv.append((time.monotonic() - t0) * 1e3)
        srv_ok += fut.result().error_code == 0

    print("\n| action | goals | failed | goal -> first feedback p50 / max [ms] | goal -> result p50 / max [ms] |")
    print("|---|---:|---:|---:|---:|")
    for name, fbs, res, fails in rows:
        fb = f"{statistics.median(fbs):.1f} / {max(fbs):.1f}" if fbs else "(no feedback)"
        print(f"| `{name}` | {len(res)} | {fails} | {fb} | {statistics.median(res):.1f} / {max(res):.1f} |")
    print(f"\n| path from the planner ({a.plans} seeded random start/goal pairs on the table) | found | p50 [ms] | p99 [ms] |")
    print("|---|---:|---:|---:|")
    print(f"| `compute_path_to_pose` (action, use_start) | {act_ok} | {pct(act, 50):.2f} | {pct(act, 99):.2f} |")
    print(f"| `planner/plan_path` (service, simplify + smooth) | {srv_ok} | {pct(srv, 50):.2f} | {pct(srv, 99):.2f} |")
    print(f"| difference (the action's protocol: goal, accept, result request) | | {pct(act, 50) - pct(srv, 50):+.2f} | {pct(act, 99) - pct(srv, 99):+.2f} |")

    node.destroy_node()
    rclpy.shutdown()


if __name__ == "__main__":
    main()
