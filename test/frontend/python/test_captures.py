"""Stale kernels: a compiled kernel depends on everything it read, or refuses to read it.

Each case runs two (or three) processes against one cache directory: the second must
compute its own value (the cache key changed with what the kernel depends on), or get the
located refusal; a third with the first's settings must find the first's entry (so the
miss in the second is the key's doing, not a cache that never hits).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy
import pytest

import blkc
import blkc.language as tl
from blkc.passes.promotion import default_policy, set_default_policy

KERNELS = '''
import json, os, sys
import numpy
import blkc
import blkc.language as tl
import settings

SCALE = tl.constexpr(float(os.environ.get("SCALE", "3")))
PLAIN = float(os.environ.get("SCALE", "3"))


@blkc.jit
def times_scale(v):
    return v * SCALE


@blkc.jit
def scale(x, o, n, BLOCK: tl.constexpr):
    off = tl.arange(0, BLOCK)
    tl.store(o + off, times_scale(tl.load(x + off, mask=off < n)), mask=off < n)


@blkc.jit
def scale_by_setting(x, o, n, BLOCK: tl.constexpr):
    off = tl.arange(0, BLOCK)
    tl.store(o + off, tl.load(x + off, mask=off < n) * settings.FACTOR, mask=off < n)


@blkc.jit
def scale_plain(x, o, n, BLOCK: tl.constexpr):
    off = tl.arange(0, BLOCK)
    tl.store(o + off, tl.load(x + off, mask=off < n) * PLAIN, mask=off < n)  # plain-global


def scaler(factor):
    @blkc.jit
    def scale_closure(x, o, n, BLOCK: tl.constexpr):
        off = tl.arange(0, BLOCK)
        tl.store(o + off, tl.load(x + off, mask=off < n) * factor, mask=off < n)  # closure

    return scale_closure


WIDTH = float(os.environ.get("SCALE", "3"))  # read by a constexpr_function only


@blkc.constexpr_function
def widened(v):
    return v * WIDTH


@blkc.jit
def scale_by_function(x, o, n, BLOCK: tl.constexpr):
    off = tl.arange(0, BLOCK)
    factor: tl.constexpr = widened(1.0)
    tl.store(o + off, tl.load(x + off, mask=off < n) * factor, mask=off < n)


@tl.constexpr
def stretched(v):  # Triton's spelling of a constexpr_function
    return v * WIDTH


@blkc.jit
def scale_by_constexpr(x, o, n, BLOCK: tl.constexpr):
    off = tl.arange(0, BLOCK)
    factor: tl.constexpr = stretched(1.0)
    tl.store(o + off, tl.load(x + off, mask=off < n) * factor, mask=off < n)


@blkc.jit
def halve(x, o, n, BLOCK: tl.constexpr):
    off = tl.arange(0, BLOCK)
    tl.store(o + off, tl.load(x + off, mask=off < n) // 2, mask=off < n)


def launch(kernel, dtype=numpy.float32, values=(1.0, 2.0)):
    x = numpy.array(values, dtype)
    o = numpy.zeros_like(x)
    kernel[(1,)](x, o, len(x), BLOCK=16)
    return o.tolist()


if __name__ == "__main__":
    which = sys.argv[1]
    result = {}
    try:
        if which == "closure":
            factor = os.environ["SCALE"]
            value = tl.constexpr(float(factor)) if os.environ.get("CONSTEXPR") else float(factor)
            kernel = scaler(value)
            result["value"] = launch(kernel)
        elif which == "halve":
            kernel = halve
            result["value"] = launch(halve, numpy.int32, (-7, 7))
        else:
            kernel = globals()[which]
            result["value"] = launch(kernel)
        result["builds"] = kernel.builds
    except blkc.BlkcError as err:
        result["error"] = str(err)
    print(json.dumps(result))
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "kernels.py").write_text(KERNELS)
    (tmp_path / "settings.py").write_text(
        "import os\nimport blkc.language as tl\n"
        "FACTOR = tl.constexpr(float(os.environ.get('FACTOR', '2')))\n"
    )
    (tmp_path / "cache").mkdir()
    return tmp_path


def run(project: Path, which: str, prelude: str = "", **env: str) -> dict:
    """Launch `which` of the kernels in a new process sharing `project`'s cache."""
    environment = {
        k: v for k, v in os.environ.items() if not k.startswith(("BLKC_", "SCALE", "FACTOR"))
    }
    environment.update(BLKC_CACHE_DIR=str(project / "cache"), BLKC_QUIET_AUTOTUNE="1", **env)
    script = textwrap.dedent(prelude) + "\nimport runpy, sys\n"
    script += f"sys.argv = ['kernels.py', {which!r}]\n"
    script += "runpy.run_path('kernels.py', run_name='__main__')\n"
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=project,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_constexpr_global_is_part_of_the_disk_key(project: Path) -> None:
    first = run(project, "scale", SCALE="3")
    second = run(project, "scale", SCALE="5")
    again = run(project, "scale", SCALE="3")
    assert first == {"value": [3.0, 6.0], "builds": 1}
    assert second == {"value": [5.0, 10.0], "builds": 1}
    assert again == {"value": [3.0, 6.0], "builds": 0}  # the first's entry, from disk


