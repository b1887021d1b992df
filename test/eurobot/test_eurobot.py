"""One Eurobot match on the real stack, launched as `cargo xtask demo eurobot` launches it
(eurobot.launch.xml: planner on the table map, comms_bridge, arnie_base, the strategy with
motion navigate_to, board_sim on loopback CAN-over-UDP), rclpy as the RunStrategy client.

- the match runs to the end with every task of params/eurobot/strategy.json done and the
  scenario's expected points scored;
- the opponent plugs the alcove mouth on the way to tower_far (the first task, by file
  order; its script starts with the robot's first motion, so the start-up time does not
  move it): its approach fails (NavigateTo BLOCKED / NO_PATH), the strategy re-selects by
  points per distance from where the robot stands (another task is finished first), and
  tower_far is done later: read from /strategy/events;
- the same with `motion:=navigate_to_pose` (Nav2's NavigateToPose, position from TF);
- a 4 s match: the match timer ends it (MATCH_OVER) and the end-of-match task (the
  Actuator release) runs.
"""
import json
import random

import pytest

from arnie_interfaces.action import NavigateTo, RunStrategy
from arnie_interfaces.msg import StrategyEvent
from helpers.graph import ROOT
from helpers.lifecycle import wait_active
from helpers.launch import STARTUP_S, any_launcher, launcher_cmd
from helpers import qos
from rclpy.action import ActionClient

SCENARIO = json.loads((ROOT / "params" / "eurobot" / "table.json").read_text())
STRATEGY_FILE = ROOT / "params" / "eurobot" / "strategy.json"
STRATEGY = json.loads(STRATEGY_FILE.read_text())
NS = "/eurobot"


def event_log(events):
    """One line per strategy event, stamped: printed whole when an assertion fails."""
    return "\n".join(f"{e.stamp.sec}.{e.stamp.nanosec:09d} {e.kind} {e.task} / {e.step}: {e.message}"
                     for e in events)


# navigate_to_pose: the strategy drives through Nav2's NavigateToPose (the base's
# navigate_to_pose) with its position from TF, as it would a robot running real Nav2.
@pytest.mark.parametrize("motion", ["navigate_to", "navigate_to_pose"])
@pytest.mark.long(50)
def test_one_match_scores_the_expected_points_and_reselects_after_the_blocked_task(graph, tmp_path, motion):
    link = random.randrange(20000, 30000, 2)
    launcher = any_launcher()
    graph.launch(*launcher_cmd(launcher, "eurobot.launch.xml", "namespace:=eurobot", f"link_port:={link}",
                               f"board_port:={link + 1}", f"truth_log:={tmp_path / 'truth.jsonl'}",
                               f"lidar_port:={tmp_path / 'lidar'}", f"board_control:={tmp_path / 'board.ctl'}",
                               f"motion:={motion}", "lidar:=false"), name=launcher)  # the range sensors' match
    events = graph.collect(StrategyEvent, f"{NS}/strategy/events",
                           qos.reliable(200))
    client = ActionClient(graph.node, RunStrategy, f"{NS}/strategy/run")
    graph.wait_for_action(client, f"{NS}/strategy/run", timeout=STARTUP_S)
    base = ActionClient(graph.node, NavigateTo, f"{NS}/base/navigate_to")
    graph.wait_for_action(base, f"{NS}/base/navigate_to", timeout=STARTUP_S)
    graph.wait_for_publisher(f"{NS}/strategy/events", timeout=STARTUP_S)
    wait_active(graph, [f"{NS}/base", f"{NS}/strategy"], timeout=STARTUP_S)

    match_s = float(SCENARIO["match"]["duration_s"])
    goal = RunStrategy.Goal(strategy_file=str(STRATEGY_FILE), match_time_s=match_s)
    handle = graph.wait_future(client.send_goal_async(goal), timeout=30.0, what="the RunStrategy goal's acceptance")
    assert handle.accepted
    # Generous: the match timer ends it at match_s; the end-of-match task runs after.
    got = graph.wait_future(handle.get_result_async(), timeout=match_s + 90.0, what="the match's result")
    r = got.result
    graph.spin_until(lambda: any(e.kind == StrategyEvent.FINISHED and not e.task for e in events)
                     or any(e.kind == StrategyEvent.STOPPED for e in events), 20.0, "the match's last event")

    tasks = {t["name"]: t["points"] for t in STRATEGY["tasks"]}
    expected = SCENARIO["match"]["expected_points"]
    assert sum(tasks.values()) == expected, "the strategy's tasks no longer add up to the scenario's points"
    log = event_log(events)
    # A plain string, so that pytest prints the whole event log rather than a shortened repr.
    why = f"done {r.done}, dropped {r.failed}, {r.points} points: {r.message}\nevents:\n{log}"
    assert r.outcome in (RunStrategy.Result.FINISHED, RunStrategy.Result.MATCH_OVER), why
    assert sorted(r.done) == sorted(tasks), why
    assert r.points == expected, why

    # Order of events: tower_far first (file order), its approach fails, another task is
    # selected and finished, and tower_far is finished after that one.
    selected = [e.task for e in events if e.kind == StrategyEvent.TASK_SELECTED]
    finished = [e.task for e in events if e.kind == StrategyEvent.FINISHED and e.task in tasks]
    assert selected and selected[0] == "tower_far", f"selected {selected}\n{log}"
    first_error = next((i for i, e in enumerate(events) if e.kind == StrategyEvent.ERROR and e.task == "tower_far"), None)
    assert first_error is not None, f"tower_far's approach never failed: the opponent did not block it\n{log}"
    after = [e for e in list(events)[first_error:] if e.kind == StrategyEvent.TASK_SELECTED]
    assert after and after[0].task != "tower_far", f"selected after the error {[e.task for e in after]}\n{log}"
    assert "points/cost" in after[0].message, f"{after[0].message}\n{log}"
    assert finished.index(after[0].task) < finished.index("tower_far"), f"finished {finished}\n{log}"

    # A second, short match on the same stack: the match timer ends it mid-task, the
    # running NavigateTo / actuator step is stopped and the end-of-match task runs (its
    # Actuator release acked by the board).
    n = len(events)
    goal = RunStrategy.Goal(strategy_file=str(STRATEGY_FILE), match_time_s=4.0)
    handle = graph.wait_future(client.send_goal_async(goal), timeout=30.0, what="the short match's acceptance")
    assert handle.accepted
    r = graph.wait_future(handle.get_result_async(), timeout=60.0, what="the short match's result").result
    why = f"outcome {r.outcome}, done {r.done}: {r.message}\nevents:\n{event_log(list(events)[n:])}"
    assert r.outcome == RunStrategy.Result.MATCH_OVER, why
    assert STRATEGY["end_of_match"]["name"] in r.done, why
    graph.spin_until(lambda: any(e.kind == StrategyEvent.STOPPED and "match timer" in e.message
                                 for e in list(events)[n:]), 20.0, "the match timer's STOPPED event")
