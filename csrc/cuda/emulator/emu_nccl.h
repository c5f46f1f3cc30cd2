/* emu_nccl.h - what the emulated NCCL's files share (libnccl.so.2 only): a clique
 * of communicators and its pending collectives and messages, the calling thread's
 * group, and the checks every call makes.  The files, by section of the NCCL User
 * Guide ("API" chapter) they implement:
 *   emu_nccl.cpp              "Communicator Creation and Management Functions",
 *                             "Group Calls", and the helpers declared here
 *   emu_nccl_collectives.cpp  "Collective Communication Functions", with "Types"
 *                             (ncclDataType_t, ncclRedOp_t)
 *   emu_nccl_p2p.cpp          "Point To Point Communication Functions"
 */
#ifndef PDT_EMU_NCCL_H
#define PDT_EMU_NCCL_H

#include "../nccl_api.h"

#include <stdint.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "emu.h"

#define EMU_NCCL_API extern "C" __attribute__((visibility("default")))

namespace pdt_emu_nccl {

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

/* Which collective (KIND_NAMES in emu_nccl_collectives.cpp names them). */
enum kind { ALL_REDUCE, BROADCAST, ALL_GATHER, REDUCE_SCATTER, REDUCE };

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
extern thread_local int group_depth;
extern thread_local uint64_t group_id;
/* the group's deferred calls: each is given the position its stream had when
 * the outermost ncclGroupEnd began (before any of the group's operations) */
extern thread_local std::vector<std::pair<pdt_emu::stream *, std::function<void(uint64_t)>>>
    group_ops;

/* The bytes of one element of t; 0 for a type that is not emulated (fp8). */
size_t type_size(ncclDataType_t t);
/* "ncclCommDestroy": a destroyed communicator must not be used. */
void check_alive(const char *name, const ncclComm *comm);
/* "Collective Communication Functions" and "Point To Point Communication
 * Functions": the operation runs on `stream`, which must be a stream of the
 * communicator's device. */
pdt_emu::stream *device_stream(const char *name, const ncclComm *comm, cudaStream_t stream);

} // namespace pdt_emu_nccl

struct ncclComm {
    std::shared_ptr<pdt_emu_nccl::clique> cl;
    int rank = 0;
    int device = 0;
    uint64_t calls = 0; /* collectives called on this communicator; guarded by cl->mu */
    bool destroyed = false;
};

#endif
