"""The CPU the `cpu` target compiles for, described by what the code generator needs.

`host()` reads the host's CPU name and features from LLVM (what `lscpu` calls flags; kept
in the kernel cache under the CPU's /proc/cpuinfo identity, so that a process whose
kernels are cached need not load LLVM) and
derives from the features alone, never from the CPU's name, the vector registers the
lowering sizes `dot`'s register tile by (`convert-blk-to-loops{vector-bits=...
vector-registers=...}`):

| features | vector registers |
|---|---|
| x86 with `avx512f` (and `avx2`) | 32 of 512 bits |
| x86 with `avx` | 16 of 256 bits |
| other x86 | 16 of 128 bits |
| AArch64 (NEON) | 32 of 128 bits |
| other | 16 of 128 bits |

LLVM is told the same width (its `prefer-256-bit` tuning is turned off where the tile uses
512-bit registers), so its vectorizers fill the registers the tile was sized for.

`BLKC_CPU_FEATURES` adds LLVM feature switches to the host's, for code that must also run
on a smaller CPU of the same family, or to measure one: `BLKC_CPU_FEATURES=-avx512f` makes
AVX2 code on an AVX-512 host (LLVM turns off the features that need the ones turned off).
The target takes part in every cache key (`blkc.runtime.cache`).

`cache_sizes()` reads the data caches one core uses (L1d, L2, L3) from Linux's sysfs,
else from `sysconf`, else takes `DEFAULT_CACHE_SIZES`; `blkc.autotune` prunes configs whose
working set would not fit the L2 cache. They are not part of the target: they change no
code, only which configs are timed.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_FEATURES_ENV = "BLKC_CPU_FEATURES"


@dataclass(frozen=True)
class CpuTarget:
    """A CPU as the code generator sees it."""

    triple: str
    """LLVM's target triple (`x86_64-unknown-linux-gnu`)."""
    cpu: str
    """LLVM's name for the CPU (`znver4`, `skylake-avx512`)."""
    features: str
    """LLVM's feature string: `+avx2,-avx512f,...`, switches of `BLKC_CPU_FEATURES` last."""
    vector_bits: int
    """The width of the vector registers the generated code uses."""
    vector_registers: int
    """How many of them the instruction set names."""
    pair_dot_types: tuple[str, ...] = ()
    """The element types whose `dot` the vector instructions multiply in pairs summed into
    32-bit lanes (`pair_dot_types`), which `dot` then uses."""

    @property
    def llvm_features(self) -> str:
        """`features` with the vector width preference LLVM should follow."""
        if not self.triple.startswith(("x86_64", "i386", "i686")):
            return self.features
        prefer = "-prefer-256-bit" if self.vector_bits >= 512 else "+prefer-256-bit"
        return f"{self.features},{prefer}" if self.features else prefer

    def lanes(self, element_bits: int) -> int:
        """Elements of `element_bits` in one vector register."""
        return max(1, self.vector_bits // element_bits)

    def describe(self) -> str:
        """One line for people: `znver4, 32 vector registers of 512 bits`."""
        return f"{self.cpu}, {self.vector_registers} vector registers of {self.vector_bits} bits"


def model_name() -> str:
    """The CPU's name for people: Linux's `model name` (`AMD EPYC`, `Intel Xeon ...`),
    else what the platform module knows."""
    import platform

    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _feature_map(features: str) -> dict[str, bool]:
    """`+a,-b,+c` as {a: True, b: False, c: True}; a later switch wins."""
    found: dict[str, bool] = {}
    for item in features.split(","):
        item = item.strip()
        if len(item) > 1 and item[0] in "+-":
            found[item[1:]] = item[0] == "+"
    return found


def describe_features(triple: str, features: str) -> tuple[int, int]:
    """The vector registers (bits, count) that `features` give on `triple`."""
    on = _feature_map(features)
    if triple.startswith(("x86_64", "i386", "i686")):
        if on.get("avx") and on.get("avx2") and on.get("avx512f"):
            return 512, 32
        return (256, 16) if on.get("avx") else (128, 16)
    if triple.startswith(("aarch64", "arm64")):
        return 128, 32
    return 128, 16


def pair_dot_types(triple: str, features: str, vector_bits: int) -> tuple[str, ...]:
    """The element types whose products `features` add in pairs into 32-bit lanes of
    `vector_bits`-bit vectors on `triple`: bfloat16 with `avx512bf16` (`vdpbf16ps`, below
    512 bits with `avx512vl`), and 8-bit integers, widened to 16 bits, on x86 (`pmaddwd`:
    SSE2, `avx2` at 256 bits, `avx512bw` at 512; LLVM fuses its add into `vpdpwssd` where
    there is `avx512vnni` or `avxvnni`)."""
    if not triple.startswith(("x86_64", "i386", "i686")):
        return ()
    on = _feature_map(features)
    found: list[str] = []
    if on.get("avx512bf16") and (vector_bits == 512 or on.get("avx512vl")):
        found.append("bfloat16")
    if {128: True, 256: on.get("avx2"), 512: on.get("avx512bw")}.get(vector_bits):
        found += ["int8", "uint8"]
    return tuple(found)


def parse_switches(text: str) -> str:
    """`BLKC_CPU_FEATURES`'s text as LLVM feature switches (a ValueError for anything
    else): comma-separated names, each after a + (on) or a - (off)."""
    switches = [item.strip() for item in text.split(",") if item.strip()]
    for item in switches:
        if item[0] not in "+-" or len(item) < 2 or not item[1:].replace("-", "").isalnum():
            raise ValueError(
                f"{_FEATURES_ENV}: '{item}' is not a feature switch; write LLVM feature names "
                "each after + or -, separated by commas (e.g. -avx512f)"
            )
    return ",".join(switches)


@cache
def host() -> CpuTarget:
    """The host CPU, with `BLKC_CPU_FEATURES`'s switches applied."""
    switches = parse_switches(os.environ.get(_FEATURES_ENV, ""))
    triple, name, features = _host_description(switches)
    bits, registers = describe_features(triple, features)
    pairs = pair_dot_types(triple, features, bits)
    return CpuTarget(triple, name, features, bits, registers, pairs)


def _llvm_description(switches: str) -> tuple[str, str, str]:
    """LLVM's triple, name and features of the host CPU, `switches` applied."""
    import llvmlite.binding as llvm

    from blkc.runtime.jit import initialize

    initialize()
    features = llvm.get_host_cpu_features().flatten()
    if switches:
        features = _closed(f"{features},{switches}" if features else switches)
    return llvm.get_process_triple(), llvm.get_host_cpu_name(), features


CPUINFO = Path("/proc/cpuinfo")
_IDENTITY = ("vendor_id", "cpu family", "model", "model name", "stepping", "flags")
"""The lines of the first processor in /proc/cpuinfo that identify the CPU and what it can
run (its clock, cache and core numbers vary and are left out)."""


def _host_description(switches: str) -> tuple[str, str, str]:
    """`_llvm_description`, kept in the kernel cache under what identifies the CPU (Linux's
    /proc/cpuinfo, llvmlite's version and the switches): asking LLVM means loading it,
    which a new process whose kernels are all cached never needs otherwise."""
    from blkc.runtime import cache

    try:
        first = CPUINFO.read_text().split("\n\n", 1)[0]
    except OSError:
        return _llvm_description(switches)
    lines = [line for line in first.splitlines() if line.split(":")[0].strip() in _IDENTITY]
    root = cache.directory() if cache.enabled() and lines else None
    if root is None:
        return _llvm_description(switches)
    key = cache.key_without_host("host-cpu", lines, switches)
    path = root / f"host-{key[:16]}.json"
    stored = cache.load_json(path)
    if isinstance(stored, list) and len(stored) == 3 and all(isinstance(v, str) for v in stored):
        return stored[0], stored[1], stored[2]
    described = _llvm_description(switches)
    cache.store_json(path, list(described))
    return described


SYSFS_CACHES = Path("/sys/devices/system/cpu/cpu0/cache")
"""Where Linux describes the caches of the first core: one `index*` folder per cache, with
its `level`, `type` (`Data`, `Instruction`, `Unified`) and `size` (`32K`, `1024K`)."""

_KIB = 1024


@dataclass(frozen=True)
class CacheSizes:
    """The data caches one core uses, in bytes (the L3 cache is usually shared by several
    cores; this is its whole size)."""

    l1d: int
    l2: int
    l3: int

    def describe(self) -> str:
        """One line for people: `L1d 32 KiB, L2 1024 KiB, L3 32768 KiB`."""
        return f"L1d {self.l1d // _KIB} KiB, L2 {self.l2 // _KIB} KiB, L3 {self.l3 // _KIB} KiB"


DEFAULT_CACHE_SIZES = CacheSizes(l1d=32 * _KIB, l2=512 * _KIB, l3=8192 * _KIB)
"""What `cache_sizes` assumes of a level neither sysfs nor sysconf describes: a common
x86 server core of the last decade, on the small side (Zen 2 and 3 have 512 KiB of L2,
Zen 4 and Intel's server cores 1 MiB or more), so that pruning errs towards keeping
smaller tiles."""

_SYSCONF_NAMES = {1: "SC_LEVEL1_DCACHE_SIZE", 2: "SC_LEVEL2_CACHE_SIZE", 3: "SC_LEVEL3_CACHE_SIZE"}


def _sysconf(name: str) -> int:
    """`os.sysconf(name)`, 0 where this platform's Python or C library does not know it."""
    if name not in os.sysconf_names:
        return 0
    try:
        return max(0, os.sysconf(name))
    except (OSError, ValueError):
        return 0


def _size_bytes(text: str) -> int:
    """sysfs's size (`32K`, `1024K`, `2M`, `512`) in bytes; 0 for anything else."""
    text = text.strip().upper()
    scale = {"K": _KIB, "M": _KIB * _KIB, "G": _KIB**3}.get(text[-1:], 1)
    digits = text[:-1] if scale > 1 else text
    return int(digits) * scale if digits.isdigit() else 0


def _sysfs_caches(root: Path) -> dict[int, int]:
    """The size of each level's data (or unified) cache under `root`, by level."""
    found: dict[int, int] = {}
    try:
        entries = sorted(root.glob("index*"))
    except OSError:
        return found
    for entry in entries:
        try:
            level = (entry / "level").read_text().strip()
            kind = (entry / "type").read_text().strip()
            size = _size_bytes((entry / "size").read_text())
        except (OSError, UnicodeDecodeError):
            continue
        if level.isdigit() and kind in ("Data", "Unified") and size > 0:
            found.setdefault(int(level), size)
    return found


def cache_sizes(
    root: str | Path = SYSFS_CACHES, sysconf: Callable[[str], int] = _sysconf
) -> CacheSizes:
    """The data caches a core of this host uses: each level from sysfs under `root`, else
    from `sysconf` (glibc's `_SC_LEVEL2_CACHE_SIZE` and its siblings), else from
    `DEFAULT_CACHE_SIZES`."""
    from_sysfs = _sysfs_caches(Path(root))
    defaults = {1: DEFAULT_CACHE_SIZES.l1d, 2: DEFAULT_CACHE_SIZES.l2, 3: DEFAULT_CACHE_SIZES.l3}
    sizes = {
        level: from_sysfs.get(level) or sysconf(_SYSCONF_NAMES[level]) or default
        for level, default in defaults.items()
    }
    return CacheSizes(l1d=sizes[1], l2=sizes[2], l3=sizes[3])


_NEEDS = {
    "avx": "sse4.2",
    "avx2": "avx",
    "fma": "avx",
    "f16c": "avx",
    "avx512f": "avx2",
}
"""The feature each x86 feature of the vector chain needs (`avx512*` need `avx512f`)."""


def _closed(features: str) -> str:
    """`features` with every feature switched off whose prerequisite a switch turned off
    (as LLVM does when it reads them), so that `describe_features` agrees with
    the code LLVM makes."""
    on = _feature_map(features)
    changed = True
    while changed:
        changed = False
        for name, value in on.items():
            if not value:
                continue
            need = "avx512f" if name.startswith("avx512") and name != "avx512f" else None
            need = need or _NEEDS.get(name)
            if need is not None and not on.get(need, False):
                on[name] = False
                changed = True
    return ",".join(f"{'+' if value else '-'}{name}" for name, value in on.items())


__all__ = [
    "DEFAULT_CACHE_SIZES",
    "SYSFS_CACHES",
    "CacheSizes",
    "CpuTarget",
    "cache_sizes",
    "describe_features",
    "host",
    "model_name",
    "pair_dot_types",
    "parse_switches",
]
