"""The planner node on a real graph, driven by rclpy.

- a map published on /map (transient-local) by rclpy: the path goes through the gap in
  a wall, starts and ends at the requested cells, touches only free cells, never cuts a
  corner, and its length is the sum of its segments; simplify/smooth; /planner/path;
- errors: NO_MAP before any map, a rotated map is rejected (counted on /diagnostics),
  START_OUTSIDE, GOAL_BLOCKED, NO_PATH, INVALID_REQUEST, inflation closing the gap;
- map_file: a Moving AI reference map and scenarios (the published optimal length),
  and the demo PGM; a bad parameter value stops the node with exit code 2.
"""
import math

from arnie_interfaces.srv import PlanPath
from helpers.diagnostics import Diagnostics
from helpers.graph import REFERENCE, ROOT
from helpers import qos
from nav_msgs.msg import OccupancyGrid, Path

LATCHED = qos.latched(1)

# The test map, cell (c, r): c = column, r = row counted up from the origin (as
# OccupancyGrid stores it). A wall at c = 10 with a gap at r = 8, and a pocket: the free
# cell (19, 9) walled in by (18, 9), (18, 8), (19, 8).
W, H, RES, OX, OY = 20, 10, 0.1, -1.0, -0.5
WALL_C, GAP_R = 10, 8
POCKET, POCKET_WALLS = (19, 9), {(18, 9), (18, 8), (19, 8)}


def blocked_cells():
    cells = {(WALL_C, r) for r in range(H) if r != GAP_R}
    return cells | POCKET_WALLS


def occupancy(yaw=0.0):
    msg = OccupancyGrid()
    msg.header.frame_id = "world"
    msg.info.resolution = RES
    msg.info.width, msg.info.height = W, H
    msg.info.origin.position.x, msg.info.origin.position.y = OX, OY
    msg.info.origin.orientation.z = math.sin(yaw / 2)
    msg.info.origin.orientation.w = math.cos(yaw / 2)
    wall = blocked_cells()
    data = [0] * (W * H)
    for c, r in wall:
        data[r * W + c] = 100
    data[0] = -1  # unknown (blocked by default), far from every path below
    msg.data = data
    return msg


def centre(c, r, res=RES, ox=OX, oy=OY):
    return ox + (c + 0.5) * res, oy + (r + 0.5) * res


def cell_of(x, y, res=RES, ox=OX, oy=OY):
    return math.floor((x - ox) / res + 1e-9), math.floor((y - oy) / res + 1e-9)


def request(start, goal, simplify=False, smooth=False):
    req = PlanPath.Request()
    req.start.x, req.start.y = start
    req.goal.x, req.goal.y = goal
    req.simplify, req.smooth = simplify, smooth
    return req


def client_for(graph):
    client = graph.node.create_client(PlanPath, "/planner/plan_path")
    graph.wait_for_service(client, "/planner/plan_path")
    return client


def call(graph, client, req):
    return graph.wait_future(client.call_async(req), what="a PlanPath answer")


def call_once_mapped(graph, client, req):
    """Calls until the node has a map (the map and the request race at start)."""
    box = {}

    def answered():
        r = call(graph, client, req)
        box["r"] = r
        return r.error_code != PlanPath.Response.NO_MAP

    graph.spin_until(answered, what="the planner to use the map")
    return box["r"]


def xy(path):
    return [(p.pose.position.x, p.pose.position.y) for p in path.poses]


def segments_length(points):
    return sum(math.dist(a, b) for a, b in zip(points, points[1:]))


def diag_values(diagnostics, key):
    """The newest value text of `key` in the planner's status, or None."""
    vals = [v[key] for v in diagnostics.history("/planner: planner") if key in v]
    return vals[-1] if vals else None


