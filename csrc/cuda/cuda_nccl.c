/* cuda_nccl.c - in-place sum all-reduce over several GPUs with NCCL, loaded on
 * first use (like cuBLAS in cuda_blas.c).
 *
 * Note [NCCL communicators]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * libnccl.so.2 is dlopen()ed the first time it is needed, so the module imports
 * (and the copies path of MirroredStrategy works) on a machine without it.  One
 * communicator set (ncclCommInitAll, one process driving every device) is made
 * per distinct ordered list of physical devices and kept for the life of the
 * process; at most PDT_NCCL_CACHE sets are kept, the oldest one is destroyed to
 * make room.  One mutex guards the cache and every collective: two threads must
 * not enqueue collectives on the same communicators at once, and the group
 * (ncclGroupStart ... ncclGroupEnd) must be issued by one thread.  Each device's
 * collective is enqueued on pydevtensor's stream for that device
 * (pdt_cuda_stream), so it is ordered after the work that produced the
 * gradients and before the work that reads them; the host does not wait.
 * NCCL needs distinct physical devices: two logical devices on one GPU are
 * refused (PDT_ERR_UNSUPPORTED), and the caller falls back to copies.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cuda_library.h"
#include "nccl_api.h" /* not <nccl.h>: a GPU machine may lack it */

#include "cuda_ops.h"
#include "pdt_runtime.h" /* pdt_physical_index */

#define PDT_NCCL_SONAME "libnccl.so.2"
#define PDT_NCCL_CACHE 8

typedef struct nccl_table {
    __typeof__(ncclGetUniqueId) *get_unique_id;
    __typeof__(ncclCommInitRank) *comm_init_rank;
    __typeof__(ncclBroadcast) *broadcast;
    __typeof__(ncclAllGather) *all_gather;
    __typeof__(ncclReduceScatter) *reduce_scatter;
    __typeof__(ncclReduce) *reduce;
    __typeof__(ncclSend) *send;
    __typeof__(ncclRecv) *recv;
    __typeof__(ncclCommInitAll) *comm_init_all;
    __typeof__(ncclCommDestroy) *comm_destroy;
    __typeof__(ncclAllReduce) *all_reduce;
    __typeof__(ncclGroupStart) *group_start;
    __typeof__(ncclGroupEnd) *group_end;
    __typeof__(ncclGetErrorString) *error_string;
    __typeof__(ncclGetVersion) *get_version;
    int version;
} nccl_table;

typedef struct nccl_comms {
    int n;                        /* 0: free slot */
    int devices[PDT_MAX_DEVICES]; /* physical, in rank order */
    ncclComm_t comms[PDT_MAX_DEVICES];
    unsigned long long last_use;
} nccl_comms;

static nccl_table nccl;
static pthread_once_t nccl_version_once = PTHREAD_ONCE_INIT;
static char nccl_error[768];

static pthread_mutex_t nccl_mutex = PTHREAD_MUTEX_INITIALIZER;
static nccl_comms nccl_cache[PDT_NCCL_CACHE]; /* guarded by nccl_mutex */
static unsigned long long nccl_clock;         /* guarded by nccl_mutex */

static const pdt_library_symbol nccl_symbols[] = {
    {"ncclAllReduce", (void **)&nccl.all_reduce}, /* first: its address names the file */
    {"ncclCommInitAll", (void **)&nccl.comm_init_all},
    {"ncclGetUniqueId", (void **)&nccl.get_unique_id},
    {"ncclCommInitRank", (void **)&nccl.comm_init_rank},
    {"ncclBroadcast", (void **)&nccl.broadcast},
    {"ncclAllGather", (void **)&nccl.all_gather},
    {"ncclReduceScatter", (void **)&nccl.reduce_scatter},
    {"ncclReduce", (void **)&nccl.reduce},
    {"ncclSend", (void **)&nccl.send},
    {"ncclRecv", (void **)&nccl.recv},
    {"ncclCommDestroy", (void **)&nccl.comm_destroy},
    {"ncclGroupStart", (void **)&nccl.group_start},
    {"ncclGroupEnd", (void **)&nccl.group_end},
    {"ncclGetErrorString", (void **)&nccl.error_string},
    {"ncclGetVersion", (void **)&nccl.get_version},
};
pdt_library pdt_nccl_library = PDT_LIBRARY("NCCL", PDT_NCCL_SONAME,
                                           PDT_CUDA_INSTALL(PDT_NCCL_WHEEL) PDT_CUDA_EXTRA,
                                           nccl_symbols,
                                           sizeof nccl_symbols / sizeof nccl_symbols[0],
                                           PDT_CUDA_LIBRARY_CHECK, PDT_CUDA_LOCAL_DIR,
                                           PDT_CUDA_NO_SYSTEM);