@pytest.mark.parametrize("kernel", ["scale_by_function", "scale_by_constexpr"])
def test_what_a_constexpr_function_reads_is_part_of_the_disk_key(
    project: Path, kernel: str
) -> None:
    # A plain global that only a constexpr_function (or a function decorated with
    # @tl.constexpr, which kernels call the same way) reads: keyed by its value.
    assert run(project, kernel, SCALE="3") == {"value": [3.0, 6.0], "builds": 1}
    assert run(project, kernel, SCALE="5") == {"value": [5.0, 10.0], "builds": 1}
    assert run(project, kernel, SCALE="3") == {"value": [3.0, 6.0], "builds": 0}


def test_a_constexpr_read_through_a_module_is_part_of_the_disk_key(project: Path) -> None:
    assert run(project, "scale_by_setting", FACTOR="2")["value"] == [2.0, 4.0]
    assert run(project, "scale_by_setting", FACTOR="4")["value"] == [4.0, 8.0]
    assert run(project, "scale_by_setting", FACTOR="2")["builds"] == 0


def test_a_closure_constexpr_is_part_of_the_disk_key(project: Path) -> None:
    assert run(project, "closure", SCALE="3", CONSTEXPR="1")["value"] == [3.0, 6.0]
    assert run(project, "closure", SCALE="5", CONSTEXPR="1")["value"] == [5.0, 10.0]


@pytest.mark.parametrize(
    ("which", "marker", "name", "env"),
    [
        ("scale_plain", "plain-global", "global variable 'PLAIN'", {}),
        ("closure", "closure", "closure variable 'factor'", {}),
    ],
)
def test_a_plain_variable_is_refused_with_a_located_error(
    project: Path, which: str, marker: str, name: str, env: dict[str, str]
) -> None:
    for scale in ("3", "5"):
        result = run(project, which, SCALE=scale, **env)
        message = result["error"]
        line = next(i for i, t in enumerate(KERNELS.splitlines(), 1) if f"# {marker}" in t)
        assert f"kernels.py:{line}:" in message
        assert f"Cannot access {name}" in message
        assert "tl.constexpr(" in message and "as an argument" in message
        assert "^" in message


@pytest.mark.parametrize(
    ("setting", "other"),
    [
        ({"BLKC_POLICY": "triton"}, {"BLKC_POLICY": "numpy"}),
        ({}, {"BLKC_CHECK_BOUNDS": "0"}),
        ({}, {"BLKC_TARGET": "cpu-simt"}),
    ],
    ids=["policy", "bounds-checks", "target"],
)
def test_settings_are_part_of_the_disk_key(
    project: Path, setting: dict[str, str], other: dict[str, str]
) -> None:
    first = run(project, "halve", **setting)
    second = run(project, "halve", **other)
    again = run(project, "halve", **setting)
    assert first["builds"] == 1 and second["builds"] == 1 and again["builds"] == 0
    assert first["value"] == [-3, 3]  # triton's // truncates
    assert second["value"] == ([-4, 3] if other.get("BLKC_POLICY") == "numpy" else [-3, 3])


@pytest.mark.parametrize(
    "prelude",
    [
        "import blkc.runtime.cache as c; c._compiler_source = lambda: 'another compiler'",
        "import blkc.runtime.cpu_target as t; d = t._host_description; "
        "t._host_description = lambda s: (d(s)[0], 'another-cpu', d(s)[2])",
    ],
    ids=["compiler-version", "host-cpu"],
)
def test_the_compiler_and_the_cpu_are_part_of_the_disk_key(project: Path, prelude: str) -> None:
    assert run(project, "scale")["builds"] == 1
    assert run(project, "scale", prelude)["builds"] == 1
    assert run(project, "scale")["builds"] == 0


# -- in one process --------------------------------------------------------------------

FACTOR = tl.constexpr(2.0)


@blkc.jit
def _scale_by_factor(x, o, BLOCK: tl.constexpr):
    off = tl.arange(0, BLOCK)
    tl.store(o + off, tl.load(x + off) * FACTOR)


