"""Tasks in plain English (issue 17) through the brain's RunTask goal, on a real graph.

- the flame task from params/tasks/flame_passing.txt (task_file ending in .txt: the brain
  compiles it with arnie_english) against the whole stack, started as test/arm/test_e2e.py
  starts it (sim + spine_bridge + trajectory_server + brain, free UDP ports): the candle
  lights, through start -> lightSelf -> lightOther;
- English that does not compile, inline (task_english) and as a .txt file: the goal is
  accepted then aborted with outcome REJECTED and every diagnostic of the compiler, one
  per line, prefixed with the source; a run in progress is not disturbed;
- an inline task_english goal runs: its MoveTo targets are the English's steps, in metres;
- ARNIE's own decypher/sample.txt (read from ../shared/reference) lights the candle in
  params/scenario_sample.json, the flame scenario with the candle where the sample puts
  it, (-50, 50, 50) mm (params/scenario_flame.json has it at (-95, 30, 45)).
"""
import json

from action_msgs.msg import GoalStatus
from arnie_interfaces.action import RunTask
from arnie_interfaces.msg import BrainState

from helpers.graph import REFERENCE, ROOT
from helpers.brain import STATE, STATE_QOS, ArmPeer, collapse, key, m, result_of, send, start_node
from helpers.stack import Stack, subsequence

TASK_TXT = ROOT / "params" / "tasks" / "flame_passing.txt"
SAMPLE_TXT = REFERENCE / "arnie" / "decypher" / "sample.txt"
SAMPLE_SCENARIO = ROOT / "params" / "scenario_sample.json"

# Two errors: a sentence that does not parse (line 3) and an unknown action (line 5).
BAD_ENGLISH = """Create an action called start.
The first step is to move to 0, 0, 0.
Move y posission to 3.
This is called seen.
The success action is lightSelff with no delay.
The failure action is start with no delay.
start has no reset condition.
"""
BAD_DIAGNOSTICS = [
    "line 3, column 8: unknown sentence: unexpected word `posission` in \"Move y posission to 3.\"; "
    "expected one of `,`, `and`, `position`, `positions` or `to`; did you mean `position`?",
    "line 5, column 23: unknown action `lightSelff` in \"The success action is lightSelff with no delay.\"; "
    "the actions are `start`",
]

# Two steps, no decision: the run ends by itself after the second move.
HOME_ENGLISH = """Create an action called home.
The home trajectory has two steps.
The first step is to move to 0, 0, 0.
The second step is to move to 10, 50, -20.
home has no decisions.
home has no reset condition.
"""


def run_english_file(stack, graph, path):
    """The RunTask goal with an English task file, until the candle is lit; then checks
    that the flame went source -> taper -> candle through the task's three actions."""
    stack.ready()
    goal = RunTask.Goal(task_file=str(path))
    stack.handle = graph.wait_future(
        stack.client.send_goal_async(goal, feedback_callback=lambda fb: stack.feedback.append(fb.feedback.state)),
        what="the RunTask goal response")
    assert stack.handle.accepted, "the brain refused the RunTask goal"
    stack.result = stack.handle.get_result_async()
    stack.wait_lit("candle")

    stack.assert_flame_passed_taper_first()
    assert subsequence(["start", "lightSelf", "lightOther"], stack.actions()), stack.summary()
    assert all(s.task == str(path) for s in stack.states if s.active), {s.task for s in stack.states}

    result = stack.cancel()
    assert result.status == GoalStatus.STATUS_CANCELED, result
    assert result.result.outcome == RunTask.Result.CANCELLED, result.result


def test_english_flame_task_lights_the_candle(graph, tmp_path):
    run_english_file(Stack(graph, tmp_path), graph, TASK_TXT)


def test_decypher_sample_lights_the_candle_in_its_scenario(graph, tmp_path):
    sample_scenario = json.loads(SAMPLE_SCENARIO.read_text())
    # The sample's geometry: its lightOther holds the taper at (-50, 50, 50) mm.
    assert sample_scenario["eyes"]["candle_mm"] == [-50, 50, 50]

    def use_sample_scenario(s):
        s.clear()
        s.update(sample_scenario)

    run_english_file(Stack(graph, tmp_path, scenario=use_sample_scenario), graph, SAMPLE_TXT)


def test_bad_english_is_rejected_with_the_compilers_messages(graph, tmp_path):
    arm = ArmPeer(graph.node, hold=True)
    _, client = start_node(graph, tick_period_s=5.0)

    # A run in progress (in English too), which the bad goals must leave alone.
    running = send(graph, client, task_english=HOME_ENGLISH)
    graph.spin_until(lambda: arm.targets, what="the first MoveTo goal")

    res = result_of(graph, send(graph, client, task_english=BAD_ENGLISH))
    assert res.status == GoalStatus.STATUS_ABORTED
    assert res.result.outcome == RunTask.Result.REJECTED
    assert res.result.message.split("\n") == [f"task_english: {d}" for d in BAD_DIAGNOSTICS]

    bad_file = tmp_path / "bad.txt"
    bad_file.write_text(BAD_ENGLISH)
    res = result_of(graph, send(graph, client, task_file=str(bad_file)))
    assert res.result.outcome == RunTask.Result.REJECTED
    assert res.result.message.split("\n") == [f"{bad_file}: {d}" for d in BAD_DIAGNOSTICS]

    # A .txt file is English, whatever it holds: JSON in it does not compile.
    json_in_txt = tmp_path / "task.txt"
    json_in_txt.write_text((ROOT / "params" / "tasks" / "flame_passing.json").read_text())
    res = result_of(graph, send(graph, client, task_file=str(json_in_txt)))
    assert res.result.outcome == RunTask.Result.REJECTED
    assert res.result.message.startswith(f"{json_in_txt}: line 1, column 1: "), res.result.message

    assert arm.cancelled == []
    assert not running.get_result_async().done()
    graph.wait_future(running.cancel_goal_async(), what="the cancel response")
    assert result_of(graph, running).result.outcome == RunTask.Result.CANCELLED


def test_inline_english_runs(graph):
    arm = ArmPeer(graph.node)
    states = graph.collect(BrainState, STATE, STATE_QOS)
    _, client = start_node(graph, tick_period_s=0.3)
    graph.spin_until(lambda: graph.node.count_subscribers("/arm/position") > 0, what="the brain on /arm/position")

    res = result_of(graph, send(graph, client, task_english=HOME_ENGLISH, max_ticks=50))
    assert res.status == GoalStatus.STATUS_SUCCEEDED, res.result.message
    assert res.result.outcome == RunTask.Result.FINISHED, res.result.message
    assert res.result.message.startswith("finished after"), res.result.message
    graph.spin_until(lambda: len(collapse(arm.targets)) >= 2, timeout=10.0, what="the second MoveTo goal")
    assert collapse(arm.targets) == [key((0.0, 0.0, 0.0)), key(m((10.0, 50.0, -20.0)))], graph.logs()
    graph.spin_until(lambda: states, what="/brain/state")
    assert {s.task for s in states} == {"task_english"}
