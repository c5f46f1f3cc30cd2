/* emu_nccl.cpp - the emulated NCCL (libnccl.so.2): single-process communicator
 * cliques (ncclCommInitAll; ncclCommInitRank with one rank, since each process
 * has its own emulator and no process can join another's) and group calls,
 * declared by ../nccl_api.h: NCCL User Guide ("API" chapter) "Communicator
 * Creation and Management Functions" (ncclGetVersion, ncclGetErrorString,
 * ncclCommInitAll, ncclGetUniqueId, ncclCommInitRank, ncclCommDestroy) and "Group
 * Calls" (ncclGroupStart, ncclGroupEnd), and the checks every call makes
 * (emu_nccl.h).  The collectives across the emulated devices are in
 * emu_nccl_collectives.cpp, ncclSend / ncclRecv in emu_nccl_p2p.cpp.  Part of the
 * emulated build only (README.md).
 */
#include "emu_nccl.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <unistd.h>

#include <atomic>

/* The NCCL release whose API this emulates (that of the CUDA 13 toolkit's
 * nccl.h), encoded as NCCL_VERSION_CODE is for 2.9 and later. */
#define EMU_NCCL_MAJOR 2
#define EMU_NCCL_MINOR 28
#define EMU_NCCL_PATCH 9

namespace pdt_emu_nccl {

/* Per thread ("Group Calls": groups are per thread and may be nested). */
thread_local int group_depth = 0;
thread_local uint64_t group_id = 0;
/* the group's deferred calls: each is given the position its stream had when
 * the outermost ncclGroupEnd began (before any of the group's operations) */
thread_local std::vector<std::pair<pdt_emu::stream *, std::function<void(uint64_t)>>> group_ops;

size_t type_size(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8:
    case ncclUint8: return 1;
    case ncclInt32:
    case ncclUint32: return 4;
    case ncclInt64:
    case ncclUint64:
    case ncclFloat64: return 8;
    case ncclFloat32: return 4;
    case ncclFloat16:
    case ncclBfloat16: return 2;
    default: return 0; /* fp8: not emulated */
    }
}

namespace {

/* The stream a call names on the communicator's device: 0, cudaStreamLegacy
 * and cudaStreamPerThread are that device's default stream (NCCL launches with
 * its device current). */
pdt_emu::stream *comm_stream(const ncclComm *comm, cudaStream_t stream)
{
    if (stream != 0 && stream != cudaStreamLegacy && stream != cudaStreamPerThread)
        return pdt_emu::resolve(stream, "ncclAllReduce");
    int previous = pdt_emu::current_device();
    if (previous == comm->device)
        return pdt_emu::resolve(stream, "ncclAllReduce");
    (void)cudaSetDevice(comm->device);
    pdt_emu::stream *s = pdt_emu::resolve(stream, "ncclAllReduce");
    (void)cudaSetDevice(previous);
    return s;
}

} // namespace

/* "ncclCommDestroy": a destroyed communicator must not be used. */
void check_alive(const char *name, const ncclComm *comm)
{
    if (comm->destroyed)
        pdt_emu::violation(name,
                           "NCCL User Guide, \"ncclCommDestroy\": a destroyed communicator "
                           "must not be used",
                           "communicator %p (rank %d) was destroyed", (const void *)comm,
                           comm->rank);
}

/* "Collective Communication Functions" and "Point To Point Communication
 * Functions": the operation runs on `stream`, which must be a stream of the
 * communicator's device. */
pdt_emu::stream *device_stream(const char *name, const ncclComm *comm, cudaStream_t stream)
{
    pdt_emu::stream *s = comm_stream(comm, stream);
    if (pdt_emu::stream_device(s) != comm->device)
        pdt_emu::violation(name,
                           "NCCL User Guide, \"Collective Communication Functions\" and "
                           "\"ncclCommInitAll\": a rank's stream must belong to its device",
                           "rank %d of communicator %p is on device %d, stream %p on device %d",
                           comm->rank, (const void *)comm, comm->device, (void *)stream,
                           pdt_emu::stream_device(s));
    return s;
}

} // namespace pdt_emu_nccl

using namespace pdt_emu_nccl;

namespace {
thread_local uint64_t groups_opened = 0; /* ncclGroupStart's count, for group ids */
} // namespace

/* ------------------------------------- Communicator Creation and Management */

/* "ncclGetVersion": NCCL_VERSION_CODE, X*10000 + Y*100 + Z since 2.9. */
EMU_NCCL_API ncclResult_t ncclGetVersion(int *version)
{
    if (!version)
        return ncclInvalidArgument;
    *version = EMU_NCCL_MAJOR * 10000 + EMU_NCCL_MINOR * 100 + EMU_NCCL_PATCH;
    return ncclSuccess;
}

/* "ncclGetErrorString" */
EMU_NCCL_API const char *ncclGetErrorString(ncclResult_t result)
{
    switch (result) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error";
    case ncclSystemError: return "unhandled system error";
    case ncclInternalError: return "internal error";
    case ncclInvalidArgument: return "invalid argument";
    case ncclInvalidUsage: return "invalid usage";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result code";
    }
}

