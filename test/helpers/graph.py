"""The graph of a test: paths, ROS domains, node processes and waiting on the graph.

Every test gets its own ROS domain (an id in 1..101 held by a lock file, so parallel
runs on one machine never share one) and ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST.
Node binaries run as real processes (`Graph.start`), readiness is awaited on the graph
(a topic, service or action server appearing), never with a fixed sleep, and every
process is stopped (SIGINT, then SIGKILL) at the end of the test.

The `graph` fixture (test/conftest.py) gives each test one `Graph`.
"""
import fcntl
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(os.environ.get("ARNIE_ROOT", Path(__file__).resolve().parents[2]))
BIN_DIR = Path(os.environ.get("ARNIE_BIN_DIR", ROOT / "target" / "debug"))
REFERENCE = ROOT.parent / "shared" / "reference"
LOCK_DIR = Path(tempfile.gettempdir()) / "arnie-ros-domains"

# Must be set before rclpy initialises the middleware.
os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
os.environ.setdefault("RCUTILS_COLORIZED_OUTPUT", "0")

import rclpy  # noqa: E402  (after the environment above)
from rclpy.executors import SingleThreadedExecutor  # noqa: E402


# The ROS 2 command-line tools (`cargo xtask test` installs them into the wheel venv from
# ../shared/ros2-cli when that folder exists; a real ROS install has its own).
ROS2 = shutil.which("ros2")


def require_ros2():
    """Skips the test, saying why, when the ros2 command-line tools are not installed."""
    if ROS2 is None:
        pytest.skip("the ros2 command-line tools are not installed (cargo xtask test installs them "
                    "from ../shared/ros2-cli when that folder exists; or source a ROS 2 install)")


def binary(name):
    """Path of a node binary built by cargo; fails the test clearly when missing."""
    path = BIN_DIR / name
    if not path.exists():
        pytest.fail(f"{path} is missing: run `cargo xtask test` (it builds the nodes first)")
    return str(path)


# Domains the tests of this session used (their ros2 daemons, if any CLI call started
# one, are stopped at the end of the session).
USED_DOMAINS = set()


