"""The match as Eurobot teams play it now (issue 47), on the real stack launched as
`cargo xtask demo eurobot colour:=yellow` launches it: the LiDAR on (board_sim's simulated
LD06 on a pty -> `lidar` -> the base's scan gate), the start cord, the match clock on
`match/state`. rclpy is the RunStrategy client; the simulated operator is this test,
writing to board_sim's control FIFO (`cord pull`, `lidar unplug`, ...); the automatic pull
is pushed out of the test's reach (`cord_pull_s:=600`).

- yellow: a RunStrategy goal arms the match (`match/state` WAITING, colour yellow) and
  nothing moves until the cord is pulled; the pull starts the clock (RUNNING), a second
  pull is counted and ignored; the mirrored match scores the scenario's expected points,
  as blue does (test_eurobot.py), with the mirrored opponent crossing the robot's path
  seen by the LiDAR (the base's scan gate stops for it at least once);
- a second, short match: the LiDAR unplugged mid-match stops the base (its move ends, or
  the next is refused, LINK_LOST "no scan from the LiDAR", which the strategy hears; the
  LiDAR driver's status ERROR), plugged back it streams again; at the match's end `match/state` says ENDED with the final score and
  the base refuses a NavigateTo goal.
"""
import json
import math
import random

import pytest

from arnie_interfaces.action import NavigateTo, RunStrategy
from action_msgs.msg import GoalStatus
from arnie_interfaces.msg import MatchState, StrategyEvent
from diagnostic_msgs.msg import DiagnosticStatus
from geometry_msgs.msg import PoseStamped
from helpers import qos
from helpers.diagnostics import Diagnostics
from helpers.graph import ROOT
from helpers.lifecycle import wait_active
from helpers.launch import STARTUP_S, any_launcher, launcher_cmd
from rclpy.action import ActionClient
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

SCENARIO = json.loads((ROOT / "params" / "eurobot" / "table.json").read_text())
STRATEGY_FILE = ROOT / "params" / "eurobot" / "strategy.json"
STRATEGY = json.loads(STRATEGY_FILE.read_text())
NS = "/eurobot"
BASE = f"{NS}/base: navigate_to"
LIDAR = f"{NS}/lidar: lidar"
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.TRANSIENT_LOCAL)


def event_log(events):
    return "\n".join(f"{e.stamp.sec}.{e.stamp.nanosec:09d} {e.kind} {e.task} / {e.step}: {e.message}"
                     for e in events)


class Stack:
    """The launched stack, its clients and what the test watches."""

    def __init__(self, graph, tmp_path):
        self.graph = graph
        self.control = tmp_path / "board.ctl"
        self.truth = tmp_path / "truth.jsonl"
        link = random.randrange(20000, 30000, 2)
        launcher = any_launcher()
        graph.launch(*launcher_cmd(launcher, "eurobot.launch.xml", "namespace:=eurobot", "colour:=yellow",
                                   f"link_port:={link}", f"board_port:={link + 1}",
                                   f"truth_log:={self.truth}", f"lidar_port:={tmp_path / 'lidar'}",
                                   f"board_control:={self.control}", "cord_pull_s:=600", "lidar:=true"),
                     name=launcher)
        self.diagnostics = Diagnostics(graph)
        self.states = graph.collect(MatchState, f"{NS}/match/state", LATCHED)
        self.events = graph.collect(StrategyEvent, f"{NS}/strategy/events", qos.reliable(200))
        self.poses = graph.collect(PoseStamped, f"{NS}/base/pose")
        self.run = ActionClient(graph.node, RunStrategy, f"{NS}/strategy/run")
        graph.wait_for_action(self.run, f"{NS}/strategy/run", timeout=STARTUP_S)
        self.base = ActionClient(graph.node, NavigateTo, f"{NS}/base/navigate_to")
        graph.wait_for_action(self.base, f"{NS}/base/navigate_to", timeout=STARTUP_S)
        graph.wait_for_publisher(f"{NS}/strategy/events", timeout=STARTUP_S)
        wait_active(graph, [f"{NS}/base", f"{NS}/strategy"], timeout=STARTUP_S)
        graph.spin_until(lambda: self.diagnostics.counter(BASE, "scans", 0) > 0, STARTUP_S,
                         "the base taking the simulated LiDAR's scans")

    def tell_board(self, command):
        """One line on board_sim's control FIFO (it is there once board_sim runs)."""
        self.graph.spin_until(self.control.exists, 30.0, "board_sim's control FIFO")
        with open(self.control, "w") as fifo:
            fifo.write(command + "\n")

    def state(self):
        return self.states[-1] if self.states else None

    def phase_is(self, phase):
        return self.state() is not None and self.state().phase == phase

    def start(self, match_s):
        """A RunStrategy goal: the match armed, waiting for the cord."""
        goal = RunStrategy.Goal(strategy_file=str(STRATEGY_FILE), match_time_s=match_s)
        handle = self.graph.wait_future(self.run.send_goal_async(goal), timeout=30.0,
                                        what="the RunStrategy goal's acceptance")
        assert handle.accepted
        self.graph.spin_until(lambda: self.phase_is(MatchState.WAITING), 20.0, "match/state WAITING")
        return handle

    def pull_cord(self):
        self.tell_board("cord pull")
        self.graph.spin_until(lambda: self.phase_is(MatchState.RUNNING), 10.0, "match/state RUNNING")

    def pose(self):
        p = self.poses[-1].pose.position
        return p.x, p.y

    def board_events(self, kind):
        """board_sim's events of one kind, from its truth log."""
        lines = (json.loads(line) for line in self.truth.read_text().splitlines() if line.strip())
        return [e for e in lines if e.get("type") == "event" and e.get("event") == kind]

    def diag(self):
        return f"base {self.diagnostics.values(BASE)}\nlidar {self.diagnostics.values(LIDAR)}"


