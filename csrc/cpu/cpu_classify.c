/* cpu_classify.c - isnan, isinf, isfinite and signbit of contiguous floats on the CPU,
 * from the bits, in one pass into the bool output: the rows through the level's kernels
 * (cpu_vclassify.h), split across the pool.  (Composed, isfinite was (x - x) == 0
 * and isinf |x| == inf, two passes each: 1e6 float32 isfinite 73 us against
 * NumPy's 62.)  In a loop the pool's hot grain splits mid-sized rows too (Note [the hot
 * grain] in cpu_parallel.c): 1e5 float32 isnan on one thread 9.5 us, NumPy's 8.3. */
#include <stdint.h>

#include "cpu_kernels.h"
#include "cpu_parallel.h"
#include "cpu_simd.h"

#define CLASSIFY_GRAIN 65536 /* elements a thread takes at least */

typedef struct classify_job {
    const char *x;
    uint8_t *out;
    pdt_dtype dtype;
    int which;
} classify_job;

static void classify_range(int64_t begin, int64_t end, void *ctx)
{
    const classify_job *j = ctx;
    const int64_t es = (int64_t)pdt_dtype_size(j->dtype);
    pdt_cpu_simd()->classify(j->out + begin, j->x + begin * es, end - begin, (int)j->dtype,
                             j->which);
}

pdt_status pdt_cpu_classify(const pdt_tensor *out, const pdt_tensor *x, int which)
{
    if (!pdt_dtype_is_floating(x->dtype))
        return pdt_fail(PDT_ERR_UNSUPPORTED, "classify: %s is not a floating dtype",
                        pdt_dtype_name(x->dtype));
    classify_job j = {pdt_tensor_ptr(x), (uint8_t *)pdt_tensor_ptr(out), x->dtype, which};
    pdt_cpu_parallel_for_hot(pdt_tensor_numel(x), CLASSIFY_GRAIN, PDT_CPU_GRAIN_HOT, classify_range,
                             &j);
    return PDT_OK;
}
