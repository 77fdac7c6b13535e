"""Every command and code block of README.md and docs/*.md runs as pasted.

A fenced block says what it is: `python` blocks run in a fresh interpreter from the
repository's root (as doctests where they show `>>>` prompts) and must exit cleanly; `sh`
blocks run a line at a time in bash from the root, with the environment's commands
(`blkc`, `blk-opt`) on PATH, and every line must succeed; `text`, `mlir` and `c` blocks are
output, IR fragments and signatures, shown and not run, except a `text` block that opens
with a `$ command` line: a transcript, whose command runs and must print the lines shown.
The few lines that cannot run here are listed in NOT_RUN with the reason. Compiled kernels
share one cache for the run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
RUN = {"python", "sh"}
SHOWN = {"text", "mlir", "c"}

NOT_RUN = {
    "make demo": "runs and times every example, minutes; test/e2e runs each example",
    "make test": "runs this test suite",
    ". .venv/bin/activate": "this suite runs inside the environment it activates (its bin "
    "folder leads PATH); test_activation_names_the_makefiles_environment checks the path",
}
"""Shell lines not run, and why."""

TIMEOUT = 180


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    language: str
    text: str

    def __str__(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"


def blocks() -> list[Block]:
    """The fenced blocks of the docs, each with the line of its opening fence."""
    found = []
    for path in DOCS:
        text = path.read_text()
        for match in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.DOTALL | re.MULTILINE):
            line = text.count("\n", 0, match.start()) + 1
            found.append(Block(path, line, match.group(1), match.group(2)))
    return found


def shell_lines(text: str) -> list[str]:
    """The commands of a shell block: continuation lines joined, blank lines and lines of
    comments left out."""
    joined = text.replace("\\\n", " ")
    return [line for line in joined.splitlines() if line.strip() and not line.startswith("#")]


@pytest.fixture(scope="module")
def environment(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    bin_folder = str(Path(sys.executable).parent)
    return {
        **os.environ,
        "PATH": os.pathsep.join([bin_folder, os.environ.get("PATH", "")]),
        "BLKC_CACHE_DIR": str(tmp_path_factory.mktemp("cache")),
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def run(
    command: list[str], environment: dict[str, str], what: str, check: bool = True
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        command, cwd=REPO, env=environment, capture_output=True, text=True, timeout=TIMEOUT
    )
    if check:
        assert done.returncode == 0, f"{what} failed:\n{done.stdout[-2000:]}{done.stderr[-4000:]}"
    assert "Traceback" not in done.stderr, f"{what}:\n{done.stderr[-4000:]}"
    return done


def test_every_block_says_what_it_is() -> None:
    untagged = [str(b) for b in blocks() if b.language not in RUN | SHOWN]
    assert not untagged, f"blocks tagged neither {sorted(RUN)} nor {sorted(SHOWN)}: {untagged}"


def test_every_line_not_run_is_still_in_the_docs() -> None:
    lines = {line.split("#")[0].strip() for b in blocks() for line in shell_lines(b.text)}
    assert set(NOT_RUN) <= lines


def test_activation_names_the_makefiles_environment() -> None:
    assert re.search(r"^VENV := \.venv$", (REPO / "Makefile").read_text(), re.MULTILINE)


@pytest.mark.parametrize("block", [b for b in blocks() if b.language == "sh"], ids=str)
def test_shell_block_runs(block: Block, environment: dict[str, str]) -> None:
    for line in shell_lines(block.text):
        if line.split("#")[0].strip() in NOT_RUN:
            continue
        run(["bash", "-e", "-o", "pipefail", "-c", line], environment, f"{block}: {line}")


@pytest.mark.parametrize("block", [b for b in blocks() if b.language == "python"], ids=str)
def test_python_block_runs(block: Block, environment: dict[str, str], tmp_path: Path) -> None:
    if block.text.lstrip().startswith(">>>"):
        script = tmp_path / "block.txt"  # doctest reads a text file's examples
        command = [sys.executable, "-m", "doctest", str(script)]
    else:
        script = tmp_path / "block.py"  # @jit kernels need their source in a file
        command = [sys.executable, str(script)]
    script.write_text(block.text)
    run(command, environment, str(block))


TRANSCRIPTS = [b for b in blocks() if b.language == "text" and b.text.startswith("$ ")]


def test_the_docs_show_transcripts() -> None:
    assert len(TRANSCRIPTS) >= 2


@pytest.mark.parametrize("block", TRANSCRIPTS, ids=str)
def test_transcript_shows_what_its_command_prints(
    block: Block, environment: dict[str, str]
) -> None:
    command, *shown = block.text.splitlines()
    done = run(["bash", "-c", command.removeprefix("$ ")], environment, str(block), check=False)
    # Kernels of Python files are located at their absolute path; the docs show it relative.
    printed = (done.stdout + done.stderr).replace(f"{REPO}/", "").splitlines()
    assert any(printed[start : start + len(shown)] == shown for start in range(len(printed))), (
        f"{block}: {command} printed\n" + "\n".join(printed)
    )
