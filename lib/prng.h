/*
 * prng.h - the tests' only source of randomness: splitmix64 (Steele, Lea
 * and Flood, "Fast splittable pseudorandom number generators", 2014).
 *
 * Tests seed it from constants in their source and print the seed in every
 * failure message, so a failing run names the seed that replays it.  The
 * state is explicit (no globals) and the output depends on the seed alone:
 * the same seed gives the same sequence on every host.
 */
#ifndef EXT4SIM_PRNG_H
#define EXT4SIM_PRNG_H

#include <assert.h>
#include <stdint.h>

struct prng {
	uint64_t state;
};

static inline void prng_seed(struct prng *p, uint64_t seed)
{
	p->state = seed;
}

/* The next 64 random bits. */
static inline uint64_t prng_next(struct prng *p)
{
	uint64_t z = (p->state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Uniform in [0, n), n > 0; rejection sampling, so no modulo bias. */
static inline uint64_t prng_below(struct prng *p, uint64_t n)
{
	uint64_t reject;
	uint64_t r;

	assert(n > 0);
	reject = (0 - n) % n;    /* 2^64 mod n: the values that would bias */
	do
		r = prng_next(p);
	while (r < reject);
	return r % n;
}

#endif
