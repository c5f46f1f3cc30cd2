/* pdt_status.h - status codes and the calling thread's last error message.
 *
 * Every function below csrc/python returns a pdt_status.  On failure it records a
 * message with pdt_fail() that names the problem, the device and the sizes; the
 * bindings (csrc/python/errors.c) turn the code into the matching Python exception
 * and use the message as its text.  Nothing below csrc/python prints, exits or
 * touches Python.
 */
#ifndef PDT_STATUS_H
#define PDT_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pdt_status {
    PDT_OK = 0,              /* success                                              */
    PDT_ERR_VALUE = 1,       /* an argument has a bad value          -> ValueError    */
    PDT_ERR_TYPE = 2,        /* an argument has a bad type or dtype  -> TypeError     */
    PDT_ERR_INDEX = 3,       /* an index or dim is out of range      -> IndexError    */
    PDT_ERR_DEVICE = 4,      /* unknown, unavailable or mixed device -> RuntimeError  */
    PDT_ERR_OOM = 5,         /* device full or memory limit hit  -> OutOfMemoryError  */
    PDT_ERR_BACKEND = 6,     /* CUDA, cuBLAS or BLAS failure         -> RuntimeError  */
    PDT_ERR_TRANSFER = 7,    /* a transfer the guard forbids        -> TransferError  */
    PDT_ERR_UNSUPPORTED = 8, /* not implemented for this dtype or device
                                                                -> NotImplementedError */
} pdt_status;

/* Records a printf-style message for the calling thread and returns code. */
pdt_status pdt_fail(pdt_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The calling thread's last message recorded by pdt_fail(), or "" if none. */
const char *pdt_last_error(void);

/* Formats a byte count as "1.50 GiB", "12.0 KiB", "7 bytes" into buf. */
const char *pdt_format_bytes(unsigned long long nbytes, char *buf, unsigned long n);

#ifdef __cplusplus
}
#endif
#endif /* PDT_STATUS_H */
