/* pdt_status.c - the thread-local last error message behind pdt_fail(). */
#include "pdt_status.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char pdt_error_message[1024];

pdt_status pdt_fail(pdt_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pdt_error_message, sizeof pdt_error_message, fmt, ap);
    va_end(ap);
    return code;
}

const char *pdt_last_error(void) { return pdt_error_message; }

const char *pdt_format_bytes(unsigned long long nbytes, char *buf, unsigned long n)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    if (nbytes < 1024) {
        snprintf(buf, n, "%llu bytes", nbytes);
        return buf;
    }
    double v = (double)nbytes / 1024.0;
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, n, "%.2f %s", v, units[u]);
    return buf;
}