/* Once the library is loaded: NCCL 2 or later, or nccl_error says why not. */
static void nccl_check_version(void)
{
    int version = 0;
    if (nccl.get_version(&version) != ncclSuccess || version < 20000)
        snprintf(nccl_error, sizeof nccl_error, "%s (%.640s) reports version %d; NCCL 2 is needed",
                 PDT_NCCL_SONAME, pdt_nccl_library.path, version);
    else
        nccl.version = version;
}

static pdt_status nccl_get(const nccl_table **out)
{
    pdt_status st = pdt_library_need(&pdt_nccl_library);
    if (st != PDT_OK)
        return st;
    pthread_once(&nccl_version_once, nccl_check_version);
    if (!nccl.version)
        return pdt_fail(PDT_ERR_BACKEND, "%s", nccl_error);
    *out = &nccl;
    return PDT_OK;
}

int pdt_cuda_nccl_available(void)
{
    const nccl_table *t;
    return nccl_get(&t) == PDT_OK;
}

int pdt_cuda_nccl_version(void)
{
    const nccl_table *t;
    return nccl_get(&t) == PDT_OK ? t->version : 0;
}

static pdt_status nccl_check(const nccl_table *t, ncclResult_t r, const char *call)
{
    if (r == ncclSuccess)
        return PDT_OK;
    return pdt_fail(PDT_ERR_BACKEND, "NCCL error: %s returned %d (%s)", call, (int)r,
                    t->error_string(r));
}

/* The communicators for the physical devices phys[0..n), made on first use.
 * Called with nccl_mutex held. */
static pdt_status nccl_comms_for(const nccl_table *t, int n, const int *phys, nccl_comms **out)
{
    nccl_comms *slot = &nccl_cache[0];
    for (int i = 0; i < PDT_NCCL_CACHE; i++) {
        nccl_comms *c = &nccl_cache[i];
        if (c->n == n && memcmp(c->devices, phys, (size_t)n * sizeof *phys) == 0) {
            c->last_use = ++nccl_clock;
            *out = c;
            return PDT_OK;
        }
        /* a free slot, else the least recently used one */
        if (slot->n != 0 && (c->n == 0 || c->last_use < slot->last_use))
            slot = c;
    }
    if (slot->n != 0) { /* evict: none of its collectives can be running (mutex) */
        for (int i = 0; i < slot->n; i++)
            t->comm_destroy(slot->comms[i]);
        slot->n = 0;
    }
    ncclComm_t comms[PDT_MAX_DEVICES];
    pdt_status st = nccl_check(t, t->comm_init_all(comms, n, phys), "ncclCommInitAll");
    if (st != PDT_OK)
        return st;
    memcpy(slot->devices, phys, (size_t)n * sizeof *phys);
    memcpy(slot->comms, comms, (size_t)n * sizeof *comms);
    slot->n = n;
    slot->last_use = ++nccl_clock;
    *out = slot;
    return PDT_OK;
}

pdt_status pdt_cuda_allreduce_sum(int n, const int *logical_devices, void *const *buffers,
                                  size_t count, pdt_dtype dtype)
{
    const nccl_table *t = NULL;
    int phys[PDT_MAX_DEVICES];
    cudaStream_t streams[PDT_MAX_DEVICES];
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT; /* Note [device guard] in cuda_ops.h */
    ncclDataType_t type;
    if (dtype == PDT_FLOAT32)
        type = ncclFloat32;
    else if (dtype == PDT_FLOAT64)
        type = ncclFloat64;
    else
        return pdt_fail(PDT_ERR_UNSUPPORTED,
                        "allreduce_sum with NCCL supports float32 and float64, not %s",
                        pdt_dtype_name(dtype));
    if (n < 1 || n > PDT_MAX_DEVICES)
        return pdt_fail(PDT_ERR_VALUE, "allreduce_sum: %d devices (1 to %d allowed)", n,
                        PDT_MAX_DEVICES);
    for (int i = 0; i < n; i++) {
        phys[i] = pdt_physical_index(PDT_CUDA, logical_devices[i]);
        if (phys[i] < 0)
            return pdt_fail(PDT_ERR_DEVICE, "allreduce_sum: cuda:%d is not a device",
                            logical_devices[i]);
        for (int j = 0; j < i; j++)
            if (phys[j] == phys[i])
                return pdt_fail(PDT_ERR_UNSUPPORTED,
                                "allreduce_sum with NCCL needs distinct physical GPUs, but "
                                "cuda:%d and cuda:%d are both on physical GPU %d",
                                logical_devices[j], logical_devices[i], phys[i]);
    }
    pdt_status st = nccl_get(&t);
    for (int i = 0; st == PDT_OK && i < n; i++)
        st = pdt_cuda_stream(&g, logical_devices[i], &streams[i]); /* sets each device up */
    if (st != PDT_OK || count == 0) {
        pdt_cuda_guard_exit(&g);
        return st;
    }

    pthread_mutex_lock(&nccl_mutex);
    nccl_comms *c = NULL;
    st = nccl_comms_for(t, n, phys, &c);
    if (st == PDT_OK)
        st = nccl_check(t, t->group_start(), "ncclGroupStart");
    if (st == PDT_OK) {
        for (int i = 0; i < n && st == PDT_OK; i++)
            st = nccl_check(t,
                            t->all_reduce(buffers[i], buffers[i], count, type, ncclSum, c->comms[i],
                                          streams[i]),
                            "ncclAllReduce");
        /* the group is always closed, even after a failed enqueue */
        pdt_status end = nccl_check(t, t->group_end(), "ncclGroupEnd");
        if (st == PDT_OK)
            st = end;
    }
    pthread_mutex_unlock(&nccl_mutex);
    pdt_cuda_guard_exit(&g);
    return st;
}