def test_path_through_the_gap(graph):
    graph.start("planner", params_file=ROOT / "params" / "planner.yaml")  # the defaults: plan on /map
    pub = graph.node.create_publisher(OccupancyGrid, "/map", LATCHED)
    pub.publish(occupancy())
    paths = graph.collect(Path, "/planner/path", LATCHED)
    client = client_for(graph)
    start, goal = (2, 2), (17, 2)
    resp = call_once_mapped(graph, client, request(centre(*start), centre(*goal)))
    assert resp.error_code == PlanPath.Response.OK, resp.error_msg
    assert resp.error_msg == ""
    assert resp.path.header.frame_id == "world"
    assert resp.path.header.stamp.sec > 0
    pts = xy(resp.path)
    cells = [cell_of(*p) for p in pts]
    assert cells[0] == start and cells[-1] == goal
    assert math.dist(pts[0], centre(*start)) < 1e-12 and math.dist(pts[-1], centre(*goal)) < 1e-12
    wall = blocked_cells()
    for c in cells:
        assert 0 <= c[0] < W and 0 <= c[1] < H and c not in wall, f"pose on a blocked cell {c}: {cells}"
    assert (WALL_C, GAP_R) in cells, "the only way is the gap"
    for (c0, r0), (c1, r1) in zip(cells, cells[1:]):
        dc, dr = c1 - c0, r1 - r0
        assert max(abs(dc), abs(dr)) == 1, f"not a step: {(c0, r0)} -> {(c1, r1)}"
        if dc and dr:
            assert (c0 + dc, r0) not in wall and (c0, r0 + dr) not in wall, f"corner cut {(c0, r0)} -> {(c1, r1)}"
    assert math.isclose(resp.length_m, segments_length(pts), rel_tol=1e-9)
    assert math.isclose(resp.length_cells, resp.length_m / RES, rel_tol=1e-6)
    # Up 6 rows to the gap row while crossing: optimal octile length, computed by hand:
    # from (2,2) to (10,8): dx 8, dy 6 -> 2 + 6*sqrt2; from (10,8) to (17,2): 1 + 6*sqrt2.
    assert math.isclose(resp.length_cells, 3 + 12 * math.sqrt(2), rel_tol=1e-9)
    assert resp.expansions > 0 and resp.time_s >= 0.0

    simple = call(graph, client, request(centre(*start), centre(*goal), simplify=True))
    assert simple.error_code == PlanPath.Response.OK
    assert 2 <= len(simple.path.poses) < len(resp.path.poses)
    assert math.isclose(simple.length_m, resp.length_m, rel_tol=1e-9)
    assert math.isclose(simple.length_m, segments_length(xy(simple.path)), rel_tol=1e-9)
    assert [cell_of(*p) for p in (xy(simple.path)[0], xy(simple.path)[-1])] == [start, goal]

    smooth = call(graph, client, request(centre(*start), centre(*goal), smooth=True))
    assert smooth.error_code == PlanPath.Response.OK
    assert smooth.length_m < resp.length_m
    assert math.isclose(smooth.length_m, segments_length(xy(smooth.path)), rel_tol=1e-9)

    # /planner/path (latched) carries the last answer.
    graph.spin_until(lambda: paths and len(paths[-1].poses) == len(smooth.path.poses), what="/planner/path")
    assert paths[-1].header.frame_id == "world"
    assert xy(paths[-1]) == xy(smooth.path)
    # A late subscriber still gets it (transient-local).
    late = graph.collect(Path, "/planner/path", LATCHED)
    graph.spin_until(lambda: len(late) > 0, what="the latched path for a late subscriber")
    assert xy(late[-1]) == xy(smooth.path)


def test_errors_have_their_codes(graph):
    graph.start("planner", params={"diagnostics_period_ms": 100})
    diagnostics = Diagnostics(graph)
    client = client_for(graph)
    R = PlanPath.Response
    inside = request(centre(2, 2), centre(17, 2))
    no_map = call(graph, client, inside)
    assert no_map.error_code == R.NO_MAP and "no map" in no_map.error_msg
    assert no_map.path.poses == [] and no_map.length_m == 0.0

    # A rotated map is rejected and counted; the node still has no map.
    pub = graph.node.create_publisher(OccupancyGrid, "/map", LATCHED)
    pub.publish(occupancy(yaw=0.5))
    graph.spin_until(lambda: diag_values(diagnostics, "maps_rejected") == "1", what="the rotated map to be rejected")
    assert "rotated" in diag_values(diagnostics, "last_map_error")
    assert call(graph, client, inside).error_code == R.NO_MAP

    pub.publish(occupancy())
    assert call_once_mapped(graph, client, inside).error_code == R.OK

    outside = call(graph, client, request((OX - 0.05, 0.0), centre(17, 2)))
    assert outside.error_code == R.START_OUTSIDE and "start" in outside.error_msg and "outside" in outside.error_msg
    goal_out = call(graph, client, request(centre(2, 2), (OX + W * RES + 0.01, 0.0)))
    assert goal_out.error_code == R.GOAL_OUTSIDE and "goal" in goal_out.error_msg
    on_wall = call(graph, client, request(centre(2, 2), centre(WALL_C, 3)))
    assert on_wall.error_code == R.GOAL_BLOCKED and "blocked" in on_wall.error_msg
    start_blocked = call(graph, client, request(centre(0, 0), centre(2, 2)))  # the unknown cell
    assert start_blocked.error_code == R.START_BLOCKED
    pocket = call(graph, client, request(centre(2, 2), centre(*POCKET)))
    assert pocket.error_code == R.NO_PATH and "no path" in pocket.error_msg
    assert pocket.expansions > 0 and pocket.path.poses == []
    nan = call(graph, client, request((float("nan"), 0.0), centre(2, 2)))
    assert nan.error_code == R.INVALID_REQUEST

    graph.spin_until(lambda: diag_values(diagnostics, "invalid_request") == "1", what="the counters on /diagnostics")
    codes = ["ok", "no_map", "start_outside", "goal_outside", "start_blocked", "goal_blocked", "no_path", "invalid_request"]
    counts = {c: int(diag_values(diagnostics, c)) for c in codes}
    assert int(diag_values(diagnostics, "requests")) == sum(counts.values())
    assert counts["no_map"] >= 2 and counts["ok"] == 1 and counts["no_path"] == 1
    assert diag_values(diagnostics, "map_updates") == "1"
    assert diag_values(diagnostics, "goal_blocked") == "1" and diag_values(diagnostics, "start_outside") == "1"