/* "ncclCommInitAll": ndev communicators, rank i on device devlist[i] (devices
 * 0 .. ndev-1 when devlist is NULL).  Each device must exist and appear once
 * (one rank per device), else ncclInvalidArgument. */
EMU_NCCL_API ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist)
{
    if (!comms || ndev < 1)
        return ncclInvalidArgument;
    if (pdt_emu::fault_due("ncclCommInitAll")) /* Note [fault injection] */
        return ncclUnhandledCudaError;
    auto cl = std::make_shared<clique>();
    for (int i = 0; i < ndev; i++) {
        int d = devlist ? devlist[i] : i;
        if (d < 0 || d >= pdt_emu::device_count())
            return ncclInvalidArgument;
        for (int e : cl->devices)
            if (e == d)
                return ncclInvalidArgument;
        cl->devices.push_back(d);
    }
    for (int i = 0; i < ndev; i++) {
        ncclComm *c = new ncclComm;
        c->cl = cl;
        c->rank = i;
        c->device = cl->devices[i];
        comms[i] = c;
    }
    return ncclSuccess;
}

/* "ncclGetUniqueId": the id of a communicator to be made by ncclCommInitRank;
 * here a marker, this process's id and a counter, in 128 bytes. */
EMU_NCCL_API ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId)
{
    static std::atomic<unsigned long long> made{0};
    if (!uniqueId)
        return ncclInvalidArgument;
    memset(uniqueId->internal, 0, sizeof uniqueId->internal);
    snprintf(uniqueId->internal, sizeof uniqueId->internal, "pdt-emu-nccl %d %llu", (int)getpid(),
             ++made);
    return ncclSuccess;
}

/* "ncclCommInitRank": rank `rank` of nranks, on the current device.  The
 * emulator lives inside one process, and a communicator of several ranks
 * joins several processes' devices: only one-rank communicators are
 * emulated; more ranks give ncclInvalidUsage, with the reason on stderr.  An
 * id that ncclGetUniqueId did not make is ncclInvalidArgument. */
EMU_NCCL_API ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId,
                                           int rank)
{
    if (!comm || nranks < 1 || rank < 0 || rank >= nranks)
        return ncclInvalidArgument;
    if (strncmp(commId.internal, "pdt-emu-nccl ", 13) != 0)
        return ncclInvalidArgument;
    if (pdt_emu::fault_due("ncclCommInitRank")) /* Note [fault injection] */
        return ncclUnhandledCudaError;
    if (nranks > 1) {
        fprintf(stderr,
                "emulated NCCL: ncclCommInitRank with %d ranks: every process has its own "
                "emulated devices, so only one-rank communicators are emulated\n",
                nranks);
        return ncclInvalidUsage;
    }
    auto cl = std::make_shared<clique>();
    cl->devices.push_back(pdt_emu::current_device());
    ncclComm *c = new ncclComm;
    c->cl = cl;
    c->rank = 0;
    c->device = cl->devices[0];
    *comm = c;
    return ncclSuccess;
}

/* "ncclCommDestroy": frees the communicator (NULL is accepted).  Parts already
 * on streams keep their clique and still run.  The object is kept, marked, so
 * that a later use is reported rather than reading freed memory. */
EMU_NCCL_API ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    if (!comm)
        return ncclSuccess;
    if (comm->destroyed)
        pdt_emu::violation("ncclCommDestroy",
                           "NCCL User Guide, \"ncclCommDestroy\": a communicator is destroyed once",
                           "communicator %p (rank %d) was already destroyed", (void *)comm,
                           comm->rank);
    comm->destroyed = true;
    comm->cl.reset();
    return ncclSuccess;
}

/* --------------------------------------------------------------- Group Calls */

/* "ncclGroupStart": calls until the matching ncclGroupEnd are deferred;
 * groups nest, per thread. */
EMU_NCCL_API ncclResult_t ncclGroupStart(void)
{
    if (group_depth++ == 0)
        group_id = ++groups_opened;
    return ncclSuccess;
}

/* "ncclGroupEnd": the outermost one puts the group's operations on their
 * streams ("Nothing will be started on the CUDA stream until ncclGroupEnd");
 * without a matching ncclGroupStart, ncclInvalidUsage. */
EMU_NCCL_API ncclResult_t ncclGroupEnd(void)
{
    if (group_depth == 0)
        return ncclInvalidUsage;
    if (--group_depth > 0)
        return ncclSuccess;
    std::vector<std::pair<pdt_emu::stream *, std::function<void(uint64_t)>>> ops;
    ops.swap(group_ops);
    group_id = 0;
    std::map<pdt_emu::stream *, uint64_t> before;
    for (auto &op : ops)
        before.emplace(op.first, pdt_emu::stream_position(op.first));
    for (auto &op : ops)
        op.second(before[op.first]);
    return ncclSuccess;
}
