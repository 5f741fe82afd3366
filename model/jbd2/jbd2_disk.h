/*
 * jbd2_disk.h - jbd2's on-disk format, as include/linux/jbd2.h (6.1) lays it
 * out: every field big-endian (the kernel's __be32 / __be64; the fields here
 * hold the big-endian bytes, read with be32_to_cpu(), written with
 * cpu_to_be32()), the structures at the kernel's offsets (asserted below and
 * in tests/unit/test_jbd2.c), and the checksum helpers of fs/jbd2
 * (jbd2_superblock_csum, jbd2_descriptor_block_csum_set/_verify,
 * jbd2_commit_block_csum_set/_verify, jbd2_block_tag_csum_set/_verify),
 * crc32c seeded with j_csum_seed = crc32c(~0, s_uuid, 16) as jbd2_chksum()
 * does.  e2fsprogs reads the same layout (lib/ext2fs/kernel-jbd.h).
 *
 * Only jbd2's own files include this header: its names are the kernel's (and
 * e2fsprogs'), so a file that includes <ext2fs/kernel-jbd.h> must not.
 */
#ifndef EXT4SIM_JBD2_DISK_H
#define EXT4SIM_JBD2_DISK_H

#include <stddef.h>
#include <stdint.h>

#include "jbd2.h"

#define JBD2_MAGIC_NUMBER 0xc03b3998u

/* h_blocktype */
#define JBD2_DESCRIPTOR_BLOCK 1
#define JBD2_COMMIT_BLOCK 2
#define JBD2_SUPERBLOCK_V1 3
#define JBD2_SUPERBLOCK_V2 4
#define JBD2_REVOKE_BLOCK 5
#define JBD2_FC_BLOCK 6

/* t_flags of a block tag */
#define JBD2_FLAG_ESCAPE 1u             /* on-disk block is escaped */
#define JBD2_FLAG_SAME_UUID 2u          /* block has same uuid as previous */
#define JBD2_FLAG_DELETED 4u            /* block deleted by this transaction */
#define JBD2_FLAG_LAST_TAG 8u           /* last tag in this descriptor block */

/* s_checksum_type, h_chksum_type */
#define JBD2_CRC32_CHKSUM 1
#define JBD2_MD5_CHKSUM 2
#define JBD2_SHA1_CHKSUM 3
#define JBD2_CRC32C_CHKSUM 4
#define JBD2_CRC32_CHKSUM_SIZE 4
#define JBD2_CHECKSUM_BYTES (32 / sizeof(uint32_t))

#define JBD2_FEATURE_COMPAT_CHECKSUM 0x00000001u
#define JBD2_FEATURE_INCOMPAT_REVOKE 0x00000001u
#define JBD2_FEATURE_INCOMPAT_64BIT 0x00000002u
#define JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT 0x00000004u
#define JBD2_FEATURE_INCOMPAT_CSUM_V2 0x00000008u
#define JBD2_FEATURE_INCOMPAT_CSUM_V3 0x00000010u
#define JBD2_FEATURE_INCOMPAT_FAST_COMMIT 0x00000020u
#define JBD2_KNOWN_COMPAT_FEATURES JBD2_FEATURE_COMPAT_CHECKSUM
#define JBD2_KNOWN_ROCOMPAT_FEATURES 0u
#define JBD2_KNOWN_INCOMPAT_FEATURES                                          \
	(JBD2_FEATURE_INCOMPAT_REVOKE | JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT |  \
	 JBD2_FEATURE_INCOMPAT_64BIT | JBD2_FEATURE_INCOMPAT_CSUM_V2 |        \
	 JBD2_FEATURE_INCOMPAT_CSUM_V3 | JBD2_FEATURE_INCOMPAT_FAST_COMMIT)

/*
 * The commit time the model stamps in h_commit_sec / h_commit_nsec: it has
 * no clock (determinism), so every commit carries this one instant
 * (2023-01-01 00:00:00 UTC).  do_one_pass() compares commit times only to
 * tell a stale block from a torn one (commit_time < last_trans_commit_time);
 * with one instant a checksum failure is never taken for a stale block.
 */
