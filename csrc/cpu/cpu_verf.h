/* cpu_verf.h - float32 erf and erfc over rows (included by cpu_vmath.h, once per
 * instruction-set level).
 *
 * Note [float32 erf and erfc]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * At every level, for now, the float64 function of the C library rounded once to
 * float32, one element at a time: glibc's erf and erfc are within 1 ulp in double, so
 *  the float32 result is the correctly rounded one but within 2^-51 relative of a
 * rounding boundary, at most 1 ulp (glibc's erfcf alone was 2.33 ulp off at 4.2557,
 * measured).  tests/test_erf.py measures it against math.erf and math.erfc on every
 * float32 exponent, at every level.  CUDA uses its own erff and erfcf (2 and 4 ulp by
 * the CUDA Math API), so the two devices agree within 3 and 5 ulp (tests/test_erf.py). */

static void VM(erf_row)(float *o, const float *a, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        o[i] = (float)erf((double)a[i]);
}

static void VM(erfc_row)(float *o, const float *a, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        o[i] = (float)erfc((double)a[i]);
}
