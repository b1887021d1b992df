"""The brain replay (issue 14): record a demo-like run, replay the brain's inputs at
`-r 4 --clock` into a lone brain running on sim time, and check that it takes the same
decisions in the same order as the recorded brain.

1. Record. sim + spine_bridge + trajectory_server + brain on a real graph (test_e2e's
   Stack: the demo's 2 s tick, free UDP ports), `arnie_bag record` of `/arm/position`,
   `/eyes/observations` (everything the brain subscribes to besides its action) and
   `/brain/state`; the flame task (params/tasks/flame_passing.json) by a RunTask goal,
   until the candle is lit and a few more ticks; the recorder stops first (SIGINT), then
   the stack.
2. Replay. A lone brain with `use_sim_time:=true`, autostart of the same task,
   `command_mode:=topic` (no trajectory server: its targets go to the legacy topic and
   move nothing), then `arnie_bag play <bag> --topics /arm/position /eyes/observations
   --clock 100 -r 4`. The brain ticks on /clock, so its run takes a quarter of the
   recorded wall time (measured, printed, never asserted).
3. Compare, tick by tick, what the brain decided: the events of each tick (actions
   started, steps sent, verifications, decisions passed/failed, resets, with every number
   rounded to the millimetre) and the target commanded. The replayed brain must decide
   exactly as the recorded one for every recorded tick.

What "same" means here, honestly: the replayed brain cannot move the arm. Its targets go
nowhere; the arm it sees is the *recorded* arm, which moved because the *recorded* brain
commanded it. So this is an open-loop replay: it shows that given the same inputs at the
same (simulated) instants, the brain takes the same decisions; a brain that decided
differently would see an arm that does not follow it, and the comparison would show the
first tick where it diverged. Tick instants: the recorded run's first tick is at T1 (the
goal's arrival); the replay starts at `--start-offset` so that /clock begins 0.3 s
(LEAD_S) before T1, and the autostarted run ticks at the first /clock, so every replayed
tick comes 0.3 s of recorded time before its recorded twin: the arm has finished the move
commanded one tick earlier (moves take about a second of the 2 s tick) and has not started
the next one, so the inputs a tick sees are the same. The first tick (send step 0 of
`start`) needs no input. Messages lost by the recorder (best-effort sensor topics) would
show as a difference only if one fell exactly on a decision.
"""
import re
import time
from pathlib import Path
import pytest

from arnie_interfaces.msg import BrainState
from rclpy.serialization import deserialize_message
from rosbags.highlevel import AnyReader

from helpers.graph import ROOT
from helpers import qos
from helpers.stack import TASK, TICK_PERIOD_S, Stack

PARAMS = ROOT / "params"
RATE = 4.0
CLOCK_HZ = 100
LEAD_S = 0.3  # the replayed ticks come this much (bag time) before the recorded ones
EXTRA_TICKS = 3  # recorded after the candle is lit
RECORDED = ["/arm/position", "/eyes/observations", "/brain/state"]
INPUTS = ["/arm/position", "/eyes/observations"]
RELIABLE = qos.reliable(1000)
NUMBER = re.compile(r"-?\d+\.\d+")


def mm(p):
    """A message point (metres) rounded to whole millimetres."""
    return tuple(round(v * 1000.0) for v in (p.x, p.y, p.z))


def event(e):
    """One BrainEvent's fields, positions rounded to whole mm (numbers in detail too)."""
    return (e.kind, e.cause, e.action, e.index, e.next, e.delay, e.count, e.retry,
            mm(e.target) if e.has_target else None, mm(e.arm) if e.has_arm else None,
            NUMBER.sub(lambda m: f"{float(m.group()):.0f}", e.detail))


def decision(state):
    """What a tick decided: its events (structured, see `event`) and its target (mm)."""
    events = tuple(event(e) for e in state.events)
    target = mm(state.target) if state.has_target else None
    return state.tick, events, target


def read_states(bag):
    """The recorded /brain/state messages with their log times (ns), and the bag's start."""
    states, start = [], None
    with AnyReader([Path(bag)]) as r:
        for conn, t, raw in r.messages():
            start = t if start is None else min(start, t)
            if conn.topic == "/brain/state":
                states.append((t, deserialize_message(bytes(raw), BrainState)))
    return states, start


def first_difference(recorded, replayed):
    for i, (a, b) in enumerate(zip(recorded, replayed)):
        if a != b:
            return i
    return min(len(recorded), len(replayed))