@pytest.mark.long(150)
def test_yellow_waits_for_the_cord_scores_as_blue_and_ends_on_the_clock(graph, tmp_path):
    stack = Stack(graph, tmp_path)
    g = graph
    match_s = float(SCENARIO["match"]["duration_s"])

    # Armed: WAITING, yellow, and the robot stays where it is until the cord is pulled.
    handle = stack.start(match_s)
    s = stack.state()
    assert s.colour == "yellow" and s.duration_s == pytest.approx(match_s), s
    g.spin_until(lambda: len(stack.poses) > 0, 20.0, "base/pose")
    x0, y0 = stack.pose()
    # Yellow starts on the far side: the scenario's start mirrored across the length.
    start = SCENARIO["robot"]["start"]
    width = SCENARIO["table"]["width_m"]
    assert (x0, y0) == (pytest.approx(width - start["x_m"], abs=0.05), pytest.approx(start["y_m"], abs=0.05))
    g.spin_for(2.0)
    assert math.dist(stack.pose(), (x0, y0)) < 0.01, "the robot moved before the cord was pulled"
    assert stack.phase_is(MatchState.WAITING), stack.state()

    stack.pull_cord()
    started = stack.state().start
    assert (started.sec, started.nanosec) != (0, 0)
    # A second pull (the cord put back and pulled again) changes nothing.
    g.spin_until(lambda: math.dist(stack.pose(), (x0, y0)) > 0.05, 20.0, "the robot moving after the pull")
    stack.tell_board("cord pull")
    g.spin_until(lambda: stack.state().cord_pulls >= 2, 10.0, "the second pull on match/state")
    # (`start` is re-derived on each message from the monotonic clock: equal to the µs.)
    now = stack.state().start
    assert stack.phase_is(MatchState.RUNNING), stack.state()
    assert abs((now.sec - started.sec) + (now.nanosec - started.nanosec) * 1e-9) < 1e-3, (now, started)

    r = g.wait_future(handle.get_result_async(), timeout=match_s + 90.0, what="the match's result").result
    tasks = {t["name"]: t["points"] for t in STRATEGY["tasks"]}
    expected = SCENARIO["match"]["expected_points"]
    why = (f"done {r.done}, dropped {r.failed}, {r.points} points: {r.message}\n{stack.diag()}\n"
           f"events:\n{event_log(stack.events)}")
    assert r.outcome in (RunStrategy.Result.FINISHED, RunStrategy.Result.MATCH_OVER), why
    assert sorted(r.done) == sorted(tasks), why
    assert r.points == expected, why
    # The opponent crossed the robot's way and the LiDAR saw it: the gate stopped at least once.
    assert stack.diagnostics.counter(BASE, "scan_stops", 0) >= 1, why
    assert stack.board_events("collision") == [], why

    # A short match: the LiDAR unplugged while the robot drives.
    n = len(stack.events)
    handle = stack.start(12.0)
    stack.pull_cord()
    g.spin_until(lambda: any(e.kind == StrategyEvent.TASK_SELECTED for e in list(stack.events)[n:]), 20.0,
                 "a task selected")
    stack.tell_board("lidar unplug")
    # The base ends the running move (scan_lost) or refuses the next (goals_refused),
    # LINK_LOST either way, and the strategy hears why.
    g.spin_until(lambda: any(e.kind == StrategyEvent.ERROR and "no scan from the LiDAR" in e.message
                             for e in list(stack.events)[n:]), 15.0,
                 "a move ended LINK_LOST for the lost scans")
    g.spin_until(lambda: stack.diagnostics.status(LIDAR).level == DiagnosticStatus.ERROR, 10.0,
                 "the LiDAR driver's ERROR")
    stack.tell_board("lidar plug")
    scans = stack.diagnostics.counter(LIDAR, "scans_published", 0)
    g.spin_until(lambda: stack.diagnostics.counter(LIDAR, "scans_published", 0) > scans + 5, 15.0,
                 "scans again from the plugged-back LiDAR")

    # The clock ends the match (the run may have ended before, its tasks dropped while
    # the LiDAR was out): ENDED with the final score; the base takes no goal.
    r = g.wait_future(handle.get_result_async(), timeout=60.0, what="the short match's result").result
    why = f"outcome {r.outcome}, done {r.done}: {r.message}\nevents:\n{event_log(list(stack.events)[n:])}"
    assert r.outcome in (RunStrategy.Result.FINISHED, RunStrategy.Result.MATCH_OVER), why
    g.spin_until(lambda: stack.phase_is(MatchState.ENDED), 30.0, "match/state ENDED")
    assert stack.state().points == pytest.approx(r.points), (stack.state(), why)
    assert stack.state().remaining_s == pytest.approx(0.0, abs=1e-6), stack.state()
    refused = stack.diagnostics.counter(BASE, "refused_match_over", 0)
    goal = NavigateTo.Goal(x=1.5, y=1.0, theta=0.0)
    h = g.wait_future(stack.base.send_goal_async(goal), timeout=20.0, what="the base's answer")
    # The base's refusals, as for any bad goal: accepted, then ABORTED with REJECTED.
    got = g.wait_future(h.get_result_async(), timeout=20.0, what="the refused goal's result")
    assert (got.status, got.result.outcome) == (GoalStatus.STATUS_ABORTED, NavigateTo.Result.REJECTED), \
        got.result.message
    assert "the match is over" in got.result.message, got.result.message
    g.spin_until(lambda: stack.diagnostics.counter(BASE, "refused_match_over", 0) > refused, 5.0,
                 "the refusal counted")
