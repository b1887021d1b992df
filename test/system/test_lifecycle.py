"""Managed (lifecycle) nodes: node_glue::lifecycle against rclpy's LifecycleNode as the
oracle, on a real graph.

- The table: every transition from every primary state (by label and by id), with every
  callback result (success, failure, error, an exception/panic) and every on_error
  result, taken on `lifecycle_selftest` (a node_glue managed node whose callbacks do
  what its parameters say) and on an rclpy LifecycleNode told the same: the same
  ChangeState answer, the same state after, the same transition events (start and goal
  states, in order), the same available transitions; get_available_states and
  get_transition_graph identical.
- Refusals: every transition id and label not available from unconfigured, inactive,
  active and finalized is refused (success false), changes nothing and publishes no
  event. By label rclpy answers the same over the graph. By id rclpy raises out of its
  service callback (rcl's "No transition matching ... found"), so its client gets no
  answer at all; that is checked on the oracle's handler in process, and ours answers
  success false (rclcpp's answer, and what the issue asks).
- Inactive is silent (a lifecycle publisher), get_state during a slow callback, a
  configure that fails on a port in use and succeeds once it is free, the reason on the
  transition event and in the log, a node that is not managed starting active (and
  exiting 2 when its configure fails).
"""
import socket

import pytest
import rclpy
from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
from rcl_interfaces.srv import SetParameters
from rclpy.lifecycle import LifecycleNode, TransitionCallbackReturn
from rclpy.qos import QoSDurabilityPolicy, QoSProfile, QoSReliabilityPolicy
from std_msgs.msg import String

from helpers.lifecycle import LifecycleClient, event_pairs

CALLBACKS = ("on_configure", "on_activate", "on_deactivate", "on_cleanup", "on_shutdown", "on_error")
LABELS = ("configure", "cleanup", "activate", "deactivate", "shutdown",
          "transition_success", "transition_failure", "transition_error", "bogus")
# The primary transitions (rcl's ids) and what they lead to on success.
PRIMARY = {
    "unconfigured": {"configure": (1, "inactive"), "shutdown": (5, "finalized")},
    "inactive": {"cleanup": (2, "unconfigured"), "activate": (3, "active"), "shutdown": (6, "finalized")},
    "active": {"deactivate": (4, "inactive"), "shutdown": (7, "finalized")},
    "finalized": {},
}
# (callback result, on_error result): every way a callback can end.
OUTCOMES = [("success", "success"), ("failure", "success"), ("error", "success"),
            ("error", "failure"), ("error", "error"), ("panic", "success")]
# rcl's graph: (start, goal) -> transition id (the event's transition, which rcl leaves empty).
EVENT_IDS = {
    ("unconfigured", "configuring"): 1, ("configuring", "inactive"): 10, ("configuring", "unconfigured"): 11,
    ("configuring", "errorprocessing"): 12, ("inactive", "cleaningup"): 2, ("cleaningup", "unconfigured"): 20,
    ("cleaningup", "inactive"): 21, ("cleaningup", "errorprocessing"): 22, ("inactive", "activating"): 3,
    ("activating", "active"): 30, ("activating", "inactive"): 31, ("activating", "errorprocessing"): 32,
    ("active", "deactivating"): 4, ("deactivating", "inactive"): 40, ("deactivating", "active"): 41,
    ("deactivating", "errorprocessing"): 42, ("unconfigured", "shuttingdown"): 5, ("inactive", "shuttingdown"): 6,
    ("active", "shuttingdown"): 7, ("shuttingdown", "finalized"): (50, 51), ("shuttingdown", "errorprocessing"): 52,
    ("errorprocessing", "unconfigured"): 60, ("errorprocessing", "finalized"): (61, 62),
}
RESULT_LABELS = {0: "transition_success", 1: "transition_failure", 2: "transition_error"}


