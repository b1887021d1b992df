"""pytest's fixtures for the real-graph tests (rclpy is the independent client).

`graph`: one isolated ROS graph a test (helpers/graph.py); the session stops the ros2
daemons its tests started. The shared helpers are the package test/helpers; a test
module imports from there, never from another test module.

Run through `cargo xtask test` (or after `eval "$(cargo xtask env)"`: `python3 -m pytest test`).
"""
import os
import signal
from pathlib import Path

import pytest

from helpers.graph import USED_DOMAINS, DomainLock, Graph


@pytest.fixture(scope="session", autouse=True)
def stop_ros2_daemons():
    """A `ros2` CLI call may start a background daemon for its domain; ours are stopped
    when the session ends, so nothing of the tests outlives them."""
    yield
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        text = [a.decode(errors="replace") for a in argv]
        if any("ros2cli.daemon.daemonize" in a for a in text) and "--ros-domain-id" in text:
            domain = text[text.index("--ros-domain-id") + 1]
            if domain.isdigit() and int(domain) in USED_DOMAINS:
                try:
                    os.kill(int(pid), signal.SIGTERM)
                except OSError:
                    pass




def pytest_collection_modifyitems(items):
    """The long tests first, longest first (`@pytest.mark.long(SECONDS)`: about how long
    the test takes alone on the 2-core CI machine), then the rest in file order. With
    pytest-xdist's workers (`cargo xtask test`) the long ones start at once, side by
    side, instead of one of them starting last and running on alone."""
    def seconds(item):
        mark = item.get_closest_marker("long")
        return mark.args[0] if mark else 0

    items.sort(key=seconds, reverse=True)  # stable: the others keep their order


@pytest.fixture
def graph(tmp_path):
    lock = DomainLock()
    g = Graph(lock.id, tmp_path)
    try:
        yield g
    finally:
        g.close()
        lock.release()
