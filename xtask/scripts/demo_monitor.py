"""`cargo xtask demo`'s watcher: starts the flame-passing task on the running stack,
shows its progress, and ends when the simulated second candle is lit (exit 0) or with a
reason (exit 1). Records the run (ground truth of the arm and the flames, the brain's
running actions) as JSON for `cargo xtask demo` to draw (xtask/src/picture/mod.rs).

It is an ordinary rclpy client: the same thing a user's own script could do.
"""
import argparse
import json
import sys
import time

import rclpy
from rclpy.action import ActionClient
from rclpy.qos import qos_profile_sensor_data, QoSProfile, ReliabilityPolicy, DurabilityPolicy

from arnie_interfaces.action import RunTask
from arnie_interfaces.msg import KnownObstructions, SimTruth
from nav_msgs.msg import Path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--task-file", required=True)
    ap.add_argument("--timeout", type=float, default=110.0)
    ap.add_argument("--record", required=True, help="JSON file for the run record")
    ap.add_argument("--startup-timeout", type=float, default=60.0)
    args = ap.parse_args()

    rclpy.init()
    node = rclpy.create_node("arnie_demo_monitor")
    truth = []  # (stamp [s], x, y, z, lit, blocked); stamps from the ROS clock
    brain = []  # (stamp [s], tick, active action names, paused)
    last = {"line": None, "state": None}
    t0 = time.monotonic()
    start = {"stamp": None}  # the ROS time the task was sent: t = 0 of the record

    def stamp_of(header):
        s = header.stamp.sec + header.stamp.nanosec * 1e-9
        return s if s > 0 else node.get_clock().now().nanoseconds * 1e-9

    def on_truth(msg):
        truth.append((stamp_of(msg.header), msg.arm.x, msg.arm.y, msg.arm.z, tuple(msg.lit), msg.blocked))

    qos = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.VOLATILE)
    node.create_subscription(SimTruth, "/sim/truth", on_truth, qos)

    # What the trajectory server remembered and the detours it planned (latched topics).
    obstructions = {}  # id -> (centre [m], radius [m])
    detours = []  # curved planned paths [m]
    latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)

    def on_obstructions(msg):
        for o in msg.obstructions:
            if o.id not in obstructions:
                c = o.centre
                print(f"demo: [{time.monotonic() - t0:6.1f} s] the arm was stopped: obstruction {o.id} remembered at "
                      f"({c.x:+.3f}, {c.y:+.3f}, {c.z:+.3f}) m, clearance {o.radius:.3f} m", flush=True)
                obstructions[o.id] = ((c.x, c.y, c.z), o.radius)

    def on_plan(msg):
        pts = [(p.pose.position.x, p.pose.position.y, p.pose.position.z) for p in msg.poses]
        if curved(pts):
            print(f"demo: [{time.monotonic() - t0:6.1f} s] detour planned ({len(pts)} set-points)", flush=True)
            detours.append(pts)

    node.create_subscription(KnownObstructions, "/trajectory/obstructions", on_obstructions, latched)
    node.create_subscription(Path, "/trajectory/plan", on_plan, latched)
    extra = {"obstructions": obstructions, "detours": detours}
    client = ActionClient(node, RunTask, "/brain/run_task")

    def fail(reason):
        print(f"demo: FAILED: {reason}", flush=True)
        write_record(args.record, args.task_file, "failed", reason, truth, brain, start["stamp"], extra)
        sys.exit(1)

    print("demo: waiting for the brain's /brain/run_task and the simulator's /sim/truth ...", flush=True)
    deadline = time.monotonic() + args.startup_timeout
    while time.monotonic() < deadline and not (client.server_is_ready() and truth):
        rclpy.spin_once(node, timeout_sec=0.1)
    if not client.server_is_ready():
        fail("the brain's /brain/run_task action server did not appear")
    if not truth:
        fail("no ground truth from the simulator on /sim/truth")

    def on_feedback(fb):
        s = fb.feedback.state
        last["state"] = s
        brain.append((stamp_of(s.header), s.tick, [a.name for a in s.active], s.paused))
        active = ", ".join(f"{a.name} step {a.step + 1}/{a.steps}" for a in s.active) or "idle"
        target = f"({s.target.x:+.3f}, {s.target.y:+.3f}, {s.target.z:+.3f}) m" if s.has_target else "-"
        lit = ", ".join(truth[-1][4]) if truth else "-"
        line = f"tick {s.tick:3d}  {active:28s} target {target}  lit: {lit or 'none'}" + ("  [paused: arm position stale]" if s.paused else "")
        if line != last["line"]:
            print(f"demo: [{time.monotonic() - t0:6.1f} s] {line}", flush=True)
            last["line"] = line

    goal = RunTask.Goal(task_file=args.task_file)
    start["stamp"] = node.get_clock().now().nanoseconds * 1e-9
    future = client.send_goal_async(goal, feedback_callback=on_feedback)
    while not future.done():
        rclpy.spin_once(node, timeout_sec=0.1)
    handle = future.result()
    if not handle.accepted:
        fail("the brain rejected the task goal")
    result_future = handle.get_result_async()
    deadline = time.monotonic() + args.timeout
    shown_lit = set()
    while time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.05)
        if truth:
            lit = set(truth[-1][4])
            for name in sorted(lit - shown_lit):
                print(f"demo: [{time.monotonic() - t0:6.1f} s] *** {name} is lit ***", flush=True)
            shown_lit |= lit
            if "candle" in lit:
                break
        if result_future.done():
            r = result_future.result().result
            fail(f"the task ended before the candle was lit: outcome {r.outcome}, {r.message}")
    else:
        fail(f"the second candle was not lit within {args.timeout:.0f} s (lit: {', '.join(sorted(shown_lit)) or 'nothing'})")

    elapsed = time.monotonic() - t0
    cancel = handle.cancel_goal_async()
    end = time.monotonic() + 5
    while not cancel.done() and time.monotonic() < end:
        rclpy.spin_once(node, timeout_sec=0.05)
    ticks = last["state"].tick if last["state"] else 0
    write_record(args.record, args.task_file, "success", f"the candle lit after {elapsed:.1f} s ({ticks} brain ticks)",
                 truth, brain, start["stamp"], extra)
    print(f"demo: SUCCESS: the flame passed to the second candle after {elapsed:.1f} s ({ticks} brain ticks)", flush=True)
    node.destroy_node()
    rclpy.shutdown()