@pytest.mark.long(45)
def test_replayed_inputs_give_the_same_decisions(graph, tmp_path):
    # ------------------------------------------------------------------ record
    stack = Stack(graph, tmp_path)
    stack.ready()
    before = {t: graph.node.count_subscribers(t) for t in RECORDED}
    bag = tmp_path / "run_bag"
    rec = graph.start("arnie_bag", "record", *RECORDED, "-o", str(bag))
    graph.spin_until(lambda: all(graph.node.count_subscribers(t) > before[t] for t in RECORDED), 60.0,
                     "the recorder subscribed to " + ", ".join(RECORDED))
    graph.spin_for(1.5)  # matched, and a stretch of inputs before the first tick
    stack.run_task()
    stack.wait_lit("candle")
    ticks_lit = stack.states[-1].tick
    stack.wait(lambda: stack.states and stack.states[-1].tick >= ticks_lit + EXTRA_TICKS,
               f"{EXTRA_TICKS} more ticks after the candle")
    assert graph.stop(rec, timeout=30.0) == 0, graph.output(rec)
    for p in (stack.brain, stack.trajectory, stack.spine, stack.sim):
        graph.stop(p)

    states, bag_start = read_states(bag)
    assert states, "no /brain/state in the bag\n" + graph.output(rec)
    recorded = [decision(s) for _, s in states]
    assert recorded[0][0] == stack.states[0].tick, "the recording missed the run's first tick"
    t1 = states[0][0]
    offset_s = (t1 - bag_start) / 1e9 - LEAD_S
    assert offset_s > 0, "the recorder started less than LEAD_S before the goal"
    assert any(e[2] == "lightOther" for _, ev, _ in recorded for e in ev), recorded

    # ------------------------------------------------------------------ replay
    replayed_states = []
    graph.node.create_subscription(BrainState, "/brain/state",
                                   lambda m: replayed_states.append((time.monotonic(), m)), RELIABLE)
    brain = graph.start("brain", params_file=PARAMS / "brain.yaml", params={
        "use_sim_time": True,
        "autostart": True,
        "instructions_file": str(TASK),
        "tick_period_s": TICK_PERIOD_S,
        "command_mode": "topic",
    })
    graph.wait_for_nodes(["/brain"], 60.0)
    graph.wait_for_publisher("/brain/state", 60.0)
    graph.spin_until(lambda: all(graph.node.count_publishers(t) == 0 for t in INPUTS)
                     and graph.node.count_subscribers("/arm/position") > 0, 60.0,
                     "the lone brain's subscriptions (and no stack publisher left)")
    graph.spin_for(3.0)
    assert not replayed_states, "the brain ticked before any /clock: " + str(replayed_states[0][1])
    play = graph.start("arnie_bag", "play", str(bag), "--topics", *INPUTS, "--clock", str(CLOCK_HZ),
                       "-r", str(RATE), "--start-offset", f"{offset_s:.3f}", "--wait-for-subscribers",
                       "-d", "3", "--disable-keyboard-controls")
    play.must_live = False  # it ends by itself
    graph.spin_until(lambda: play.poll() is not None, 120.0, "the replay to end")
    assert play.returncode == 0, graph.output(play)
    graph.spin_for(1.0)  # the last states in flight
    graph.stop(brain)

    replayed = [decision(m) for _, m in replayed_states]
    # ------------------------------------------------------------------ measure (printed)
    # The first replayed tick comes at the first /clock, during play's 3 s delay: the
    # speed is measured from the second tick on.
    if len(replayed_states) >= 3:
        def stamp(m):
            return m.header.stamp.sec + m.header.stamp.nanosec * 1e-9
        (w0, m0), (w1, m1) = replayed_states[1], replayed_states[-1]
        sim_span, wall_span = stamp(m1) - stamp(m0), w1 - w0
        rec_span = (states[-1][0] - states[1][0]) / 1e9
        print(f"\nrecorded: {len(recorded)} ticks, ticks 2..{len(recorded)} over {rec_span:.2f} s; "
              f"replayed at -r {RATE:g}: {len(replayed)} ticks, ticks 2..{len(replayed)} over {sim_span:.2f} s "
              f"of /clock time in {wall_span:.2f} s wall: {sim_span / max(wall_span, 1e-9):.2f}x")
        print(f"first replayed tick at T1 {stamp(replayed_states[0][1]) - t1 / 1e9:+.3f} s of bag time, "
              f"last at T_last {stamp(m1) - states[-1][0] / 1e9:+.3f} s (LEAD_S {LEAD_S})")

    # ------------------------------------------------------------------ compare
    n = len(recorded)
    i = first_difference(recorded, replayed[:n])
    assert len(replayed) >= n and i == n, (
        f"the replayed brain decided differently at tick {i} "
        f"({len(replayed)} replayed ticks for {n} recorded):\n"
        f"recorded: {recorded[i:i + 3]}\nreplayed: {replayed[i:i + 3]}\n" + graph.logs())