/* ---- rank communicators (pdt_collective.h): one process per GPU ----
 *
 * Note [NCCL rank communicators]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * pydevtensor.distributed's 'nccl' backend: rank 0's ncclGetUniqueId travels
 * over MPI, and each process makes its own communicator with
 * ncclCommInitRank on its device ("Each rank is associated to a CUDA device,
 * which has to be set before calling ncclCommInitRank": the device guard sets
 * it, and puts the caller's back after).  Collectives run on pydevtensor's
 * stream of that device, like the single-process all-reduce above, under the
 * same mutex.  bool travels as uint8, its sum and maximum as ncclMax (or) and
 * its product and minimum as ncclMin (and); float16 and bfloat16 are NCCL's
 * own types, reduced by NCCL. */

pdt_status pdt_cuda_comm_unique_id(unsigned char *id)
{
    const nccl_table *t = NULL;
    pdt_status st = nccl_get(&t);
    if (st != PDT_OK)
        return st;
    ncclUniqueId u;
    st = nccl_check(t, t->get_unique_id(&u), "ncclGetUniqueId");
    if (st == PDT_OK)
        memcpy(id, u.internal, NCCL_UNIQUE_ID_BYTES);
    return st;
}

pdt_status pdt_cuda_comm_init(int index, const unsigned char *id, int nranks, int rank, void **comm)
{
    const nccl_table *t = NULL;
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    cudaStream_t stream;
    pdt_status st = nccl_get(&t);
    if (st == PDT_OK)
        st = pdt_cuda_stream(&g, index, &stream); /* makes the device current */
    if (st == PDT_OK) {
        ncclUniqueId u;
        ncclComm_t c = NULL;
        memcpy(u.internal, id, NCCL_UNIQUE_ID_BYTES);
        st = nccl_check(t, t->comm_init_rank(&c, nranks, u, rank), "ncclCommInitRank");
        if (st == PDT_OK)
            *comm = c;
    }
    pdt_cuda_guard_exit(&g);
    return st;
}

void pdt_cuda_comm_destroy(int index, void *comm)
{
    const nccl_table *t = NULL;
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    cudaStream_t stream;
    if (nccl_get(&t) != PDT_OK || pdt_cuda_stream(&g, index, &stream) != PDT_OK) {
        pdt_cuda_guard_exit(&g);
        return;
    }
    pthread_mutex_lock(&nccl_mutex);
    (void)t->comm_destroy((ncclComm_t)comm);
    pthread_mutex_unlock(&nccl_mutex);
    pdt_cuda_guard_exit(&g);
}

static int nccl_type_of(pdt_dtype dt, ncclDataType_t *out)
{
    switch (dt) {
    case PDT_BOOL: *out = ncclUint8; return 1;
    case PDT_INT32: *out = ncclInt32; return 1;
    case PDT_INT64: *out = ncclInt64; return 1;
    case PDT_FLOAT16: *out = ncclFloat16; return 1;
    case PDT_BFLOAT16: *out = ncclBfloat16; return 1;
    case PDT_FLOAT32: *out = ncclFloat32; return 1;
    case PDT_FLOAT64: *out = ncclFloat64; return 1;
    default: return 0;
    }
}

/* NCCL, with device `index` current (guard g) and its stream; on failure the
 * guard is already exited. */
