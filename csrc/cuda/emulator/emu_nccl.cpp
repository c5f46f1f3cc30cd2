/* emu_nccl.cpp - the emulated NCCL (libnccl.so.2): single-process communicator
 * cliques (ncclCommInitAll; ncclCommInitRank with one rank, since each process
 * has its own emulator and no process can join another's), group calls, and
 * ncclAllReduce, ncclBroadcast, ncclAllGather, ncclReduceScatter and ncclReduce
 * across the emulated devices, and ncclSend / ncclRecv (a rank may send to
 * itself, with the receive in the same group), declared by ../nccl_api.h.
 * Each rank's part of a collective is an operation on that rank's stream
 * (emu.h, Note [emulated streams]); the first part to run brings every other
 * rank's stream up to its own part, then reduces all ranks' buffers at once.
 * A message's two sides are operations on the sender's and the receiver's
 * streams; the first to run copies the data.  Sections cited are those of the NCCL
 * User Guide ("API" chapter).  Part of the emulated build only (README.md).
 */
#include "../nccl_api.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <unistd.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "emu.h"
#include "pdt_half.h"

#define EMU_NCCL_API extern "C" __attribute__((visibility("default")))

/* The NCCL release whose API this emulates (that of the CUDA 13 toolkit's
 * nccl.h), encoded as NCCL_VERSION_CODE is for 2.9 and later. */
#define EMU_NCCL_MAJOR 2
#define EMU_NCCL_MINOR 28
#define EMU_NCCL_PATCH 9

namespace {

const char *const DOC_GROUP = "NCCL User Guide, \"Group Calls\": a thread that manages several "
                              "devices must issue their calls of one collective between "
                              "ncclGroupStart and ncclGroupEnd, since each call may block until "
                              "every rank has made it";

/* One rank's call of a collective. */
struct part {
    bool called = false;   /* ncclAllReduce was called for this rank */
    bool enqueued = false; /* ... and its operation is on its stream */
    const void *send = nullptr;
    void *recv = nullptr;
    pdt_emu::stream *stream = nullptr;
    uint64_t position = 0; /* the stream's operations before this part */
    std::thread::id thread;
    uint64_t group = 0; /* the calling thread's group, 0 outside one */
};

enum kind { ALL_REDUCE, BROADCAST, ALL_GATHER, REDUCE_SCATTER, REDUCE };
const char *const KIND_NAMES[5] = {"ncclAllReduce", "ncclBroadcast", "ncclAllGather",
                                   "ncclReduceScatter", "ncclReduce"};

/* One collective: the calls numbered `seq` of every rank's communicator. */
struct collective {
    kind what = ALL_REDUCE;
    int root = 0;
    size_t count = 0;
    ncclDataType_t type = ncclFloat32;
    ncclRedOp_t op = ncclSum;
    std::vector<part> parts;
    int ran = 0; /* ranks whose operation has run */
    bool done = false;
};

/* One side of a point-to-point message ("ncclSend" / "ncclRecv"). */
struct side {
    bool called = false, enqueued = false;
    void *buf = nullptr; /* sendbuff or recvbuff */
    size_t count = 0;
    ncclDataType_t type = ncclFloat32;
    pdt_emu::stream *stream = nullptr;
    uint64_t position = 0; /* the stream's operations before this side */
    uint64_t ready = 0;    /* ... before its group's (in a group) */
    uint64_t group = 0;    /* the calling thread's group, 0 outside one */
};

/* One message from rank `from` to rank `to`: the n-th ncclSend from `from` to
 * `to` meets the n-th ncclRecv of `to` from `from` ("Point-to-point
 * communication": calls to the same peer are executed in order). */
struct message {
    int from = 0, to = 0;
    side send, recv;
    bool done = false;
};

/* The communicators made by one ncclCommInitAll. */
struct clique {
    std::mutex mu;
    std::vector<int> devices;               /* by rank */
    std::map<uint64_t, collective> pending; /* by call number; guarded by mu */
    /* (from, to) -> the messages one side of which has been called, oldest
     * first; guarded by mu */
    std::map<std::pair<int, int>, std::vector<std::shared_ptr<message>>> open_sends, open_recvs;
};

/* Per thread ("Group Calls": groups are per thread and may be nested). */
thread_local int group_depth = 0;
thread_local uint64_t group_id = 0;
thread_local uint64_t groups_opened = 0;
/* the group's deferred calls: each is given the position its stream had when
 * the outermost ncclGroupEnd began (before any of the group's operations) */
thread_local std::vector<std::pair<pdt_emu::stream *, std::function<void(uint64_t)>>> group_ops;

} // namespace

