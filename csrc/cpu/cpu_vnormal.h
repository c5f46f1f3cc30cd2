/* cpu_vnormal.h - the Box-Muller transform of Philox words, at each dispatch level
 * (included by cpu_vmath.h; Note [CPU dispatch levels] in cpu_simd.h).
 *
 * Note [normal on the CPU]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * Note [Philox layout] (pdt_philox.h) defines z = sqrt(-2 ln u1) cos(2 pi u2) in
 * double, u1 = (lo + 1) 2^-32 in (0, 1], u2 = hi 2^-32 in [0, 1).  With the C
 * library's log and cos per element, randn(1e6) took 12 ms here (NumPy 8.6).  The
 * two functions are evaluated here with branch-free arithmetic the compiler
 * vectorises:
 * - ln u1: u1 = m 2^e with m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact), s = f /
 *   (2 + f), ln m = f - f^2/2 + s (f^2/2 + R(s^2)), R the series of
 *   2 atanh(s) - 2 s (2 z/3 + 2 z^2/5 + ... + 2 z^11/23, z = s^2 <= 0.0295, whose
 *   first omitted term is below 2^-60 of the result), plus e ln 2 in two parts
 *   (ln2_hi has 32 significant bits, so e ln2_hi is exact);
 * - cos x, x = fl(2 pi u2) as in the definition: x - k pi/2 with k the nearest
 *   integer to x 2/pi (k <= 4: pi/2 in a 33-bit part, whose multiple and the
 *   subtraction are exact by Sterbenz's lemma, and a second part), then the Taylor
 *   series of sin or cos on |r| <= pi/4 (to r^19 and r^20: the first omitted terms
 *   are below 2^-60), chosen and signed by k mod 4.
 * No FMA, so every level gives the same bits.  On 400,000 words z was within 3
 * units in the last place of the same formula through the C library's log, cos
 * and sqrt (tests/test_random_kernels.py checks 4 on 20,000), so a float64 randn
 * agrees with the GPU's (CUDA's log and cos) to about 1e-15 relative (the test
 * allows 1e-13), and a float32 one, rounded once from it, differed from the C
 * library's in none of the 400,000.  randn(1e6) float32: 12.4 -> 3.7 ms. */

static inline double VM(ln_unit)(double u) /* u in [2^-32, 1] */
{
    const double ln2_hi = 0x1.62e42fee00000p-1, ln2_lo = 0x1.a39ef35793c76p-33;
    uint64_t b = VM(bits64)(u);
    uint64_t e_bits = b >> 52; /* biased exponent: u is normal */
    double m = VM(from_bits64)((b & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
    /* e as a double without an int64 conversion: (2^52 + e_bits) - (2^52 + 1023) */
    double e = VM(from_bits64)(0x4330000000000000ull | e_bits) - (0x1p52 + 1023.0);
    int big = m > 0x1.6a09e667f3bcdp+0; /* sqrt(2) */
    m = big ? m * 0.5 : m;
    e = big ? e + 1.0 : e;
    double f = m - 1.0, s = f / (2.0 + f), z = s * s;
    double r = 2.0 / 23;
    r = r * z + 2.0 / 21;
    r = r * z + 2.0 / 19;
    r = r * z + 2.0 / 17;
    r = r * z + 2.0 / 15;
    r = r * z + 2.0 / 13;
    r = r * z + 2.0 / 11;
    r = r * z + 2.0 / 9;
    r = r * z + 2.0 / 7;
    r = r * z + 2.0 / 5;
    r = r * z + 2.0 / 3;
    r = r * z;
    double hfsq = 0.5 * f * f;
    return e * ln2_hi + ((f - hfsq) + (s * (hfsq + r) + e * ln2_lo));
}

static inline double VM(cos_turn)(double x) /* x in [0, 2 pi) */
{
    const double pio2_hi = 0x1.921fb54400000p+0, pio2_lo = 0x1.0b4611a626331p-34;
    double t = x * 0x1.45f306dc9c883p-1 + 0x1.8p52; /* x 2/pi rounded to an integer */
    uint64_t q = VM(bits64)(t);
    double k = t - 0x1.8p52;
    double r = (x - k * pio2_hi) - k * pio2_lo, z = r * r;
    /* sin's series from -1/19!, cos's from 1/20!, in z, unfused at every level */
    static const double sc[9] = {-1.0 / 121645100408832000,
                                 1.0 / 355687428096000,
                                 -1.0 / 1307674368000,
                                 1.0 / 6227020800,
                                 -1.0 / 39916800,
                                 1.0 / 362880,
                                 -1.0 / 5040,
                                 1.0 / 120,
                                 -1.0 / 6};
    static const double cc[9] = {1.0 / 2432902008176640000,
                                 -1.0 / 6402373705728000,
                                 1.0 / 20922789888000,
                                 -1.0 / 87178291200,
                                 1.0 / 479001600,
                                 -1.0 / 3628800,
                                 1.0 / 40320,
                                 -1.0 / 720,
                                 1.0 / 24};
    double sn = r + r * z * VM(horner_steps)(z, sc, 9, 0);
    double cs = VM(horner_steps)(z, cc, 9, 0);
    double hz = 0.5 * z, w = 1.0 - hz;
    cs = w + (((1.0 - w) - hz) + z * z * cs);
    /* cos(k pi/2 + r): k mod 4 = 0: cos r, 1: -sin r, 2: -cos r, 3: sin r */
    double v = (q & 1) ? sn : cs;
    return ((q + 1) & 2) ? -v : v;
}

/* z[i] = the standard normal of element i, whose words are w[2 i] (lo) and
 * w[2 i + 1] (hi); n elements.  The square roots go through the level's sqrt row
 * (the instruction: GCC keeps the C library's sqrt, for its errno, in a loop it
 * would otherwise vectorise). */
#define VN_TILE 256
static void VM(normal_words)(const uint32_t *w, int64_t n, double *z)
{
    for (int64_t i0 = 0; i0 < n; i0 += VN_TILE) {
        int64_t m = n - i0 < VN_TILE ? n - i0 : VN_TILE;
        const uint32_t *wt = w + 2 * i0;
        double *zt = z + i0, c[VN_TILE];
        for (int64_t i = 0; i < m; i++) {
            double u1 = ((double)wt[2 * i] + 1.0) * 0x1p-32;
            double u2 = (double)wt[2 * i + 1] * 0x1p-32;
            zt[i] = -2.0 * VM(ln_unit)(u1);
            c[i] = VM(cos_turn)(6.283185307179586476925286766559 * u2);
        }
        VM(sqrt_f64)((char *)zt, (const char *)zt, m);
        for (int64_t i = 0; i < m; i++)
            zt[i] *= c[i];
    }
}