#define JBD2_MODEL_COMMIT_SEC 1672531200ull
#define JBD2_MODEL_COMMIT_NSEC 0u

typedef struct journal_header_s {
	uint32_t h_magic;
	uint32_t h_blocktype;
	uint32_t h_sequence;
} journal_header_t;

struct commit_header {
	uint32_t h_magic;
	uint32_t h_blocktype;
	uint32_t h_sequence;
	unsigned char h_chksum_type;
	unsigned char h_chksum_size;
	unsigned char h_padding[2];
	uint32_t h_chksum[JBD2_CHECKSUM_BYTES];
	uint64_t h_commit_sec;
	uint32_t h_commit_nsec;
};

typedef struct journal_block_tag3_s {
	uint32_t t_blocknr;             /* the on-disk block number */
	uint32_t t_flags;
	uint32_t t_blocknr_high;        /* most-significant high 32 bits */
	uint32_t t_checksum;            /* crc32c(uuid+seq+block) */
} journal_block_tag3_t;

typedef struct journal_block_tag_s {
	uint32_t t_blocknr;
	uint16_t t_checksum;            /* truncated crc32c(uuid+seq+block) */
	uint16_t t_flags;
	uint32_t t_blocknr_high;
} journal_block_tag_t;

/* Tail of a descriptor or revoke block, for checksumming. */
struct jbd2_journal_block_tail {
	uint32_t t_checksum;            /* crc32c(uuid+descr_block) */
};

typedef struct jbd2_journal_revoke_header_s {
	journal_header_t r_header;
	uint32_t r_count;               /* bytes used in the block */
} jbd2_journal_revoke_header_t;

typedef struct journal_superblock_s {
	journal_header_t s_header;      /* 0x0000 */
	uint32_t s_blocksize;           /* 0x000C journal device blocksize */
	uint32_t s_maxlen;              /* total blocks in journal file */
	uint32_t s_first;               /* first block of log information */
	uint32_t s_sequence;            /* 0x0018 first commit ID expected in log */
	uint32_t s_start;               /* blocknr of start of log */
	uint32_t s_errno;               /* 0x0020 */
	uint32_t s_feature_compat;      /* 0x0024 */
	uint32_t s_feature_incompat;
	uint32_t s_feature_ro_compat;
	uint8_t s_uuid[16];             /* 0x0030 */
	uint32_t s_nr_users;            /* 0x0040 */
	uint32_t s_dynsuper;
	uint32_t s_max_transaction;     /* 0x0048 */
	uint32_t s_max_trans_data;
	uint8_t s_checksum_type;        /* 0x0050 */
	uint8_t s_padding2[3];
	uint32_t s_num_fc_blks;         /* 0x0054 */
	uint32_t s_padding[41];         /* 0x0058 */
	uint32_t s_checksum;            /* 0x00FC crc32c(superblock) */
	uint8_t s_users[16 * 48];       /* 0x0100 */
} journal_superblock_t;

_Static_assert(sizeof(journal_header_t) == 12, "journal_header_t");
_Static_assert(offsetof(struct commit_header, h_chksum) == 16, "commit_header");
_Static_assert(offsetof(struct commit_header, h_commit_sec) == 0x30, "commit_header");
_Static_assert(offsetof(struct commit_header, h_commit_nsec) == 0x38, "commit_header");
_Static_assert(sizeof(journal_block_tag3_t) == 16, "journal_block_tag3_t");
_Static_assert(sizeof(journal_block_tag_t) == 12, "journal_block_tag_t");
_Static_assert(offsetof(journal_block_tag_t, t_flags) == 6, "journal_block_tag_t");
_Static_assert(sizeof(jbd2_journal_revoke_header_t) == 16, "revoke header");
_Static_assert(offsetof(journal_superblock_t, s_uuid) == 0x30, "journal_superblock_t");
_Static_assert(offsetof(journal_superblock_t, s_checksum_type) == 0x50, "journal_superblock_t");
_Static_assert(offsetof(journal_superblock_t, s_num_fc_blks) == 0x54, "journal_superblock_t");
_Static_assert(offsetof(journal_superblock_t, s_checksum) == 0xFC, "journal_superblock_t");
_Static_assert(sizeof(journal_superblock_t) == 0x400, "journal_superblock_t");

