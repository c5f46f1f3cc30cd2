/* emu_fiber.cpp - the emulated device's execution of a grid (emu.h run_grid):
 * every CUDA thread of a block runs on its own fiber, so that __syncthreads,
 * __syncwarp and the warp shuffles and votes (emu_kernel.h) really block and
 * exchange values, and a barrier or shuffle that CUDA forbids is named.
 *
 * Blocks run one after another on the calling OS thread.  A block's scheduler
 * runs its fibers in thread order (linear id x + y*bx + z*bx*by; reversed under
 * Note [the order of blocks and threads]), each until
 * it blocks or finishes, and repeats until every thread has finished; a
 * thread that finishes hands its stack to the next one, so a kernel without
 * barriers uses one stack.  Stacks are mmap'd with a guard page below them and
 * cached per OS thread.  Fibers never migrate between OS threads, so the
 * current CUDA thread's coordinates are a thread-local pointer.
 *
 * On x86-64 a fiber switch is a few instructions (pdt_emu_fiber_switch below:
 * callee-saved registers, the stack pointer, MXCSR and the x87 control word);
 * elsewhere ucontext (swapcontext, which also saves the signal mask with a
 * system call per switch).
 */
#include "emu_kernel.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <string>
#include <vector>

#if !defined(__x86_64__) || defined(PDT_EMU_FORCE_UCONTEXT)
#include <ucontext.h>
#define PDT_EMU_UCONTEXT 1
#endif

namespace pdt_emu {

__thread const coords *tls_coords = nullptr;

namespace {

/* ------------------------------------------------------------ switching */

#ifndef PDT_EMU_UCONTEXT
/* Saves the callee-saved state on the current stack, stores the stack
 * pointer in *save, switches to the stack `to` and restores its state. */
extern "C" void pdt_emu_fiber_switch(void **save, void *to) __attribute__((visibility("hidden")));
asm(R"(
    .text
    .p2align 4
    .globl pdt_emu_fiber_switch
    .hidden pdt_emu_fiber_switch
    .type pdt_emu_fiber_switch, @function
pdt_emu_fiber_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size pdt_emu_fiber_switch, .-pdt_emu_fiber_switch
)");
#endif

constexpr size_t kStackSize = 256 * 1024; /* usable bytes per fiber */
constexpr size_t kGuard = 4096;           /* PROT_NONE below each stack */

enum fiber_state : unsigned char { NEW, READY, WAIT_BAR, WAIT_WARP, DONE };

struct fiber {
    coords c;
    unsigned tid, lane, warp;
    fiber_state st;
    char *stack; /* the stack's mapping (guard page first), null until started */
#ifdef PDT_EMU_UCONTEXT
    ucontext_t uc;
#else
    void *sp;
#endif
    /* where it waits: __syncthreads or a warp collective */
    const char *file;
    int line;
    warp_op_kind op;
    unsigned mask, size;
    int arg, width;
    uint64_t value, result;
};

/* One OS thread's scheduler: the block it is running and its spare stacks. */
struct scheduler {
    const char *kernel = nullptr;
    const std::function<void()> *body = nullptr;
    std::vector<fiber> fibers;
    std::vector<uint32_t> arrived; /* per warp: lanes waiting at a warp collective */
    std::vector<uint32_t> exited;  /* per warp: lanes that have finished */
    unsigned n = 0, done = 0, bar_waiting = 0;
    int first_exited = -1, first_bar = -1; /* thread ids, for messages */
    fiber *current = nullptr;
#ifdef PDT_EMU_UCONTEXT
    ucontext_t main_uc;
#else
    void *main_sp = nullptr;
#endif
    std::vector<char *> spare; /* stacks of finished threads */

