"""The brain node on a real graph, against rclpy test peers.

- the arm: a MoveTo action server on /trajectory/move_to that "moves" at once (records
  each goal's target and from then on publishes /arm/position there, so trajectory
  verification passes), or, with `hold`, keeps every goal running until it is cancelled;
- the eyes: /eyes/observations with the source flame F first, the taper at the arm once
  the arm has been at F, and the second candle once the lit taper has been at it.

The main test runs the reference flame-passing task (instructions.json, read by path)
with a short tick and checks the MoveTo targets, in metres, from `start` through
lightSelf and lightOther back to `start`, then the FINISHED result at the tick limit.
"""
import json

from action_msgs.msg import GoalStatus
from arnie_interfaces.action import RunTask
from arnie_interfaces.msg import BrainEvent, BrainState
from geometry_msgs.msg import PointStamped
from helpers.brain import (
    ArmPeer, CANDLE_MM, EyesPeer, F_MM, INSTRUCTIONS, STATE, STATE_QOS, collapse, key, m,
    result_of, send, start_node, wait_inputs,
)
from helpers.diagnostics import Diagnostics


FY = F_MM[1]
EXPECTED = [
    (0.0, 0.0, 0.0),  # start: home; the source flame F is seen and captured as start,0,0
    m((0.0, FY, 0.0)),  # lightSelf
    m((0.0, FY, F_MM[2])),
    m(F_MM),  # the taper at the flame: lit
    m((0.0, FY, 0.0)),  # the lit taper seen at the arm: success -> lightOther (same tick)
    m((0.0, 30.0, 0.0)),  # lightOther
    m((-95.0, 30.0, 0.0)),
    m(CANDLE_MM),  # the taper at the candle: lit
    m((0.0, 30.0, 0.0)),  # the candle seen: success -> start
    (0.0, 0.0, 0.0),  # start again
]


def test_flame_passing_runs_to_its_end(graph):
    arm = ArmPeer(graph.node)
    EyesPeer(graph.node, arm)
    states = graph.collect(BrainState, STATE, STATE_QOS)
    diagnostics = Diagnostics(graph)
    _, client = start_node(graph, tick_period_s=0.5)
    wait_inputs(graph, diagnostics)

    feedback = []
    # Ticks 0..12: start (0), lightSelf (2..5), lightOther (6..9), start (11), whose
    # decision on tick 12 schedules lightSelf for tick 13, past the limit.
    handle = send(graph, client, feedback, task_file=str(INSTRUCTIONS), max_ticks=13)
    res = result_of(graph, handle)

    assert res.status == GoalStatus.STATUS_SUCCEEDED, res.result.message
    assert res.result.outcome == RunTask.Result.FINISHED
    assert res.result.ticks == 13
    assert res.result.message == "tick limit reached after 13 ticks"
    # The last goal was sent a tick before the result: it has arrived (or never will).
    graph.spin_until(lambda: len(collapse(arm.targets)) >= len(EXPECTED), timeout=10.0, what="the last MoveTo goal")
    graph.spin_for(0.5)
    assert collapse(arm.targets) == [key(p) for p in EXPECTED], graph.logs()
    assert arm.cancelled == []

    # /brain/state: every tick, the active actions with their step, the captures.
    graph.spin_until(lambda: any(s.tick == 13 for s in states), what="the last /brain/state")
    assert all(s.task == str(INSTRUCTIONS) for s in states)
    assert [s.tick for s in states] == list(range(1, 14))
    light_self = [s for s in states if [a.name for a in s.active] == ["lightSelf"]]
    assert collapse([a.step for s in light_self for a in s.active]) == [0, 1, 2, 3]
    assert all(a.steps == 4 for s in light_self for a in s.active)
    start_var = [v for v in states[-1].variables if v.name == "start,0,0"]
    # Variables in metres (world), like every topic; the confidence unchanged.
    assert len(start_var) == 1 and [round(v, 6) for v in start_var[0].values] == [*m(F_MM), 90.0]
    assert any(s.last_decision == "lightSelf.decisions[0]: success -> lightOther (delay -1)" for s in states)
    targets = [key(s.target) for s in states if s.has_target]
    assert collapse(targets) == [key(p) for p in EXPECTED]
    assert not any(s.paused for s in states)
    started = [e for s in states for e in s.events if e.kind == BrainEvent.ACTION_STARTED]
    assert "lightOther" in [e.action for e in started]
    # Every step sent, as a structured event: its action, index and target in metres.
    sent = [e for s in states for e in s.events if e.kind == BrainEvent.STEP_SENT]
    assert all(e.has_target for e in sent)
    assert collapse([key(e.target) for e in sent if e.action == "lightSelf"]) == [key(p) for p in EXPECTED[1:5]]
    passed = [e for s in states for e in s.events if e.kind == BrainEvent.DECISION_PASSED and e.action == "lightSelf"]
    assert [(e.index, e.next, e.delay) for e in passed] == [(0, "lightOther", -1)]
    assert passed[0].text == "lightSelf.decisions[0]: success -> lightOther (delay -1)"
    # The same states come as feedback.
    graph.spin_until(lambda: any(f.tick == 13 for f in feedback), what="the last feedback")
    assert collapse([key(f.target) for f in feedback if f.has_target]) == [key(p) for p in EXPECTED]


