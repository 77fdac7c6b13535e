"""Tests of the GPU lowering: layouts, PTX for every example (checked by ptxas where it is
installed), the target switch, and launches where a GPU exists."""
