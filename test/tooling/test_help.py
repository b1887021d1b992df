"""The command lines' `--help` texts quoted in the project's Markdown are the programs' own
output.

Each quote is a ```text block right after a `<!-- help: PROGRAM ARGS -->` line, in any
Markdown file of the project (README.md quotes `cargo xtask`; each tool's README its own);
the test runs PROGRAM (a binary in target/debug) with ARGS and compares its standard output
with the block, whole (`xtask` is `cargo xtask`'s binary). The tools with a parser (clap)
must each have their `--help` quoted.
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

# Folders that hold no document of the project: builds and dependencies anywhere, and the
# outputs of colcon and the demo at the top.
SKIP = {"target", "node_modules"}
SKIP_AT_TOP = {"out", "install", "build", "log"}


def documents():
    """Every Markdown file of the project, sorted."""
    found = []
    stack = [ROOT]
    while stack:
        folder = stack.pop()
        for p in folder.iterdir():
            if p.is_dir():
                top = folder == ROOT and p.name in SKIP_AT_TOP
                if not p.name.startswith(".") and p.name not in SKIP and not top:
                    stack.append(p)
            elif p.suffix == ".md":
                found.append(p)
    return sorted(found)


def all_quotes():
    """(file, command, quoted text) of every quote in the project's Markdown."""
    return [(path, cmd, text) for path in documents() for cmd, text in quotes(path.read_text())]


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


def test_docs_quote_each_tools_help():
    quoted = [cmd for _, cmd, _ in all_quotes()]
    assert [t for t in TOOLS if t not in quoted] == [], "no Markdown file quotes these --help texts"
    assert "xtask --help" in [cmd for cmd, _ in quotes((ROOT / "README.md").read_text())], \
        "README.md lacks the quote of cargo xtask --help"


def test_docs_help_quotes_are_the_programs_output():
    found = all_quotes()
    assert found, "no <!-- help: ... --> quote in the project's Markdown"
    stale = [f"{path.relative_to(ROOT)}: {cmd}" for path, cmd, text in found if help_text(cmd) != text]
    assert stale == [], f"old --help quotes: {stale}: run python3 test/tooling/test_help.py"


def test_the_quote_finder_sees_the_tool_readmes():
    """The walk finds the documents the quotes live in (so a moved quote is still checked)."""
    docs = [p.relative_to(ROOT).as_posix() for p in documents()]
    for doc in ("README.md", "nodes/tools/arnie_bag/README.md", "nodes/lib/arnie_english/README.md",
                "nodes/tools/arnie_table/README.md"):
        assert doc in docs, (doc, docs)


def update():
    """Rewrites every quote with the program's output (a developer's tool, not a test)."""
    for path in documents():
        text = path.read_text()
        if not QUOTE.search(text):
            continue
        new = QUOTE.sub(lambda m: f"<!-- help: {m.group('cmd')} -->\n```text\n{help_text(m.group('cmd'))}```\n", text)
        path.write_text(new)
        print(f"{path.relative_to(ROOT)}: help quotes", "rewritten" if new != text else "already current")


if __name__ == "__main__":
    sys.exit(update())
