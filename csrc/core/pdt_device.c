/* pdt_device.c - parsing and printing of device names. */
#include "pdt_device.h"

#include <stdio.h>
#include <string.h>

static const char *const kind_names[PDT_NUM_KINDS] = {"cpu", "cuda"};

const char *pdt_device_kind_name(int kind)
{
    return kind >= 0 && kind < PDT_NUM_KINDS ? kind_names[kind] : NULL;
}

#define PDT_DEVICE_FORMS "expected 'cpu', 'cpu:N', 'cuda' or 'cuda:N' with N >= 0"

pdt_status pdt_device_parse(const char *s, size_t len, int current_cuda, pdt_device *out)
{
    size_t name_len = len;
    const char *colon = memchr(s, ':', len);
    if (colon)
        name_len = (size_t)(colon - s);
    int kind = -1;
    for (int k = 0; k < PDT_NUM_KINDS; k++) {
        if (strlen(kind_names[k]) == name_len && memcmp(s, kind_names[k], name_len) == 0)
            kind = k;
    }
    if (kind < 0)
        return pdt_fail(PDT_ERR_VALUE, "invalid device string '%.*s': unknown device type; %s",
                        (int)(len > 64 ? 64 : len), s, PDT_DEVICE_FORMS);
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
                        (int)(len > 64 ? 64 : len), s, index, PDT_MAX_DEVICES - 1);
    out->kind = kind;
    out->index = (int)index;
    return PDT_OK;
bad_index:
    return pdt_fail(PDT_ERR_VALUE, "invalid device string '%.*s': bad device index; %s",
                    (int)(len > 64 ? 64 : len), s, PDT_DEVICE_FORMS);
}

const char *pdt_device_str(pdt_device d, char *buf, size_t n)
{
    const char *name = pdt_device_kind_name(d.kind);
    if (!name)
        snprintf(buf, n, "invalid");
    else if (d.kind == PDT_CPU && d.index == 0)
        snprintf(buf, n, "cpu");
    else
        snprintf(buf, n, "%s:%d", name, d.index);
    return buf;
}
