"""What an op computes, in the terms the promotion policies decide by.

The dialect's `Promotes` trait names one of these for each op; a policy answers
differently for ``/`` than for ``+``, and refuses bools in ``-`` that it adds.
"""

from enum import StrEnum


class Computation(StrEnum):
    """What an op computes, as the promotion policies distinguish it."""

    ARITH = "arith"
    """``+ *``, fma: the common dtype of the operands."""
    SUBTRACT = "subtract"
    """``-``, binary and unary: like ARITH, but most libraries refuse bools (``True - True``,
    ``-True``) that they add."""
    ABS = "abs"
    """``abs``: like ARITH, except that the absolute value of a complex number is real."""
    MINMAX = "minmax"
    """``minimum maximum``: like ARITH, over dtypes the policy orders."""
    TRUEDIV = "truediv"
    """``/``: integers give a float."""
    FLOORDIV = "floordiv"
    """``//``: rounding chosen by the policy."""
    MOD = "mod"
    """``%``: rounding chosen by the policy."""
    BITWISE = "bitwise"
    """``& | ^ ~``: bools and integers only."""
    SHIFT = "shift"
    """``<< >>``: integers only."""
    COMPARE = "compare"
    """``== !=``: the common dtype, then a bool result."""
    ORDER = "order"
    """``< <= > >=``: like COMPARE, over dtypes the policy orders."""
    SELECT = "select"
    """``where``: the two values share a dtype; the condition is bool."""
    FLOAT_MATH = "float_math"
    """``exp sqrt sin ...``: floats only; integers become floats."""
    ROUNDING_MATH = "rounding_math"
    """``floor ceil``: floats only; integers become floats; complex numbers are refused."""
