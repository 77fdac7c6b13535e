#!/usr/bin/env bash
# Run pytest tests under valgrind's memcheck and report every invalid memory access: what
# found a stub's method definition freed before its function (a crash the suite hit at
# random). `make memcheck` runs it; arguments are pytest's (default: the whole suite).
#
# - valgrind (3.19) decodes neither AVX-512, AMD's SSE4A (extrq, insertq), GFNI (which LLVM
#   uses for byte shifts and bit reversal), AVX-VNNI nor the vector AES and carry-less
#   multiplies: kernels are compiled without them (BLKC_CPU_FEATURES), into a cache of their own
#   (.memcheck-cache), which a first run without valgrind fills, so that LLVM does not run
#   under valgrind (about fifty times slower there).
# - PYTHONMALLOC=malloc hands every Python allocation to valgrind's allocator.
# - suppressions.supp silences the C library's own reads that valgrind misjudges.
#
# The exit status is 0 when valgrind saw no error, else 1. Test failures under valgrind are
# reported but do not count: it slows timing-sensitive tests, tests that count compilations
# or read a variant's LLVM IR find the kernels the native pass stored, and its emulation of
# some vector instructions differs in NaN cases (expm1 of NaN gave -1 there).
set -uo pipefail
cd "$(dirname "$0")/../.."
command -v valgrind >/dev/null || { echo "memcheck needs valgrind on PATH" >&2; exit 2; }
export BLKC_CACHE_DIR="${BLKC_CACHE_DIR:-$PWD/.memcheck-cache}"
export BLKC_CPU_FEATURES="${BLKC_CPU_FEATURES:--avx512f,-sse4a,-gfni,-avxvnni,-vaes,-vpclmulqdq}"
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(test)
logs=$(mktemp -d "${TMPDIR:-/tmp}/blkc-memcheck-XXXXXX")
echo "memcheck: compiling the kernels natively first (cache: $BLKC_CACHE_DIR)"
.venv/bin/python -m pytest -q -p no:cacheprovider "${tests[@]}" > "$logs/native.txt" 2>&1
echo "memcheck: running under valgrind (logs: $logs)"
PYTHONMALLOC=malloc valgrind --tool=memcheck --leak-check=no --undef-value-errors=no \
    --error-limit=no --num-callers=40 --suppressions=test/memcheck/suppressions.supp \
    --log-file="$logs/valgrind.%p.log" \
    .venv/bin/python -m pytest -q -p no:cacheprovider "${tests[@]}" > "$logs/pytest.txt" 2>&1
status=$?
tail -n 3 "$logs/pytest.txt"
# Every invalid access, and every process a signal ended, but for the LLVM worker processes
# that end on SIGTERM once idle (runtime.jit.WORKER_IDLE).
errors=$(grep -h -A 12 -E "^==[0-9]+== (Invalid|Jump to|Your program)" "$logs"/valgrind.*.log)
for log in "$logs"/valgrind.*.log; do
    if grep -q "Process terminating" "$log" && ! grep -q "signal 15 (SIGTERM)" "$log"; then
        errors+=$'\n'$(grep -A 6 "Process terminating" "$log")
    fi
done
errors=$(printf '%s' "$errors" | sed '/^$/d')
if [ -n "$errors" ]; then
    echo "$errors"
    echo "memcheck: valgrind reported errors (pytest's exit status $status); logs in $logs"
    exit 1
fi
echo "memcheck: no invalid memory access (pytest's exit status $status)"
