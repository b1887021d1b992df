"""The planner's inputs that could hurt it, on a real graph (rclpy client, `ros2 param`):

- parameters: a value out of range is refused by `ros2 param set` with the reason and the
  value stays; a start-only parameter says so; a live one changes; `ros2 param describe`
  shows the range and when a change takes effect;
- requests: an UpdateMap with too many centres, a huge radius or ttl, and a PlanPath with
  a NaN/inf point are refused (INVALID_REQUEST with the reason), counted on /diagnostics,
  and logged rate-limited (far fewer lines than refusals, the rest counted).
"""
import pytest

from arnie_interfaces.srv import PlanPath, UpdateMap
from helpers.diagnostics import Diagnostics
from helpers.graph import ROOT, require_ros2
from geometry_msgs.msg import Point

DEMO = ROOT / "params" / "maps" / "demo.pgm"  # 2.0 m x 1.5 m at 0.05 m/cell, origin (0, 0)
# Free cells of the demo map (row 2 from the top, either side of the wall; test_planner.py).
START, GOAL = (0.125, 1.375), (1.025, 1.375)


def ready(graph, srv_type, name):
    client = graph.node.create_client(srv_type, name)
    graph.wait_for_service(client, name)
    return client


def plan(graph, client, start, goal):
    req = PlanPath.Request()
    req.start.x, req.start.y = start
    req.goal.x, req.goal.y = goal
    return graph.wait_future(client.call_async(req), what="a PlanPath answer")


def update(graph, client, centers, radius_m=0.1, ttl_s=0.0, clear=False):
    req = UpdateMap.Request()
    req.centers = [Point(x=x, y=y) for x, y in centers]
    req.radius_m, req.ttl_s, req.clear = radius_m, ttl_s, clear
    return graph.wait_future(client.call_async(req), what="an UpdateMap answer")


def diag_values(diagnostics, key):
    """The newest value text of `key` in the planner's status, or None."""
    vals = [v[key] for v in diagnostics.history("/planner: planner") if key in v]
    return vals[-1] if vals else None


@pytest.mark.long(35)
def test_a_refused_parameter_says_why_and_the_value_stays(graph):
    require_ros2()
    graph.start("planner", params={"map_file": str(DEMO)})
    client = ready(graph, PlanPath, "/planner/plan_path")

    # Out of range: refused with the reason; the value stays.
    r = graph.param("set", "/planner", "robot_radius_m", "-1.0")
    out = r.stdout + r.stderr
    assert "Setting parameter failed" in out and "robot_radius_m" in out and "is not in 0..=5" in out, out
    r = graph.param("get", "/planner", "robot_radius_m")
    assert "Double value is: 0.0" in r.stdout, r.stdout + r.stderr

    # A start-only parameter says so.
    r = graph.param("set", "/planner", "diagnostics_period_ms", "500")
    out = r.stdout + r.stderr
    assert "Setting parameter failed" in out and "read only at start" in out, out

    # A live one changes; an unknown algorithm is then refused, naming the choices.
    r = graph.param("set", "/planner", "algorithm", "astar")
    assert "Set parameter successful" in r.stdout, r.stdout + r.stderr
    r = graph.param("set", "/planner", "algorithm", "bfs")
    out = r.stdout + r.stderr
    assert "Setting parameter failed" in out and "jps, astar, dijkstra" in out, out
    r = graph.param("get", "/planner", "algorithm")
    assert "String value is: astar" in r.stdout, r.stdout + r.stderr

    # describe: the range and when a change takes effect.
    r = graph.param("describe", "/planner", "resolution_m")
    assert "0.001..=10" in r.stdout and "Start only" in r.stdout, r.stdout + r.stderr

    # The node still answers.
    assert plan(graph, client, START, GOAL).error_code == PlanPath.Response.OK


def test_refused_requests_are_counted_and_logged_rate_limited(graph):
    node = graph.start("planner", params={"map_file": str(DEMO), "diagnostics_period_ms": 100})
    diagnostics = Diagnostics(graph)
    updates = ready(graph, UpdateMap, "/planner/update_map")
    plans = ready(graph, PlanPath, "/planner/plan_path")
    INVALID = UpdateMap.Response.INVALID_REQUEST

    too_many = update(graph, updates, [(1.0, 1.0)] * 65)
    assert too_many.outcome == INVALID and "centers" in too_many.message and "64" in too_many.message, too_many.message
    huge = update(graph, updates, [(1.0, 1.0)], radius_m=1e9)
    assert huge.outcome == INVALID and "radius_m" in huge.message, huge.message
    forever = update(graph, updates, [(1.0, 1.0)], ttl_s=1e12)
    assert forever.outcome == INVALID and "ttl_s" in forever.message, forever.message
    ok = update(graph, updates, [(0.3, 0.3)], radius_m=0.1, ttl_s=60.0)
    assert ok.outcome == UpdateMap.Response.OK, ok.message

    for bad in [(float("inf"), 0.5), (0.5, float("nan"))]:
        resp = plan(graph, plans, bad, GOAL)
        assert resp.error_code == PlanPath.Response.INVALID_REQUEST and "not finite" in resp.error_msg, resp.error_msg
    assert plan(graph, plans, START, GOAL).error_code == PlanPath.Response.OK

    # A burst of refusals: each counted, few logged.
    burst = 20
    for _ in range(burst):
        assert update(graph, updates, [(1.0, 1.0)], radius_m=-1.0).outcome == INVALID
        assert plan(graph, plans, (float("nan"), 0.0), GOAL).error_code == PlanPath.Response.INVALID_REQUEST
    refused_updates, refused_plans = 3 + burst, 2 + burst
    graph.spin_until(lambda: diag_values(diagnostics, "updates_refused") == str(refused_updates)
                     and diag_values(diagnostics, "invalid_request") == str(refused_plans),
                     what="the refusals counted on /diagnostics")
    assert diag_values(diagnostics, "updates_ok") == "1" and diag_values(diagnostics, "update_requests") == str(refused_updates + 1)
    assert diag_values(diagnostics, "ok") == "1"
    graph.spin_until(lambda: "update_map refused" in graph.output(node) and "plan_path refused" in graph.output(node),
                     what="the refusals in the log")
    out = graph.output(node)
    update_lines, plan_lines = out.count("update_map refused"), out.count("plan_path refused")
    assert 1 <= update_lines < refused_updates and 1 <= plan_lines < refused_plans, out
    suppressed = int(diag_values(diagnostics, "log_lines_suppressed"))
    assert 0 < suppressed <= refused_updates + refused_plans - update_lines - plan_lines, (suppressed, out)
    assert "panicked" not in out
