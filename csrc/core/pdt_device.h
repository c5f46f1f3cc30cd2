/* pdt_device.h - a device is a (kind, index) pair, with a small parser.
 *
 * Accepted strings: "cpu", "cpu:N", "cuda", "cuda:N" (N a non-negative decimal
 * integer), and TensorFlow's names for the same devices: "/GPU:N", "GPU:N",
 * "/device:CPU:N", "/job:localhost/replica:0/task:0/device:GPU:N" (CPU and GPU
 * in any case).  "cuda" alone resolves to the calling thread's current CUDA device,
 * so device("cuda") == device("cuda:0") by default; see Note [cuda means current]
 * in README.md's device section.
 */
#ifndef PDT_DEVICE_H
#define PDT_DEVICE_H

#include <stddef.h>

#include "pdt_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pdt_device_kind {
    PDT_CPU = 0,
    PDT_CUDA = 1,
} pdt_device_kind;
#define PDT_NUM_KINDS 2
#define PDT_MAX_DEVICES 64 /* per kind */

typedef struct pdt_device {
    int kind;  /* pdt_device_kind */
    int index; /* >= 0 */
} pdt_device;

/* Parses s (length len) into out.  "cuda" takes the index current_cuda. */
pdt_status pdt_device_parse(const char *s, size_t len, int current_cuda, pdt_device *out);
/* "cpu" for cpu:0, else "cpu:N" / "cuda:N"; "cpu:0" once the CPU is split
 * into logical devices (so that two devices never print alike).  Returns buf. */
const char *pdt_device_str(pdt_device d, char *buf, size_t n);
const char *pdt_device_kind_name(int kind); /* "cpu", "cuda" or NULL */
/* 1 when the CPU is split into several logical devices (cpu:0, cpu:1, ...). */
int pdt_cpu_is_split(void);
static inline int pdt_device_eq(pdt_device a, pdt_device b)
{
    return a.kind == b.kind && a.index == b.index;
}

#ifdef __cplusplus
}
#endif
#endif /* PDT_DEVICE_H */
