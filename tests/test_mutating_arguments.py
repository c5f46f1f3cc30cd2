"""Arguments whose own Python code (__float__, __index__) changes the containers
being read: the C code reads a snapshot or checks again, so a list that grows,
shrinks or is cleared meanwhile gives a result of the values read or a clear
exception, never a write past the buffer or a read of freed memory (the memory
review of stop 40: write_nested, pdt_parse_sizes, pdt_parse_dims)."""
import logging

import pytest

import pydevtensor as pdt
from conftest import OnLog


def test_tensor_from_lists_that_grow_while_they_are_read():
    row = [0.0, 0.0]

    class Grows:
        def __float__(self):
            row.extend([0.0] * 100_000)  # before: 100,000 floats into a 16-byte buffer
            return 1.0

    with pytest.raises(RuntimeError, match=r"tensor\(\): the data changed while it was read"):
        pdt.tensor([[Grows(), 0.0], row])


def test_tensor_from_lists_cleared_while_they_are_read():
    data = []

    class Clears:
        def __float__(self):
            data.clear()  # before: the outer list's freed items were read
            return 2.0

    data += [[Clears(), 3.0], [4.0, 5.0]]
    with pytest.raises(RuntimeError, match=r"changed size or type"):
        pdt.tensor(data)


def test_tensor_from_a_row_replaced_while_it_is_read():
    data = [[0.0, 0.0], [1.0, 2.0]]

    class Replaces:
        def __float__(self):
            data[1] = 7.0  # a row that is no longer a sequence
            return 1.0

    data[0][0] = Replaces()
    with pytest.raises(RuntimeError, match=r"depth 1 changed size or type"):
        pdt.tensor(data)


def test_sizes_list_cleared_by_an_index_method():
    sizes = []

    class Two:
        def __index__(self):
            sizes.clear()  # before: the list's freed item array was read
            return 2

    sizes += [Two(), 3]
    assert tuple(pdt.zeros(sizes).shape) == (2, 3)
    sizes[:] = [Two(), 3]
    assert tuple(pdt.ones(6).reshape(sizes).shape) == (2, 3)


def test_dims_list_cleared_by_an_index_method():
    dims = []

    class Zero:
        def __index__(self):
            dims.clear()  # before: a NULL item array was read: a segfault
            return 0

    x = pdt.arange(24, dtype=pdt.float32).reshape(2, 3, 4)
    dims += [Zero(), 2]
    assert x.sum(dim=dims).tolist() == x.sum(dim=(0, 2)).tolist()


class _SwapOnLog(logging.Handler):
    """Placement logging runs Python in the middle of an op: this handler runs
    `x.data = small` when the op named `when` is logged."""

    def __init__(self, x, small, when):
        super().__init__()
        self.x, self.small, self.when, self.done = x, small, when, False

    def emit(self, record):
        if not self.done and f"op {self.when} " in record.getMessage():
            self.done = True
            self.x.data = self.small


@pytest.fixture
def swap_on_log():
    logger = logging.getLogger("pydevtensor.placement")
    handlers = []

    def install(x, small, when):
        h = _SwapOnLog(x, small, when)
        logger.addHandler(h)
        handlers.append(h)
        pdt.config.set_log_device_placement(True)
        return h

    yield install
    pdt.config.set_log_device_placement(False)
    for h in handlers:
        logger.removeHandler(h)


def test_expand_keeps_the_storage_it_was_given_when_data_moves_meanwhile(swap_on_log):
    """expand's view is made from the storage x had when it was called, even when
    x.data moves while the op is logged (before: the view of shape (4, 100000)
    took x's new one-element storage)."""
    x = pdt.ones(1, 100_000)
    h = swap_on_log(x, pdt.zeros(1, 1), "expand")
    y = x.expand(4, 100_000)
    assert h.done
    assert tuple(x.shape) == (1, 1)
    assert float(y.sum()) == 400_000.0


def test_tensor_of_a_tensor_copies_the_storage_it_was_given(swap_on_log):
    x = pdt.ones(1, 100_000)
    h = swap_on_log(x, pdt.zeros(1, 1), "copy")
    with pytest.warns(UserWarning, match="copy construct"):  # as PyTorch's
        y = pdt.tensor(x)
    assert h.done  # tensor(t) logs its copy
    assert tuple(y.shape) == (1, 100_000) and float(y.sum()) == 100_000.0


def test_setitem_keeps_the_value_it_was_given_when_its_data_moves_meanwhile(swap_on_log):
    """x[...] = v broadcasts v (logged as expand) and copies it: v.data moving to one
    element while that is logged leaves the copy reading v's old storage (before:
    a (4, 100000) view over the new one-element storage)."""
    x = pdt.zeros(4, 100_000)
    v = pdt.ones(100_000)
    h = swap_on_log(v, pdt.zeros(1), "expand")
    x[...] = v
    assert h.done and tuple(v.shape) == (1,)
    assert float(x.sum()) == 400_000.0


@pytest.mark.parametrize("op", ["index_select", "index_put", "index_add"])
def test_an_index_changed_after_the_check_is_an_index_error(op):
    """Note [the index read once] (cpu_index.c): index_select's core checks the index and
    logs the op, then the kernel reads the index; an index written between the two (here
    by the logging handler; in life by another thread) is caught by the kernel's own
    check, before anything is read through it.  index_put and index_add log the op before
    the check (Note [the index read where it is used]), so the core's check catches it,
    before anything is written."""
    x = pdt.zeros(8, 3)
    v = pdt.tensor([0, 7, 2])
    values = pdt.ones(3, 3)
    logger = logging.getLogger("pydevtensor.placement")
    h = OnLog(op, lambda: v.copy_(pdt.tensor([0, 1 << 40, 2])))
    logger.addHandler(h)
    pdt.config.set_log_device_placement(True)
    try:
        with pytest.raises(IndexError, match=r"index 1099511627776 is out of bounds for size 8 "
                                             r"\(on cpu\): the index tensor was written to"
                           if op == "index_select" else
                           rf"{op}: index 1099511627776 is out of bounds for dimension 0 with "
                           r"size 8 \(on cpu\)"):
            if op == "index_select":
                x.index_select(0, v)
            else:
                getattr(pdt._C, "_" + op)(x, 0, v, values)
    finally:
        pdt.config.set_log_device_placement(False)
        logger.removeHandler(h)
    assert h.done
    assert float(x.abs().sum()) == 0.0  # nothing written through the bad index


def test_a_failing_index_put_logs_only_past_its_structure_checks():
    """index_put logs its op after the checks of shapes, dims and dtypes and before the
    check of the index's values (which the logging may change): a call refused for its
    shapes logs nothing."""
    x = pdt.zeros(8, 3)
    seen = []
    h = OnLog("index_put", lambda: seen.append(1))
    logger = logging.getLogger("pydevtensor.placement")
    logger.addHandler(h)
    pdt.config.set_log_device_placement(True)
    try:
        with pytest.raises(ValueError, match="values is float32"):
            pdt._C._index_put(x, 0, pdt.tensor([0, 1]), pdt.ones(3, 3))
        assert not seen
        with pytest.raises(IndexError, match="index 9 is out of bounds"):
            pdt._C._index_put(x, 0, pdt.tensor([0, 9]), pdt.ones(2, 3))
        assert seen
    finally:
        pdt.config.set_log_device_placement(False)
        logger.removeHandler(h)
