/* pdt_device.c - parsing and printing of device names. */
#include "pdt_device.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "pdt_runtime.h"

static const char *const kind_names[PDT_NUM_KINDS] = {"cpu", "cuda"};

const char *pdt_device_kind_name(int kind)
{
    return kind >= 0 && kind < PDT_NUM_KINDS ? kind_names[kind] : NULL;
}

#define PDT_DEVICE_FORMS                                                                           \
    "expected 'cpu', 'cpu:N', 'cuda' or 'cuda:N' with N >= 0, or TensorFlow's '/GPU:N', "          \
    "'/device:CPU:N' or 'GPU:N'"

/* The kind named by the n characters at s: PyTorch's "cpu" and "cuda", or
 * TensorFlow's "CPU" and "GPU" in any case; -1 for none. */
static int kind_of_name(const char *s, size_t n)
{
    for (int k = 0; k < PDT_NUM_KINDS; k++)
        if (strlen(kind_names[k]) == n && memcmp(s, kind_names[k], n) == 0)
            return k;
    if (n == 3 && strncasecmp(s, "cpu", 3) == 0)
        return PDT_CPU;
    if (n == 3 && strncasecmp(s, "gpu", 3) == 0)
        return PDT_CUDA;
    return -1;
}

/* TensorFlow's device names: "/GPU:0", "/device:CPU:1", "device:GPU:0",
 * "/job:localhost/replica:0/task:0/device:GPU:0".  Moves (s, len) past the
 * prefix to the "GPU:0" part; PyTorch's names pass unchanged. */
static void skip_tensorflow_prefix(const char **s, size_t *len)
{
    const char *p = *s, *end = *s + *len;
    if (*len > 0 && p[0] == '/') {
        const char *slash = p;
        for (const char *q = p; q < end; q++)
            if (*q == '/')
                slash = q;
        p = slash + 1;
    }
    if ((size_t)(end - p) >= 7 && strncasecmp(p, "device:", 7) == 0)
        p += 7;
    *len = (size_t)(end - p);
    *s = p;
}

pdt_status pdt_device_parse(const char *given, size_t given_len, int current_cuda, pdt_device *out)
{
    const char *s = given;
    size_t len = given_len;
    skip_tensorflow_prefix(&s, &len);
    size_t name_len = len;
    const char *colon = memchr(s, ':', len);
    if (colon)
        name_len = (size_t)(colon - s);
    int kind = kind_of_name(s, name_len);
    if (kind < 0)
        return pdt_fail(PDT_ERR_VALUE, "invalid device string '%.*s': unknown device type; %s",
                        (int)(given_len > 64 ? 64 : given_len), given, PDT_DEVICE_FORMS);
    if (!colon) {
        out->kind = kind;
        out->index = kind == PDT_CUDA ? current_cuda : 0;
        return PDT_OK;
    }
    const char *digits = colon + 1;
    size_t ndigits = len - name_len - 1;
    long index = 0;
    if (ndigits == 0 || ndigits > 6)
        goto bad_index;
    for (size_t i = 0; i < ndigits; i++) {
        if (digits[i] < '0' || digits[i] > '9')
            goto bad_index;
        index = index * 10 + (digits[i] - '0');
    }
    if (index >= PDT_MAX_DEVICES)
        return pdt_fail(PDT_ERR_VALUE,
                        "invalid device string '%.*s': index %ld is too large (at most %d)",
                        (int)(given_len > 64 ? 64 : given_len), given, index, PDT_MAX_DEVICES - 1);
    out->kind = kind;
    out->index = (int)index;
    return PDT_OK;
bad_index:
    return pdt_fail(PDT_ERR_VALUE, "invalid device string '%.*s': bad device index; %s",
                    (int)(given_len > 64 ? 64 : given_len), given, PDT_DEVICE_FORMS);
}

const char *pdt_device_str(pdt_device d, char *buf, size_t n)
{
    const char *name = pdt_device_kind_name(d.kind);
    if (!name)
        snprintf(buf, n, "invalid");
    else if (d.kind == PDT_CPU && d.index == 0 && !pdt_cpu_is_split())
        snprintf(buf, n, "cpu");
    else
        snprintf(buf, n, "%s:%d", name, d.index);
    return buf;
}

int pdt_cpu_is_split(void) { return pdt_device_count(PDT_CPU) > 1; }
