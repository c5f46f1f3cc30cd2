/* emu_stream.cpp - emulated streams, events and copies (Note [emulated
 * streams] in emu.h): queues that run when someone waits on them.
 *
 * Simplification, said once: the legacy default stream and the per-thread
 * default stream are plain queues here; they do not implicitly synchronise
 * with blocking streams as the CUDA Runtime API's "Stream synchronization
 * behavior" page describes.  pydevtensor's own streams are non-blocking, so
 * its code never relies on that implicit ordering.
 */
#include <string.h>
#include <time.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "emu_runtime.h"

namespace pdt_emu {

namespace {

std::mutex registry_mu;                   /* guards the sets below */
std::unordered_set<stream *> all_streams; /* live streams */
std::deque<stream *> dead_streams;        /* destroyed, kept to name reuse */
stream *legacy_streams[kMaxDevices];      /* created on first use */
thread_local stream *per_thread_streams[kMaxDevices];
thread_local const char *tls_running = NULL;

constexpr uint32_t kEventMagic = 0x45564e54u;
constexpr size_t kDeadKept = 4096; /* destroyed streams/events kept for messages */

stream *new_stream(int dev, unsigned flags, const char *label)
{
    stream *s = new stream;
    s->magic = kStreamMagic;
    s->device = dev;
    s->flags = flags;
    s->label = label;
    std::lock_guard<std::mutex> g(registry_mu);
    all_streams.insert(s);
    return s;
}

double now_ms()
{
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

} // namespace

const char *running_op() { return tls_running; }

stream *resolve(cudaStream_t handle, const char *call)
{
    const int dev = tls_device;
    if (handle == NULL || handle == cudaStreamLegacy) {
        std::lock_guard<std::mutex> g(registry_mu);
        if (legacy_streams[dev] == NULL) {
            stream *s = new stream;
            s->magic = kStreamMagic;
            s->device = dev;
            s->flags = 0;
            s->label = "the legacy default stream";
            legacy_streams[dev] = s;
            all_streams.insert(s);
        }
        return legacy_streams[dev];
    }
    if (handle == cudaStreamPerThread) {
        if (per_thread_streams[dev] == NULL)
            per_thread_streams[dev] = new_stream(dev, 0, "the per-thread default stream");
        return per_thread_streams[dev];
    }
    stream *s = reinterpret_cast<stream *>(handle);
    {
        std::lock_guard<std::mutex> g(registry_mu);
        if (all_streams.count(s))
            return s;
    }
    /* CUDA Runtime API, cudaStreamDestroy: the handle is invalid afterwards. */
    violation(call,
              "CUDA Runtime API, cudaStreamDestroy: a stream must not be used after it is "
              "destroyed",
              "stream %p is not a live stream (destroyed, or never created)", (void *)handle);
}

int stream_device(stream *s) { return s->device; }

/* Note [bounded queues]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * A GPU works through its queue by itself; the emulator runs a stream only
 * when waited on.  A program that never waits (a training loop that leaves
 * its results on the device) would make the queue, and everything its
 * operations hold, grow without end.  A real driver's queue of pending work is
 * finite too, and a launch into a full queue blocks the host until the GPU
 * has made room: so when a stream holds kMaxPending operations, the thread
 * that adds one first runs the older half.  Stale data is still shown for any
 * read that does not wait, as long as fewer operations than that stand
 * between the write and the read. */
constexpr uint64_t kMaxPending = 1024;

/* s->mu held: appends; returns the position to run up to first, or 0. */
static uint64_t push(stream *s, const char *what, std::function<void()> fn)
{
    s->queue.push_back(op{what, std::move(fn)});
    s->enqueued++;
    const uint64_t pending = s->enqueued - s->completed;
    return pending > kMaxPending ? s->completed + pending / 2 : 0;
}

/* Note [counting queued operations]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Every operation queued on any stream is counted by its description (the
 * kernel's, copy's or library routine's name: "cublasDgetrfBatched",
 * "cusolverDnSgetrf").  Tests read the counts (pdtEmuQueuedOps, below) to
 * check how many library calls and kernels an op makes: a batched path must
 * queue the same number of operations for 3 matrices as for 65.  Not a CUDA
 * feature; a counter lookup per queued operation costs nothing next to the
 * emulated work. */
static std::mutex counts_mu;
static std::map<std::string, uint64_t> queued_counts;

void enqueue(stream *s, const char *what, std::function<void()> fn)
{
    {
        std::lock_guard<std::mutex> g(counts_mu);
        queued_counts[what ? what : "?"]++;
    }
    uint64_t make_room;
    {
        std::lock_guard<std::mutex> g(s->mu);
        make_room = push(s, what, std::move(fn));
    }
    if (make_room)
        drain_to(s, make_room);
}

uint64_t stream_position(stream *s)
{
    std::lock_guard<std::mutex> g(s->mu);
    return s->enqueued;
}

void drain_to(stream *s, uint64_t position)
{
    std::unique_lock<std::mutex> lk(s->mu);
    while (s->completed < position) {
        if (s->running) {
            if (s->runner == std::this_thread::get_id())
                violation("stream synchronisation",
                          "CUDA Runtime API, cudaStreamWaitEvent: work in a stream cannot wait "
                          "for later work of the same stream",
                          "an operation of %s on cuda:%d waits for the stream itself", s->label,
                          s->device);
            s->cv.wait(lk);
            continue;
        }
        op o = std::move(s->queue.front());
        s->queue.pop_front();
        s->running = true;
        s->runner = std::this_thread::get_id();
        lk.unlock();
        const int saved_device = tls_device;
        const char *saved_running = tls_running;
        tls_device = s->device;
        tls_running = o.what;
        o.fn();
        tls_device = saved_device;
        tls_running = saved_running;
        o.fn = nullptr; /* captured state goes before the next operation runs */
        lk.lock();
        s->running = false;
        s->runner = std::thread::id();
        s->completed++;
        s->cv.notify_all();
    }
}

void drain(stream *s)
{
    drain_to(s, stream_position(s));
    pools_after_sync(s->device);
}

void drain_device(int dev)
{
    std::vector<stream *> list;
    {
        std::lock_guard<std::mutex> g(registry_mu);
        for (stream *s : all_streams)
            if (s->device == dev)
                list.push_back(s);
    }
    for (stream *s : list)
        drain_to(s, stream_position(s));
    pools_after_sync(dev);
}

/* ------------------------------------------------------------------ events */

struct event {
    uint32_t magic = kEventMagic;
    int device;
    unsigned flags;
    stream *s = NULL;     /* the stream of the last record, NULL if none */
    uint64_t pos = 0;     /* its position after the record */
    double time_ms = 0.0; /* when the record ran (timing events) */
};

namespace {
std::unordered_set<event *> all_events; /* guarded by registry_mu */
std::deque<event *> dead_events;

event *check_event(cudaEvent_t e, const char *call)
{
    event *ev = reinterpret_cast<event *>(e);
    std::lock_guard<std::mutex> g(registry_mu);
    if (ev != NULL && all_events.count(ev))
        return ev;
    violation(call,
              "CUDA Runtime API, cudaEventDestroy: an event must not be used after it is "
              "destroyed",
              "event %p is not a live event (destroyed, or never created)", (void *)e);
}
} // namespace

} // namespace pdt_emu

using namespace pdt_emu;

extern "C" {

/* Note [counting queued operations]: how many operations whose description
 * starts with `prefix` ("" or NULL: all) were queued since the process began. */
PDT_EMU_API uint64_t pdtEmuQueuedOps(const char *prefix)
{
    const std::string p = prefix ? prefix : "";
    uint64_t total = 0;
    std::lock_guard<std::mutex> g(counts_mu);
    for (auto it = queued_counts.lower_bound(p);
         it != queued_counts.end() && it->first.compare(0, p.size(), p) == 0; ++it)
        total += it->second;
    return total;
}

PDT_EMU_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t *out, unsigned int flags)
{
    if (out == NULL || (flags & ~(unsigned)cudaStreamNonBlocking) != 0)
        return set_error(cudaErrorInvalidValue);
    if (device_count() == 0)
        return set_error(cudaErrorNoDevice);
    if (fault_due("cudaStreamCreate")) /* Note [fault injection] */
        return set_error(cudaErrorInvalidValue);
    if (sticky_error(tls_device) != cudaSuccess)
        return sticky_error(tls_device);
    *out = reinterpret_cast<cudaStream_t>(new_stream(tls_device, flags, "stream"));
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaStreamCreate(cudaStream_t *out)
{
    return cudaStreamCreateWithFlags(out, cudaStreamDefault);
}

PDT_EMU_API cudaError_t cudaStreamDestroy(cudaStream_t handle)
{
    if (handle == NULL || handle == cudaStreamLegacy || handle == cudaStreamPerThread)
        return set_error(cudaErrorInvalidResourceHandle);
    stream *s = resolve(handle, "cudaStreamDestroy");
    /* CUDA Runtime API, cudaStreamDestroy: work already in the stream still
     * completes; the emulator runs it now. */
    drain_to(s, stream_position(s));
    std::lock_guard<std::mutex> g(registry_mu);
    all_streams.erase(s);
    s->magic = 0;
    dead_streams.push_back(s);
    if (dead_streams.size() > kDeadKept) {
        delete dead_streams.front();
        dead_streams.pop_front();
    }
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaStreamSynchronize(cudaStream_t handle)
{
    stream *s = resolve(handle, "cudaStreamSynchronize");
    drain(s);
    return sticky_error(s->device);
}

PDT_EMU_API cudaError_t cudaStreamQuery(cudaStream_t handle)
{
    /* Reports what has run so far, then runs the rest, so that a polling
     * loop ends but a single query is not mistaken for a wait. */
    stream *s = resolve(handle, "cudaStreamQuery");
    uint64_t pos = stream_position(s);
    bool done;
    {
        std::lock_guard<std::mutex> g(s->mu);
        done = s->completed >= pos;
    }
    drain(s);
    return done ? cudaSuccess : cudaErrorNotReady;
}

PDT_EMU_API cudaError_t cudaStreamGetDevice(cudaStream_t handle, int *device)
{
    if (device == NULL)
        return set_error(cudaErrorInvalidValue);
    *device = resolve(handle, "cudaStreamGetDevice")->device;
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t *out, unsigned int flags)
{
    const unsigned known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
    if (out == NULL || (flags & ~known) != 0)
        return set_error(cudaErrorInvalidValue);
    if (device_count() == 0)
        return set_error(cudaErrorNoDevice);
    if (fault_due("cudaEventCreate"))
        return set_error(cudaErrorMemoryAllocation);
    if (sticky_error(tls_device) != cudaSuccess)
        return sticky_error(tls_device);
    event *ev = new event;
    ev->device = tls_device;
    ev->flags = flags;
    {
        std::lock_guard<std::mutex> g(registry_mu);
        all_events.insert(ev);
    }
    *out = reinterpret_cast<cudaEvent_t>(ev);
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaEventCreate(cudaEvent_t *out)
{
    return cudaEventCreateWithFlags(out, cudaEventDefault);
}

PDT_EMU_API cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    /* CUDA Runtime API, cudaEventDestroy: destroying a recorded event that
     * has not completed is allowed; waits already enqueued still hold (they
     * captured the stream position, below). */
    event *ev = check_event(e, "cudaEventDestroy");
    std::lock_guard<std::mutex> g(registry_mu);
    all_events.erase(ev);
    ev->magic = 0;
    dead_events.push_back(ev);
    if (dead_events.size() > kDeadKept) {
        delete dead_events.front();
        dead_events.pop_front();
    }
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t handle)
{
    event *ev = check_event(e, "cudaEventRecord");
    stream *s = resolve(handle, "cudaEventRecord");
    /* CUDA C++ Programming Guide, "Stream and Event Behavior":
     * cudaEventRecord() fails if the event and the stream belong to
     * different devices. */
    if (s->device != ev->device)
        return set_error(cudaErrorInvalidResourceHandle);
    if (sticky_error(s->device) != cudaSuccess)
        return sticky_error(s->device);
    uint64_t make_room;
    {
        std::lock_guard<std::mutex> g(s->mu);
        make_room = push(s, "event record", [ev] {
            /* the event may be destroyed before this runs */
            std::lock_guard<std::mutex> r(registry_mu);
            if (all_events.count(ev))
                ev->time_ms = now_ms();
        });
        ev->s = s;
        ev->pos = s->enqueued;
    }
    if (make_room)
        drain_to(s, make_room);
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    event *ev = check_event(e, "cudaEventSynchronize");
    /* CUDA Runtime API: an event never recorded completes at once. */
    if (ev->s != NULL) {
        drain_to(ev->s, ev->pos);
        pools_after_sync(ev->s->device);
        return sticky_error(ev->s->device);
    }
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaEventQuery(cudaEvent_t e)
{
    event *ev = check_event(e, "cudaEventQuery");
    if (ev->s == NULL)
        return cudaSuccess;
    bool done;
    {
        std::lock_guard<std::mutex> g(ev->s->mu);
        done = ev->s->completed >= ev->pos;
    }
    drain_to(ev->s, ev->pos); /* as cudaStreamQuery */
    return done ? cudaSuccess : cudaErrorNotReady;
}

PDT_EMU_API cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    event *a = check_event(start, "cudaEventElapsedTime");
    event *b = check_event(end, "cudaEventElapsedTime");
    if (ms == NULL)
        return set_error(cudaErrorInvalidValue);
    /* CUDA Runtime API, cudaEventElapsedTime: cudaErrorInvalidResourceHandle
     * if either event was created with cudaEventDisableTiming or was never
     * recorded; cudaErrorNotReady if either has not completed. */
    if ((a->flags | b->flags) & cudaEventDisableTiming || a->s == NULL || b->s == NULL)
        return set_error(cudaErrorInvalidResourceHandle);
    for (event *ev : {a, b}) {
        std::lock_guard<std::mutex> g(ev->s->mu);
        if (ev->s->completed < ev->pos)
            return set_error(cudaErrorNotReady);
    }
    *ms = (float)(b->time_ms - a->time_ms);
    return cudaSuccess;
}

PDT_EMU_API cudaError_t cudaStreamWaitEvent(cudaStream_t handle, cudaEvent_t e, unsigned int flags)
{
    stream *s = resolve(handle, "cudaStreamWaitEvent");
    event *ev = check_event(e, "cudaStreamWaitEvent");
    if (flags != 0 && flags != cudaEventWaitDefault)
        return set_error(cudaErrorInvalidValue);
    if (sticky_error(s->device) != cudaSuccess)
        return sticky_error(s->device);
    /* CUDA Runtime API, cudaStreamWaitEvent: waits for the most recent
     * record at the time of the call (none: no wait); the stream and the
     * event may belong to different devices (Programming Guide, "Stream and
     * Event Behavior"). */
    if (ev->s == NULL)
        return cudaSuccess;
    stream *other = ev->s;
    const uint64_t pos = ev->pos;
    if (other == s)
        return cudaSuccess; /* already ordered */
    enqueue(s, "wait for an event", [other, pos] { drain_to(other, pos); });
    return cudaSuccess;
}

} /* extern "C" */
