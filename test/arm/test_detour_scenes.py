"""The arm learns the obstacle it touched (issue 46), on the real graph: sim + spine +
trajectory server + brain as the launch file starts them (helpers/stack.py).

- The issue's own case: the flame scenario plus a box x -62..-38, y -5..70, z -20..22 mm
  across the move to the candle, unseen by the eyes. The arm is stopped on the box's face;
  what it learns lies beyond that face and leaves the target (-95, 30, 0) mm free (the old
  memory, a 60 mm ball around the set-point 25 mm further, swallowed it and every retry
  was REJECTED); the candle is lit and the arm never was inside the box (the simulator's
  truth log).
- A family of generated scenes (`flame_scene`, seeds fixed here): one box on the table
  across one of the task's straight moves, of random size and place; the task passes on
  at least 19 of 20, the arm never inside the box. The scenes run three at a time, each
  stack on its own ROS domain (helpers/scenes.py).
"""
import json

import pytest

from helpers.scenes import inside, run_scenes, truth_log_arm
from helpers.stack import TASK_TIMEOUT_S, Stack

ISSUE_BOX = {"name": "box", "min_mm": [-62.0, -5.0, -20.0], "max_mm": [-38.0, 70.0, 22.0]}
TARGET_BEHIND = (-95.0, 30.0, 0.0)  # lightOther's second step, 33 mm behind the box
SEEDS = list(range(1, 21))


def test_the_issue_s_box_is_passed_and_learned_at_its_face(graph, tmp_path):
    from arnie_interfaces.msg import KnownObstructions

    from helpers import qos
    known = graph.collect(KnownObstructions, "/trajectory/obstructions", qos.latched(100))
    stack = Stack(graph, tmp_path, scenario=lambda s: s["arm"]["obstacles"].append(ISSUE_BOX))
    stack.ready()
    stack.run_task()
    stack.wait_lit("candle", timeout=2 * TASK_TIMEOUT_S)
    stack.assert_flame_passed_taper_first()
    assert any(t.blocked for t in stack.truths), "the arm was never stopped by the box"
    # What was learned: beyond the face x = -38 mm, never swallowing the target behind.
    graph.spin_until(lambda: any(m.obstructions for m in known), what="a learned obstruction")
    learned = {o.id: o for m in known for o in m.obstructions}
    for o in learned.values():
        c = [1000 * o.centre.x, 1000 * o.centre.y, 1000 * o.centre.z]
        d = sum((a - b) ** 2 for a, b in zip(c, TARGET_BEHIND)) ** 0.5
        assert d > 1000 * o.radius, f"obstruction {o.id} swallows the target: {o}"
        assert 1000 * o.size <= 30.0 + 1e-6, o
    first = min(learned.values(), key=lambda o: o.id)
    assert abs(1000 * first.contact.x - -38.0) < 1.0, f"not at the box's face: {first}"
    assert first.direction.x < -0.9, first
    assert 1000 * first.centre.x < -38.0, first
    # The arm never was inside the box: the simulator's truth log.
    arms = truth_log_arm(tmp_path / "truth.jsonl")
    assert arms, "empty truth log"
    assert not [a for a in arms if inside(ISSUE_BOX, a)]
    # No goal was refused for a learned obstruction.
    assert stack.count("/trajectory_server: move_to", "goals_rejected") == 0, stack.summary()
    assert stack.count("/trajectory_server: detours", "obstructions_recorded") >= 1
    stack.cancel()


# Three stacks at a time, about 45 s a scene alone; measured on the 2-core machine (see
# the report in nodes/arnie_trajectory/README.md).
@pytest.mark.long(300)
def test_the_flame_task_passes_on_generated_scenes(tmp_path):
    logs = []
    results = run_scenes(SEEDS, tmp_path, parallel=3, timeout=150.0, logs=logs)
    summary = "\n".join(map(repr, results))
    for r in results:
        assert not r.entered, f"scene {r.seed}: the arm was inside the box: {r.entered[:3]}"
        assert r.truth_lines > 0, f"scene {r.seed}: empty truth log"
    lit = [r for r in results if r.lit]
    print(summary)
    print(json.dumps({"lit": len(lit), "task_s": sorted(round(r.task_s, 1) for r in lit)}))
    assert len(lit) >= 19, summary + "\n" + "\n".join(logs)
    # The boxes really were in the way.
    assert sum(r.blocked for r in results) >= len(results) // 2, summary
