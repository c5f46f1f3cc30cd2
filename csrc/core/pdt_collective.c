/* pdt_collective.c - collectives: checks, then the devices' backend. */
#include "pdt_collective.h"

#include <stdlib.h>

#include "pdt_runtime.h"

int pdt_allreduce_available(int kind)
{
    const pdt_backend *b = pdt_backend_of(kind);
    return b && b->allreduce_available && b->allreduce_available();
}

int pdt_collective_version(int kind)
{
    const pdt_backend *b = pdt_backend_of(kind);
    return b && b->collective_version ? b->collective_version() : 0;
}

pdt_status pdt_allreduce_sum(int n, const pdt_tensor *const *ts)
{
    char a[32], c[32], sa[64], sc[64];
    int indices[PDT_MAX_DEVICES];
    void *buffers[PDT_MAX_DEVICES];
    if (n < 1 || n > PDT_MAX_DEVICES)
        return pdt_fail(PDT_ERR_VALUE, "allreduce_sum: expected 1 to %d tensors, got %d",
                        PDT_MAX_DEVICES, n);
    const pdt_tensor *t0 = ts[0];
    const int64_t numel = pdt_tensor_numel(t0);
    const pdt_backend *b = pdt_backend_of(t0->device.kind);
    if (!b || !b->allreduce_sum)
        return pdt_fail(PDT_ERR_UNSUPPORTED,
                        "allreduce_sum runs on CUDA devices (with NCCL) only, not on %s",
                        pdt_device_str(t0->device, a, sizeof a));
    for (int i = 0; i < n; i++) {
        const pdt_tensor *t = ts[i];
        pdt_status st = pdt_device_check(t->device);
        if (st != PDT_OK)
            return st;
        if (t->device.kind != t0->device.kind)
            return pdt_fail(PDT_ERR_DEVICE,
                            "allreduce_sum: every tensor must be on a device of one kind, "
                            "got %s (tensor 0) and %s (tensor %d)",
                            pdt_device_str(t0->device, a, sizeof a),
                            pdt_device_str(t->device, c, sizeof c), i);
        if (t->dtype != t0->dtype)
            return pdt_fail(PDT_ERR_TYPE,
                            "allreduce_sum: every tensor must have one dtype, got %s (tensor "
                            "0) and %s (tensor %d)",
                            pdt_dtype_name(t0->dtype), pdt_dtype_name(t->dtype), i);
        if (pdt_tensor_numel(t) != numel)
            return pdt_fail(PDT_ERR_VALUE,
                            "allreduce_sum: every tensor must have the same number of "
                            "elements, got shape %s (tensor 0, %lld) and %s (tensor %d, %lld)",
                            pdt_shape_str(t0->ndim, t0->shape, sa, sizeof sa), (long long)numel,
                            pdt_shape_str(t->ndim, t->shape, sc, sizeof sc), i,
                            (long long)pdt_tensor_numel(t));
        if (!pdt_tensor_is_contiguous(t))
            return pdt_fail(PDT_ERR_VALUE,
                            "allreduce_sum: tensor %d (shape %s on %s) is not contiguous; "
                            "call .contiguous() first",
                            i, pdt_shape_str(t->ndim, t->shape, sc, sizeof sc),
                            pdt_device_str(t->device, c, sizeof c));
        for (int j = 0; j < i; j++)
            if (ts[j]->device.index == t->device.index)
                return pdt_fail(PDT_ERR_DEVICE,
                                "allreduce_sum: tensors %d and %d are both on %s; each "
                                "device may appear once",
                                j, i, pdt_device_str(t->device, c, sizeof c));
        indices[i] = t->device.index;
        buffers[i] = pdt_tensor_ptr(t);
    }
    for (int i = 0; i < n; i++)
        pdt_note_op("allreduce", ts[i]->device);
    pdt_status st = b->allreduce_sum(n, indices, buffers, (size_t)numel, t0->dtype);
    if (st == PDT_OK && n > 1) /* Note [collectives are counted] */
        pdt_collective_count(2 * (uint64_t)(n - 1) * (uint64_t)numel * pdt_dtype_size(t0->dtype));
    return st;
}

/* ---- rank communicators ---- */

