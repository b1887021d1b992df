"""The flame task on generated scenes (`arnie_scenes`, issue 46), several at once.

`scene_box(seed)` asks the project's generator (`flame_scene --seed N --box-only`, the
binary `cargo xtask demo detour seed:=N` uses too) for scene N's box. `run_scenes` runs the
whole stack (helpers/stack.py) on each scene, `parallel` stacks side by side, each on a
ROS domain of its own (a `DomainLock` and a `Graph` per scene) and spun in turn from this
one thread: nothing blocks on one scene while another waits. A scene passes when the
simulator's truth says the candle is lit within `timeout`; what it did is returned
(`SceneResult`), with the simulator's truth log read back for "the arm never inside the
box".
"""
import json
import subprocess
import time

from arnie_interfaces.action import RunTask

from helpers.graph import DomainLock, Graph, binary
from helpers.stack import TASK, Stack


def scene_box(seed):
    """Scene `seed`'s box as the generator makes it: {"min_mm", "max_mm", "across"}."""
    out = subprocess.run([binary("flame_scene"), "--seed", str(seed), "--box-only"],
                         capture_output=True, text=True, check=True, timeout=30)
    return json.loads(out.stdout)


# The simulator stops the arm on a face; metres -> mm puts it there within rounding
# (-32.35900000000001 for a face at -32.359 mm). One nanometre is still the face.
FACE_MM = 1e-6


def inside(box, p_mm):
    """`p_mm` strictly inside the box, by more than FACE_MM (its faces do not count, as
    in the simulator)."""
    return all(lo + FACE_MM < v < hi - FACE_MM for v, lo, hi in zip(p_mm, box["min_mm"], box["max_mm"]))


def truth_log_arm(path):
    """Every arm position of a truth log (JSON Lines), mm."""
    arms = []
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        if rec.get("kind") == "truth":
            arms.append(rec["arm_mm"])
    return arms


class SceneResult:
    """What one scene did."""

    def __init__(self, seed, box):
        self.seed = seed
        self.box = box
        self.lit = False
        self.failure = None
        self.task_s = None  # goal sent -> candle lit [s]
        self.entered = []  # arm positions inside the box (truth log and /sim/truth), mm
        self.truth_lines = 0
        self.counters = {}
        self.blocked = False

    def __repr__(self):
        return (f"scene {self.seed}: lit={self.lit} task={self.task_s} failure={self.failure} "
                f"blocked={self.blocked} entered={self.entered[:2]} counters={self.counters}")


class _Scene:
    """One scene's stack and where its run stands (non-blocking steps)."""

    def __init__(self, seed, box, tmp_path, params):
        self.result = SceneResult(seed, box)
        self.tmp = tmp_path / f"scene_{seed}"
        self.tmp.mkdir(parents=True, exist_ok=True)
        self.lock = DomainLock()
        self.graph = Graph(self.lock.id, self.tmp)
        add = (lambda s: s["arm"]["obstacles"].append({"name": "box", "min_mm": box["min_mm"],
                                                        "max_mm": box["max_mm"]})) if box else None
        self.stack = Stack(self.graph, self.tmp, scenario=add, params=params)
        self.phase = "starting"
        self.since = time.monotonic()
        self.goal_future = None
        self.sent_at = None

    def ready(self):
        s, g = self.stack, self.graph
        return (s.client.server_is_ready()
                and g.node.count_publishers("/brain/run_task/_action/feedback") > 0
                and g.node.count_publishers("/brain/run_task/_action/status") > 0
                and s.truths and s.positions
                and s.count("/trajectory_server: move_to", "positions") > 0
                and s.count("/brain: inputs", "positions") > 0
                and s.count("/brain: inputs", "observation_messages") > 0)

    def dead(self):
        for p in self.graph.procs:
            if p.poll() is not None and getattr(p, "must_live", True):
                return f"{p.name} exited with {p.returncode}"
        return None

    def step(self, timeout, startup):
        """Advances this scene; returns True when it is over."""
        now = time.monotonic()
        self.graph.executor.spin_once(timeout_sec=0.002)
        why = self.dead()
        if why:
            self.result.failure = why
            return True
        if self.phase == "starting":
            if self.ready():
                self.phase, self.since = "settling", now
            elif now - self.since > startup:
                self.result.failure = "the stack never got ready"
                return True
        elif self.phase == "settling" and now - self.since >= 1.0:
            # The discovery margin of Graph.wait_for_action before the one-shot goal.
            self.goal_future = self.stack.client.send_goal_async(
                RunTask.Goal(task_file=str(TASK)),
                feedback_callback=lambda fb: self.stack.feedback.append(fb.feedback.state))
            self.phase, self.since = "sending", now
        elif self.phase == "sending":
            if self.goal_future.done():
                handle = self.goal_future.result()
                if not handle.accepted:
                    self.result.failure = "the brain refused the RunTask goal"
                    return True
                self.stack.handle = handle
                self.stack.result = handle.get_result_async()
                self.phase, self.since, self.sent_at = "running", now, now
            elif now - self.since > 30.0:
                self.result.failure = "no answer to the RunTask goal"
                return True
        elif self.phase == "running":
            if self.stack.lit("candle"):
                self.result.lit = True
                self.result.task_s = now - self.sent_at
                return True
            if self.stack.result.done():
                self.result.failure = "the task ended by itself"
                return True
            if now - self.since > timeout:
                self.result.failure = f"the candle was not lit within {timeout} s"
                return True
        return False

    def finish(self, keep_logs):
        r, s = self.result, self.stack
        r.blocked = any(t.blocked for t in s.truths)
        r.counters = {k: s.counters(k) for k in ("/trajectory_server: move_to", "/trajectory_server: detours",
                                                  "/brain: arm")}
        box = r.box
        if box:
            r.entered = [[1000 * t.arm.x, 1000 * t.arm.y, 1000 * t.arm.z] for t in s.truths
                         if inside(box, (1000 * t.arm.x, 1000 * t.arm.y, 1000 * t.arm.z))]
        node_logs = self.graph.logs() if r.failure else ""
        self.graph.close()
        self.lock.release()
        log = self.tmp / "truth.jsonl"
        if log.exists():
            arms = truth_log_arm(log)
            r.truth_lines = len(arms)
            if box:
                r.entered += [a for a in arms if inside(box, a)]
        if r.failure and keep_logs is not None:
            keep_logs.append(f"--- scene {r.seed}: {r.failure}\n" + node_logs[-8000:])


def run_scenes(seeds, tmp_path, parallel=2, timeout=150.0, startup=90.0, params=None, boxes=True, logs=None):
    """Runs the flame task on each seed's scene (`boxes=False`: the same runs without a
    box), `parallel` at a time. Returns the SceneResults in seed order; `logs` (a list)
    gets the node logs of every failed scene."""
    pending = list(seeds)
    running, done = [], []
    while pending or running:
        while pending and len(running) < parallel:
            seed = pending.pop(0)
            running.append(_Scene(seed, scene_box(seed) if boxes else None, tmp_path, params))
        for sc in list(running):
            if sc.step(timeout, startup):
                sc.finish(logs)
                running.remove(sc)
                done.append(sc.result)
    return sorted(done, key=lambda r: r.seed)