def _session_members(sid):
    """The live processes of session `sid` (zombies aside)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # After the command's closing parenthesis: state, ppid, pgrp, session, ...
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[3]) == sid and fields[0] != "Z":
            pids.append(int(entry))
    return pids


def _end_session(sid, timeout):
    """Every process a test started runs in a session of its own (start_new_session), and
    so does whatever it starts, even in process groups of their own (`cargo xtask launch`
    puts each node in one) or orphaned when their launcher was killed. The domain is only
    handed to the next test once all of them are gone: a node still shutting down (slow
    under load) would otherwise appear in the next test's graph. SIGINT, then SIGKILL
    after `timeout`."""
    members = _session_members(sid)
    if not members:
        return
    for pid in members:
        try:
            os.kill(pid, signal.SIGINT)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + timeout
    while members and time.monotonic() < deadline:
        time.sleep(0.05)
        members = _session_members(sid)
    for pid in members:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 10.0
    while _session_members(sid) and time.monotonic() < deadline:
        time.sleep(0.05)


class DomainLock:
    """Holds one ROS_DOMAIN_ID for the life of a test."""

    def __init__(self):
        LOCK_DIR.mkdir(exist_ok=True)
        ids = list(range(1, 102))
        random.shuffle(ids)
        for i in ids:
            f = open(LOCK_DIR / f"{i}.lock", "w")
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                f.close()
                continue
            self.id, self._file = i, f
            USED_DOMAINS.add(i)
            return
        raise RuntimeError("all ROS domain ids 1..101 are in use")

    def release(self):
        fcntl.flock(self._file, fcntl.LOCK_UN)
        self._file.close()


# The network namespace this process started in, and how many Graphs were made in it
# (test/system/test_two_hosts.py: Fast DDS keeps process-wide state from the namespace of the
# first participant, so its clients in other namespaces work only in a fresh process).
INITIAL_NETNS = os.readlink("/proc/thread-self/ns/net")


class Graph:
    """One isolated ROS graph: node processes plus an rclpy node to observe them."""

    made_in_initial_netns = 0

    def __init__(self, domain_id, tmp_path):
        if os.readlink("/proc/thread-self/ns/net") == INITIAL_NETNS:
            Graph.made_in_initial_netns += 1
        self.domain_id = domain_id
        self.tmp = tmp_path
        self.env = dict(os.environ, ROS_DOMAIN_ID=str(domain_id), ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST")
        # Extra environment of the processes started in a network namespace (namespace ->
        # variables): a host's own DDS profile (test/system/test_two_hosts_tls.py).
        self.netns_env = {}
        self.procs = []
        self.context = rclpy.context.Context()
        rclpy.init(context=self.context, domain_id=domain_id)
        self.node = rclpy.create_node("arnie_test_client", context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)

    # ---------------------------------------------------------------- processes
    def start(self, name, *args, params=None, params_file=None, ros_args=(), env=None, netns=None, cwd=None):
        """Starts a node binary with `--ros-args` built from params / params_file; in the
        network namespace `netns` (`ip netns exec`, which execs the node: the process is
        the node's) when given (test/system/test_two_hosts.py); in the folder `cwd` when
        given (relative paths on its command line)."""
        cmd = [binary(name), *args]
        if netns:
            cmd = ["ip", "netns", "exec", netns, *cmd]
        ra = list(ros_args)
        if params_file:
            ra += ["--params-file", str(params_file)]
        for k, v in (params or {}).items():
            ra += ["-p", f"{k}:={_param_text(v)}"]
        if ra:
            cmd += ["--ros-args", *ra]
        log = open(self.tmp / f"{name}-{len(self.procs)}.log", "w+")
        proc = subprocess.Popen(cmd, env=dict(self.env, **self.netns_env.get(netns, {}), **(env or {})),
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=cwd)
        proc.log = log
        proc.name = name
        self.procs.append(proc)
        return proc

    def launch(self, *cmd, name="launch", env=None):
        """Starts a launcher (`ros2 launch ...`, `cargo xtask launch ...`) or another
        command in its own process group; stopped (the whole group) at the end."""
        log = open(self.tmp / f"{name}-{len(self.procs)}.log", "w+")
        proc = subprocess.Popen(list(cmd), env=dict(self.env, **(env or {})), stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True, cwd=ROOT)
        proc.log = log
        proc.name = name
        proc.group = True
        self.procs.append(proc)
        return proc

    def ros2(self, *args, timeout=60.0):
        """Runs `ros2 ARGS` on this graph's domain; returns the CompletedProcess."""
        require_ros2()
        return subprocess.run([ROS2, *args], env=self.env, capture_output=True, text=True, timeout=timeout, cwd=ROOT)

    def param(self, *args):
        """`ros2 param ARGS`, repeated while the CLI's own discovery has not found the node.

        The CLI calls the parameter service with no timeout of its own (ros2param spins
        until the answer comes), so a request or answer lost on the way hangs it; one such
        hang (60 s) is retried once, and said on stderr."""
        hung = 0
        for _ in range(20):
            try:
                r = self.ros2("param", *args[:1], "--no-daemon", *args[1:])
            except subprocess.TimeoutExpired:
                hung += 1
                if hung > 1:
                    raise
                print(f"ros2 param {' '.join(args)}: the CLI hung for 60 s; trying once more", file=sys.stderr)
                continue
            if "Node not found" not in r.stdout + r.stderr:
                return r
            self.spin_for(0.5)
        raise AssertionError(f"ros2 param {' '.join(args)}: the node was never found")

    def param_says(self, *args, expect):
        """`ros2 param ARGS` ([`param`]) whose standard output must contain `expect` (a
        text, or a tuple of texts that must all be there); returns the CLI's result."""
        r = self.param(*args)
        for text in (expect,) if isinstance(expect, str) else expect:
            assert text in r.stdout, r.stdout + r.stderr
        return r

    def start_refused(self, name, *args, expect=(), timeout=60.0, **kw):
        """Starts a node that must refuse to start: waits for it to exit, then checks exit
        code 2, each text of `expect` in its output and no panic. Returns the output."""
        proc = self.start(name, *args, **kw)
        proc.must_live = False
        self.spin_until(lambda: proc.poll() is not None, timeout, f"{name} to refuse to start")
        out = self.output(proc)
        assert proc.returncode == 2, out
        for text in [expect] if isinstance(expect, str) else expect:
            assert text in out, out
        assert "panicked" not in out, out
        return out

    def param_refused(self, node, name, value, reason):
        """`ros2 param set` that must be refused with `reason`; returns the CLI's output."""
        r = self.param("set", node, name, value)
        out = r.stdout + r.stderr
        assert "Setting parameter failed" in out and reason in out, out
        return out

    def node_names(self):
        """Fully qualified names of the nodes this client sees."""
        return {(ns.rstrip("/") + "/" + n) for n, ns in self.node.get_node_names_and_namespaces()}

    def wait_for_nodes(self, names, timeout=60.0):
        self.spin_until(lambda: set(names) <= self.node_names(), timeout, f"the nodes {sorted(names)}")

    def output(self, proc):
        proc.log.flush()
        proc.log.seek(0)
        return proc.log.read()

    def stop(self, proc, timeout=10.0):
        """SIGINT and wait; returns the exit code (SIGKILL after `timeout`). A launcher gets
        what Ctrl-C in its terminal sends: SIGINT to its whole process group (the launcher
        and its nodes). A SIGINT to `ros2 launch` alone is sometimes never handled when
        it runs under Popen (ros2/launch#495: seen here twice in full runs, the launch log
        without its "user interrupted" line after 60 s). What is left of its session is
        then stopped (`_end_session`)."""
        proc.must_live = False
        if proc.poll() is None:
            if getattr(proc, "group", False):
                try:
                    os.killpg(proc.pid, signal.SIGINT)
                except ProcessLookupError:
                    pass
            else:
                proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        # The group is part of the session: what is left of either ends there.
        _end_session(proc.pid, timeout)
        return proc.returncode

    def close(self):
        for p in self.procs:
            self.stop(p, timeout=5.0)
        self.executor.shutdown()
        self.node.destroy_node()
        rclpy.shutdown(context=self.context)

    # ---------------------------------------------------------------- waiting
    def spin_until(self, predicate, timeout=20.0, what="condition"):
        """Spins the client until predicate() is true; fails with `what` and the node logs."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            self.executor.spin_once(timeout_sec=0.05)
            for p in self.procs:
                if p.poll() is not None and getattr(p, "must_live", True):
                    pytest.fail(f"{p.name} exited with {p.returncode} while waiting for {what}:\n{self.output(p)}")
        pytest.fail(f"timed out after {timeout} s waiting for {what}\n" + self.logs())

    def spin_for(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.executor.spin_once(timeout_sec=0.02)

    def wait_future(self, future, timeout=20.0, what="future"):
        self.spin_until(future.done, timeout, what)
        return future.result()

    def wait_for_subscriber(self, topic, timeout=20.0):
        self.spin_until(lambda: self.node.count_subscribers(topic) > 0, timeout, f"a subscriber on {topic}")
        self.settle_discovery()

    def wait_for_service(self, client, name, timeout=20.0):
        """Waits until `client` can call the service `name`: the server's request reader
        has matched us, then the discovery margin, so that the server's response writer
        has matched our response reader too. rmw_fastrtps drops a response when the server
        has not matched the client's reader within 100 ms of the request (the server logs
        RCL_RET_TIMEOUT, the client waits forever): seen once under two busy loops
        (test_path_through_the_gap: the first PlanPath answer lost, 20 s)."""
        self.spin_until(client.service_is_ready, timeout, name)
        self.settle_discovery()

    def settle_discovery(self):
        """A margin after this client has matched a node's endpoint, before a one-shot
        message. Matching is seen from each side on its own: our writer matches the node's
        reader as soon as we know of it, but the node's reader drops what comes from a
        writer it has not matched yet (a volatile reader never gets it again), and the
        node's writer sends nothing to a reader of ours it has not matched. Seen once
        under two busy loops (test_uart_ping_pong: the first Ping never answered). The
        node's side processes our announcements about when we see its; this covers the
        difference. A margin, not a proof: no node says when its side has matched."""
        self.spin_for(1.0)

    def wait_for_action(self, client, name, timeout=20.0):
        """Waits until `client` can use the action server `name`: its services answer and
        this client sees its feedback and status publishers, so the first feedback of a
        goal is not sent before the server's writer has matched our reader."""
        def ready():
            return (client.server_is_ready()
                    and self.node.count_publishers(f"{name}/_action/feedback") > 0
                    and self.node.count_publishers(f"{name}/_action/status") > 0)
        self.spin_until(ready, timeout, f"the action server {name} (services, feedback and status)")
        # The server's writers match our readers when its side processes our endpoint
        # announcements, about when we see its.
        self.settle_discovery()

    def wait_for_publisher(self, topic, timeout=20.0):
        self.spin_until(lambda: self.node.count_publishers(topic) > 0, timeout, f"a publisher on {topic}")

    def logs(self):
        return "\n".join(f"--- {p.name} (exit {p.poll()}):\n{self.output(p)[-4000:]}" for p in self.procs)

    # ---------------------------------------------------------------- helpers
    def collect(self, msg_type, topic, qos=10):
        """Subscribes and returns the list the messages are appended to."""
        got = []
        self.node.create_subscription(msg_type, topic, got.append, qos)
        return got


def _param_text(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)