class Oracle(LifecycleNode):
    """rclpy's LifecycleNode, its callbacks returning what `results` says."""

    RETURNS = {"success": TransitionCallbackReturn.SUCCESS, "failure": TransitionCallbackReturn.FAILURE,
               "error": TransitionCallbackReturn.ERROR}

    def __init__(self, name, context):
        super().__init__(name, context=context)
        self.results = {}

    def _answer(self, which):
        r = self.results.get(which, "success")
        if r == "panic":
            raise RuntimeError("the test asked for an exception")
        return self.RETURNS[r]

    def on_configure(self, state):
        return self._answer("on_configure")

    def on_activate(self, state):
        return self._answer("on_activate")

    def on_deactivate(self, state):
        return self._answer("on_deactivate")

    def on_cleanup(self, state):
        return self._answer("on_cleanup")

    def on_shutdown(self, state):
        return self._answer("on_shutdown")

    def on_error(self, state):
        return self._answer("on_error")

    def refuses_id(self, transition_id):
        """The oracle's own change_state handler, in process, for an id: True when rcl
        refuses it (rclpy raises RCLError out of the service callback)."""
        from lifecycle_msgs.srv import ChangeState
        req = ChangeState.Request()
        req.transition.id = transition_id
        try:
            self._LifecycleNodeMixin__on_change_state(req, ChangeState.Response())
        except Exception as e:  # rclpy's _rclpy.RCLError
            return "RCLError" in type(e).__name__ or "transition" in str(e).lower()
        return False


def set_results(graph, client, name, results):
    """Sets our node's callback results through its parameter service."""
    req = SetParameters.Request()
    for k, v in results.items():
        req.parameters.append(Parameter(name=k, value=ParameterValue(type=ParameterType.PARAMETER_STRING,
                                                                      string_value=v)))
    resp = graph.wait_future(client.call_async(req), 30.0, f"{name} set_parameters")
    assert all(r.successful for r in resp.results), resp


class Pair:
    """Our node and the oracle, driven alike."""

    def __init__(self, graph, index):
        self.graph = graph
        name = f"lc_{index}"
        self.name = name
        self.proc = graph.start("lifecycle_selftest", params={"managed": True},
                                ros_args=["-r", f"__node:={name}"])
        self.oracle = Oracle(f"oracle_{index}", graph.context)
        graph.executor.add_node(self.oracle)
        self.ours = LifecycleClient(graph, f"/{name}")
        self.theirs = LifecycleClient(graph, f"/oracle_{index}")
        self.params = graph.node.create_client(SetParameters, f"/{name}/set_parameters")
        self.ready = False

    def wait_ready(self):
        if not self.ready:
            self.ours.wait_ready(60.0)
            self.theirs.wait_ready(60.0)
            self.graph.wait_for_service(self.params, f"/{self.name}/set_parameters", 60.0)
            self.ready = True

    def results(self, results):
        full = {c: "success" for c in CALLBACKS}
        full.update(results)
        set_results(self.graph, self.params, self.name, full)
        self.oracle.results = dict(full)

    def state(self):
        ours, theirs = self.ours.state(), self.theirs.state()
        assert ours == theirs, (ours, theirs)
        return ours[1]

    def take(self, label=None, transition_id=0, what=""):
        """Both take the transition; returns (answer, new events of ours, of theirs),
        after checking they agree."""
        n_ours, n_theirs = len(self.ours.events), len(self.theirs.events)
        a = self.ours.change(transition_id, label or "")
        b = self.theirs.change(transition_id, label or "")
        assert a == b, f"{what}: answer ours {a}, rclpy {b}"
        # The oracle's events were all published before its answer; wait for ours too.
        self.theirs.wait_events(n_theirs)
        self.graph.spin_for(0.2)
        want = len(self.theirs.events) - n_theirs
        self.ours.wait_events(n_ours + want)
        self.graph.spin_for(0.1)
        new_ours = self.ours.events[n_ours:]
        new_theirs = self.theirs.events[n_theirs:]
        assert event_pairs(new_ours) == event_pairs(new_theirs), f"{what}: events"
        for e in new_ours:
            pair = (e.start_state.label, e.goal_state.label)
            ids = EVENT_IDS[pair]
            assert e.transition.id in (ids if isinstance(ids, tuple) else (ids,)), (what, pair, e.transition)
            if e.transition.id >= 10:  # a result transition: its standard label first
                assert e.transition.label.startswith(RESULT_LABELS[e.transition.id % 10]), (what, e.transition)
            assert e.timestamp > 0, what
        return a, new_ours, new_theirs