struct ncclComm {
    std::shared_ptr<clique> cl;
    int rank = 0;
    int device = 0;
    uint64_t calls = 0; /* collectives called on this communicator; guarded by cl->mu */
    bool destroyed = false;
};

namespace {

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

/* How a type's elements are stored (S) and computed (V): the plain types are their own
 * values; float16 and bfloat16 ("ncclDataType_t": ncclFloat16, ncclBfloat16) are
 * computed in float and rounded back to the type after every operation, as the
 * device's half arithmetic (__hadd2, __hmul2, one rounding each) in NCCL's reduction
 * kernels; conversions are pdt_half.h's (round to nearest even). */
template <typename T> struct plain_type {
    typedef T S;
    typedef T V;
    static V load(S s) { return s; }
    static S store(V v) { return v; }
};
struct f16_type {
    typedef uint16_t S;
    typedef float V;
    static V load(S s) { return pdt_f16_to_f32(s); }
    static S store(V v) { return pdt_f32_to_f16(v); }
};
struct bf16_type {
    typedef uint16_t S;
    typedef float V;
    static V load(S s) { return pdt_bf16_to_f32(s); }
    static S store(V v) { return pdt_f32_to_bf16(v); }
};

/* Integer arithmetic wraps, as on the device; no signed overflow here. */
template <typename T> T add(T a, T b)
{
    if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        return (T)(U)((U)a + (U)b);
    } else {
        return a + b;
    }
}
template <typename T> T mul(T a, T b)
{
    if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        return (T)(U)((U)a * (U)b);
    } else {
        return a * b;
    }
}

/* "ncclRedOp_t": ncclSum, ncclProd, ncclMax, ncclMin, ncclAvg, folded over the
 * ranks in rank order (so results are deterministic).  ncclAvg is computed as
 * NCCL does: for floating types each input is pre-multiplied by 1/nranks and
 * summed, for integers the sum is divided by nranks. */
template <typename A>
void reduce(const std::vector<const void *> &in, const std::vector<void *> &out, size_t count,
            ncclRedOp_t op)
{
    typedef typename A::S S;
    typedef typename A::V T;
    int n = (int)in.size();
    std::vector<S> result(count);
    const bool premul = op == ncclAvg && std::is_floating_point<T>::value;
    const T scale = premul ? (T)(1.0 / n) : T(1);
    /* each operation's result as the type holds it (a no-op for the plain types) */
    auto held = [](T v) { return A::load(A::store(v)); };
    for (size_t i = 0; i < count; i++) {
        T acc = A::load(((const S *)in[0])[i]);
        if (premul)
            acc = held((T)(acc * scale));
        for (int r = 1; r < n; r++) {
            T x = A::load(((const S *)in[r])[i]);
            switch (op) {
            case ncclProd: acc = held(mul<T>(acc, x)); break;
            case ncclMax: acc = x > acc ? x : acc; break;
            case ncclMin: acc = x < acc ? x : acc; break;
            default: /* ncclSum, ncclAvg */
                acc = held(add<T>(acc, premul ? held((T)(x * scale)) : x));
                break;
            }
        }
        if (op == ncclAvg && !premul)
            acc = (T)(acc / (T)n);
        result[i] = A::store(acc);
    }
    for (void *o : out) /* after every read: in-place is allowed */
        memcpy(o, result.data(), count * sizeof(S));
}

void reduce_any(ncclDataType_t t, const std::vector<const void *> &in,
                const std::vector<void *> &out, size_t count, ncclRedOp_t op)
{
    switch (t) {
    case ncclInt8: return reduce<plain_type<int8_t>>(in, out, count, op);
    case ncclUint8: return reduce<plain_type<uint8_t>>(in, out, count, op);
    case ncclInt32: return reduce<plain_type<int32_t>>(in, out, count, op);
    case ncclUint32: return reduce<plain_type<uint32_t>>(in, out, count, op);
    case ncclInt64: return reduce<plain_type<int64_t>>(in, out, count, op);
    case ncclUint64: return reduce<plain_type<uint64_t>>(in, out, count, op);
    case ncclFloat16: return reduce<f16_type>(in, out, count, op);
    case ncclBfloat16: return reduce<bf16_type>(in, out, count, op);
    case ncclFloat32: return reduce<plain_type<float>>(in, out, count, op);
    case ncclFloat64: return reduce<plain_type<double>>(in, out, count, op);
    default: return;
    }
}

