/* cpu_sort_packed.c - short rows sorted as 64-bit packed keys, each a sort key above
 * its element's index: cpu_sort.c's rows shorter than its radix sort's, and
 * cpu_select.c's short rows.
 *
 * Note [short rows as packed keys]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A row shorter than cpu_sort.c's RADIX_MIN whose keys fit in 32 bits (float32 and
 * int32, and so the dtypes computed in them; int64 whose range fits, Note [integer keys
 * from the row's range]) becomes one 64-bit integer an element, the key above the
 * element's index: no two are equal, so any sort of them gives the stable order, and
 * each comparison is one integer compare with no branch on the data.  Rows of 64-bit
 * keys (float64; int64 of a wider range) pack into 128 bits the same way.  Runs of
 * PACK_RUN are sorted by a sorting network (rows of PACK_SHORT or fewer by insertion),
 * then merged bottom-up, the side taken by a conditional move, two halves of one length
 * from both ends at once.  The low halves are the indices, and the values are gathered
 * by them, as the radix sort's.  It was a merge sort whose every step branched on a
 * comparison of the values (kept for a radix sort whose buffer is refused).  Float32
 * rows, two threads, against NumPy's argsort (unstable; stable) on an AMD EPYC (Zen 4):
 * 1,000 rows of 100 1.79 ms -> 0.38 (0.50; 2.5), 300 of 300 2.03 -> 0.40 (0.93; 3.4),
 * 10,000 of 10 0.81 -> 0.23 (0.58; 1.3), 1,000 of 16 0.10 -> 0.05 (0.06; 0.06).  From
 * RADIX_MIN the radix sort is as fast or faster (10.2 ns an element at 511, 10.0 at 512,
 * one thread). */
#include <stdint.h>
#include <string.h>

#include "cpu_sort_keys.h"

#define PACK_RUN 16
#define PACK_SHORT 4 /* rows up to this long: by insertion */

/* 64-bit packed keys: a 32-bit key above a 32-bit index */
#define PK_T uint64_t
#define PK(name) name##_64
#define PK_MAX UINT64_MAX
#include "cpu_sort_packed_impl.h"
#undef PK_T
#undef PK
#undef PK_MAX

/* 128-bit packed keys: a 64-bit key above the index (float64 rows, int64 rows of a wider
 * range); a comparison is two, joined without a branch */
#define PK_T unsigned __int128
#define PK(name) name##_128
#define PK_MAX (~(unsigned __int128)0)
#include "cpu_sort_packed_impl.h"
#undef PK_T
#undef PK
#undef PK_MAX

void pdt_cpu_sort_packed(uint64_t *a, uint64_t *tmp, int64_t n) { sort_64(a, tmp, n); }

void pdt_cpu_sort_packed128(unsigned __int128 *a, unsigned __int128 *tmp, int64_t n)
{
    sort_128(a, tmp, n);
}