static pdt_status nccl_on_stream(int index, const nccl_table **t, pdt_cuda_guard *g,
                                 cudaStream_t *stream)
{
    pdt_status st = nccl_get(t);
    if (st == PDT_OK)
        st = pdt_cuda_stream(g, index, stream);
    if (st != PDT_OK)
        pdt_cuda_guard_exit(g);
    return st;
}

pdt_status pdt_cuda_comm_run(void *comm, int index, int what, const void *send, void *recv,
                             size_t count, pdt_dtype dtype, int op, int root)
{
    static const ncclRedOp_t ops[5] = {ncclSum, ncclProd, ncclMax, ncclMin, ncclAvg};
    static const ncclRedOp_t bool_ops[5] = {ncclMax, ncclMin, ncclMax, ncclMin, ncclMax};
    const nccl_table *t = NULL;
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    cudaStream_t stream;
    ncclDataType_t type;
    if (!nccl_type_of(dtype, &type))
        return pdt_fail(PDT_ERR_TYPE, "NCCL has no type for %s", pdt_dtype_name(dtype));
    if (op < 0 || op > 4)
        return pdt_fail(PDT_ERR_VALUE, "NCCL: unknown reduction %d", op);
    ncclRedOp_t rop = dtype == PDT_BOOL ? bool_ops[op] : ops[op];
    pdt_status st = nccl_on_stream(index, &t, &g, &stream);
    if (st != PDT_OK)
        return st;
    ncclComm_t c = (ncclComm_t)comm;
    pthread_mutex_lock(&nccl_mutex);
    switch (what) {
    case 0:
        st = nccl_check(t, t->all_reduce(send, recv, count, type, rop, c, stream), "ncclAllReduce");
        break;
    case 1:
        st = nccl_check(t, t->broadcast(send, recv, count, type, root, c, stream), "ncclBroadcast");
        break;
    case 2:
        st = nccl_check(t, t->all_gather(send, recv, count, type, c, stream), "ncclAllGather");
        break;
    case 3:
        st = nccl_check(t, t->reduce_scatter(send, recv, count, type, rop, c, stream),
                        "ncclReduceScatter");
        break;
    default: /* "ncclReduce": recvbuff is only used on rank root */
        st = nccl_check(t, t->reduce(send, recv, count, type, rop, root, c, stream), "ncclReduce");
        break;
    }
    pthread_mutex_unlock(&nccl_mutex);
    pdt_cuda_guard_exit(&g);
    return st;
}

/* pdt_comm_exchange's sends and receives, as NCCL's "Point-to-point
 * communication" writes a gather, scatter or all-to-all: every ncclSend and
 * ncclRecv of the exchange between one ncclGroupStart and ncclGroupEnd, so that
 * they progress together (a send to this rank itself completes only with its
 * receive in the same group).  The group is always closed, even after a failed
 * call. */
pdt_status pdt_cuda_comm_exchange(void *comm, int index, int n, const pdt_comm_buffer *bufs)
{
    const nccl_table *t = NULL;
    pdt_cuda_guard g = PDT_CUDA_GUARD_INIT;
    cudaStream_t stream;
    for (int i = 0; i < n; i++) {
        ncclDataType_t type;
        if (!nccl_type_of(bufs[i].dtype, &type))
            return pdt_fail(PDT_ERR_TYPE, "NCCL has no type for %s", pdt_dtype_name(bufs[i].dtype));
    }
    pdt_status st = nccl_on_stream(index, &t, &g, &stream);
    if (st != PDT_OK)
        return st;
    ncclComm_t c = (ncclComm_t)comm;
    pthread_mutex_lock(&nccl_mutex);
    st = nccl_check(t, t->group_start(), "ncclGroupStart");
    if (st == PDT_OK) {
        for (int i = 0; i < n && st == PDT_OK; i++) {
            ncclDataType_t type = ncclUint8;
            (void)nccl_type_of(bufs[i].dtype, &type);
            if (bufs[i].is_send)
                st = nccl_check(t,
                                t->send(bufs[i].ptr, bufs[i].count, type, bufs[i].peer, c, stream),
                                "ncclSend");
            else
                st = nccl_check(t,
                                t->recv(bufs[i].ptr, bufs[i].count, type, bufs[i].peer, c, stream),
                                "ncclRecv");
        }
        pdt_status end = nccl_check(t, t->group_end(), "ncclGroupEnd");
        if (st == PDT_OK)
            st = end;
    }
    pthread_mutex_unlock(&nccl_mutex);
    pdt_cuda_guard_exit(&g);
    return st;
}
