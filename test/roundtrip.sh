#!/usr/bin/env bash
# Usage: roundtrip.sh FILE [OPTION...]   (lit: `// RUN: %roundtrip %s`)
# OPTIONs go to every blk-opt call: printing/parsing options such as --split-input-file.
#
# Checks that FILE's IR survives printing and parsing:
#   1. its custom-syntax print reparses and prints identically (a fixed point);
#   2. its generic print (--print-op-generic) reparses to the same custom text;
#   3. the custom text passes FileCheck against FILE's CHECK lines.
# BLK_OPT and FILECHECK name the commands (lit.cfg.py sets them).
set -euo pipefail

file=$1
shift
blk_opt=${BLK_OPT:-blk-opt}
filecheck=${FILECHECK:-filecheck}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$blk_opt" "$@" "$file" >"$work/custom.mlir"
"$blk_opt" "$@" "$work/custom.mlir" >"$work/reprinted.mlir"
if ! diff -u "$work/custom.mlir" "$work/reprinted.mlir" >&2; then
    echo "roundtrip: the custom syntax of $file does not print back identically" >&2
    exit 1
fi

"$blk_opt" "$@" --print-op-generic "$file" >"$work/generic.mlir"
"$blk_opt" "$@" "$work/generic.mlir" >"$work/from-generic.mlir"
if ! diff -u "$work/custom.mlir" "$work/from-generic.mlir" >&2; then
    echo "roundtrip: the generic form of $file does not reparse to its custom form" >&2
    exit 1
fi

"$filecheck" --input-file "$work/custom.mlir" "$file"