def test_a_global_changed_after_compiling_recompiles_at_the_next_launch() -> None:
    global FACTOR
    x = numpy.ones(16, numpy.float32)
    o = numpy.zeros_like(x)
    try:
        _scale_by_factor[(1,)](x, o, BLOCK=16)
        assert o[0] == 2.0
        FACTOR = tl.constexpr(7.0)
        _scale_by_factor[(1,)](x, o, BLOCK=16)
        assert o[0] == 7.0
        builds = _scale_by_factor.builds
        _scale_by_factor[(1,)](x, o, BLOCK=16)
        assert o[0] == 7.0 and _scale_by_factor.builds == builds
    finally:
        FACTOR = tl.constexpr(2.0)


def test_a_module_constant_is_readable() -> None:
    import math

    @blkc.jit
    def pi_times(x, o, BLOCK: tl.constexpr):
        off = tl.arange(0, BLOCK)
        tl.store(o + off, tl.load(x + off) * math.pi)

    x = numpy.ones(16, numpy.float32)
    o = numpy.zeros_like(x)
    pi_times[(1,)](x, o, BLOCK=16)
    assert o[0] == numpy.float32(math.pi)


def test_the_process_wide_policy_applies_where_none_is_named() -> None:
    @blkc.jit
    def halve(x, o, BLOCK: tl.constexpr):
        off = tl.arange(0, BLOCK)
        tl.store(o + off, tl.load(x + off) // 2)

    x = numpy.array([-7, 7], numpy.int32)
    o = numpy.zeros_like(x)
    assert default_policy() == os.environ.get("BLKC_POLICY", "triton")
    try:
        set_default_policy("numpy")
        halve[(1,)](x, o, BLOCK=2)
        assert o.tolist() == [-4, 3]
        set_default_policy(None)
        halve[(1,)](x, o, BLOCK=2)
        assert o.tolist() == [-3, 3]
        halve[(1,)](x, o, BLOCK=2, policy="numpy")  # a launch's own policy wins
        assert o.tolist() == [-4, 3]
    finally:
        set_default_policy(None)
    with pytest.raises(ValueError, match="unknown promotion policy 'nump'"):
        set_default_policy("nump")


# -- the kernel's source, as tools written for Triton read and replace it ---------------


def test_src_params_and_unsafe_update_src() -> None:
    @blkc.jit
    def plus_one(x):
        return x + 1

    @blkc.jit
    def apply(X, N: tl.constexpr, scale=2):
        o = tl.arange(0, N)
        tl.store(X + o, plus_one(tl.load(X + o)))

    assert apply.src.startswith("def apply(X, N: tl.constexpr, scale=2):\n")
    assert "@blkc.jit" not in apply.src
    assert [(p.num, p.name, p.is_constexpr, p.has_default) for p in apply.params] == [
        (0, "X", False, False),
        (1, "N", True, False),
        (2, "scale", False, True),
    ]
    with pytest.raises(AttributeError, match="_unsafe_update_src"):
        apply.src = "def apply(X, N): pass"
    a = numpy.zeros(4, numpy.float32)
    apply[(1,)](a, 4)
    assert a.tolist() == [1.0] * 4
    plus_one._unsafe_update_src("def plus_one(x):\n    return x * 10 + 2\n")
    assert plus_one.src == "def plus_one(x):\n    return x * 10 + 2\n"
    apply[(1,)](a, 4)  # the caller recompiles with the callee's new source
    assert a.tolist() == [12.0] * 4
    plus_one._unsafe_update_src("def plus_one(x):\n    return x + undefined\n")
    with pytest.raises(blkc.BlkcError) as caught:
        apply[(1,)](a, 4)
    message = str(caught.value)
    assert "updated source" in message
    assert ":2:16: error: name 'undefined' is not defined" in message
    assert "    return x + undefined\n" in message


offs = 0  # a module global of the name the kernel below uses for a local


@blkc.jit
def shadowing(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)


def test_a_global_a_local_shadows_may_change(count_calls: Any) -> None:
    """A loop counter beside a kernel's local of the same name (`for offs in ...` at
    module level): the kernel never reads the global, so its new values recompile
    nothing and leave the launch stub in use. A value the kernel may read in its place
    (a tl.constexpr) is checked by identity as before."""
    global offs
    from blkc.jitfunction import JITFunction

    x = numpy.zeros(16, numpy.float32)
    for offs in range(3):  # noqa: B007 - the global changes
        shadowing[(1,)](x, 16, BLOCK=16)  # the second builds the stub
    launches = count_calls(JITFunction, "_run")
    builds = shadowing.builds
    for offs in range(3, 13):  # noqa: B007 - the global changes
        shadowing[(1,)](x, 16, BLOCK=16)
    assert launches[0] == 0 and shadowing.builds == builds  # all through the stub
    assert x.tolist() == [13.0] * 16
    offs = tl.constexpr(5)  # a value the kernel could read: the captures are redone
    shadowing[(1,)](x, 16, BLOCK=16)
    assert launches[0] == 1 and x.tolist() == [14.0] * 16
    offs = 0
