/* emu_nccl_p2p.cpp - the emulated NCCL's point-to-point messages (libnccl.so.2):
 * ncclSend and ncclRecv, NCCL User Guide "Point To Point Communication Functions"
 * (and "Point-to-point communication" for how they pair and order).  A message's
 * two sides are operations on the sender's and the receiver's streams; the first to
 * run copies the data.  A rank may send to itself, with the receive in the same
 * group ("Group Calls", emu_nccl.cpp).  Part of the emulated build only
 * (README.md).
 */
#include "emu_nccl.h"

#include <string.h>

using namespace pdt_emu_nccl;

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
