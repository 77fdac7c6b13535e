"""lit configuration for blkc's FileCheck tests (`lit test`).

Substitutions: `blk-opt` and `filecheck` are the virtual environment's commands, `not`
is lit's builtin, and `%roundtrip FILE [blk-opt options]` checks that FILE's IR survives
printing: custom syntax is a fixed point, the generic form reparses to the same custom
text, and the custom text passes FileCheck against FILE's CHECK lines.
"""

# ruff: noqa: F821  (lit injects `config`)

import os
import shutil
import sys

import lit.formats

config.name = "blkc"
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir"]
# Unit tests are pytest's; Inputs hold files that other tests read.
config.excludes = ["Inputs", "unit"]
config.test_source_root = os.path.dirname(__file__)

_bin_dir = os.path.dirname(sys.executable)


def _tool(name: str) -> str:
    """The command next to this Python (the venv's), else the one on PATH."""
    local = os.path.join(_bin_dir, name)
    return local if os.access(local, os.X_OK) else (shutil.which(name) or name)


def _whole_word(name: str) -> str:
    """A substitution pattern matching `name` as a command, not inside a path or flag."""
    return rf"(?<![\w/.-]){name}(?![\w/.-])"


_blk_opt = _tool("blk-opt")
_filecheck = _tool("filecheck")
_roundtrip = os.path.join(config.test_source_root, "roundtrip.sh")

config.environment["PATH"] = os.pathsep.join([_bin_dir, os.environ.get("PATH", "")])
config.environment["BLK_OPT"] = _blk_opt
config.environment["FILECHECK"] = _filecheck

# Config substitutions apply, in order, before lit's own (`%s`, `%t`): `%roundtrip %s`
# expands to the script followed by the test's path.
config.substitutions.append(("%roundtrip", f"bash {_roundtrip}"))
config.substitutions.append((_whole_word("blk-opt"), _blk_opt))
config.substitutions.append((_whole_word("filecheck"), _filecheck))
