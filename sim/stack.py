"""Scratch arrays on the stack of the compiled function that asks for them.

``stack_array(rows, cols, dtype)`` (``cols`` 0: one dimension) is an uninitialised C array of
compile-time constant shape whose storage is the calling function's own stack frame (an
``alloca`` in its entry block, 8-byte aligned) and whose meminfo is null: no allocation, no
free and no reference counting (Numba's increments and decrements skip a null meminfo), so a
function that needs scratch can be compiled without reference counting (``sim.jit.kernel``).
The array lives until the function that created it returns: never return it or keep it.
``rows`` and ``cols`` must be integer constants (literals or module-level ints). As plain
Python (``NUMBA_DISABLE_JIT=1``) it is ``np.empty``.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array

from .jit import DISABLED


def _dtype_of(dtype):
    if isinstance(dtype, types.DType):
        return dtype.dtype
    if isinstance(dtype, types.NumberClass):
        return dtype.instance_type
    raise TypingError("stack_array: the dtype must be a NumPy number type")


@intrinsic
def _stack_array(typingctx, rows, cols, dtype):
    if not isinstance(rows, types.IntegerLiteral) or not isinstance(cols, types.IntegerLiteral):
        raise TypingError("stack_array: rows and cols must be integer constants")
    nb_dtype = _dtype_of(dtype)
    r = rows.literal_value
    c = cols.literal_value
    ndim = 1 if c == 0 else 2
    arrty = types.Array(nb_dtype, ndim, "C")

    def codegen(context, builder, sig, args):
        lty = context.get_data_type(nb_dtype)
        itemsize = context.get_abi_sizeof(lty)
        count = r * max(c, 1)
        words = max((count * itemsize + 7) // 8, 1)
        raw = cgutils.alloca_once(builder, ir.IntType(64), size=words)
        data = builder.bitcast(raw, lty.as_pointer())
        intp = types.intp
        shape = [context.get_constant(intp, r)]
        strides = [context.get_constant(intp, itemsize * max(c, 1))]
        if ndim == 2:
            shape.append(context.get_constant(intp, c))
            strides.append(context.get_constant(intp, itemsize))
        ary = make_array(arrty)(context, builder)
        populate_array(
            ary,
            data=data,
            shape=shape,
            strides=strides,
            itemsize=context.get_constant(intp, itemsize),
            meminfo=None,
        )
        return ary._getvalue()

    return arrty(rows, cols, dtype), codegen


if DISABLED:

    def stack_array(rows, cols, dtype):
        return np.empty((rows, cols) if cols else rows, dtype=dtype)

else:
    stack_array = _stack_array
