"""Managed (lifecycle) nodes from rclpy: a client of one node's `lifecycle_msgs` services
and `~/transition_event`, and of the lifecycle manager's `~/manage_nodes` and
`~/is_active` (what `ros2 lifecycle` and Nav2's clients call)."""
import time
from lifecycle_msgs.msg import State, Transition, TransitionEvent
from lifecycle_msgs.srv import ChangeState, GetAvailableStates, GetAvailableTransitions, GetState

PRIMARY = {1: "unconfigured", 2: "inactive", 3: "active", 4: "finalized"}


class LifecycleClient:
    """The five lifecycle services and the transition events of node `name` (its fully
    qualified name, `/spine_bridge`), used through `graph`'s rclpy node."""

    def __init__(self, graph, name):
        self.graph = graph
        self.name = name
        node = graph.node
        self.change_client = node.create_client(ChangeState, f"{name}/change_state")
        self.get_client = node.create_client(GetState, f"{name}/get_state")
        self.states_client = node.create_client(GetAvailableStates, f"{name}/get_available_states")
        self.available_client = node.create_client(GetAvailableTransitions, f"{name}/get_available_transitions")
        self.graph_client = node.create_client(GetAvailableTransitions, f"{name}/get_transition_graph")
        self.events = []
        node.create_subscription(TransitionEvent, f"{name}/transition_event", self.events.append, 10)

    def wait_ready(self, timeout=30.0):
        """Waits for every service and for our event subscription to be matched."""
        for c in (self.change_client, self.get_client, self.states_client, self.available_client,
                  self.graph_client):
            self.graph.spin_until(c.service_is_ready, timeout, f"{c.srv_name}")
        self.graph.spin_until(
            lambda: self.graph.node.count_publishers(f"{self.name}/transition_event") > 0,
            timeout, f"{self.name}/transition_event")
        self.graph.settle_discovery()

    def _call(self, client, request, timeout=30.0):
        future = client.call_async(request)
        return self.graph.wait_future(future, timeout, f"{client.srv_name}")

    def change(self, transition_id=0, label="", timeout=30.0):
        """`change_state`: the answer's success."""
        req = ChangeState.Request(transition=Transition(id=transition_id, label=label))
        return self._call(self.change_client, req, timeout).success

    def state(self):
        """`get_state`: (id, label)."""
        s = self._call(self.get_client, GetState.Request()).current_state
        return s.id, s.label

    def available_states(self):
        return [(s.id, s.label) for s in self._call(self.states_client, GetAvailableStates.Request()).available_states]

    def available(self):
        """`get_available_transitions`: [(id, label, start, goal)]."""
        return _descriptions(self._call(self.available_client, GetAvailableTransitions.Request()))

    def transition_graph(self):
        return _descriptions(self._call(self.graph_client, GetAvailableTransitions.Request()))

    def wait_events(self, count, timeout=10.0):
        """Waits until at least `count` transition events arrived; returns them."""
        self.graph.spin_until(lambda: len(self.events) >= count, timeout,
                              f"{count} transition event(s) of {self.name}")
        return self.events

    def to(self, label, timeout=30.0):
        """Takes the transition `label` and checks it succeeded."""
        assert self.change(label=label, timeout=timeout), f"{self.name}: {label} failed\n{self.graph.logs()}"


def _descriptions(resp):
    return [(d.transition.id, d.transition.label, d.start_state.label, d.goal_state.label)
            for d in resp.available_transitions]


def event_pairs(events):
    """The (start, goal) labels of transition events."""
    return [(e.start_state.label, e.goal_state.label) for e in events]


__all__ = ["LifecycleClient", "event_pairs", "PRIMARY", "State"]


def wait_active(graph, names, timeout=90.0):
    """Waits until each managed node of `names` (fully qualified) reports `active` on
    get_state: a launch file's lifecycle_manager brings them up after they start, and an
    action server answers (rejecting goals) before its node is active."""
    for name in names:
        client = LifecycleClient(graph, name)
        graph.spin_until(client.get_client.service_is_ready, timeout, f"{name}/get_state")
        deadline = time.monotonic() + timeout
        while client.state()[1] != "active":
            if time.monotonic() > deadline:
                raise AssertionError(f"{name} not active after {timeout} s: {client.state()}")
            graph.spin_for(0.2)
