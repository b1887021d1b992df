"""`cargo xtask install`: the ament install tree and its setup scripts, used from a clean
shell as a ROS user would (`source install/setup.bash`), with nothing of the project's
environment: the layout (`lib/<pkg>/<exe>`, `share/<pkg>/package.xml`, the ament index,
the interfaces, `share/arnie_bringup/{launch,params}`), sourcing twice adds nothing twice,
the ament index finds every package, the Python interfaces import, and an installed node
runs and joins the graph. (Built with `--debug --no-build`: the dev build the test run
already has; `cargo xtask install` makes the release build the same way.)
"""
import subprocess
import xml.etree.ElementTree as ET
import pytest

from helpers.graph import ROOT, binary

NODE_PACKAGES = sorted(ET.parse(p).getroot().findtext("name") for folder in ("nodes", "nodes/lib", "nodes/tools") for p in (ROOT / folder).glob("*/package.xml"))


def clean_shell(script, env=None, timeout=60):
    """bash with a minimal environment (no ROS, no project variables)."""
    base = {"HOME": "/root", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    return subprocess.run(["bash", "-c", script], env=dict(base, **(env or {})), capture_output=True, text=True, timeout=timeout)


@pytest.mark.long(210)
def test_install_tree_works_from_a_clean_shell(graph, tmp_path):
    prefix = tmp_path / "install"
    r = subprocess.run([binary("xtask"), "install", "--debug", "--no-build", "--prefix", str(prefix)],
                       cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr

    index = prefix / "share" / "ament_index" / "resource_index" / "packages"
    # tf2_msgs goes into the tree only where set-up built it (the ROS install lacks it).
    built_tf2_msgs = (ROOT / ".ros" / "install" / "share" / "tf2_msgs" / ".arnie-stamp").exists()
    for pkg in NODE_PACKAGES + ["arnie_interfaces"] + (["tf2_msgs"] if built_tf2_msgs else []):
        assert (index / pkg).exists(), pkg
        assert (prefix / "share" / pkg / "package.xml").exists(), pkg
    for pkg, exe in [("arnie_brain", "brain"), ("arnie_spine", "spine_bridge"), ("arnie_sim", "sim"),
                     ("arnie_trajectory", "trajectory_server"), ("arnie_comms", "comms_sim")]:
        path = prefix / "lib" / pkg / exe
        assert path.is_file() and not path.is_symlink(), path
    assert (prefix / "share" / "arnie_bringup" / "launch" / "arnie.launch.xml").is_file()
    assert (prefix / "share" / "arnie_bringup" / "params" / "brain.yaml").is_file()
    assert (prefix / "share" / "arnie_comms" / "packets" / "ping.json").is_file()

    # A clean shell: setup.bash (twice: nothing added twice), then the ament index.
    r = clean_shell(f"""
        source {prefix}/setup.bash && source {prefix}/setup.bash
        echo "AMENT=$AMENT_PREFIX_PATH"
        echo "PATH=$PATH"
        python3 -c 'from ament_index_python.packages import get_package_prefix as p; print("BRAIN=" + p("arnie_brain"))'
        python3 -c 'from arnie_interfaces.action import MoveTo; print("IMPORT=ok")'
        python3 -c 'from tf2_msgs.msg import TFMessage; print("TF2=ok")'
    """)
    assert r.returncode == 0, r.stdout + r.stderr
    out = dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)
    ament = out["AMENT"].split(":")
    assert ament[0] == str(prefix) and ament.count(str(prefix)) == 1, ament
    assert len(out["PATH"].split(":")) == len(set(out["PATH"].split(":"))), out["PATH"]
    assert out["BRAIN"] == str(prefix)
    assert out["IMPORT"] == "ok"
    assert out["TF2"] == "ok"

    # The installed node runs from that shell alone and joins this test's graph.
    proc = subprocess.Popen(["bash", "-c", f"source {prefix}/setup.bash && exec {prefix}/lib/arnie_brain/brain"],
                            env={"HOME": "/root", "PATH": "/usr/bin:/bin", "ROS_DOMAIN_ID": str(graph.domain_id),
                                 "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST"},
                            stdout=open(tmp_path / "brain.log", "w"), stderr=subprocess.STDOUT, start_new_session=True)
    proc.name, proc.log = "installed brain", open(tmp_path / "brain.log")
    graph.procs.append(proc)
    graph.wait_for_nodes(["/brain"], 60.0)