def test_bad_instructions_are_rejected_with_their_path(graph, tmp_path):
    arm = ArmPeer(graph.node, hold=True)
    _, client = start_node(graph, tick_period_s=5.0)

    # A run in progress, which the bad goals below must leave alone.
    running = send(graph, client, task_file=str(INSTRUCTIONS))
    graph.spin_until(lambda: arm.targets, what="the first MoveTo goal")

    bad = json.loads(INSTRUCTIONS.read_text())
    bad["actions"]["start"]["decisions"][0]["success"]["action"] = "lightSelf2"
    res = result_of(graph, send(graph, client, task_json=json.dumps(bad)))
    assert res.status == GoalStatus.STATUS_ABORTED
    assert res.result.outcome == RunTask.Result.REJECTED
    assert res.result.message == 'task_json: actions.start.decisions[0].success.action: unknown action "lightSelf2"'

    broken = tmp_path / "broken.json"
    broken.write_text('{"initialAction": "start", "actions": {')
    res = result_of(graph, send(graph, client, task_file=str(broken)))
    assert res.result.outcome == RunTask.Result.REJECTED
    assert res.result.message.startswith(f"{broken}: invalid JSON at line 1")

    missing = tmp_path / "missing.json"
    res = result_of(graph, send(graph, client, task_file=str(missing)))
    assert res.result.outcome == RunTask.Result.REJECTED
    assert res.result.message.startswith(f"{missing}: cannot read")

    res = result_of(graph, send(graph, client, task_file=str(INSTRUCTIONS), initial_action="lightThird"))
    assert res.result.outcome == RunTask.Result.REJECTED
    assert res.result.message == f'{INSTRUCTIONS}: initial action "lightThird" is not in the instructions'

    # No task at all (the node has no instructions_file).
    res = result_of(graph, send(graph, client))
    assert res.result.outcome == RunTask.Result.REJECTED
    assert "no task" in res.result.message

    # The first run was not disturbed: its move was not cancelled, and it still runs
    # (it ends only now, by its cancel).
    assert arm.cancelled == []
    assert not running.get_result_async().done()
    graph.wait_future(running.cancel_goal_async(), what="the cancel response")
    assert result_of(graph, running).result.outcome == RunTask.Result.CANCELLED


def test_bad_instructions_file_stops_the_node_at_start(graph, tmp_path):
    bad = json.loads(INSTRUCTIONS.read_text())
    bad["actions"]["lightSelf"]["trajectory"][1]["z"] = "start,1,0"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    graph.start_refused(
        "brain",
        params={"instructions_file": str(path)},
        expect=f'instructions_file {path}: actions.lightSelf.trajectory[1].z: variable "start,1,0" names a missing decision',
    )


def start_held_run(graph, what):
    """The brain, a trajectory peer holding every MoveTo goal, and one run sent; returns
    (arm, states, client, handle) once the run's first goal is held (`what` names it)."""
    arm = ArmPeer(graph.node, hold=True)
    states = graph.collect(BrainState, STATE, STATE_QOS)
    _, client = start_node(graph, tick_period_s=5.0)
    handle = send(graph, client, task_file=str(INSTRUCTIONS))
    graph.spin_until(lambda: arm.targets, what=what)
    return arm, states, client, handle


def test_cancel_stops_the_task_and_its_move(graph):
    arm, states, _, handle = start_held_run(graph, "the first MoveTo goal")
    assert arm.targets[0] == (0.0, 0.0, 0.0)
    graph.wait_future(handle.cancel_goal_async(), what="the cancel response")
    res = result_of(graph, handle)

    assert res.status == GoalStatus.STATUS_CANCELED
    assert res.result.outcome == RunTask.Result.CANCELLED
    assert res.result.message.startswith("cancelled after")
    graph.spin_until(lambda: arm.cancelled, what="the MoveTo goal to be cancelled")
    assert arm.cancelled == [(0.0, 0.0, 0.0)]
    graph.spin_until(
        lambda: any(e.kind == BrainEvent.CANCELLED for s in states for e in s.events), what="the last /brain/state"
    )
    assert states[-1].active == []


