"""End to end: the whole stack as real processes on a real graph and real UDP.

sim + spine_bridge + trajectory_server + brain are started like launch/arnie.launch.xml
starts them (each with its params/*.yaml, plus the demo's fast `tick_period_s` 2.0 and
`period_ms` 10), but on a temporary copy of params/spine_sim.json whose three UDP ports
are free ones (so a running demo or another test never shares a socket) and on a
temporary copy of params/scenario_flame.json, changed per test. rclpy only watches and
sends the RunTask goal with params/tasks/flame_passing.json, like
xtask/scripts/demo_monitor.py; success is what the simulator's ground truth says
(/sim/truth: the "candle" lit).

- the task succeeds: start -> lightSelf -> lightOther, taper then candle lit; cancel;
- a wall across lightOther's second move: the arm is blocked, the trajectory server
  reverses to the start, the brain retries the step `reset.timeout` times (from the task
  file) and then resets to `start`;
- the spine killed mid-task: no more set-points once the position is stale, the trajectory
  server refuses/ends moves, the brain pauses (and says so on /diagnostics); the spine
  restarted: the brain resumes and the candle is still lit;
  (The move running at the kill usually ends REVERSED_TO_START, "obstacle": while the
  last position is younger than the trajectory server's position_timeout_ms (500 ms = 50
  periods of 10 ms) the set-points run away from it by more than the tracking tolerance
  before the position counts as stale. Not asserted either way.)
- 5 % seeded packet loss on the arm link: the task still completes (loss really happened).
"""
import json

from action_msgs.msg import GoalStatus
from arnie_interfaces.action import RunTask
from arnie_interfaces.msg import BrainEvent
from diagnostic_msgs.msg import DiagnosticStatus

from helpers.stack import PARAMS, TASK, TASK_TIMEOUT_S, TICK_PERIOD_S, Stack, close_mm, subsequence


def reset_timeout(action):
    return json.loads(TASK.read_text())["actions"][action]["reset"]["timeout"]


# ---------------------------------------------------------------------------- tests

def test_flame_passing_succeeds(graph, tmp_path):
    stack = Stack(graph, tmp_path)
    stack.ready()
    stack.run_task()
    stack.wait_lit("candle")

    # The flame really went source -> taper -> candle, and never the candle first.
    stack.assert_flame_passed_taper_first()
    assert stack.truths[-1].commands_dropped == 0
    # The brain went through the task's actions in order, on the topic and as feedback.
    assert subsequence(["start", "lightSelf", "lightOther"], stack.actions()), stack.summary()
    fb_actions = [a.name for s in stack.feedback for a in s.active]
    assert subsequence(["start", "lightSelf", "lightOther"], fb_actions), fb_actions
    assert all(s.task == str(TASK) for s in stack.states if s.active), {s.task for s in stack.states}
    # The arm was commanded by the trajectory server, which reached its goals.
    assert stack.commands
    assert stack.count("/trajectory_server: move_to", "reached") > 0, stack.summary()

    result = stack.cancel()
    assert result.status == GoalStatus.STATUS_CANCELED, result
    assert result.result.outcome == RunTask.Result.CANCELLED, result.result


