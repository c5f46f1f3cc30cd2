/* pdt_index_errors.c - the names behind the op codes of device-side index
 * checks, the switch between checks on the device and on the host, and the
 * report after a synchronisation (pdt_index_errors.h; Note [deferred index
 * checks] in pdt_index.h). */
#include "pdt_index_errors.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "pdt_backend.h"
#include "pdt_ops.h"
#include "pdt_runtime.h"

#define OP_NAMES 64
#define OP_NAME_LEN 32
#define MORE_OPS_TEXT (PDT_INDEX_MORE_OPS * (OP_NAME_LEN + 2) + 8)

/* Entry k - 1 names code k; written once under names_lock, then only read. */
static char op_names[OP_NAMES][OP_NAME_LEN];
static atomic_int op_count;
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int checks_on_device = 1;

int pdt_index_op_code(const char *op)
{
    int n = atomic_load_explicit(&op_count, memory_order_acquire);
    for (int k = 0; k < n; k++) /* the usual case: a name seen before, no lock */
        if (strncmp(op_names[k], op, OP_NAME_LEN - 1) == 0)
            return k + 1;
    int code = 0;
    pthread_mutex_lock(&names_lock);
    n = atomic_load_explicit(&op_count, memory_order_relaxed);
    for (int k = 0; k < n && !code; k++)
        if (strncmp(op_names[k], op, OP_NAME_LEN - 1) == 0)
            code = k + 1;
    if (!code && n < OP_NAMES) {
        strncpy(op_names[n], op, OP_NAME_LEN - 1);
        atomic_store_explicit(&op_count, n + 1, memory_order_release);
        code = n + 1;
    }
    pthread_mutex_unlock(&names_lock);
    return code;
}

static const char *op_name(int code)
{
    return code >= 1 && code <= atomic_load_explicit(&op_count, memory_order_acquire)
               ? op_names[code - 1]
               : "an indexing op";
}

void pdt_set_index_checks_on_device(int on)
{
    atomic_store_explicit(&checks_on_device, on ? 1 : 0, memory_order_relaxed);
}

int pdt_index_checks_on_device(void)
{
    return atomic_load_explicit(&checks_on_device, memory_order_relaxed);
}

/* " N more out-of-range index values were found on D since the last report
 * (by OPS): ..." into buf, or "" when e found no more. */
static const char *more_text(const pdt_index_error *e, const char *dn, char *buf, size_t cap)
{
    char ops[MORE_OPS_TEXT];
    size_t used = 0;
    buf[0] = ops[0] = '\0';
    if (e->more == 0)
        return buf;
    for (int k = 0; k < e->n_more_ops && k < PDT_INDEX_MORE_OPS; k++)
        used += (size_t)snprintf(ops + used, sizeof ops - used, "%s%s", k ? ", " : "",
                                 op_name(e->more_ops[k]));
    if (e->n_more_ops > PDT_INDEX_MORE_OPS)
        snprintf(ops + used, sizeof ops - used, ", ...");
    snprintf(buf, cap,
             " %llu more out-of-range index value%s found on %s since the last report "
             "(by %s): every result computed there since then may be invalid.",
             (unsigned long long)e->more, e->more == 1 ? " was" : "s were", dn, ops);
    return buf;
}

pdt_status pdt_index_errors_report(pdt_device d)
{
    const pdt_backend *b = pdt_backend_of(d.kind);
    pdt_index_error e;
    if (!b || !b->index_error_take)
        return PDT_OK;
    /* d's checks, then those of the other devices of the kind that have
     * completed: a bad result copied from there to d (a peer copy waits for
     * that device's check kernel) is read after this synchronisation, so its
     * error is due now.  The backend reads only checks known to be complete.
     * The message names where the op ran. */
    int found = b->index_error_take(d.index, &e);
    for (int i = 0; !found && i < PDT_MAX_DEVICES; i++)
        if (i != d.index && b->index_error_take(i, &e))
            found = 1, d.index = i;
    if (!found)
        return PDT_OK;
    char dn[32], more[MORE_OPS_TEXT + 256];
    pdt_device_str(d, dn, sizeof dn);
    return pdt_fail(PDT_ERR_INDEX,
                    "%s: index %lld is out of bounds for dimension %d with size %lld (on %s). "
                    "The check ran on the device, after the op was queued, and is reported at "
                    "this synchronisation: the op's result is not valid.%s To get the error at "
                    "the op instead (a read-back of the index before each op), call "
                    "pydevtensor.config.set_index_checks('sync') or set the environment "
                    "variable PYDEVTENSOR_INDEX_CHECKS=sync",
                    op_name(e.op), (long long)e.value, (int)e.dim, (long long)e.size, dn,
                    more_text(&e, dn, more, sizeof more));
}

pdt_status pdt_index_errors_settle(pdt_device d)
{
    const pdt_backend *b = pdt_backend_of(d.kind);
    if (!b || !b->index_checks_pending)
        return PDT_OK;
    int pending = 0;
    for (int i = 0; !pending && i < PDT_MAX_DEVICES; i++)
        pending = b->index_checks_pending(i);
    /* a synchronize reports (pdt_synchronize) */
    return pending ? pdt_synchronize(d) : PDT_OK;
}
