/* pdt_hd.h - PDT_HD, the qualifier of the small functions written once for the C
 * compiler and nvcc (pdt_philox.h, pdt_convert.h, pdt_gamma.h): host and device
 * under nvcc, static inline in C. */
#ifndef PDT_HD_H
#define PDT_HD_H

#ifndef PDT_HD
#ifdef __CUDACC__
#define PDT_HD __host__ __device__ __forceinline__
#else
#define PDT_HD static inline
#endif
#endif

#endif /* PDT_HD_H */