def path_to(state, target):
    """Successful primary transitions from `state` to `target` (not finalized)."""
    order = ["unconfigured", "inactive", "active"]
    i, j = order.index(state), order.index(target)
    if i < j:
        return ["configure", "activate"][i:j]
    return ["cleanup", "deactivate"][j:i][::-1]


@pytest.mark.long(150)
def test_every_transition_from_every_state_is_rclpys(graph):
    cases = [(start, label, ret, err)
             for start in ("unconfigured", "inactive", "active")
             for label in PRIMARY[start]
             for ret, err in OUTCOMES]
    # A pair per case that ends finalized, and one for the rest (finalized needs a fresh node).
    finals = sum(1 for (_, label, ret, err) in cases
                 if label == "shutdown" and ret in ("success", "failure")
                 or ret in ("error", "panic") and err != "success")
    pairs = [Pair(graph, i) for i in range(finals + 1)]
    free = list(pairs)
    pair = free.pop(0)
    seen_finalized = set()
    for k, (start, label, ret, err) in enumerate(cases):
        pair.wait_ready()
        if pair.state() == "finalized":
            pair = free.pop(0)
            pair.wait_ready()
        pair.results({})
        for step in path_to(pair.state(), start):
            pair.take(step, what=f"to {start}")
        assert pair.state() == start
        results = {f"on_{'shutdown' if label == 'shutdown' else label}": ret, "on_error": err}
        pair.results(results)
        what = f"{label} from {start}, callback {ret}, on_error {err}"
        # Every other case by id (the primary transition's id from this state).
        by_id = k % 2 == 1
        tid = PRIMARY[start][label][0]
        answer, ours, theirs = pair.take(None if by_id else label, tid if by_id else 0, what)
        assert answer == (ret == "success"), what
        after = pair.state()
        assert pair.ours.available() == pair.theirs.available(), what
        if ret == "success":
            assert after == PRIMARY[start][label][1], what
        # A failure or error carries its reason after the standard label.
        if ret != "success":
            result_event = ours[1]
            assert result_event.transition.label.startswith(
                "transition_failure: " if ret == "failure" else "transition_error: "), (what, result_event)
        if after == "finalized" and not seen_finalized:
            seen_finalized.add(pair.name)
            refusals(pair, "finalized")
    # The refusals from the other primary states, on a live pair.
    live = next(p for p in pairs if p.ready and p.state() != "finalized")
    live.results({})
    for target in ("unconfigured", "inactive", "active"):
        for step in path_to(live.state(), target):
            live.take(step, what=f"to {target}")
        refusals(live, target)
    assert live.ours.available_states() == live.theirs.available_states()
    assert live.ours.transition_graph() == live.theirs.transition_graph()
    assert len(live.ours.transition_graph()) == 25
    assert seen_finalized, "no case reached finalized"


def refusals(pair, state):
    """Every label and id not available from `state`: refused, nothing changes."""
    assert pair.state() == state
    available = PRIMARY[state]
    n_ours, n_theirs = len(pair.ours.events), len(pair.theirs.events)
    for label in LABELS:
        if label in available:
            continue
        assert pair.ours.change(0, label) is False, (state, label)
        assert pair.theirs.change(0, label) is False, (state, label)
    valid_ids = {tid for tid, _ in available.values()}
    for tid in list(range(0, 63)) + [255]:
        if tid in valid_ids:
            continue
        assert pair.ours.change(tid, "") is False, (state, tid)
        assert pair.oracle.refuses_id(tid), (state, tid)
    pair.graph.spin_for(0.5)
    assert pair.state() == state
    assert len(pair.ours.events) == n_ours and len(pair.theirs.events) == n_theirs, state


def count_subscription(graph, topic):
    got = []
    qos = QoSProfile(depth=10, reliability=QoSReliabilityPolicy.RELIABLE,
                     durability=QoSDurabilityPolicy.VOLATILE)
    graph.node.create_subscription(String, topic, got.append, qos)
    return got


