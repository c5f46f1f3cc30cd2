/* cpu_vstream.h - copies of a block with non-temporal stores, included by
 * cpu_vmath.h once per level (cpu_stream.c uses them; Note [streamed outputs]). */

/* dst[0 .. n) = src[0 .. n): dst 64-byte aligned, n a multiple of 64, stores that
 * bypass the caches (and so do not read the line first); the caller fences. */
static void VM(stream_copy)(char *dst, const char *src, int64_t n)
{
#if PDT_SIMD_BYTES == 64 && defined(__AVX512F__)
    for (int64_t i = 0; i < n; i += 64)
        _mm512_stream_si512((void *)(dst + i), _mm512_loadu_si512((const void *)(src + i)));
#elif PDT_SIMD_BYTES == 32 && defined(__AVX2__)
    for (int64_t i = 0; i < n; i += 32)
        _mm256_stream_si256((__m256i *)(dst + i), _mm256_loadu_si256((const __m256i *)(src + i)));
#elif defined(__SSE2__)
    for (int64_t i = 0; i < n; i += 16)
        _mm_stream_si128((__m128i *)(dst + i), _mm_loadu_si128((const __m128i *)(src + i)));
#else
    memcpy(dst, src, (size_t)n);
#endif
}

/* Orders the streamed stores before whatever follows (the pool's completion). */
static void VM(stream_fence)(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}