def test_a_new_goal_preempts_the_running_one(graph):
    arm, states, client, first = start_held_run(graph, "the first run's MoveTo goal")
    # A goal that loads while a run is in progress replaces it.
    second = send(graph, client, task_file=str(INSTRUCTIONS))
    res = result_of(graph, first)
    assert res.status == GoalStatus.STATUS_ABORTED, res.status
    assert res.result.outcome == RunTask.Result.PREEMPTED, res.result
    # The goal policy (node_glue::action): the message names the newer goal.
    assert res.result.message.startswith("preempted by a newer goal ("), res.result
    graph.spin_until(lambda: arm.cancelled, what="the first run's MoveTo goal to be cancelled")
    graph.spin_until(
        lambda: any(e.kind == BrainEvent.ABORTED and e.detail.startswith("preempted by a newer goal") for s in states for e in s.events),
        what="the preempted run's last /brain/state",
    )
    graph.spin_until(lambda: len(arm.targets) == 2, what="the second run's MoveTo goal")
    graph.wait_future(second.cancel_goal_async(), what="the cancel response")
    assert result_of(graph, second).result.outcome == RunTask.Result.CANCELLED


def test_stale_arm_pauses_decisions(graph):
    arm = ArmPeer(graph.node)
    EyesPeer(graph.node, arm)
    states = graph.collect(BrainState, STATE, STATE_QOS)
    diagnostics = Diagnostics(graph)
    _, client = start_node(graph, tick_period_s=0.3, position_timeout_s=1.0)
    wait_inputs(graph, diagnostics)

    handle = send(graph, client, task_file=str(INSTRUCTIONS))
    graph.spin_until(lambda: any(a.name == "lightSelf" for s in states for a in s.active), what="lightSelf to start")
    arm.publishing = False
    graph.spin_until(lambda: states and states[-1].paused, what="a paused /brain/state")
    paused_at = len(states) - 1
    # Paused: the action holds its step (no verification, no decision) while ticks go on.
    graph.spin_until(lambda: len(states) >= paused_at + 3, what="more ticks")
    held = states[paused_at:]
    assert all(s.paused for s in held)
    assert len({(a.name, a.step) for s in held for a in s.active}) == 1
    assert all(any(e.kind == BrainEvent.PAUSED and e.action == s.active[0].name for e in s.events) for s in held)
    # Positions again: the run goes on.
    arm.publishing = True
    graph.spin_until(lambda: not states[-1].paused, what="an unpaused /brain/state")
    graph.wait_future(handle.cancel_goal_async(), what="the cancel response")
    assert result_of(graph, handle).result.outcome == RunTask.Result.CANCELLED


def test_autostart_on_the_legacy_target_topic(graph, tmp_path):
    # Two steps, then a decision that always passes and starts the action again: the
    # run never ends, so targets keep coming whenever the test's subscription matched.
    decision = {
        "executeAfter": 1,
        "state": {"arm": {"x": -1, "y": -1, "z": -1}, "objects": []},
        "success": {"action": "a", "delay": 0},
        "fail": {"action": "a", "delay": 0},
    }
    task = {
        "initialAction": "a",
        "actions": {
            "a": {"trajectory": [{"x": 10, "y": 20, "z": 30}, {"x": -10, "y": 0, "z": 5}], "decisions": [decision]}
        },
    }
    path = tmp_path / "loop.json"
    path.write_text(json.dumps(task))
    ArmPeer(graph.node)  # only its /arm/position matters here (the decision needs the arm)
    targets = graph.collect(PointStamped, "/arm/target", STATE_QOS)
    states = graph.collect(BrainState, STATE, STATE_QOS)
    node = graph.start(
        "brain",
        params={"instructions_file": str(path), "autostart": True, "command_mode": "topic", "tick_period_s": 0.3},
    )
    graph.spin_until(lambda: len(targets) >= 4, what="targets on /arm/target")
    got = [key(t.point) for t in targets]
    assert set(got) == {(0.01, 0.02, 0.03), (-0.01, 0.0, 0.005)}
    assert collapse(got) == got, "a repeated target is not published again"
    assert all(t.header.frame_id == "world" for t in targets)
    assert states and all(s.task == str(path) for s in states)
    assert any(s.last_decision == "a.decisions[0]: success -> a (delay 0)" for s in states)
    # SIGINT with a run in progress: a clean exit.
    assert graph.stop(node) == 0, graph.output(node)
