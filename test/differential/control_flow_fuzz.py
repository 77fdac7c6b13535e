"""Random kernels of nested control flow, run by Triton 3.9's interpreter and by blkc,
compared.

`triton_fuzz.py` draws expressions; this draws what carries them: `for` loops over
`range` (runtime and constant bounds, steps of 1, 2 and -1, loops that do not run),
`tl.static_range`, `while` loops, `if`/`else` on runtime scalars (loaded values, sums of
blocks, arguments), nested three deep, assigning int32 and float32 blocks and a scalar
that a loop accumulates. Every kernel stores its int32 and float32 blocks; the two sides
must store the same bits (the float ops are exact on these values: small ints, halves,
maxima) and refuse the same kernels.

    python test/differential/control_flow_fuzz.py --count 300 --seed 1 \
        [--triton-python PATH] [--workdir DIR]

The int arguments are 0, 2, 3 or 4, never 1: compiled Triton (and blkc) make an int
argument of 1 a constant, whose arithmetic with literals is Python's (`-5 % (n + 1)`),
where Triton's interpreter computes on a runtime value (C's remainder). For the converse
reason (a `range` loop's counter is a Python int in the interpreter, a runtime value when
compiled) `//` and `%` get non-negative operands.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

LENGTH = 16


class Generator:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.lines: list[str] = []
        self.scalars = ["n", "m", "s0"]
        self.count = 0

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def int_expr(self, depth: int = 0) -> str:
        r = self.rng
        if depth > 2 or r.random() < 0.3:
            return r.choice(["xi", "yi", str(r.randint(-5, 9)), *self.scalars])
        op = r.choice(["+", "-", "*", "&", "|", "^", "//", "%", "<<", ">>", "max", "where"])
        a, b = self.int_expr(depth + 1), self.int_expr(depth + 1)
        if op in ("//", "%"):
            # Nonzero divisors and dividends: Triton's interpreter runs `range` loops in
            # Python, so a loop counter is a Python int, whose `%` and `//` of a negative
            # value are Python's, where compiled Triton (and blkc) have C's.
            return f"(({a} & 1023) {op} (({b} & 7) + 1))"
        if op in ("<<", ">>"):
            return f"({a} {op} ({b} & 3))"
        if op == "max":
            return f"tl.maximum({a}, {b})"
        if op == "where":
            return f"tl.where({a} > {b}, {a}, {b})"
        return f"({a} {op} {b})"

    def float_expr(self, depth: int = 0) -> str:
        r = self.rng
        if depth > 2 or r.random() < 0.3:
            return r.choice(["xf", "0.5", "2.0", "-1.0"])
        op = r.choice(["+", "-", "*", "max", "where", "int"])
        a, b = self.float_expr(depth + 1), self.float_expr(depth + 1)
        if op == "max":
            return f"tl.maximum({a}, {b})"
        if op == "where":
            return f"tl.where({a} > {b}, {a}, {b})"
        if op == "int":  # an int block as float (never an int literal: Triton has no .to)
            return f"({self.int_expr(depth + 1)} + xi * 0).to(tl.float32)"
        return f"({a} {op} {b})"

    def condition(self) -> str:
        value = self.rng.choice(
            [*self.scalars, "tl.sum(xi, axis=0)", "tl.max(yi, axis=0)", "tl.load(X + 3)"]
        )
        test = self.rng.choice([">", "<", "==", "!=", ">=", "<="])
        return f"({value}) {test} {self.rng.randint(-3, 5)}"

    def assign(self, indent: str) -> None:
        if self.rng.random() < 0.6:
            target = self.rng.choice(["xi", "yi"])
            zeros = f"tl.zeros([{LENGTH}], tl.int32)"
            self.lines.append(f"{indent}{target} = {self.int_expr()} + {zeros}")
        else:
            zeros = f"tl.zeros([{LENGTH}], tl.float32)"
            self.lines.append(f"{indent}xf = {self.float_expr()} + {zeros}")
        if self.rng.random() < 0.2:
            block = self.rng.choice(["xi", "yi"])
            self.lines.append(f"{indent}s0 = s0 + tl.sum({block} & 3, axis=0)")

    def block(self, depth: int, budget: int) -> None:
        indent = "    " * depth
        for _ in range(self.rng.randint(1, 3)):
            c = self.rng.random()
            if budget and c < 0.22:
                low, high = self.rng.choice(
                    [("0", "n"), ("1", "m"), ("0", "3"), ("m", "n"), ("n", "0")]
                )
                step = self.rng.choice(["1", "1", "2", "-1"])
                var = self.name("i")
                bounds = f"{high}, {low}, -1" if step == "-1" else f"{low}, {high}, {step}"
                self.lines.append(f"{indent}for {var} in range({bounds}):")
                self.nested(var, depth, budget)
            elif budget and c < 0.32:
                var = self.name("i")
                times = self.rng.randint(0, 3)
                self.lines.append(f"{indent}for {var} in tl.static_range({times}):")
                self.nested(var, depth, budget)
            elif budget and c < 0.5:
                self.lines.append(f"{indent}if {self.condition()}:")
                self.block(depth + 1, budget - 1)
                if self.rng.random() < 0.6:
                    self.lines.append(f"{indent}else:")
                    self.block(depth + 1, budget - 1)
            elif budget and c < 0.58:
                var = self.name("w")
                self.lines.append(f"{indent}{var} = 0")
                self.lines.append(f"{indent}while {var} < (n & 3) + {self.rng.randint(0, 2)}:")
                self.nested(var, depth, budget)
                self.lines.append(f"{indent}    {var} += 1")
            else:
                self.assign(indent)

    def nested(self, var: str, depth: int, budget: int) -> None:
        self.scalars.append(var)
        self.block(depth + 1, budget - 1)
        self.scalars.remove(var)


def kernel(seed: int) -> str:
    g = Generator(seed)
    g.block(1, 3)
    body = "\n".join(g.lines)
    return f"""@triton.jit