def test_a_box_in_the_way_is_passed_by_a_detour_and_the_candle_lit(graph, tmp_path):
    # cargo xtask demo detour's box (params/scenario_detour.json): between the source and
    # the candle, unseen by the eyes, named in no parameter.
    box = next(o for o in json.loads((PARAMS / "scenario_detour.json").read_text())["arm"]["obstacles"]
               if o["name"] == "box")
    # The brain ticks every 3 s here, not the demo's 2. Going over the box takes two
    # detours, and the second ends ~4.0 s after the goal was sent: at a 2 s (or 4 s) tick
    # the brain verifies that step right then, finds the arm within its 25 mm tolerance of
    # the target, and sends the next step, which preempts the detour in its last
    # millimetres. Loaded runs hit that knife edge twice (the candle lit, but no goal
    # counted as reached by a detour). At 3 s the ticks fall 1 s before and 2 s after it.
    stack = Stack(graph, tmp_path, scenario=lambda s: s["arm"]["obstacles"].append(box),
                  params={"brain": {"tick_period_s": 1.5 * TICK_PERIOD_S}})
    stack.ready()
    stack.run_task()
    stack.wait_lit("candle", timeout=2 * TASK_TIMEOUT_S)
    stack.assert_flame_passed_taper_first()
    # Stopped by the box, remembered, and around it: the arm never entered the box.
    assert any(t.blocked for t in stack.truths), "the arm was never blocked"
    inside = [t.arm for t in stack.truths
              if all(lo < 1000 * v < hi for v, lo, hi in zip((t.arm.x, t.arm.y, t.arm.z), box["min_mm"], box["max_mm"]))]
    assert not inside, inside[:3]
    graph.spin_until(lambda: stack.count("/trajectory_server: move_to", "reached_by_detour") >= 1
                     and stack.count("/brain: arm", "goals_reached_by_detour") >= 1,
                     what="a goal reached by a detour, counted by the server and the brain")
    graph.spin_until(lambda: any(e.kind == BrainEvent.DETOUR for e in stack.events()),
                     what="a DETOUR event on /brain/state")
    ev = next(e for e in stack.events() if e.kind == BrainEvent.DETOUR)
    assert ev.has_target and "detour" in ev.detail, ev
    assert stack.count("/trajectory_server: detours", "obstructions_recorded") >= 1
    stack.cancel()


def test_obstacle_reverses_then_brain_retries_and_resets(graph, tmp_path):
    # A wall across lightOther's second move, (0, 30, 0) -> (-95, 30, 0) mm, and nothing else;
    # detours off: the original behaviour (PYT reverses, the brain retries, then resets).
    wall = {"name": "wall", "min_mm": [-60, 0, -15], "max_mm": [-40, 60, 15]}
    stack = Stack(graph, tmp_path, scenario=lambda s: s["arm"]["obstacles"].append(wall),
                  params={"trajectory_server": {"detour_enabled": False}})
    timeout = reset_timeout("lightOther")
    assert timeout >= 0, "the test needs a finite reset.timeout on lightOther"
    stack.ready()
    stack.run_task()

    def reset_to_start():
        return any(e.kind == BrainEvent.RESET and e.action == "lightOther" for e in stack.events())

    stack.wait(reset_to_start, "lightOther reset by the brain")
    # The sim's arm was stopped by the wall; the trajectory server reversed to the start.
    assert any(t.blocked for t in stack.truths), "the arm was never blocked"
    graph.spin_until(lambda: stack.count("/trajectory_server: move_to", "reversed_to_start") >= 1,
                     what="reversed_to_start counted by the trajectory server")
    assert stack.count("/trajectory_server: move_to", "aborted_help_needed") == 0, stack.summary()
    reverse = [p for p in stack.plans if len(p.poses) > 1
               and p.poses[0].pose.position.x <= -0.030  # from the wall (x = -40 mm) ...
               and close_mm(p.poses[-1].pose.position, (0.0, 30.0, 0.0))]  # ... back to the start
    assert reverse, "no reverse path from the wall to (0, 30, 0) mm on /trajectory/plan"
    assert stack.count("/brain: arm", "goals_failed") >= 1, stack.summary()

    # The brain: step 1 not reached `timeout` times (failures 1..timeout, re-sent each
    # time), then the reset of the task file: -> start.
    events = stack.events()
    reset_at = next(i for i, e in enumerate(events) if e.kind == BrainEvent.RESET and e.action == "lightOther")
    mine = [e for e in events[:reset_at] if e.action == "lightOther" and e.index == 1]
    failures = [e for e in mine if e.kind == BrainEvent.VERIFICATION_FAILED]
    assert [f.count for f in failures] == [i + 1 for i in range(timeout)], [f.text for f in failures]
    # Each failure carries the arm held off by the wall and the target behind it, in metres.
    assert all(f.has_arm and f.has_target and close_mm(f.target, (-95.0, 30.0, 0.0)) for f in failures)
    reset = events[reset_at]
    assert (reset.cause, reset.next) == (BrainEvent.CAUSE_VERIFICATION, "start"), reset.text
    retried = [e for e in mine if e.kind == BrainEvent.STEP_SENT and e.retry]
    assert len(retried) == timeout, [e.text for e in events[:reset_at]]
    # ... and the task goes on from `start`.
    n = len(stack.states)
    stack.wait(lambda: any(a.name == "start" for s in stack.states[n:] for a in s.active),
               "start active again after the reset", timeout=30.0)
    assert not stack.lit("candle")
    stack.cancel()


