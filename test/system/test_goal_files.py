"""Goal files that could hurt a node are refused with a reason (issue 13, item 3).

The brain (RunTask `task_file`) and the strategy (RunStrategy `strategy_file`) read goal
files through node_glue::files: only regular files, at most `max_file_bytes`, only from
`allowed_dirs` (real paths: `..` and symlinks resolved). Each test starts the real node
binary with `allowed_dirs` = [tmp/allowed, /dev] and sends, one after the other:
/dev/zero (a character device), a FIFO (nothing ever writes it: a node that opened it
would hang, so every wait here has a timeout), a 1 GB sparse file (truncate: refused by
its size, unread), a file outside the allowed folders, a `..` escape and a symlink
escape; after each, a good goal from the allowed folder still runs. The brain also caps
an inline task_json at `max_file_bytes`.
"""
import json
import os

from action_msgs.msg import GoalStatus
from arnie_interfaces.action import RunStrategy, RunTask
from arnie_interfaces.msg import StrategyEvent
from helpers.graph import REFERENCE, ROOT
from helpers import qos
from rclpy.action import ActionClient

INSTRUCTIONS = REFERENCE / "arnie" / "instructions.json"
CAP = 65536  # max_file_bytes for these nodes (the good files are a few KiB)
TIMEOUT = 30.0  # per goal; a hung node fails the test instead of hanging it


def bad_files(tmp_path, good_name, good_text):
    """The allowed folder with one good file, and every bad path with the words its
    refusal must contain."""
    allowed = tmp_path / "allowed"
    secret = tmp_path / "secret"
    allowed.mkdir()
    secret.mkdir()
    good = allowed / good_name
    good.write_text(good_text)
    (secret / good_name).write_text(good_text)
    fifo = allowed / "fifo.json"
    os.mkfifo(fifo)
    big = allowed / "big.json"
    with open(big, "wb") as f:
        f.truncate(1 << 30)  # 1 GiB, sparse
    (allowed / "link.json").symlink_to(secret / good_name)
    bad = [
        ("/dev/zero", "refused: not a regular file but a character device"),
        (str(fifo), "refused: not a regular file but a FIFO"),
        (str(big), f"refused: 1073741824 bytes, over the cap of {CAP} bytes (max_file_bytes)"),
        (str(secret / good_name), "refused: outside the allowed folders"),
        (f"{allowed}/../secret/{good_name}", "refused: outside the allowed folders"),
        (str(allowed / "link.json"), "refused: outside the allowed folders"),
    ]
    params = {"allowed_dirs": [str(allowed), "/dev"], "max_file_bytes": CAP}
    return good, bad, params


# ------------------------------------------------------------------------------ brain
def brain_goal(graph, client, **fields):
    goal = RunTask.Goal(**fields)
    handle = graph.wait_future(client.send_goal_async(goal), TIMEOUT, what="the RunTask goal response")
    assert handle.accepted, graph.logs()
    return graph.wait_future(handle.get_result_async(), TIMEOUT, what="the RunTask result")


def test_brain_refuses_bad_task_files_and_serves_the_next(graph, tmp_path):
    good, bad, params = bad_files(tmp_path, "task.json", INSTRUCTIONS.read_text())
    node = graph.start("brain", params_file=ROOT / "params" / "brain.yaml",
                       params=dict(params, tick_period_s=0.05))
    client = ActionClient(graph.node, RunTask, "/brain/run_task")
    graph.wait_for_action(client, "/brain/run_task")

    def runs_good():
        res = brain_goal(graph, client, task_file=str(good), max_ticks=2)
        assert res.status == GoalStatus.STATUS_SUCCEEDED, res
        assert res.result.outcome == RunTask.Result.FINISHED, res.result
        assert "tick limit" in res.result.message

    runs_good()
    for path, reason in bad:
        res = brain_goal(graph, client, task_file=path)
        assert res.status == GoalStatus.STATUS_ABORTED, (path, res)
        assert res.result.outcome == RunTask.Result.REJECTED, (path, res.result)
        assert res.result.message.startswith(f"{path}: "), res.result.message
        assert reason in res.result.message, res.result.message
        runs_good()
    # An inline task over the cap: refused by its length, never parsed.
    text = json.dumps({"pad": "x" * CAP})
    res = brain_goal(graph, client, task_json=text)
    assert res.result.outcome == RunTask.Result.REJECTED
    assert res.result.message == f"task_json: refused: {len(text)} bytes, over the cap of {CAP} bytes (max_file_bytes)"
    res = brain_goal(graph, client, task_english="wait 1 s. " * (CAP // 8))
    assert res.result.outcome == RunTask.Result.REJECTED
    assert res.result.message.startswith("task_english: refused: ")
    runs_good()
    assert node.poll() is None


def test_brain_refuses_a_bad_instructions_file_at_start(graph, tmp_path):
    good, _, params = bad_files(tmp_path, "task.json", INSTRUCTIONS.read_text())
    graph.start_refused("brain", params=dict(params, instructions_file=str(tmp_path / "secret" / "task.json")),
                        expect="refused: outside the allowed folders", timeout=TIMEOUT)


# --------------------------------------------------------------------------- strategy
# No move: the approach point is the start, and no planner is running.
STRATEGY = {"tasks": [{"name": "here", "points": 3, "approach_m": [0, 0, 0], "steps": [{"delay_ms": 10}]}]}


def strategy_goal(graph, client, path):
    goal = RunStrategy.Goal(strategy_file=path)
    handle = graph.wait_future(client.send_goal_async(goal), TIMEOUT, what="the RunStrategy goal response")
    assert handle.accepted, graph.logs()  # the goal policy: bad goals end REJECTED with the reason
    return graph.wait_future(handle.get_result_async(), TIMEOUT, what="the RunStrategy result")


def test_strategy_refuses_bad_strategy_files_and_serves_the_next(graph, tmp_path):
    good, bad, params = bad_files(tmp_path, "strategy.json", json.dumps(STRATEGY))
    events = graph.collect(StrategyEvent, "/strategy/events", qos.reliable(1000))
    node = graph.start("strategy", params_file=ROOT / "params" / "strategy.yaml",
                       params=dict(params, planner_wait_ms=200))
    client = ActionClient(graph.node, RunStrategy, "/strategy/run")
    graph.wait_for_action(client, "/strategy/run")

    def runs_good():
        res = strategy_goal(graph, client, str(good))
        assert res.status == GoalStatus.STATUS_SUCCEEDED, (res, graph.logs())
        assert (list(res.result.done), res.result.points) == (["here"], 3.0)

    runs_good()
    for path, reason in bad:
        res = strategy_goal(graph, client, path)
        assert res.status == GoalStatus.STATUS_ABORTED, (path, res)
        assert res.result.outcome == RunStrategy.Result.REJECTED, (path, res.result)
        assert f"{path}: " in res.result.message and reason in res.result.message, res.result.message
        runs_good()
    # Each refusal was also published as an ERROR event, with its reason.
    graph.spin_until(lambda: any(bad[0][1] in e.message for e in events if e.kind == StrategyEvent.ERROR),
                     timeout=TIMEOUT, what="the /dev/zero refusal on /strategy/events")
    assert node.poll() is None
