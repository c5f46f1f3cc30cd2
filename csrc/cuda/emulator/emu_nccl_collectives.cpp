/* emu_nccl_collectives.cpp - the emulated NCCL's collectives (libnccl.so.2):
 * ncclAllReduce, ncclBroadcast, ncclReduce, ncclAllGather and ncclReduceScatter, NCCL
 * User Guide "Collective Communication Functions", over the element types and
 * reduction operators of "Types" (ncclDataType_t, ncclRedOp_t).  Each rank's part of
 * a collective is an operation on that rank's stream (emu.h, Note [emulated
 * streams]); the first part to run brings every other rank's stream up to its own
 * part, then reduces all ranks' buffers at once.  In a group ("Group Calls",
 * emu_nccl.cpp) a part is put on its stream by the outermost ncclGroupEnd.  Part of
 * the emulated build only (README.md).
 */
#include "emu_nccl.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <string>
#include <type_traits>

#include "pdt_half.h"

using namespace pdt_emu_nccl;

namespace {

const char *const DOC_GROUP = "NCCL User Guide, \"Group Calls\": a thread that manages several "
                              "devices must issue their calls of one collective between "
                              "ncclGroupStart and ncclGroupEnd, since each call may block until "
                              "every rank has made it";

const char *const KIND_NAMES[5] = {"ncclAllReduce", "ncclBroadcast", "ncclAllGather",
                                   "ncclReduceScatter", "ncclReduce"};

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

} // namespace

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