def test_inflation_closes_the_gap(graph):
    # A one-cell gap is narrower than a robot of radius one cell.
    graph.start("planner", params={"robot_radius_m": RES, "algorithm": "astar"})
    pub = graph.node.create_publisher(OccupancyGrid, "/map", LATCHED)
    pub.publish(occupancy())
    client = client_for(graph)
    resp = call_once_mapped(graph, client, request(centre(2, 2), centre(17, 2)))
    assert resp.error_code == PlanPath.Response.NO_PATH, resp.error_msg
    # Beside the wall is blocked now, too.
    assert call(graph, client, request(centre(2, 2), centre(WALL_C - 1, 2))).error_code == PlanPath.Response.GOAL_BLOCKED


def read_scen(path):
    rows = []
    for line in path.read_text().splitlines()[1:]:
        f = line.split("\t")
        if len(f) == 9:
            rows.append(((int(f[4]), int(f[5])), (int(f[6]), int(f[7])), float(f[8])))
    return rows


def test_movingai_map_file_has_the_published_optimum(graph):
    map_path = REFERENCE / "movingai" / "den312d.map"
    header = map_path.read_text().splitlines()[:3]
    height = int(next(line.split()[1] for line in header if line.startswith("height")))
    res, ox, oy = 0.05, 1.0, -2.0
    graph.start("planner", params={"map_file": str(map_path), "resolution_m": res, "origin_x_m": ox, "origin_y_m": oy})
    client = client_for(graph)
    scens = read_scen(REFERENCE / "movingai" / "den312d.map.scen")
    # The longest scenario and one from the middle. Scenario cells are (column, row from
    # the top); the node's world y grows upwards from the bottom row.
    for (sx, sy), (gx, gy), optimum in [max(scens, key=lambda s: s[2]), scens[len(scens) // 2]]:
        start = centre(sx, height - 1 - sy, res, ox, oy)
        goal = centre(gx, height - 1 - gy, res, ox, oy)
        resp = call(graph, client, request(start, goal))
        assert resp.error_code == PlanPath.Response.OK, resp.error_msg
        assert abs(resp.length_cells - optimum) < 1e-3, (resp.length_cells, optimum)
        assert math.isclose(resp.length_m, optimum * res, rel_tol=1e-4)
        pts = xy(resp.path)
        assert cell_of(*pts[0], res, ox, oy) == (sx, height - 1 - sy)
        assert cell_of(*pts[-1], res, ox, oy) == (gx, height - 1 - gy)


def test_demo_pgm_and_diagonal_fallback(graph):
    # jps with diagonal_mode "never" runs as astar (logged); the demo map's walls force a detour.
    node = graph.start("planner", params={"map_file": str(ROOT / "params" / "maps" / "demo.pgm"), "diagonal_mode": "never"})
    client = client_for(graph)
    res = 0.05
    # Row 2 from the top is row 27 from the bottom; the vertical wall is at column 13
    # with a gap at rows 4..6 from the top.
    resp = call(graph, client, request(centre(2, 27, res, 0.0, 0.0), centre(20, 27, res, 0.0, 0.0)))
    assert resp.error_code == PlanPath.Response.OK, resp.error_msg
    cells = [cell_of(*p, res, 0.0, 0.0) for p in xy(resp.path)]
    assert all(abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1 for a, b in zip(cells, cells[1:])), "4-connected"
    assert resp.length_cells == 18 + 2 * 2  # two rows down to the gap and back up
    assert "running astar" in graph.output(node)


def test_bad_parameter_stops_the_node(graph):
    graph.start_refused("planner", params={"algorithm": "bfs"}, expect="algorithm")
    graph.start_refused("planner", params={"map_file": "/nonexistent/map.pgm"}, expect="/nonexistent/map.pgm")