def test_spine_killed_mid_task_pauses_then_resumes(graph, tmp_path):
    stack = Stack(graph, tmp_path)
    stack.ready()
    stack.run_task()
    trajectory = "/trajectory_server: move_to"

    # Kill the spine as lightSelf starts its move to the source (step 2: 60 mm).
    stack.wait(lambda: any(a.name == "lightSelf" and a.step == 2 for s in stack.states[-1:] for a in s.active),
               "lightSelf sending step 2")
    rejected_before = stack.count(trajectory, "goals_rejected")
    stack.spine.must_live = False
    stack.spine.kill()
    stack.spine.wait()
    killed_tick = stack.states[-1].tick

    # The brain pauses (arm position stale) and says so on /diagnostics.
    stack.wait(lambda: stack.states[-1].paused, "the brain paused", timeout=30.0)
    paused_at = len(stack.states)
    assert any(e.kind == BrainEvent.PAUSED for e in stack.states[-1].events), stack.states[-1].events
    graph.spin_until(lambda: stack.diagnostics.status("/brain: run") is not None
                     and stack.diagnostics.status("/brain: run").level == DiagnosticStatus.WARN
                     and "paused" in stack.diagnostics.status("/brain: run").message,
                     what="brain: run WARN paused on /diagnostics")
    # No set-point after that: the trajectory server ended or refused every move.
    commands = len(stack.commands)
    stack.wait(lambda: len(stack.states) >= paused_at + 2, "two more paused ticks", timeout=30.0)
    assert all(s.paused for s in stack.states[paused_at - 1:]), "unpaused without a spine"
    assert len(stack.commands) == commands, "set-points published on /arm/command with a stale position"
    # The trajectory server refused the brain's re-sent step (stale position). (The move
    # running at the kill ends first, usually as REVERSED_TO_START: see the module doc.)
    graph.spin_until(lambda: stack.count(trajectory, "goals_rejected") > rejected_before,
                     what="a goal rejected by the trajectory server for the stale position")
    assert stack.count("/brain: arm", "goals_failed") >= 1, stack.summary()
    assert stack.states[-1].tick > killed_tick, "ticks stopped"
    assert not stack.lit("candle")

    # The spine back (same config, same ports): positions flow, the brain resumes and the
    # candle is lit (resumed or restarted by the task's own reset).
    stack.spine = stack.start_spine()
    resumed_from = len(stack.states)
    stack.wait(lambda: any(not s.paused for s in stack.states[resumed_from:]), "the brain unpaused", timeout=30.0)
    stack.wait_lit("candle")
    assert len(stack.commands) > commands
    actions_after = [a.name for s in stack.states[resumed_from:] for a in s.active]
    assert "lightOther" in actions_after, stack.summary()
    stack.cancel()


def test_five_percent_loss_on_the_arm_link_still_completes(graph, tmp_path):
    def lossy(s):
        s["seed"] = 7
        s["arm"]["loss_probability"] = 0.05

    stack = Stack(graph, tmp_path, scenario=lossy)
    stack.ready()
    stack.run_task()
    stack.wait_lit("candle")
    truth = stack.truths[-1]
    assert truth.commands_dropped > 0, "no arm target was lost: the loss setting had no effect"
    assert truth.commands_received > truth.commands_dropped
    assert subsequence(["start", "lightSelf", "lightOther"], stack.actions()), stack.summary()
    stack.cancel()