def k{seed}(X, Y, OUT, OUTF, n, m):
    r = tl.arange(0, {LENGTH})
    xi = tl.load(X + r)
    yi = tl.load(Y + r)
    xf = xi.to(tl.float32) * 0.25
    s0 = tl.load(X + 5)
{body}
    tl.store(OUT + r, xi + yi * 3 + s0)
    tl.store(OUTF + r, xf)
"""


RUNNER = """
import json, os, sys
side, folder, first, last = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if side == "triton":
    os.environ["TRITON_INTERPRET"] = "1"
else:
    from blkc import as_triton
    as_triton.install()
import numpy, torch, triton, triton.language as tl
results = {}
for seed in range(first, last):
    path = os.path.join(folder, f"k{seed}.py")
    rng = numpy.random.default_rng(seed)
    x = torch.from_numpy(rng.integers(-10, 10, 16).astype(numpy.int32))
    y = torch.from_numpy(rng.integers(-10, 10, 16).astype(numpy.int32))
    n, m = (int(v) for v in rng.choice([0, 2, 3, 4], 2))
    out, outf = torch.zeros(16, dtype=torch.int32), torch.zeros(16)
    names = {}
    try:
        exec(compile(open(path).read(), path, "exec"), names)
        names[f"k{seed}"][(1,)](x, y, out, outf, n, m)
        results[seed] = [out.tolist(), outf.view(torch.int32).tolist()]
    except Exception as err:
        results[seed] = f"{type(err).__name__}: {str(err)[:200]}"
print(json.dumps(results))
"""


def run(python: str, side: str, folder: Path, first: int, last: int) -> dict[str, object]:
    env = {**os.environ, "BLKC_POLICY": "triton-compat"}
    result = subprocess.run(
        [python, "-c", RUNNER, side, str(folder), str(first), str(last)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if result.returncode:
        raise SystemExit(f"the {side} process failed ({result.returncode}):\n{result.stderr}")
    return json.loads(result.stdout.splitlines()[-1])


def fuzz(count: int, seed: int, python: str, folder: Path) -> tuple[int, list[str]]:
    """Write `count` kernels from `seed` into `folder`, run them on both sides; how many
    Triton refused, and a line for each kernel on which the sides disagree."""
    folder.mkdir(parents=True, exist_ok=True)
    first, last = seed * 100_000, seed * 100_000 + count
    for number in range(first, last):
        source = "import triton\nimport triton.language as tl\n" + kernel(number)
        (folder / f"k{number}.py").write_text(source)
    expected = run(python, "triton", folder, first, last)
    got = run(sys.executable, "blkc", folder, first, last)
    mismatches = []
    for number, want in expected.items():
        have = got.get(number)
        if isinstance(want, str) != isinstance(have, str) or (
            not isinstance(want, str) and want != have
        ):
            path = folder / f"k{number}.py"
            mismatches.append(f"k{number} ({path}): Triton {want!s:.200}; blkc {have!s:.200}")
    return sum(isinstance(v, str) for v in expected.values()), mismatches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--triton-python", default=os.environ.get("BLKC_TRITON_PYTHON"))
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args()
    if not args.triton_python:
        raise SystemExit("give --triton-python (a Python with triton==3.9.0 and torch)")
    folder = args.workdir or Path(tempfile.mkdtemp(prefix="blkc-cf-fuzz-"))
    refused, mismatches = fuzz(args.count, args.seed, args.triton_python, folder)
    print(*mismatches, sep="\n")
    agree = args.count - len(mismatches)
    print(f"{args.count} kernels: {agree} agree ({refused} refused by Triton), "
          f"{len(mismatches)} disagree")  # fmt: skip
    if args.workdir is None and not mismatches:  # kept where it holds a mismatch's kernel
        shutil.rmtree(folder, ignore_errors=True)
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
