/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Zoned-reorder core: the project's own seeded pseudo-random generator.
 *
 * Everything random in the models (the `random` reorder policy, error
 * injection in devices) draws from a ZrPrng so that the same seed gives the
 * same run on every host and QEMU version; g_random and rand() give no such
 * guarantee.  The generator is SplitMix64 (Steele, Lea, Flood: "Fast
 * splittable pseudorandom number generators", OOPSLA 2014): a 64-bit state
 * advanced by a fixed odd increment and passed through a mixing function.
 */

#ifndef HW_BLOCK_ZONED_REORDER_PRNG_H
#define HW_BLOCK_ZONED_REORDER_PRNG_H

#include "qemu/host-utils.h"

typedef struct ZrPrng {
    uint64_t state;
} ZrPrng;

static inline void zr_prng_seed(ZrPrng *p, uint64_t seed)
{
    p->state = seed;
}

static inline uint64_t zr_prng_next(ZrPrng *p)
{
    uint64_t x;

    p->state += 0x9e3779b97f4a7c15ULL;     /* 2^64 / golden ratio, odd */
    x = p->state;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/*
 * Uniform in [0, @n), @n > 0: the high half of a 64x64 product (Lemire's
 * multiply-shift; the bias is at most n / 2^64, irrelevant here).
 */
static inline uint64_t zr_prng_below(ZrPrng *p, uint64_t n)
{
    uint64_t lo, hi;

    mulu64(&lo, &hi, zr_prng_next(p), n);
    return hi;
}

#endif
