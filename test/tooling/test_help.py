"""The command lines' `--help` texts quoted in README.md are the programs' own output.

Each quote is a ```text block right after a `<!-- help: PROGRAM ARGS -->` line; the test
runs PROGRAM (a binary in target/debug) with ARGS and compares its standard output with
the block, whole (`xtask` is `cargo xtask`'s binary). The tools with a parser (clap) must
each have their `--help` quoted.
After changing a command line, `python3 test/tooling/test_help.py` rewrites the quotes (run it
from a shell with `cargo xtask env` loaded, after a build).
"""
import re
import subprocess
import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script: the helpers package is in test/
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from helpers.graph import ROOT, binary  # noqa: E402

README = ROOT / "README.md"
QUOTE = re.compile(r"<!-- help: (?P<cmd>[^>]+?) -->\n```text\n(?P<text>.*?)```\n", re.S)
# Every tool on clap quotes at least its top-level --help.
TOOLS = ["xtask --help", "arnie_bag --help", "arnie_english --help", "board_sim --help", "table_map --help"]


def help_text(cmd):
    program, *args = cmd.split()
    r = subprocess.run([binary(program), *args], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, (cmd, r.returncode, r.stderr)
    return r.stdout


def quotes(text):
    return [(m.group("cmd"), m.group("text")) for m in QUOTE.finditer(text)]


def test_readme_quotes_each_tools_help():
    quoted = [cmd for cmd, _ in quotes(README.read_text())]
    assert [t for t in TOOLS if t not in quoted] == [], "README.md lacks these --help quotes"


def test_readme_help_quotes_are_the_programs_output():
    found = quotes(README.read_text())
    assert found, "no <!-- help: ... --> quote in README.md"
    stale = [cmd for cmd, text in found if help_text(cmd) != text]
    assert stale == [], f"README.md quotes an old --help of {stale}: run python3 test/tooling/test_help.py"


def update():
    """Rewrites every quote with the program's output (a developer's tool, not a test)."""
    text = README.read_text()
    new = QUOTE.sub(lambda m: f"<!-- help: {m.group('cmd')} -->\n```text\n{help_text(m.group('cmd'))}```\n", text)
    README.write_text(new)
    print("README.md: help quotes", "rewritten" if new != text else "already current")


if __name__ == "__main__":
    sys.exit(update())