static const pdt_backend *comm_backend(int kind, const char *what)
{
    const pdt_backend *b = pdt_backend_of(kind);
    if (!b || !b->comm_init) {
        pdt_fail(PDT_ERR_UNSUPPORTED,
                 "%s: rank communicators run on CUDA devices with NCCL only; this build or "
                 "device kind has none",
                 what);
        return NULL;
    }
    return b;
}

pdt_status pdt_comm_unique_id(int kind, unsigned char id[PDT_COMM_ID_BYTES])
{
    const pdt_backend *b = comm_backend(kind, "comm_unique_id");
    return b ? b->comm_unique_id(id) : PDT_ERR_UNSUPPORTED;
}

pdt_status pdt_comm_init(pdt_device device, const unsigned char id[PDT_COMM_ID_BYTES], int nranks,
                         int rank, void **comm)
{
    char d[32];
    const pdt_backend *b = comm_backend(device.kind, "comm_init");
    if (!b)
        return PDT_ERR_UNSUPPORTED;
    pdt_status st = pdt_device_check(device);
    if (st != PDT_OK)
        return st;
    if (nranks < 1 || rank < 0 || rank >= nranks)
        return pdt_fail(PDT_ERR_VALUE, "comm_init on %s: rank %d of %d ranks (0 <= rank < nranks)",
                        pdt_device_str(device, d, sizeof d), rank, nranks);
    return b->comm_init(device.index, id, nranks, rank, comm);
}

void pdt_comm_destroy(pdt_device device, void *comm)
{
    const pdt_backend *b = pdt_backend_of(device.kind);
    if (b && b->comm_destroy && comm)
        b->comm_destroy(device.index, comm);
}

pdt_status pdt_comm_run(void *comm, pdt_device device, int nranks, int rank, pdt_comm_kind what,
                        const pdt_tensor *send, const pdt_tensor *recv, pdt_comm_op op, int root)
{
    static const char *const names[5] = {"all_reduce", "broadcast", "all_gather", "reduce_scatter",
                                         "reduce"};
    char d[32], s1[32];
    if ((unsigned)what > PDT_COMM_REDUCE)
        return pdt_fail(PDT_ERR_VALUE, "comm_run: unknown collective %d", (int)what);
    const char *name = names[what];
    const pdt_backend *b = comm_backend(device.kind, name);
    if (!b)
        return PDT_ERR_UNSUPPORTED;
    const pdt_tensor *ts[2] = {send, recv};
    for (int k = 0; k < 2; k++) {
        if (!pdt_device_eq(ts[k]->device, device))
            return pdt_fail(PDT_ERR_DEVICE,
                            "%s on rank %d: the %s tensor is on %s, the communicator on %s", name,
                            rank, k ? "output" : "input",
                            pdt_device_str(ts[k]->device, s1, sizeof s1),
                            pdt_device_str(device, d, sizeof d));
        if (!pdt_tensor_is_contiguous(ts[k]))
            return pdt_fail(PDT_ERR_VALUE, "%s on rank %d: the %s tensor is not contiguous", name,
                            rank, k ? "output" : "input");
    }
    if (send->dtype != recv->dtype)
        return pdt_fail(PDT_ERR_TYPE, "%s on rank %d: input %s and output %s differ", name, rank,
                        pdt_dtype_name(send->dtype), pdt_dtype_name(recv->dtype));
    if ((unsigned)op > PDT_COMM_AVG || (op == PDT_COMM_AVG && !pdt_dtype_is_floating(send->dtype)))
        return pdt_fail(PDT_ERR_TYPE, "%s on rank %d: op %d is not defined for %s", name, rank,
                        (int)op, pdt_dtype_name(send->dtype));
    if ((what == PDT_COMM_BROADCAST || what == PDT_COMM_REDUCE) && (root < 0 || root >= nranks))
        return pdt_fail(PDT_ERR_VALUE, "%s on rank %d: root %d of %d ranks", name, rank, root,
                        nranks);
    int64_t ns = pdt_tensor_numel(send), nr = pdt_tensor_numel(recv);
    int64_t count = what == PDT_COMM_ALL_GATHER ? ns : nr;
    int64_t want_s = what == PDT_COMM_REDUCE_SCATTER ? nr * nranks : count;
    int64_t want_r = what == PDT_COMM_ALL_GATHER ? ns * nranks : count;
    if (ns != want_s || nr != want_r)
        return pdt_fail(PDT_ERR_VALUE,
                        "%s on rank %d: %lld input and %lld output elements do not fit %d ranks",
                        name, rank, (long long)ns, (long long)nr, nranks);
    pdt_note_op(name, device);
    if (count == 0)
        return PDT_OK;
    return b->comm_run(comm, device.index, (int)what, pdt_tensor_ptr(send), pdt_tensor_ptr(recv),
                       (size_t)count, send->dtype, (int)op, root);
}

