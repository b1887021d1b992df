"""`cargo xtask demo eurobot`'s watcher: starts one match (a RunStrategy goal) on the
running Eurobot stack, prints its progress (task, score, time left, re-plans), and ends
with the match: exit 0 when the points reach the scenario's `match.expected_points`,
exit 1 with the reason otherwise. Records the run as JSON (events with their times,
navigation results, the final result) for xtask/src/demo/eurobot.rs to draw together
with board_sim's truth log.

An ordinary rclpy client: the same thing a user's own script could do.
"""
import argparse
import json
import sys
import time

import rclpy
from rclpy.action import ActionClient
from rclpy.qos import QoSProfile, ReliabilityPolicy, DurabilityPolicy

from arnie_interfaces.action import RunStrategy, NavigateTo
from arnie_interfaces.msg import StrategyEvent

KINDS = {StrategyEvent.STARTED: "STARTED", StrategyEvent.NEXT: "NEXT", StrategyEvent.ERROR: "ERROR",
         StrategyEvent.STOPPED: "STOPPED", StrategyEvent.FINISHED: "FINISHED",
         StrategyEvent.TASK_SELECTED: "TASK_SELECTED"}
OUTCOMES = {RunStrategy.Result.FINISHED: "FINISHED", RunStrategy.Result.MATCH_OVER: "MATCH_OVER",
            RunStrategy.Result.FAILED: "FAILED", RunStrategy.Result.CANCELLED: "CANCELLED",
            RunStrategy.Result.REJECTED: "REJECTED"}
NAV_OUTCOMES = {NavigateTo.Result.REACHED: "REACHED", NavigateTo.Result.BLOCKED: "BLOCKED",
                NavigateTo.Result.NO_PATH: "NO_PATH", NavigateTo.Result.CANCELLED: "CANCELLED",
                NavigateTo.Result.LINK_LOST: "LINK_LOST", NavigateTo.Result.REJECTED: "REJECTED",
                NavigateTo.Result.PREEMPTED: "PREEMPTED"}