def test_inactive_is_silent_and_get_state_shows_a_running_change(graph):
    graph.start("lifecycle_selftest", params={"managed": True, "callback_delay_ms": 1500})
    lc = LifecycleClient(graph, "/lifecycle_selftest")
    lc.wait_ready()
    got = count_subscription(graph, "/lifecycle_selftest/count")
    graph.wait_for_publisher("/lifecycle_selftest/count")
    assert lc.state() == (1, "unconfigured")
    # A slow configure: get_state answers at once with the intermediate state.
    future = lc.change_client.call_async(lc_request("configure"))
    graph.spin_until(lambda: lc.state()[1] == "configuring", 10.0, "configuring")
    assert graph.wait_future(future, 30.0, "configure").success
    assert lc.state() == (2, "inactive")
    graph.spin_for(1.0)
    assert got == [], "published while inactive"
    future = lc.change_client.call_async(lc_request("activate"))
    assert graph.wait_future(future, 30.0, "activate").success
    graph.spin_until(lambda: len(got) >= 10, 10.0, "messages once active")
    future = lc.change_client.call_async(lc_request("deactivate"))
    assert graph.wait_future(future, 30.0, "deactivate").success
    graph.spin_for(0.5)
    n = len(got)
    graph.spin_for(1.5)
    assert len(got) == n, "published while inactive again"


def lc_request(label):
    from lifecycle_msgs.srv import ChangeState
    req = ChangeState.Request()
    req.transition.label = label
    return req


def test_a_failed_configure_says_why_and_a_second_one_succeeds(graph):
    holder = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    holder.bind(("127.0.0.1", 0))
    port = holder.getsockname()[1]
    proc = graph.start("lifecycle_selftest", params={"managed": True, "bind_port": port})
    lc = LifecycleClient(graph, "/lifecycle_selftest")
    lc.wait_ready()
    assert lc.change(label="configure") is False
    assert lc.state() == (1, "unconfigured")
    events = lc.wait_events(2)
    assert [e.goal_state.label for e in events] == ["configuring", "unconfigured"]
    label = events[1].transition.label
    assert label.startswith("transition_failure: cannot bind 127.0.0.1:") and "in use" in label, label
    graph.spin_until(lambda: "cannot bind" in graph.output(proc), 5.0, "the reason in the log")
    # A second configure while the port is still taken fails the same way, nothing leaks.
    assert lc.change(label="configure") is False
    holder.close()
    assert lc.change(label="configure") is True
    assert lc.state() == (2, "inactive")
    assert lc.change(label="activate") is True
    assert lc.change(label="cleanup") is False  # not from active
    assert lc.state() == (3, "active")


def test_a_node_not_managed_starts_active_and_stops_when_configure_fails(graph):
    proc = graph.start("lifecycle_selftest")
    lc = LifecycleClient(graph, "/lifecycle_selftest")
    lc.wait_ready()
    graph.spin_until(lambda: lc.state() == (3, "active"), 10.0, "active at start")
    got = count_subscription(graph, "/lifecycle_selftest/count")
    graph.spin_until(lambda: len(got) > 3, 10.0, "messages")
    # SIGINT of an active node: it stops as every node does (exit 0).
    assert graph.stop(proc) == 0
    holder = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    holder.bind(("127.0.0.1", 0))
    port = holder.getsockname()[1]
    out = graph.start_refused("lifecycle_selftest", params={"bind_port": port},
                              expect=("cannot start", f"cannot bind 127.0.0.1:{port}"))
    holder.close()
    assert "managed" not in out.split("cannot start")[1].split("\n")[0]


def test_managed_is_a_read_only_bool_parameter(graph):
    graph.start_refused("lifecycle_selftest", params={"managed": 2}, expect="managed must be true or false")
    graph.start("lifecycle_selftest", params={"managed": True})
    lc = LifecycleClient(graph, "/lifecycle_selftest")
    lc.wait_ready()
    graph.param_says("get", "/lifecycle_selftest", "managed", expect="Boolean value is: True")
    graph.param_refused("/lifecycle_selftest", "managed", "false", "read-only")
