/* cpu_cache.h - a bounded cache of freed large CPU blocks (Note [CPU block cache]). */
#ifndef PDT_CPU_CACHE_H
#define PDT_CPU_CACHE_H

#include <stddef.h>

/* The size a block of nbytes is allocated with: rounded up to its size class when
 * the cache takes blocks of that size, else nbytes. */
size_t pdt_cpu_cache_class(size_t nbytes);
/* A cached block of exactly `cls` bytes (a class from pdt_cpu_cache_class) freed on
 * CPU device `index`, or NULL. */
void *pdt_cpu_cache_take(int index, size_t cls);
/* Keeps a block of `cls` bytes for reuse on device `index`; returns 0 when the cache
 * does not take it (then the caller frees it). */
int pdt_cpu_cache_give(int index, void *block, size_t cls);
/* Bytes of blocks cached for device `index`. */
size_t pdt_cpu_cache_bytes(int index);
/* Frees every block cached for device `index`. */
void pdt_cpu_cache_empty(int index);
/* Frees a block of the backend's of this size (cpu_backend.c: a huge block
 * from its 2 MiB boundary, Note [block colouring]). */
void pdt_cpu_block_free(void *ptr, size_t size);

#endif /* PDT_CPU_CACHE_H */