def task_points(strategy_file, scenario):
    """Points per task name: the strategy file's, else the scenario's."""
    points = {t["name"]: t.get("points", 0) for t in scenario.get("tasks", [])}
    try:
        s = json.loads(open(strategy_file).read())
        for t in s.get("tasks", []) + ([s["end_of_match"]] if s.get("end_of_match") else []):
            points[t["name"]] = t.get("points", 0)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return points


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--strategy-file", required=True)
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--record", required=True, help="JSON file for the run record")
    ap.add_argument("--namespace", default="")
    ap.add_argument("--match-time", type=float, default=0.0, help="0: the scenario's match.duration_s")
    ap.add_argument("--startup-timeout", type=float, default=60.0)
    args = ap.parse_args()

    scenario = json.loads(open(args.scenario).read())
    expected = scenario.get("match", {}).get("expected_points", 0)
    match_s = args.match_time or scenario.get("match", {}).get("duration_s", 90.0)
    points_of = task_points(args.strategy_file, scenario)
    ns = "/" + args.namespace.strip("/") if args.namespace.strip("/") else ""

    rclpy.init()
    node = rclpy.create_node("arnie_eurobot_monitor")
    record = {"scenario": args.scenario, "strategy_file": args.strategy_file, "expected_points": expected,
              "match_s": match_s, "events": [], "navigation": [], "score": [[0.0, 0]], "result": None}
    t0 = {"mono": None}

    def now():
        return 0.0 if t0["mono"] is None else time.monotonic() - t0["mono"]

    score = {"points": 0}

    def on_event(e):
        t = now()
        kind = KINDS.get(e.kind, str(e.kind))
        record["events"].append({"t": round(t, 3), "kind": kind, "task": e.task, "step": e.step, "message": e.message})
        if kind == "FINISHED" and e.task:
            score["points"] += points_of.get(e.task, 0)
            record["score"].append([round(t, 3), score["points"]])
        left = max(0.0, match_s - t)
        what = f"{e.task or 'match'}" + (f" / {e.step}" if e.step else "")
        msg = f": {e.message}" if e.message else ""
        print(f"eurobot: {t:6.1f} s ({left:5.1f} s left) score {score['points']:3d}  {kind:13s} {what}{msg}", flush=True)

    qos = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.VOLATILE)
    node.create_subscription(StrategyEvent, f"{ns}/strategy/events", on_event, qos)

    # The base's goal results (who asked is the strategy): re-plans and blocks for the picture.
    def on_nav_feedback(msg):
        fb = msg.feedback
        p = fb.pose.position
        nav = record["navigation"]
        if not nav or nav[-1]["replans"] != fb.replans:
            nav.append({"t": round(now(), 3), "x": p.x, "y": p.y, "replans": fb.replans,
                        "distance_left_m": fb.distance_left_m})
            if fb.replans:
                print(f"eurobot: {now():6.1f} s re-plan #{fb.replans} at ({p.x:.2f}, {p.y:.2f}),"
                      f" {fb.distance_left_m:.2f} m left", flush=True)

    node.create_subscription(NavigateTo.Impl.FeedbackMessage, f"{ns}/base/navigate_to/_action/feedback", on_nav_feedback, qos)
    client = ActionClient(node, RunStrategy, f"{ns}/strategy/run")

    def finish(ok, reason):
        record["verdict"] = {"ok": ok, "reason": reason}
        with open(args.record, "w") as f:
            json.dump(record, f, indent=1)
        print(f"eurobot: {'OK' if ok else 'FAILED'}: {reason}", flush=True)
        sys.exit(0 if ok else 1)

    print(f"eurobot: waiting for {ns}/strategy/run ...", flush=True)
    deadline = time.monotonic() + args.startup_timeout
    while time.monotonic() < deadline and not client.server_is_ready():
        rclpy.spin_once(node, timeout_sec=0.1)
    if not client.server_is_ready():
        finish(False, f"the strategy's {ns}/strategy/run action server did not appear")
    # Let the event subscription match the strategy's publisher before the first event.
    deadline = time.monotonic() + 10.0
    while time.monotonic() < deadline and node.count_publishers(f"{ns}/strategy/events") == 0:
        rclpy.spin_once(node, timeout_sec=0.1)
    end = time.monotonic() + 1.0
    while time.monotonic() < end:
        rclpy.spin_once(node, timeout_sec=0.05)

    goal = RunStrategy.Goal(strategy_file=args.strategy_file, match_time_s=float(match_s))
    print(f"eurobot: match of {match_s:.0f} s with {args.strategy_file}; expected points {expected}", flush=True)
    t0["mono"] = time.monotonic()
    record["t0_unix"] = time.time()  # event times t are seconds after this
    fut = client.send_goal_async(goal)
    while not fut.done():
        rclpy.spin_once(node, timeout_sec=0.1)
        if now() > 30.0:
            finish(False, "the RunStrategy goal was not answered within 30 s")
    handle = fut.result()
    if not handle.accepted:
        last = [e for e in record["events"] if e["kind"] == "ERROR"]
        finish(False, "the strategy rejected the goal" + (f": {last[-1]['message']}" if last else ""))
    res_fut = handle.get_result_async()
    while not res_fut.done():
        rclpy.spin_once(node, timeout_sec=0.1)
        if now() > match_s + 60.0:
            finish(False, f"no result {match_s + 60.0:.0f} s after the start")
    # Late events (the last FINISHED) before the verdict.
    end = time.monotonic() + 0.5
    while time.monotonic() < end:
        rclpy.spin_once(node, timeout_sec=0.05)
    r = res_fut.result().result
    outcome = OUTCOMES.get(r.outcome, str(r.outcome))
    record["result"] = {"t": round(now(), 3), "outcome": outcome, "points": r.points, "done": list(r.done),
                        "failed": list(r.failed), "message": r.message}
    record["score"].append([round(now(), 3), r.points])
    print(f"eurobot: match over after {now():.1f} s: {outcome}, {r.points:g} points; done {list(r.done)},"
          f" failed {list(r.failed)}; {r.message}", flush=True)
    if outcome not in ("FINISHED", "MATCH_OVER"):
        finish(False, f"the match ended {outcome}: {r.message}")
    if r.points < expected:
        finish(False, f"{r.points:g} points, the scenario expects {expected}")
    finish(True, f"{r.points:g} points (expected {expected}), tasks done in order: {', '.join(r.done)}")


if __name__ == "__main__":
    main()