/* The operation of rank `rank`'s part of collective `seq`, run by its stream. */
void run_part(const std::shared_ptr<clique> &cl, uint64_t seq, int rank)
{
    std::vector<std::pair<pdt_emu::stream *, uint64_t>> others;
    {
        std::lock_guard<std::mutex> lock(cl->mu);
        collective &c = cl->pending.at(seq);
        /* "Group Calls": every rank's call must have been made (and, in a
         * group, the group ended) before any rank's part can run; on a GPU
         * the parts that did start would wait forever. */
        std::string missing;
        for (size_t q = 0; q < c.parts.size(); q++)
            if (!c.parts[q].enqueued)
                missing += (missing.empty() ? "" : ", ") + std::to_string(q) + " (device " +
                           std::to_string(cl->devices[q]) + ")";
        if (!missing.empty())
            pdt_emu::violation("ncclAllReduce", DOC_GROUP,
                               "rank %d's part of collective #%llu runs, but rank(s) %s have not "
                               "made their call",
                               rank, (unsigned long long)seq, missing.c_str());
        if (!c.done)
            for (size_t q = 0; q < c.parts.size(); q++)
                if ((int)q != rank)
                    others.push_back({c.parts[q].stream, c.parts[q].position});
    }
    /* Every other rank's stream runs up to just before its part, so each
     * rank's buffers hold what its stream put there before the collective
     * ("Collective Communication Functions": the operation is ordered in each
     * rank's stream).  Outside the mutex: those streams may hold earlier
     * collectives of this clique. */
    for (auto &o : others)
        pdt_emu::drain_to(o.first, o.second);

    std::lock_guard<std::mutex> lock(cl->mu);
    auto it = cl->pending.find(seq);
    collective &c = it->second;
    if (!c.done) {
        const size_t n = c.parts.size(), bytes = c.count * type_size(c.type);
        /* bytes each rank's buffers hold ("Collective Communication Functions") */
        const size_t send_bytes = c.what == REDUCE_SCATTER ? n * bytes : bytes;
        const size_t recv_bytes = c.what == ALL_GATHER ? n * bytes : bytes;
        const char *name = KIND_NAMES[c.what];
        std::vector<const void *> in;
        std::vector<void *> out;
        for (size_t q = 0; q < n; q++) {
            char what[64];
            /* emu.h pointer rule: each rank's buffers are live memory its
             * device may access (broadcast reads the root's sendbuff only). */
            snprintf(what, sizeof what, "sendbuff of rank %zu", q);
            if (c.what != BROADCAST || (int)q == c.root)
                pdt_emu::check_device_access(name, what, cl->devices[q], c.parts[q].send,
                                             send_bytes);
            snprintf(what, sizeof what, "recvbuff of rank %zu", q);
            if (c.what != REDUCE || (int)q == c.root) /* "ncclReduce": root's only */
                pdt_emu::check_device_access(name, what, cl->devices[q], c.parts[q].recv,
                                             recv_bytes);
            in.push_back(c.parts[q].send);
            out.push_back(c.parts[q].recv);
        }
        if (c.what == ALL_REDUCE) {
            reduce_any(c.type, in, out, c.count, c.op);
        } else if (c.what == REDUCE) { /* "ncclReduce": into root's recvbuff only */
            std::vector<void *> root_out = {out[c.root]};
            reduce_any(c.type, in, root_out, c.count, c.op);
        } else if (c.what == BROADCAST) { /* "ncclBroadcast": in place when equal */
            std::vector<char> v((const char *)in[c.root], (const char *)in[c.root] + bytes);
            for (size_t q = 0; q < n; q++)
                memcpy(out[q], v.data(), bytes);
        } else if (c.what == ALL_GATHER) { /* rank q's send at offset q * count */
            std::vector<char> v(n * bytes);
            for (size_t q = 0; q < n; q++)
                memcpy(v.data() + q * bytes, in[q], bytes);
            for (size_t q = 0; q < n; q++) /* after every read: in place is allowed */
                memcpy(out[q], v.data(), n * bytes);
        } else { /* "ncclReduceScatter": rank b gets block b of the reduction */
            std::vector<std::vector<char>> blocks(n, std::vector<char>(bytes));
            for (size_t b = 0; b < n; b++) {
                std::vector<const void *> part_in;
                for (size_t q = 0; q < n; q++)
                    part_in.push_back((const char *)in[q] + b * bytes);
                std::vector<void *> part_out = {blocks[b].data()};
                reduce_any(c.type, part_in, part_out, c.count, c.op);
            }
            for (size_t b = 0; b < n; b++)
                memcpy(out[b], blocks[b].data(), bytes);
        }
        c.done = true;
    }
    if (++c.ran == (int)c.parts.size())
        cl->pending.erase(it);
}

