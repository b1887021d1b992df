"""lifecycle_manager (nodes/arnie_lifecycle_manager): Nav2's interface on real managed
nodes (`lifecycle_selftest`, node_glue's test node), called from rclpy as Nav2's clients
call it.

- STARTUP configures every node in `node_names` order, then activates them in that order
  (the nodes' own transition events, stamped, say when); PAUSE, RESET and SHUTDOWN go in
  reverse order; `is_active` follows; a second STARTUP of an active stack is a success.
- The first failure stops the command and is reported with the node, the transition and
  the node's reason; the nodes after it are left untouched.
- A node that does not exist: the command answers false within the service timeout.
- A node killed mid-run is reported within the heartbeat, and the others are brought
  down (Nav2's behaviour when a bond breaks).
"""
import os
import signal
import time

from lifecycle_msgs.msg import TransitionEvent
from nav2_msgs.srv import ManageLifecycleNodes
from std_srvs.srv import Trigger

from helpers.lifecycle import LifecycleClient

STARTUP, PAUSE, RESUME, RESET, SHUTDOWN = 0, 1, 2, 3, 4


class Manager:
    """A lifecycle_manager process and its two services."""

    def __init__(self, graph, nodes, **params):
        self.graph = graph
        self.proc = graph.start("lifecycle_manager", params={
            "node_names": "[" + ", ".join(nodes) + "]", **params})
        self.manage = graph.node.create_client(ManageLifecycleNodes, "/lifecycle_manager/manage_nodes")
        self.is_active_client = graph.node.create_client(Trigger, "/lifecycle_manager/is_active")
        graph.wait_for_service(self.manage, "/lifecycle_manager/manage_nodes", 60.0)
        graph.wait_for_service(self.is_active_client, "/lifecycle_manager/is_active", 60.0)

    def command(self, command, timeout=60.0):
        req = ManageLifecycleNodes.Request(command=command)
        return self.graph.wait_future(self.manage.call_async(req), timeout, f"manage_nodes {command}").success

    def is_active(self):
        return self.graph.wait_future(self.is_active_client.call_async(Trigger.Request()), 30.0, "is_active").success

    def log(self):
        return self.graph.output(self.proc)


def managed_nodes(graph, names, **params):
    clients = {}
    for name in names:
        graph.start("lifecycle_selftest", params={"managed": True, **params.get(name, {})},
                    ros_args=["-r", f"__node:={name}"])
        clients[name] = LifecycleClient(graph, f"/{name}")
    for c in clients.values():
        c.wait_ready()
    return clients


def stamps(clients, goal):
    """Each node's last event into `goal` (its timestamp, ns)."""
    out = {}
    for name, c in clients.items():
        times = [e.timestamp for e in c.events if e.goal_state.label == goal]
        assert times, f"{name}: no event into {goal}: {[(e.start_state.label, e.goal_state.label) for e in c.events]}"
        out[name] = times[-1]
    return out


def order(stamped):
    return [n for n, _ in sorted(stamped.items(), key=lambda kv: kv[1])]


def test_startup_goes_in_order_and_the_rest_in_reverse(graph):
    names = ["c_node", "a_node", "b_node"]
    clients = managed_nodes(graph, names)
    m = Manager(graph, names, autostart=False)
    assert m.is_active() is False
    assert m.command(STARTUP) is True
    assert m.is_active() is True
    for c in clients.values():
        assert c.state() == (3, "active")
    configured = stamps(clients, "inactive")
    activated = stamps(clients, "active")
    assert order(configured) == names, configured
    assert order(activated) == names, activated
    assert max(configured.values()) < min(activated.values()), "an activate before every configure"
    # Again: nothing to do, still a success.
    assert m.command(STARTUP) is True
    assert m.command(PAUSE) is True
    assert m.is_active() is False
    assert order(stamps(clients, "inactive")) == names[::-1]
    assert all(c.state() == (2, "inactive") for c in clients.values())
    assert m.command(RESUME) is True and m.is_active() is True
    assert m.command(RESET) is True
    assert all(c.state() == (1, "unconfigured") for c in clients.values())
    assert order(stamps(clients, "unconfigured")) == names[::-1]
    assert m.command(SHUTDOWN) is True
    assert all(c.state() == (4, "finalized") for c in clients.values())
    assert m.command(STARTUP) is False  # nothing comes back from finalized
    assert "cannot configure from state finalized" in m.log()
    assert m.command(99) is False


def test_the_first_failure_is_reported_with_the_node_and_the_transition(graph):
    names = ["first", "broken", "last"]
    clients = managed_nodes(graph, names, broken={"on_configure": "failure"})
    m = Manager(graph, names, autostart=True)
    graph.spin_until(lambda: "STARTUP aborted" in m.log(), 60.0, "the autostart's failure")
    assert "STARTUP failed at configure of broken: the node refused or failed" in m.log(), m.log()
    assert "the test asked for a failure" in m.log(), m.log()
    assert clients["first"].state() == (2, "inactive")
    assert clients["broken"].state() == (1, "unconfigured")
    assert clients["last"].state() == (1, "unconfigured")  # never touched
    assert m.is_active() is False


def test_a_node_that_is_not_there_fails_the_command_in_bounded_time(graph):
    managed_nodes(graph, ["present"])
    m = Manager(graph, ["present", "ghost"], service_timeout_s=1.0)
    t0 = time.monotonic()
    assert m.command(STARTUP, timeout=30.0) is False
    assert time.monotonic() - t0 < 15.0
    assert "STARTUP failed at configure of ghost: ghost/get_state did not appear within 1.0 s" in m.log(), m.log()


def test_a_killed_node_is_reported_within_the_heartbeat(graph):
    names = ["one", "two", "three"]
    clients = managed_nodes(graph, names)
    m = Manager(graph, names, autostart=True, heartbeat_period_s=0.2, bond_timeout=1.0,
                attempt_respawn_reconnection=False)
    graph.spin_until(lambda: m.is_active(), 60.0, "the stack active")
    victim = next(p for p in graph.procs if "__node:=two" in " ".join(p.args))
    victim.must_live = False
    os.kill(victim.pid, signal.SIGKILL)
    killed = time.monotonic()
    graph.spin_until(lambda: "two is down" in m.log(), 10.0, "the manager's report")
    assert time.monotonic() - killed < 2.0 + 1.0, "reported later than heartbeat + timeout (+1 s margin)"
    assert "CRITICAL FAILURE: two is down: no answer to get_state within 1.0 s" in m.log()
    assert m.is_active() is False
    # The others are brought down, as Nav2's manager does on a broken bond.
    graph.spin_until(lambda: clients["one"].state()[1] == "unconfigured"
                     and clients["three"].state()[1] == "unconfigured", 30.0, "the others reset")
