"""`cargo xtask demo`'s watcher: starts the flame-passing task on the running stack,
shows its progress, and ends when the simulated second candle is lit (exit 0) or with a
reason (exit 1). Writes an SVG of the arm's path and speed profile.

It is an ordinary rclpy client: the same thing a user's own script could do.
"""
import argparse
import math
import sys
import time

import rclpy
from rclpy.action import ActionClient
from rclpy.qos import qos_profile_sensor_data, QoSProfile, ReliabilityPolicy, DurabilityPolicy

from arnie_interfaces.action import RunTask
from arnie_interfaces.msg import SimTruth


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--task-file", required=True)
    ap.add_argument("--timeout", type=float, default=110.0)
    ap.add_argument("--svg", required=True)
    ap.add_argument("--startup-timeout", type=float, default=60.0)
    args = ap.parse_args()

    rclpy.init()
    node = rclpy.create_node("arnie_demo_monitor")
    truth = []  # (t, x, y, z, lit, blocked)
    last = {"line": None, "state": None}
    t0 = time.monotonic()

    def on_truth(msg):
        truth.append((time.monotonic() - t0, msg.arm.x, msg.arm.y, msg.arm.z, tuple(msg.lit), msg.blocked))

    qos = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.VOLATILE)
    node.create_subscription(SimTruth, "/sim/truth", on_truth, qos)
    client = ActionClient(node, RunTask, "/brain/run_task")

    def fail(reason):
        print(f"demo: FAILED: {reason}", flush=True)
        write_svg(args.svg, truth)
        print(f"demo: picture of the run: {args.svg}", flush=True)
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
        active = ", ".join(f"{a.name} step {a.step + 1}/{a.steps}" for a in s.active) or "idle"
        target = f"({s.target.x:+.3f}, {s.target.y:+.3f}, {s.target.z:+.3f}) m" if s.has_target else "-"
        lit = ", ".join(truth[-1][4]) if truth else "-"
        line = f"tick {s.tick:3d}  {active:28s} target {target}  lit: {lit or 'none'}" + ("  [paused: arm position stale]" if s.paused else "")
        if line != last["line"]:
            print(f"demo: [{time.monotonic() - t0:6.1f} s] {line}", flush=True)
            last["line"] = line

    goal = RunTask.Goal(task_file=args.task_file)
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
    write_svg(args.svg, truth)
    ticks = last["state"].tick if last["state"] else 0
    print(f"demo: SUCCESS: the flame passed to the second candle after {elapsed:.1f} s ({ticks} brain ticks)", flush=True)
    print(f"demo: picture of the run: {args.svg}", flush=True)
    node.destroy_node()
    rclpy.shutdown()


def write_svg(path, truth):
    """Arm path (top view x-y and side view x-z, mm) and speed profile (mm/s)."""
    W, H = 960, 720
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="20" y="24" font-size="16">arnie demo: simulated arm, flame passing (ground truth from /sim/truth)</text>']
    pts = [(t, x * 1000, y * 1000, z * 1000, lit) for t, x, y, z, lit, _ in truth]
    if len(pts) < 2:
        out.append('<text x="20" y="60">no data</text></svg>')
        open(path, "w").write("\n".join(out))
        return

    def panel(x0, y0, w, h, xs, ys, title, xl, yl, colour_by_lit=False, lits=None):
        out.append(f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="none" stroke="#888"/>')
        out.append(f'<text x="{x0}" y="{y0 - 6}">{title}</text>')
        lo_x, hi_x = min(xs), max(xs)
        lo_y, hi_y = min(ys), max(ys)
        span_x = (hi_x - lo_x) or 1.0
        span_y = (hi_y - lo_y) or 1.0
        sx = lambda v: x0 + 10 + (v - lo_x) / span_x * (w - 20)
        sy = lambda v: y0 + h - 10 - (v - lo_y) / span_y * (h - 20)
        seg, colour = [], None
        for i, (a, b) in enumerate(zip(xs, ys)):
            c = "#d62" if (colour_by_lit and lits and "taper" in lits[i]) else "#26b"
            if c != colour and seg:
                out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{" ".join(seg)}"/>')
                seg = seg[-1:]
            colour = c
            seg.append(f"{sx(a):.1f},{sy(b):.1f}")
        if seg:
            out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{" ".join(seg)}"/>')
        out.append(f'<text x="{x0 + w / 2}" y="{y0 + h + 16}" text-anchor="middle">{xl} [{lo_x:.0f} .. {hi_x:.0f}]</text>')
        out.append(f'<text x="{x0 - 8}" y="{y0 + h / 2}" text-anchor="middle" transform="rotate(-90 {x0 - 8} {y0 + h / 2})">{yl} [{lo_y:.0f} .. {hi_y:.0f}]</text>')

    ts = [p[0] for p in pts]
    lits = [p[4] for p in pts]
    panel(60, 70, 400, 300, [p[1] for p in pts], [p[2] for p in pts], "top view (blue: taper unlit, red: lit)", "x mm", "y mm", True, lits)
    panel(540, 70, 400, 300, [p[1] for p in pts], [p[3] for p in pts], "side view", "x mm", "z mm", True, lits)
    speeds = [0.0]
    for a, b in zip(pts, pts[1:]):
        dt = b[0] - a[0]
        speeds.append(math.dist(a[1:4], b[1:4]) / dt if dt > 0 else speeds[-1])
    panel(60, 430, 880, 240, ts, speeds, "speed profile", "time s", "speed mm/s")
    out.append("</svg>")
    open(path, "w").write("\n".join(out))


if __name__ == "__main__":
    main()