/* Puts rank `rank`'s part of collective `seq` on stream s, recording its
 * position there. */
void enqueue_part(std::shared_ptr<clique> cl, uint64_t seq, int rank, pdt_emu::stream *s)
{
    {
        std::lock_guard<std::mutex> lock(cl->mu);
        part &p = cl->pending.at(seq).parts[rank];
        p.position = pdt_emu::stream_position(s);
        p.enqueued = true;
    }
    const char *name;
    {
        std::lock_guard<std::mutex> lock(cl->mu);
        name = KIND_NAMES[cl->pending.at(seq).what];
    }
    pdt_emu::enqueue(s, name, [cl, seq, rank]() { run_part(cl, seq, rank); });
}

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

/* ------------------------------------------ Collective Communication Functions */

namespace {

/* One rank's call of a collective of kind `what` (the shared part of the four
 * functions below). */
ncclResult_t call_collective(kind what, const void *sendbuff, void *recvbuff, size_t count,
                             ncclDataType_t datatype, ncclRedOp_t op, int root, ncclComm_t comm,
                             cudaStream_t stream)
{
    const char *name = KIND_NAMES[what];
    /* Invalid arguments are ncclInvalidArgument ("ncclResult_t"): no
     * communicator, a type or operator that is not one of "ncclDataType_t" /
     * "ncclRedOp_t" (fp8 is not emulated), NULL buffers, a
     * root that is not a rank. */
    if (!comm)
        return ncclInvalidArgument;
    check_alive(name, comm);
    if (type_size(datatype) == 0 || (int)op < 0 || op >= ncclNumOps)
        return ncclInvalidArgument;
    const bool rooted = what == BROADCAST || what == REDUCE;
    if (rooted && (root < 0 || root >= (int)comm->cl->devices.size()))
        return ncclInvalidArgument;
    /* broadcast reads sendbuff on root only, reduce writes recvbuff on root only */
    if (count > 0 && ((!sendbuff && (what != BROADCAST || comm->rank == root)) ||
                      (!recvbuff && (what != REDUCE || comm->rank == root))))
        return ncclInvalidArgument;

    pdt_emu::stream *s = device_stream(name, comm, stream);
    if (count == 0)
        return ncclSuccess;

    std::shared_ptr<clique> cl = comm->cl;
    int rank = comm->rank;
    uint64_t seq;
    {
        std::lock_guard<std::mutex> lock(cl->mu);
        seq = comm->calls++;
        collective &c = cl->pending[seq];
        if (c.parts.empty()) {
            c.parts.resize(cl->devices.size());
            c.what = what;
            c.root = root;
            c.count = count;
            c.type = datatype;
            c.op = op;
        } else if (c.what != what || c.root != root || c.count != count || c.type != datatype ||
                   c.op != op) {
            /* one collective: every rank calls the same function with the
             * same count, datatype, op and root. */
            pdt_emu::violation(name,
                               "NCCL User Guide, \"Collective Communication Functions\": the ranks "
                               "of one collective call the same function with the same count, "
                               "datatype, op and root",
                               "rank %d calls %s (count %zu, type %d, op %d, root %d), another "
                               "rank called %s (count %zu, type %d, op %d, root %d) for "
                               "collective #%llu",
                               rank, name, count, (int)datatype, (int)op, root, KIND_NAMES[c.what],
                               c.count, (int)c.type, (int)c.op, c.root, (unsigned long long)seq);
        }
        std::thread::id self = std::this_thread::get_id();
        uint64_t group = group_depth > 0 ? group_id : 0;
        for (size_t q = 0; q < c.parts.size(); q++) {
            const part &o = c.parts[q];
            if (o.called && o.thread == self && (group == 0 || o.group != group))
                pdt_emu::violation(name, DOC_GROUP,
                                   "this thread called %s for rank %zu and then rank %d "
                                   "of collective #%llu, not within one group",
                                   name, q, rank, (unsigned long long)seq);
        }
        part &p = c.parts[rank];
        p.called = true;
        p.send = sendbuff;
        p.recv = recvbuff;
        p.stream = s;
        p.thread = self;
        p.group = group;
    }
    if (group_depth > 0)
        group_ops.push_back({s, [cl, seq, rank, s](uint64_t) { enqueue_part(cl, seq, rank, s); }});
    else
        enqueue_part(cl, seq, rank, s);
    return ncclSuccess;
}

} // namespace