def curved(pts, tol_m=0.001):
    """True when a planned path leaves the straight line from its first to its last point
    by more than `tol_m` (a detour; a plain move is exactly on it)."""
    if len(pts) < 3:
        return False
    a, b = pts[0], pts[-1]
    ab = [b[i] - a[i] for i in range(3)]
    n2 = sum(v * v for v in ab)
    for p in pts[1:-1]:
        ap = [p[i] - a[i] for i in range(3)]
        t = sum(ap[i] * ab[i] for i in range(3)) / n2 if n2 > 0 else 0.0
        d2 = sum((ap[i] - t * ab[i]) ** 2 for i in range(3))
        if d2 > tol_m * tol_m:
            return True
    return False


def write_record(path, task_file, outcome, reason, truth, brain, start, extra):
    """The run as JSON (format: xtask/src/picture/mod.rs): positions in mm, times in seconds
    from `start` (the task sent; the first sample when the task was never sent). Samples
    from more than 1 s before the start are left out (the stack starting up)."""
    if start is None:
        start = truth[0][0] if truth else 0.0
    record = {
        "task_file": task_file,
        "outcome": outcome,
        "reason": reason,
        "truth": [{"t_s": round(t - start, 4), "arm_mm": [round(v * 1000, 3) for v in (x, y, z)], "lit": list(lit), "blocked": blocked}
                  for t, x, y, z, lit, blocked in truth if t - start >= -1.0],
        "brain": [{"t_s": round(t - start, 4), "tick": tick, "active": active, "paused": paused}
                  for t, tick, active, paused in brain],
        "obstructions": [{"id": i, "centre_mm": [round(v * 1000, 3) for v in c], "radius_mm": round(r * 1000, 3)}
                         for i, (c, r) in sorted(extra["obstructions"].items())],
        "detours": [[[round(v * 1000, 3) for v in p] for p in d] for d in extra["detours"]],
    }
    with open(path, "w") as f:
        json.dump(record, f, indent=1)
    print(f"demo: run recorded in {path}", flush=True)


if __name__ == "__main__":
    main()
