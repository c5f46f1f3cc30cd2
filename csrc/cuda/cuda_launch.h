/* cuda_launch.h - the one way the CUDA backend launches a kernel.
 *
 *     PDT_LAUNCH((kernel<T>), grid, block, shared_bytes, stream, args...);
 *
 * The kernel goes in its own parentheses (a template-id may hold commas).
 * With nvcc this is `kernel<T><<<grid, block, shared_bytes, stream>>>(args...)`.
 * In the emulated build (PDT_CUDA_EMULATED, csrc/cuda/emulator/README.md) the
 * same source is compiled by the host C++ compiler and the macro becomes a
 * call into the emulator, which checks the launch configuration and every
 * pointer the kernel is given, then queues the grid on the stream.
 *
 * A kernel parameter that is a struct holding device pointers names them in
 * its body, so that the emulated launch checks them too:
 *
 *     struct bin_args { const float *a, *b; float *out; PDT_KERNEL_POINTERS(a, b, out) };
 *
 * PDT_KERNEL_POINTERS expands to nothing with nvcc.  As with <<<>>>, launch
 * errors are read afterwards with cudaGetLastError().
 */
#ifndef PDT_CUDA_LAUNCH_H
#define PDT_CUDA_LAUNCH_H

#define PDT_LAUNCH_UNPAREN_(...) __VA_ARGS__

#ifdef PDT_CUDA_EMULATED
#include "emu_kernel.h" /* pdt_emu_launch, PDT_EMU_KERNEL_POINTERS */
#define PDT_LAUNCH(kernel, grid, block, shared_bytes, stream, ...)                                 \
    pdt_emu_launch(#kernel, PDT_LAUNCH_UNPAREN_ kernel, grid, block, shared_bytes, stream,         \
                   ##__VA_ARGS__)
#define PDT_KERNEL_POINTERS(...) PDT_EMU_KERNEL_POINTERS(__VA_ARGS__)
#else
#define PDT_LAUNCH(kernel, grid, block, shared_bytes, stream, ...)                                 \
    PDT_LAUNCH_UNPAREN_ kernel<<<grid, block, shared_bytes, stream>>>(__VA_ARGS__)
#define PDT_KERNEL_POINTERS(...)
#endif

#endif /* PDT_CUDA_LAUNCH_H */