/* The k-th send to this rank itself against its k-th receive from itself: both
 * are this process's, so a mismatch is known before anything is enqueued. */
static pdt_status self_messages_match(int rank, int n, const pdt_comm_message *msgs)
{
    int sends = 0, recvs = 0;
    for (int i = 0; i < n; i++)
        if (msgs[i].peer == rank) {
            sends += msgs[i].is_send != 0;
            recvs += msgs[i].is_send == 0;
        }
    if (sends != recvs)
        return pdt_fail(PDT_ERR_VALUE,
                        "exchange on rank %d: %d message(s) to itself but %d from itself; each "
                        "send to this rank needs its receive in the same exchange",
                        rank, sends, recvs);
    for (int i = 0, j = 0; i < n; i++) {
        const pdt_comm_message *s = &msgs[i];
        if (s->peer != rank || !s->is_send)
            continue;
        while (msgs[j].peer != rank || msgs[j].is_send)
            j++;
        const pdt_tensor *r = msgs[j++].tensor;
        if (pdt_tensor_numel(s->tensor) != pdt_tensor_numel(r) || s->tensor->dtype != r->dtype)
            return pdt_fail(PDT_ERR_VALUE,
                            "exchange on rank %d: it sends itself %lld %s elements but receives "
                            "%lld %s from itself",
                            rank, (long long)pdt_tensor_numel(s->tensor),
                            pdt_dtype_name(s->tensor->dtype), (long long)pdt_tensor_numel(r),
                            pdt_dtype_name(r->dtype));
    }
    return PDT_OK;
}

pdt_status pdt_comm_exchange(void *comm, pdt_device device, int nranks, int rank, int n,
                             const pdt_comm_message *msgs)
{
    char d[32], s1[32];
    if (n < 0)
        return pdt_fail(PDT_ERR_VALUE, "exchange on rank %d: %d messages", rank, n);
    const pdt_backend *b = comm_backend(device.kind, "exchange");
    if (!b)
        return PDT_ERR_UNSUPPORTED;
    if (!b->comm_exchange)
        return pdt_fail(PDT_ERR_UNSUPPORTED, "exchange: this backend has no point-to-point calls");
    for (int i = 0; i < n; i++) {
        const pdt_tensor *t = msgs[i].tensor;
        if (!pdt_device_eq(t->device, device))
            return pdt_fail(PDT_ERR_DEVICE,
                            "exchange on rank %d: tensor %d is on %s, the "
                            "communicator on %s",
                            rank, i, pdt_device_str(t->device, s1, sizeof s1),
                            pdt_device_str(device, d, sizeof d));
        if (!pdt_tensor_is_contiguous(t))
            return pdt_fail(PDT_ERR_VALUE, "exchange on rank %d: tensor %d is not contiguous", rank,
                            i);
        if (msgs[i].peer < 0 || msgs[i].peer >= nranks)
            return pdt_fail(PDT_ERR_VALUE, "exchange on rank %d: peer %d of %d ranks", rank,
                            msgs[i].peer, nranks);
    }
    pdt_status st = self_messages_match(rank, n, msgs);
    if (st != PDT_OK || n == 0)
        return st;
    pdt_comm_buffer *bufs = malloc((size_t)(unsigned)n * sizeof *bufs);
    if (!bufs)
        return pdt_fail(PDT_ERR_OOM, "exchange: %d messages", n);
    int m = 0;
    for (int i = 0; i < n; i++) {
        const pdt_tensor *t = msgs[i].tensor;
        if (pdt_tensor_numel(t) == 0) /* the peer skips its side too (same count) */
            continue;
        bufs[m++] = (pdt_comm_buffer){pdt_tensor_ptr(t), (size_t)pdt_tensor_numel(t), t->dtype,
                                      msgs[i].peer, msgs[i].is_send};
    }
    pdt_note_op("exchange", device);
    st = m ? b->comm_exchange(comm, device.index, m, bufs) : PDT_OK;
    free(bufs);
    return st;
}
