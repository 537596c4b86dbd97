"""Borrowed arrays: views the compiler counts no references for (docs/design.md, Kernels).

numba takes and drops a reference count (an atomic add and subtract) at nearly every read of
an array it owns — a field of a structure, an item of a typed list, an argument handed on.
In the battle kernels those counts were a fifth of the time. The values here are typed
:class:`BorrowedArray`, whose data model has no count: the compiler emits nothing for them.
A borrowed value owns nothing, so something else must hold its memory for as long as it is
read (the structure or list it came from, held by the caller); it is never stored elsewhere
or returned to Python.

* :func:`borrowed` — a view of an array (a structure's field over the array its ``keep`` holds);
* :func:`item` — an item of a typed list of arrays, without the count ``getitem`` takes;
* :func:`window`, :func:`window2` — parts of one scratch buffer, instead of allocations.
"""

from __future__ import annotations

from numba import carray, errors, njit, types
from numba.extending import intrinsic, lower_cast, models, register_model


class _Uncounted:
    """A data model mixin: the value's layout, with no reference count to take or drop."""

    def traverse(self, builder):
        return []

    def has_nrt_meminfo(self):
        return False


def _same_value(context, builder, signature, args):
    """An intrinsic's codegen that returns its argument: only the type changes."""
    return args[0]


@intrinsic
def _data_pointer(typingctx, array):
    """The address of an array's first element (no reference taken)."""
    if not isinstance(array, types.Array) or array.layout != "C":  # a view assumes C order
        raise errors.TypingError(f"a borrowed view needs a C-contiguous array, not {array}")
    sig = types.CPointer(array.dtype)(array)

    def codegen(context, builder, signature, args):
        return context.make_array(signature.args[0])(context, builder, args[0]).data
    return sig, codegen


class BorrowedArray(types.Array):
    """The type of a borrowed view (:func:`borrowed`): a C array that owns nothing, so the
    compiler emits no reference counting for it at all — not even the call that finds a view's
    empty count and returns (a field read of a plain array type makes two such calls)."""

    def __init__(self, dtype, ndim):
        super().__init__(dtype, ndim, "C", name=f"borrowed({dtype}, {ndim}d, C)")


@register_model(BorrowedArray)
class _BorrowedArrayModel(_Uncounted, models.ArrayModel):
    """An array's layout, uncounted."""


@lower_cast(BorrowedArray, types.Array)
def _borrowed_to_array(context, builder, fromty, toty, val):
    """Where a view meets a plain array of its kind (one variable holding either): the same
    struct, its empty count counted as any array's."""
    return val


@intrinsic
def _untracked(typingctx, view):
    """A view (``carray`` over memory it does not own: C order) typed :class:`BorrowedArray`."""
    return BorrowedArray(view.dtype, view.ndim)(view), _same_value


@njit(cache=True, nogil=True, inline="always")
def borrowed(a):
    """A view of ``a`` that owns nothing, of type :class:`BorrowedArray`: numba counts no references
    to it. Only for a field of a structure that also holds ``a`` (its ``keep``); never returned
    to Python or kept anywhere else (Python would get an array over memory nothing keeps
    alive)."""
    return _untracked(carray(_data_pointer(a), a.shape))


@intrinsic
def item(typingctx, tables, index):
    """Item ``index`` of a typed list of C arrays as a borrowed view: no reference count taken
    (a list's ``getitem`` takes one and the caller drops it — an atomic add and subtract for
    each of a combat round's seventeen tables). Only for a list the Battle holds, and an index
    its lookups gave (no bounds check)."""
    if not (isinstance(tables, types.ListType) and isinstance(tables.item_type, types.Array)
            and tables.item_type.layout == "C"):
        raise errors.TypingError(f"item() reads a typed list of C arrays, not {tables}")
    array = tables.item_type
    sig = BorrowedArray(array.dtype, array.ndim)(tables, types.intp)

    def codegen(context, builder, signature, args):
        from llvmlite import ir
        from numba.core import cgutils
        from numba.typed.typedobjectutils import _container_get_data

        base = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(cgutils.voidptr_t, [cgutils.voidptr_t]),
            "numba_list_base_ptr")  # the list's items, stored in their data layout
        items = builder.bitcast(
            builder.call(base, [_container_get_data(context, builder, signature.args[0],
                                                    args[0])]),
            context.get_data_type(array).as_pointer())
        where = cgutils.gep(builder, items, args[1])
        return context.data_model_manager[array].load_from_data_pointer(builder, where)
    return sig, codegen


def _view_codegen(context, builder, signature, args):
    """(array, start, n[, columns]): the borrowed view of n items (or rows) from ``start``."""
    from numba.np.arrayobj import populate_array

    source, start, shape = args[0], args[1], list(args[2:])
    src = context.make_array(signature.args[0])(context, builder, source)
    out = context.make_array(signature.return_type)(context, builder)
    itemsize = context.get_constant(
        types.intp, context.get_abi_sizeof(context.get_data_type(signature.args[0].dtype)))
    strides = [itemsize] if len(shape) == 1 else [builder.mul(shape[1], itemsize), itemsize]
    populate_array(out, data=builder.gep(src.data, [start]), shape=shape, strides=strides,
                   itemsize=itemsize, meminfo=None)
    return out._getvalue()


def _check_flat(array):
    if not isinstance(array, types.Array) or array.layout != "C" or array.ndim != 1:
        raise errors.TypingError(f"a window is cut from a 1-d C array, not {array}")


@intrinsic
def window(typingctx, array, start, n):
    """``array[start:start + n]`` as a borrowed view (scratch cut from one buffer the Battle
    holds: no allocation, no reference count). The caller keeps within the buffer."""
    _check_flat(array)
    return BorrowedArray(array.dtype, 1)(array, types.intp, types.intp), _view_codegen


@intrinsic
def window2(typingctx, array, start, rows, columns):
    """``array[start:start + rows * columns]`` as a borrowed (rows, columns) view."""
    _check_flat(array)
    sig = BorrowedArray(array.dtype, 2)(array, types.intp, types.intp, types.intp)
    return sig, _view_codegen