/* "ncclAllReduce": reduces count elements of every rank's sendbuff with op and
 * leaves the result in every rank's recvbuff (in place when they are equal),
 * on each rank's stream. */
EMU_NCCL_API ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                                        ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                                        cudaStream_t stream)
{
    return call_collective(ALL_REDUCE, sendbuff, recvbuff, count, datatype, op, 0, comm, stream);
}

/* "ncclBroadcast": root's count elements into every rank's recvbuff. */
EMU_NCCL_API ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                                        ncclDataType_t datatype, int root, ncclComm_t comm,
                                        cudaStream_t stream)
{
    return call_collective(BROADCAST, sendbuff, recvbuff, count, datatype, ncclSum, root, comm,
                           stream);
}

/* "ncclReduce": the reduction of every rank's count elements into root's
 * recvbuff (which the other ranks may pass as NULL); in place when equal. */
EMU_NCCL_API ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count,
                                     ncclDataType_t datatype, ncclRedOp_t op, int root,
                                     ncclComm_t comm, cudaStream_t stream)
{
    return call_collective(REDUCE, sendbuff, recvbuff, count, datatype, op, root, comm, stream);
}

/* "ncclAllGather": rank i's sendcount elements at offset i * sendcount of
 * every rank's recvbuff. */
EMU_NCCL_API ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
                                        ncclDataType_t datatype, ncclComm_t comm,
                                        cudaStream_t stream)
{
    return call_collective(ALL_GATHER, sendbuff, recvbuff, sendcount, datatype, ncclSum, 0, comm,
                           stream);
}

/* "ncclReduceScatter": block i (recvcount elements) of the reduction into
 * rank i's recvbuff. */
EMU_NCCL_API ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                                            ncclDataType_t datatype, ncclRedOp_t op,
                                            ncclComm_t comm, cudaStream_t stream)
{
    return call_collective(REDUCE_SCATTER, sendbuff, recvbuff, recvcount, datatype, op, 0, comm,
                           stream);
}

/* --------------------------------------- Point To Point Communication Functions */

