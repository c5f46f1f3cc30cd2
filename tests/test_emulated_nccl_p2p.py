"""The emulated NCCL's ncclSend / ncclRecv and ncclReduce (csrc/cuda/emulator/
emu_nccl_p2p.cpp and emu_nccl_collectives.cpp),
called through ctypes in a child process with two emulated devices: a clique of
ncclCommInitAll drives both ranks from one thread, so the messages between two ranks
are emulated too, not only a rank's messages to itself.  Each rule of the NCCL User
Guide is kept once (the values are checked against NumPy) and broken once (the child
must abort with the rule, or the documented ncclResult_t must come back).

Runs only in the emulated build (``PYDEVTENSOR_CUDA=emulate``).
"""
import pytest
from test_emulator import EMULATED, LIB_DIR, aborts, value

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not EMULATED, reason="needs the emulated CUDA build "
                                 "(PYDEVTENSOR_CUDA=emulate pip install -e .)")]

NCCL_INVALID_ARGUMENT = 4

# Two ranks, cuda:0 and cuda:1 (ncclCommInitAll), float64 buffers of 4 on each device
# filled with rank * 10 + i, and helpers: put(rank, values), get(rank) -> list.
SETUP = f"""
import numpy as np
nccl = ctypes.CDLL({str(LIB_DIR / "libnccl.so.2")!r})
F64 = 8  # ncclFloat64
comms = (ctypes.c_void_p * 2)()
assert nccl.ncclCommInitAll(comms, 2, None) == 0
def buf(dev, n=4):
    p = ctypes.c_void_p()
    assert rt.cudaSetDevice(dev) == 0
    assert rt.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(8 * n)) == 0
    return p
def put(dev, p, values):
    a = np.ascontiguousarray(values, dtype=np.float64)
    rt.cudaSetDevice(dev)
    assert rt.cudaMemcpy(p, a.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(a.nbytes), 1) == 0
def get(dev, p, n=4):
    a = np.zeros(n)
    rt.cudaSetDevice(dev)
    assert rt.cudaDeviceSynchronize() == 0
    assert rt.cudaMemcpy(a.ctypes.data_as(ctypes.c_void_p), p, ctypes.c_size_t(a.nbytes), 2) == 0
    return a
def send(p, n, peer, rank):
    return nccl.ncclSend(p, ctypes.c_size_t(n), F64, peer, ctypes.c_void_p(comms[rank]), None)
def recv(p, n, peer, rank):
    return nccl.ncclRecv(p, ctypes.c_size_t(n), F64, peer, ctypes.c_void_p(comms[rank]), None)
src = [buf(0), buf(1)]
dst = [buf(0), buf(1)]
for r in range(2):
    put(r, src[r], np.arange(4) + 10 * r)
    put(r, dst[r], np.full(4, -1.0))
"""


def test_send_recv_between_ranks_and_to_itself_in_one_group():
    """"Sendrecv": each rank sends to the other and receives from it, one thread, one
    group; then rank 0 sends to itself and to rank 1 (its receive from itself in the
    same group), and two messages to one peer arrive in order."""
    out = value(SETUP + """
assert nccl.ncclGroupStart() == 0
for r in range(2):
    assert send(src[r], 4, 1 - r, r) == 0 and recv(dst[r], 4, 1 - r, r) == 0
assert nccl.ncclGroupEnd() == 0
swapped = [get(r, dst[r]).tolist() for r in range(2)]
mine, first, second = buf(0), buf(1, 2), buf(1, 2)
assert nccl.ncclGroupStart() == 0
assert send(src[0], 4, 0, 0) == 0 and recv(mine, 4, 0, 0) == 0
assert send(src[0], 2, 1, 0) == 0 and recv(first, 2, 0, 1) == 0
assert recv(second, 2, 0, 1) == 0 and send(dst[0], 2, 1, 0) == 0
assert nccl.ncclGroupEnd() == 0
print(swapped, get(0, mine).tolist(), get(1, first, 2).tolist(), get(1, second, 2).tolist())
""")
    assert out == ("[[10.0, 11.0, 12.0, 13.0], [0.0, 1.0, 2.0, 3.0]] [0.0, 1.0, 2.0, 3.0] "
                   "[0.0, 1.0] [10.0, 11.0]")


def test_reduce_leaves_the_result_on_the_root_only():
    """"ncclReduce": op over the ranks into root's recvbuff; the other rank's recvbuff is
    not written (and may be NULL)."""
    out = value(SETUP + """
assert nccl.ncclGroupStart() == 0
for r in range(2):
    assert nccl.ncclReduce(src[r], dst[r] if r == 1 else None, ctypes.c_size_t(4), F64, 2, 1,
                           ctypes.c_void_p(comms[r]), None) == 0  # ncclMax to root 1
assert nccl.ncclGroupEnd() == 0
bad = nccl.ncclReduce(src[0], dst[0], ctypes.c_size_t(4), F64, 0, 2, ctypes.c_void_p(comms[0]),
                      None)
peer = send(src[0], 4, 2, 0)
print(get(1, dst[1]).tolist(), get(0, dst[0]).tolist(), bad, peer)
""")
    assert out == f"[10.0, 11.0, 12.0, 13.0] [-1.0, -1.0, -1.0, -1.0] " \
                  f"{NCCL_INVALID_ARGUMENT} {NCCL_INVALID_ARGUMENT}"


def test_a_send_to_itself_outside_a_group_is_caught():
    """ncclSend is blocking for the GPU: a send to this rank itself with no receive
    enqueued would wait forever."""
    aborts(SETUP + """
assert send(src[0], 4, 0, 0) == 0
get(0, src[0])
""", "ncclSend", "has not made its ncclRecv", "Point-to-point communication")


def test_a_send_and_its_receive_in_separate_calls_on_one_stream_are_caught():
    aborts(SETUP + """
assert send(src[0], 4, 0, 0) == 0 and recv(dst[0], 4, 0, 0) == 0
get(0, dst[0])
""", "ncclSend", "later on the same stream, outside this call's group")


def test_a_receive_of_another_count_is_caught():
    aborts(SETUP + """
nccl.ncclGroupStart()
send(src[0], 4, 1, 0)
recv(dst[1], 3, 0, 1)
""", "ncclRecv", "same count", "ncclRecv of 3 elements", "ncclSend of 4 of type")
