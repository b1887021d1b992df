#!/usr/bin/env python3
"""`cargo xtask bench detour-scenes`, the graph part: the flame task on generated scenes
(issue 46) through the real stack (sim + spine + trajectory server + brain, release
builds from ARNIE_BIN_DIR, each stack on its own ROS domain as the tests run it:
test/helpers/scenes.py), then the same stacks without a box; prints one markdown table:
success rate, and the time from the RunTask goal to the candle lit against the runs
without a box.

Options: --scenes N (default 20, seeds 1..N), --parallel K (default 2), --baseline M
(runs without a box, default 5).
"""
import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test"))
from helpers.scenes import run_scenes  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenes", type=int, default=20)
    ap.add_argument("--parallel", type=int, default=2)
    ap.add_argument("--baseline", type=int, default=5)
    a = ap.parse_args()
    seeds = list(range(1, a.scenes + 1))
    with tempfile.TemporaryDirectory(prefix="detour_bench_") as tmp:
        t0 = time.monotonic()
        scenes = run_scenes(seeds, Path(tmp), parallel=a.parallel, timeout=180.0)
        plain = run_scenes(list(range(1, a.baseline + 1)), Path(tmp) / "plain", parallel=a.parallel,
                           timeout=180.0, boxes=False)
        wall = time.monotonic() - t0
    lit = [r for r in scenes if r.lit]
    base = [r.task_s for r in plain if r.lit]
    entered = [r.seed for r in scenes if r.entered]
    times = sorted(r.task_s for r in lit)
    b = statistics.median(base) if base else float("nan")
    q = (lambda v, p: v[min(len(v) - 1, int(round(p * (len(v) - 1))))]) if times else (lambda v, p: float("nan"))
    print(f"\n### detour scenes on the graph: {len(seeds)} generated scenes, the whole stack\n")
    print("| figure | value |")
    print("| --- | ---: |")
    print(f"| candle lit (success) | {len(lit)} / {len(seeds)} ({100 * len(lit) / len(seeds):.0f} %) |")
    print(f"| the arm inside a box (truth log) | {len(entered)} scenes {entered} |")
    print(f"| scenes the box stopped the arm in | {sum(r.blocked for r in scenes)} |")
    print(f"| goal -> candle lit without a box ({len(base)} runs) | median {b:.1f} s |")
    if times:
        print(f"| goal -> candle lit with a box | p50 {q(times, 0.5):.1f} s ({q(times, 0.5) / b:.2f}x), "
              f"p90 {q(times, 0.9):.1f} s ({q(times, 0.9) / b:.2f}x), max {times[-1]:.1f} s ({times[-1] / b:.2f}x) |")
    print(f"\n({a.parallel} stacks at a time, {wall:.0f} s in all; failed: "
          f"{[(r.seed, r.failure) for r in scenes if not r.lit]})")
    return 0 if len(lit) >= len(seeds) - 1 else 1


if __name__ == "__main__":
    sys.exit(main())