namespace {

const char *const DOC_P2P = "NCCL User Guide, \"Point-to-point communication\" and \"ncclSend\" / "
                            "\"ncclRecv\": each call is blocking for the GPU until the peer's "
                            "matching call runs; calls that must progress concurrently (a send to "
                            "this rank itself and its receive among them) must be fused within "
                            "one ncclGroupStart / ncclGroupEnd";
const char *const DOC_P2P_MATCH = "NCCL User Guide, \"ncclSend\" / \"ncclRecv\": rank peer "
                                  "needs to call the matching function with the same datatype "
                                  "and the same count";

/* The operation of one side of message m, run by its stream: the first side to
 * run brings the other side's stream up to where that side's group began (up
 * to the side itself outside a group) and copies sendbuff into recvbuff. */
void run_side(const std::shared_ptr<clique> &cl, const std::shared_ptr<message> &m, bool is_send)
{
    const char *name = is_send ? "ncclSend" : "ncclRecv";
    pdt_emu::stream *other = nullptr;
    uint64_t other_ready = 0;
    {
        std::lock_guard<std::mutex> lock(cl->mu);
        if (m->done)
            return;
        const side &me = is_send ? m->send : m->recv, &peer = is_send ? m->recv : m->send;
        if (!peer.enqueued)
            pdt_emu::violation(name, DOC_P2P,
                               "rank %d's message to rank %d runs, but rank %d has not made its "
                               "%s; on a GPU this stream would wait for it forever",
                               m->from, m->to, is_send ? m->to : m->from,
                               is_send ? "ncclRecv" : "ncclSend");
        if (peer.stream == me.stream && peer.position > me.position &&
            (me.group == 0 || me.group != peer.group))
            pdt_emu::violation(name, DOC_P2P,
                               "rank %d's message to rank %d: its %s comes later on the same "
                               "stream, outside this call's group; on a GPU this call blocks the "
                               "stream before that one can start",
                               m->from, m->to, is_send ? "ncclRecv" : "ncclSend");
        if (peer.stream != me.stream) {
            other = peer.stream;
            other_ready = peer.group ? peer.ready : peer.position;
        }
    }
    if (other) /* outside the mutex, as run_part */
        pdt_emu::drain_to(other, other_ready);
    std::lock_guard<std::mutex> lock(cl->mu);
    if (m->done)
        return;
    const size_t bytes = m->send.count * type_size(m->send.type);
    pdt_emu::check_device_access(name, "sendbuff", cl->devices[m->from], m->send.buf, bytes);
    pdt_emu::check_device_access(name, "recvbuff", cl->devices[m->to], m->recv.buf, bytes);
    memmove(m->recv.buf, m->send.buf, bytes);
    m->done = true;
}

/* One rank's ncclSend (is_send) or ncclRecv: its side of the oldest message
 * between it and peer that lacks this side, or a new message. */
ncclResult_t call_p2p(bool is_send, void *buf, size_t count, ncclDataType_t datatype, int peer,
                      ncclComm_t comm, cudaStream_t stream)
{
    const char *name = is_send ? "ncclSend" : "ncclRecv";
    if (!comm)
        return ncclInvalidArgument;
    check_alive(name, comm);
    std::shared_ptr<clique> cl = comm->cl;
    if (type_size(datatype) == 0 || peer < 0 || peer >= (int)cl->devices.size() ||
        (count > 0 && !buf))
        return ncclInvalidArgument;
    pdt_emu::stream *s = device_stream(name, comm, stream);
    if (count == 0)
        return ncclSuccess;
    const int from = is_send ? comm->rank : peer, to = is_send ? peer : comm->rank;
    std::shared_ptr<message> m;
    {
        std::lock_guard<std::mutex> lock(cl->mu);
        auto &mine = (is_send ? cl->open_sends : cl->open_recvs)[{from, to}];
        auto &theirs = (is_send ? cl->open_recvs : cl->open_sends)[{from, to}];
        if (!theirs.empty()) {
            m = theirs.front();
            theirs.erase(theirs.begin());
        } else {
            m = std::make_shared<message>();
            m->from = from, m->to = to;
            mine.push_back(m);
        }
        side &me = is_send ? m->send : m->recv;
        const side &other = is_send ? m->recv : m->send;
        if (other.called && (other.count != count || other.type != datatype))
            pdt_emu::violation(name, DOC_P2P_MATCH,
                               "rank %d's message to rank %d: %s of %zu elements of type %d, "
                               "%s of %zu of type %d",
                               from, to, is_send ? "ncclSend" : "ncclRecv", count, (int)datatype,
                               is_send ? "ncclRecv" : "ncclSend", other.count, (int)other.type);
        me.called = true;
        me.buf = buf;
        me.count = count;
        me.type = datatype;
        me.stream = s;
        me.group = group_depth > 0 ? group_id : 0;
    }
    auto put = [cl, m, is_send, s, name](uint64_t ready) {
        {
            std::lock_guard<std::mutex> lock(cl->mu);
            side &me = is_send ? m->send : m->recv;
            me.position = pdt_emu::stream_position(s);
            me.ready = ready;
            me.enqueued = true;
        }
        pdt_emu::enqueue(s, name, [cl, m, is_send]() { run_side(cl, m, is_send); });
    };
    if (group_depth > 0)
        group_ops.push_back({s, put});
    else
        put(0);
    return ncclSuccess;
}

} // namespace

/* "ncclSend": count elements of sendbuff to rank peer, which calls ncclRecv
 * with the same count and datatype; peer may be this rank itself, with its
 * ncclRecv in the same group. */
EMU_NCCL_API ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype,
                                   int peer, ncclComm_t comm, cudaStream_t stream)
{
    return call_p2p(true, const_cast<void *>(sendbuff), count, datatype, peer, comm, stream);
}

/* "ncclRecv": count elements from rank peer into recvbuff. */
EMU_NCCL_API ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer,
                                   ncclComm_t comm, cudaStream_t stream)
{
    return call_p2p(false, recvbuff, count, datatype, peer, comm, stream);
}