    ~scheduler()
    {
        for (char *s : spare)
            munmap(s, kStackSize + kGuard);
    }
};

thread_local scheduler tls_sched;

char *get_stack(scheduler &s)
{
    if (!s.spare.empty()) {
        char *p = s.spare.back();
        s.spare.pop_back();
        return p;
    }
    void *p = mmap(nullptr, kStackSize + kGuard, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        violation("run_grid", "emulator resources", "cannot map a %zu-byte fiber stack for %s",
                  kStackSize, s.kernel);
    if (mprotect(p, kGuard, PROT_NONE) != 0) /* an overflow faults instead of corrupting */
        violation("run_grid", "emulator resources", "cannot protect a fiber stack's guard page");
    return (char *)p;
}

/* "kernel K, block (x,y,z), thread (x,y,z)" */
std::string where(const scheduler &s, const fiber &f)
{
    char buf[256];
    snprintf(buf, sizeof buf, "kernel %s, block (%u,%u,%u), thread (%u,%u,%u)", s.kernel,
             f.c.block_idx.x, f.c.block_idx.y, f.c.block_idx.z, f.c.thread_idx.x, f.c.thread_idx.y,
             f.c.thread_idx.z);
    return buf;
}

std::string thread_name(const fiber &f)
{
    char buf[64];
    snprintf(buf, sizeof buf, "thread (%u,%u,%u)", f.c.thread_idx.x, f.c.thread_idx.y,
             f.c.thread_idx.z);
    return buf;
}

const char *op_name(warp_op_kind op)
{
    switch (op) {
    case WARP_SYNC: return "__syncwarp";
    case WARP_SHFL_IDX: return "__shfl_sync";
    case WARP_SHFL_UP: return "__shfl_up_sync";
    case WARP_SHFL_DOWN: return "__shfl_down_sync";
    case WARP_SHFL_XOR: return "__shfl_xor_sync";
    case WARP_BALLOT: return "__ballot_sync";
    case WARP_ANY: return "__any_sync";
    case WARP_ALL: return "__all_sync";
    }
    return "?";
}

const char *kRuleSync =
    "CUDA C++ Programming Guide, \"Synchronization Functions\": __syncthreads() "
    "must be reached by every thread of the block, at the same __syncthreads()";
const char *kRuleShfl = "CUDA C++ Programming Guide, \"Warp Shuffle Functions\" and \"Warp Vote "
                        "Functions\": each calling thread must have its own bit set in mask, and "
                        "all non-exited threads named in mask must execute the same intrinsic "
                        "with the same mask";
const char *kRuleSyncwarp = "CUDA C++ Programming Guide, \"Synchronization Functions\", "
                            "__syncwarp(): each calling thread must have its own bit set in mask, "
                            "and all non-exited threads named in mask must execute a __syncwarp() "
                            "with the same mask";

const char *rule_for(warp_op_kind op) { return op == WARP_SYNC ? kRuleSyncwarp : kRuleShfl; }

scheduler &in_kernel(const char *call)
{
    scheduler &s = tls_sched;
    if (!s.current)
        violation(call, "CUDA C++ Programming Guide: device functions run only in a kernel",
                  "called outside a kernel");
    return s;
}

/* Back to the scheduler (the fiber has blocked or finished). */
void yield_to_scheduler(scheduler &s, fiber &f)
{
#ifdef PDT_EMU_UCONTEXT
    swapcontext(&f.uc, &s.main_uc);
#else
    pdt_emu_fiber_switch(&f.sp, s.main_sp);
#endif
}

/* A thread is exiting: the rules on threads that others wait for. */
void check_exit(scheduler &s, fiber &f)
{
    /* Synchronization Functions: a thread that exits never reaches the
     * barrier the others wait at. */
    if (s.bar_waiting > 0) {
        const fiber &w = s.fibers[s.first_bar];
        violation("__syncthreads", kRuleSync,
                  "%s exited while %u thread(s) of its block wait at __syncthreads() at %s:%d "
                  "(first: %s)",
                  where(s, f).c_str(), s.bar_waiting, w.file, w.line, thread_name(w).c_str());
    }
    uint32_t waiting = s.arrived[f.warp];
    for (unsigned l = 0; waiting && l < 32; l++) {
        if (!(waiting >> l & 1))
            continue;
        const fiber &w = s.fibers[f.warp * 32 + l];
        if (w.mask >> f.lane & 1)
            violation(op_name(w.op), rule_for(w.op),
                      "%s exited while lane %u (%s) waits for it in %s at %s:%d",
                      where(s, f).c_str(), l, thread_name(w).c_str(), op_name(w.op), w.file,
                      w.line);
    }
}

void fiber_main()
{
    scheduler &s = tls_sched;
    fiber &f = *s.current;
    (*s.body)();
    check_exit(s, f);
    f.st = DONE;
    s.done++;
    s.exited[f.warp] |= 1u << f.lane;
    if (s.first_exited < 0)
        s.first_exited = (int)f.tid;
    yield_to_scheduler(s, f);
    abort(); /* a finished fiber is never resumed */
}

#ifdef PDT_EMU_UCONTEXT
void fiber_entry_uc() { fiber_main(); }
#else
extern "C" void pdt_emu_fiber_entry() { fiber_main(); }
#endif

/* Runs f until it blocks or finishes. */
void resume(scheduler &s, fiber &f)
{
    if (f.st == NEW) {
        f.stack = get_stack(s);
#ifdef PDT_EMU_UCONTEXT
        getcontext(&f.uc);
        f.uc.uc_stack.ss_sp = f.stack + kGuard;
        f.uc.uc_stack.ss_size = kStackSize;
        f.uc.uc_link = nullptr;
        makecontext(&f.uc, fiber_entry_uc, 0);
#else
        /* The frame pdt_emu_fiber_switch pops: MXCSR and x87 control word,
         * six registers, then "returns" into the entry, which sees the
         * stack as a call would leave it (rsp + 8 aligned to 16). */
        char *top = f.stack + kGuard + kStackSize;
        void **sp = (void **)((uintptr_t)top & ~(uintptr_t)15);
        *--sp = nullptr;                      /* the entry's return address */
        *--sp = (void *)&pdt_emu_fiber_entry; /* popped by ret */
        for (int r = 0; r < 6; r++)
            *--sp = nullptr; /* rbp rbx r12-r15 */
        --sp;
        uint32_t mxcsr;
        uint16_t fpucw;
        asm volatile("stmxcsr %0" : "=m"(mxcsr));
        asm volatile("fnstcw %0" : "=m"(fpucw));
        memcpy(sp, &mxcsr, 4);
        memcpy((char *)sp + 4, &fpucw, 2);
        f.sp = sp;
#endif
    }
    f.st = READY;
    s.current = &f;
    tls_coords = &f.c;
#ifdef PDT_EMU_UCONTEXT
    swapcontext(&s.main_uc, &f.uc);
#else
    pdt_emu_fiber_switch(&s.main_sp, f.sp);
#endif
    s.current = nullptr;
    tls_coords = nullptr;
    if (f.st == DONE) {
        s.spare.push_back(f.stack); /* the next thread runs on it */
        f.stack = nullptr;
    }
}

/* Every unfinished thread is blocked and the barrier cannot complete: name
 * the reason (a warp collective waiting for a lane that waits elsewhere). */
[[noreturn]] void deadlock(scheduler &s)
{
    for (fiber &f : s.fibers) {
        if (f.st != WAIT_WARP)
            continue;
        for (unsigned l = 0; l < 32; l++) {
            if (!(f.mask >> l & 1))
                continue;
            const fiber &g = s.fibers[f.warp * 32 + l];
            if (g.st == WAIT_BAR)
                violation(op_name(f.op), rule_for(f.op),
                          "%s waits in %s at %s:%d for lane %u (%s), which waits at "
                          "__syncthreads() at %s:%d",
                          where(s, f).c_str(), op_name(f.op), f.file, f.line, l,
                          thread_name(g).c_str(), g.file, g.line);
            if (g.st == WAIT_WARP && (g.op != f.op || g.mask != f.mask))
                violation(op_name(f.op), rule_for(f.op),
                          "%s waits in %s (mask 0x%08x) at %s:%d for lane %u (%s), which waits "
                          "in %s (mask 0x%08x) at %s:%d",
                          where(s, f).c_str(), op_name(f.op), f.mask, f.file, f.line, l,
                          thread_name(g).c_str(), op_name(g.op), g.mask, g.file, g.line);
        }
    }
    const fiber *w = nullptr;
    for (fiber &f : s.fibers)
        if (f.st == WAIT_BAR || f.st == WAIT_WARP) {
            w = &f;
            break;
        }
    assert(w);
    violation("run_grid", kRuleSync,
              "deadlock: every unfinished thread of the block is blocked (%u done, %u at "
              "__syncthreads); first blocked: %s at %s:%d",
              s.done, s.bar_waiting, where(s, *w).c_str(), w->file, w->line);
}

void run_block(scheduler &s, uint3 bidx, dim3 grid, dim3 block)
{
    const unsigned n = s.n;
    for (unsigned t = 0; t < n; t++) {
        fiber &f = s.fibers[t];
        f.c.thread_idx = make_uint3(t % block.x, t / block.x % block.y, t / (block.x * block.y));
        f.c.block_idx = bidx;
        f.c.block_dim = block;
        f.c.grid_dim = grid;
        f.tid = t;
        f.lane = t & 31;
        f.warp = t >> 5;
        f.st = NEW;
        f.stack = nullptr;
        f.file = nullptr;
        f.line = 0;
    }
    for (uint32_t &a : s.arrived)
        a = 0;
    for (uint32_t &e : s.exited)
        e = 0;
    s.done = 0;
    s.bar_waiting = 0;
    s.first_exited = -1;
    s.first_bar = -1;
    const bool reverse = reverse_order();
    for (;;) {
        bool ran = false;
        for (unsigned k = 0; k < n; k++) {
            fiber &f = s.fibers[reverse ? n - 1 - k : k];
            if (f.st == NEW || f.st == READY) {
                resume(s, f);
                ran = true;
            }
        }
        if (s.done == n)
            return;
        if (s.bar_waiting == n - s.done) {
            /* every unfinished thread waits at the same barrier (checked as
             * they arrived, and no thread has exited): release them all */
            for (fiber &f : s.fibers)
                if (f.st == WAIT_BAR)
                    f.st = READY;
            s.bar_waiting = 0;
            s.first_bar = -1;
            continue;
        }
        if (!ran)
            deadlock(s);
    }
}

/* The lane a shuffle reads (PTX ISA, "shfl.sync", with the c operand CUDA's
 * __shfl*_sync pass for `width`), or `lane` itself when out of its segment. */
unsigned shfl_source(warp_op_kind op, unsigned lane, int arg, unsigned width)
{
    const unsigned base = lane & ~(width - 1), b = (unsigned)arg & 31;
    switch (op) {
    case WARP_SHFL_IDX: return base | ((unsigned)arg & (width - 1));
    case WARP_SHFL_UP: return lane - b >= base && b <= lane ? lane - b : lane;
    case WARP_SHFL_DOWN: return lane + b <= base + width - 1 ? lane + b : lane;
    case WARP_SHFL_XOR: return (lane ^ b) <= base + width - 1 ? lane ^ b : lane;
    default: return lane;
    }
}

} // namespace

/* ------------------------------------------------------------- run_grid */

void run_grid(const char *name, dim3 grid, dim3 block, size_t dynamic_shared,
              const std::function<void()> &thread_body)
{
    (void)dynamic_shared; /* extern __shared__ is not used by the backend */
    scheduler &s = tls_sched;
    /* check_launch_config validated these; a kernel cannot launch a kernel */
    const uint64_t nthreads = (uint64_t)block.x * block.y * block.z;
    if (nthreads == 0 || nthreads > 1024 || grid.x == 0 || grid.y == 0 || grid.z == 0)
        violation("run_grid",
                  "CUDA C++ Programming Guide, \"Technical Specifications per Compute "
                  "Capability\"",
                  "kernel %s: grid (%u,%u,%u), block (%u,%u,%u) outside the limits", name, grid.x,
                  grid.y, grid.z, block.x, block.y, block.z);
    if (s.kernel)
        violation("run_grid", "emulator", "kernel %s started while kernel %s runs on this thread",
                  name, s.kernel);
    s.kernel = name;
    s.body = &thread_body;
    s.n = (unsigned)nthreads;
    if (s.fibers.size() < s.n)
        s.fibers.resize(s.n);
    s.arrived.assign((s.n + 31) / 32, 0);
    s.exited.assign((s.n + 31) / 32, 0);
    /* Note [the order of blocks and threads]: CUDA promises no order between the
     * blocks of a grid, nor between threads outside a barrier or a warp-synchronous
     * call (CUDA C++ Programming Guide, "Thread Hierarchy": "Thread blocks are
     * required to execute independently ... in any order").  The emulator runs them in
     * order, where a kernel whose result depends on the order (two threads writing
     * one element, float atomics summed in a different order) always gives the
     * sequential answer.  PYDEVTENSOR_EMULATED_REVERSE_ORDER=1 runs the grid last
     * block first and each block last thread first, so that such a kernel gives a
     * different answer there and its test fails, as it could on a real GPU. */
    const bool reverse = reverse_order();
    const uint64_t nblocks = (uint64_t)grid.x * grid.y * grid.z;
    for (uint64_t k = 0; k < nblocks; k++) {
        const uint64_t b = reverse ? nblocks - 1 - k : k;
        run_block(s,
                  make_uint3((unsigned)(b % grid.x), (unsigned)(b / grid.x % grid.y),
                             (unsigned)(b / ((uint64_t)grid.x * grid.y))),
                  grid, block);
    }
    s.kernel = nullptr;
    s.body = nullptr;
}

/* ------------------------------------------------------- __syncthreads */

void syncthreads(const char *file, int line)
{
    scheduler &s = in_kernel("__syncthreads");
    fiber &f = *s.current;
    /* Synchronization Functions: every thread of the block must reach it. */
    if (s.first_exited >= 0)
        violation("__syncthreads", kRuleSync,
                  "%s waits at __syncthreads() at %s:%d, but %s of its block has exited",
                  where(s, f).c_str(), file, line, thread_name(s.fibers[s.first_exited]).c_str());
    /* ... and the same __syncthreads (no divergent barriers) */
    if (s.bar_waiting > 0) {
        const fiber &w = s.fibers[s.first_bar];
        if (w.line != line || strcmp(w.file, file) != 0)
            violation("__syncthreads", kRuleSync,
                      "%s waits at __syncthreads() at %s:%d while %s waits at the one at %s:%d",
                      where(s, f).c_str(), file, line, thread_name(w).c_str(), w.file, w.line);
    } else {
        s.first_bar = (int)f.tid;
    }
    f.file = file;
    f.line = line;
    f.st = WAIT_BAR;
    s.bar_waiting++;
    yield_to_scheduler(s, f);
}

/* -------------------------------------------------- warp collectives */

uint64_t warp_collective(warp_op_kind op, unsigned mask, uint64_t value, unsigned size, int arg,
                         int width, const char *file, int line)
{
    scheduler &s = in_kernel(op_name(op));
    fiber &f = *s.current;
    const char *rule = rule_for(op);
    if (!(mask >> f.lane & 1))
        violation(op_name(op), rule,
                  "%s calls %s at %s:%d with mask 0x%08x, without its own lane %u",
                  where(s, f).c_str(), op_name(op), file, line, mask, f.lane);
    if (op >= WARP_SHFL_IDX && op <= WARP_SHFL_XOR &&
        (width < 1 || width > 32 || (width & (width - 1))))
        violation(op_name(op),
                  "CUDA C++ Programming Guide, \"Warp Shuffle Functions\": width must "
                  "be a power of 2 no greater than warpSize",
                  "%s calls %s at %s:%d with width %d", where(s, f).c_str(), op_name(op), file,
                  line, width);
    /* warp = 32 consecutive linear thread ids; the last warp may be short */
    const unsigned base = f.warp * 32, lanes = s.n - base < 32 ? s.n - base : 32;
    const uint32_t exists = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
    if (mask & ~exists)
        violation(op_name(op), rule,
                  "%s calls %s at %s:%d with mask 0x%08x, which names lanes the block does not "
                  "have (its warp has %u)",
                  where(s, f).c_str(), op_name(op), file, line, mask, lanes);
    if (const uint32_t gone = mask & s.exited[f.warp]) {
        const unsigned l = (unsigned)__builtin_ctz(gone);
        violation(op_name(op), rule,
                  "%s calls %s at %s:%d with mask 0x%08x, but lane %u (%s) has exited",
                  where(s, f).c_str(), op_name(op), file, line, mask, l,
                  thread_name(s.fibers[base + l]).c_str());
    }
    /* deposit this lane's value */
    f.op = op;
    f.mask = mask;
    f.size = size;
    f.arg = arg;
    f.width = width;
    f.value = value;
    f.file = file;
    f.line = line;
    s.arrived[f.warp] |= 1u << f.lane;
    if ((s.arrived[f.warp] & mask) != mask) {
        f.st = WAIT_WARP;
        yield_to_scheduler(s, f); /* the last lane to arrive completes it */
        return f.result;
    }
    /* Every lane of mask is here: the same intrinsic with the same mask? */
    uint32_t votes = 0;
    for (unsigned l = 0; l < 32; l++) {
        if (!(mask >> l & 1))
            continue;
        const fiber &g = s.fibers[base + l];
        if (g.op != op || g.mask != mask || g.size != size)
            violation(op_name(op), rule,
                      "%s calls %s (mask 0x%08x, %u bytes) at %s:%d while lane %u (%s) waits in "
                      "%s (mask 0x%08x, %u bytes) at %s:%d",
                      where(s, f).c_str(), op_name(op), mask, size, file, line, l,
                      thread_name(g).c_str(), op_name(g.op), g.mask, g.size, g.file, g.line);
        if (g.value)
            votes |= 1u << l;
    }
    /* ... and no lane waiting elsewhere names these lanes in its mask */
    for (uint32_t others = s.arrived[f.warp] & ~mask; others; others &= others - 1) {
        const unsigned l = (unsigned)__builtin_ctz(others);
        const fiber &g = s.fibers[base + l];
        if (g.mask & mask)
            violation(op_name(op), rule,
                      "%s calls %s (mask 0x%08x) at %s:%d while lane %u (%s), outside that mask, "
                      "waits in %s with mask 0x%08x at %s:%d, which names lanes of it",
                      where(s, f).c_str(), op_name(op), mask, file, line, l, thread_name(g).c_str(),
                      op_name(g.op), g.mask, g.file, g.line);
    }
    /* Read every lane's result from the deposited values, then release the
     * slots (this is the second rendezvous: nobody deposits again before
     * the results are taken). */
    for (unsigned l = 0; l < 32; l++) {
        if (!(mask >> l & 1))
            continue;
        fiber &g = s.fibers[base + l];
        switch (op) {
        case WARP_SYNC: g.result = 0; break;
        case WARP_BALLOT: g.result = votes; break;
        case WARP_ANY: g.result = votes != 0; break;
        case WARP_ALL: g.result = votes == mask; break;
        default: {
            const unsigned src = shfl_source(op, l, g.arg, (unsigned)g.width);
            /* Warp Shuffle Functions: reading a lane outside mask (inactive)
             * gives an undefined value: a poison pattern here. */
            g.result = mask >> src & 1 ? s.fibers[base + src].value : 0xdeadbeefdeadbeefull;
            if (size == 4)
                g.result &= 0xffffffffull;
        }
        }
        if (&g != &f)
            g.st = READY;
    }
    s.arrived[f.warp] &= ~mask;
    return f.result;
}

void trap(const char *what, const char *file, int line)
{
    scheduler &s = tls_sched;
    if (s.current)
        violation(what, "CUDA C++ Programming Guide, \"Trap Function\"", "%s called %s at %s:%d",
                  where(s, *s.current).c_str(), what, file, line);
    violation(what, "CUDA C++ Programming Guide, \"Trap Function\"", "%s at %s:%d", what, file,
              line);
}

} // namespace pdt_emu
