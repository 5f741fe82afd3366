/*
 * prng.h - the only pseudo-random generator of the program and the tests:
 * splitmix64.  explore and gen draw their runs from it, the crash-state
 * sampler its states, the unit tests their operations; the model itself
 * draws nothing.
 *
 * Every user seeds it from a constant, a seed option or a step number, and
 * tests print the seed in every failure message, so a failing run names the
 * seed that replays it.  The state is explicit (no globals) and the output
 * depends on the seed alone: the same seed gives the same sequence on every
 * host.
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

/* splitmix64's output function: a bijective 64-bit mixer, also a hash finalizer. */
static inline uint64_t prng_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* The next 64 random bits. */
static inline uint64_t prng_next(struct prng *p)
{
	return prng_mix64(p->state += UINT64_C(0x9e3779b97f4a7c15));
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

/*
 * prng_next() % n, n > 0: one draw, with the (tiny) modulo bias; for the
 * users whose recorded sequences predate prng_below() and must not change.
 */
static inline uint64_t prng_mod(struct prng *p, uint64_t n)
{
	assert(n > 0);
	return prng_next(p) % n;
}

#endif
