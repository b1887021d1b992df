"""/diagnostics, read one way.

A test subscribes once, before it starts the nodes it watches (`Diagnostics(graph)`), and
reads a node's status by its full name, "/<node>: <status>" as the glue names it (e.g.
"/comms_bridge: link"): `values(name)` is that status's newest key -> value text,
`counter(name, key)` one value as an int; `history(name)` every one received, oldest
first. Every DiagnosticArray received stays in `arrays`, in order.
"""
from diagnostic_msgs.msg import DiagnosticArray


class Diagnostics:
    """Every DiagnosticArray on /diagnostics, and the newest status of each name."""

    def __init__(self, graph, qos=10):
        self.arrays = []  # every DiagnosticArray received, oldest first
        self._latest = {}  # status name -> newest DiagnosticStatus
        graph.node.create_subscription(DiagnosticArray, "/diagnostics", self._on, qos)

    def _on(self, msg):
        self.arrays.append(msg)
        for st in msg.status:
            self._latest[st.name] = st

    def __contains__(self, name):
        """Whether a status named `name` has been received."""
        return name in self._latest

    def names(self):
        """Every status name received."""
        return set(self._latest)

    def status(self, name):
        """The newest DiagnosticStatus named `name`, or None."""
        return self._latest.get(name)

    def values(self, name):
        """The newest status named `name` as key -> value text ({} before the first)."""
        st = self._latest.get(name)
        return as_dict(st) if st is not None else {}

    def value(self, name, key, default=None):
        """The newest value text of `key` in the status `name`, or `default`."""
        return self.values(name).get(key, default)

    def counter(self, name, key, default=None):
        """The newest value of `key` in the status `name` as an int, or `default`."""
        text = self.value(name, key)
        return default if text is None else int(text)

    def history(self, name):
        """key -> value text of every status named `name` received, oldest first."""
        return [as_dict(st) for arr in self.arrays for st in arr.status if st.name == name]

    def counter_in(self, part, key):
        """The newest value of `key`, as an int, in any status whose name contains `part`
        (e.g. "base" for each of that node's statuses), or None."""
        for arr in reversed(self.arrays):
            for st in arr.status:
                if part in st.name:
                    for kv in st.values:
                        if kv.key == key:
                            return int(kv.value)
        return None


def as_dict(status):
    """A DiagnosticStatus's values as key -> value text."""
    return {kv.key: kv.value for kv in status.values}