/* Byte order of the on-disk fields, whatever the host's. */
static inline uint32_t cpu_to_be32(uint32_t v)
{
	uint32_t r;
	uint8_t *p = (uint8_t *)&r;

	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
	return r;
}

static inline uint32_t be32_to_cpu(uint32_t v)
{
	const uint8_t *p = (const uint8_t *)&v;

	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint16_t cpu_to_be16(uint16_t v)
{
	uint16_t r;
	uint8_t *p = (uint8_t *)&r;

	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return r;
}

static inline uint16_t be16_to_cpu(uint16_t v)
{
	const uint8_t *p = (const uint8_t *)&v;

	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint64_t cpu_to_be64(uint64_t v)
{
	return (uint64_t)cpu_to_be32((uint32_t)v) << 32 | cpu_to_be32((uint32_t)(v >> 32));
}

static inline uint64_t be64_to_cpu(uint64_t v)
{
	return cpu_to_be64(v);  /* byte reversal is its own inverse */
}

/* The raw big-endian word at @p (a log block's first word: the escape test). */
static inline uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* journal_get_superblock(): read and check block 0 (jbd2_journal.c) */
int jbd2_journal_get_superblock(journal_t *j);
/* the superblock write of a commit after an empty log's mount (JBD2_FLUSHED) */
void jbd2_commit_flushed_sb(journal_t *j, uint32_t tid);

/* jbd2_has_feature_*(): none below a V2 superblock. */
bool jbd2_has_incompat(const journal_t *j, uint32_t mask);
bool jbd2_has_compat(const journal_t *j, uint32_t mask);
/* jbd2_journal_has_csum_v2or3() */
bool jbd2_journal_has_csum_v2or3(const journal_t *j);
/* journal_tag_bytes(): 16 (csum v3), else 12 with 64bit or 8, +2 with csum v2 */
uint32_t journal_tag_bytes(const journal_t *j);
/* Tags one descriptor block holds, as jbd2_journal_commit_transaction fills it. */
uint32_t jbd2_tags_per_descriptor(const journal_t *j);
/* journal_revoke_records_per_block() */
uint32_t journal_revoke_records_per_block(const journal_t *j);

uint32_t jbd2_superblock_csum(const journal_superblock_t *sb);
void jbd2_descriptor_block_csum_set(const journal_t *j, uint8_t *b);
bool jbd2_descriptor_block_csum_verify(const journal_t *j, const uint8_t *b);
void jbd2_commit_block_csum_set(const journal_t *j, uint8_t *b);
bool jbd2_commit_block_csum_verify(const journal_t *j, const uint8_t *b);
/* crc32c(seed, be32 sequence) continued over the logged block @data */
uint32_t jbd2_block_tag_csum(const journal_t *j, const uint8_t *data, uint32_t sequence);
void jbd2_block_tag_csum_set(const journal_t *j, uint8_t *tag, const uint8_t *data,
			     uint32_t sequence);
bool jbd2_block_tag_csum_verify(const journal_t *j, const uint8_t *tag, const uint8_t *data,
				uint32_t sequence);
/* read_tag_block() / write_tag_block() */
uint64_t jbd2_read_tag_block(const journal_t *j, const uint8_t *tag);
void jbd2_write_tag_block(const journal_t *j, uint8_t *tag, uint64_t block);
/* the be16 t_flags (at byte 6 in both tag layouts, as the kernel reads it) */
uint16_t jbd2_tag_flags(const uint8_t *tag);
void jbd2_set_tag_flags(uint8_t *tag, uint16_t flags);

#endif
