/*
 * jbd2_format.c - the sizes and checksums of jbd2's on-disk blocks
 * (jbd2_disk.h): journal_tag_bytes() and the descriptor's tag count of
 * include/linux/jbd2.h and fs/jbd2/commit.c, the revoke record count of
 * fs/jbd2/revoke.c, and the crc32c checksums of journal.c, commit.c and
 * recovery.c (csum v2/v3; v1's crc32_be transaction checksum is not
 * modelled).
 */
#include <string.h>

#include "blkdev.h"
#include "crc32c.h"
#include "jbd2_disk.h"
#include "sim.h"

/* The journal superblock in memory (jbd2_journal_init allocates it). */
static const journal_superblock_t *jsb(const journal_t *j)
{
	SIM_ASSERT(j->j_superblock != NULL);
	return (const journal_superblock_t *)j->j_superblock;
}

/* JBD2_HAS_INCOMPAT_FEATURE(): any of @mask set in a V2 superblock. */
bool jbd2_has_incompat(const journal_t *j, uint32_t mask)
{
	return j->j_format_version >= 2 && (be32_to_cpu(jsb(j)->s_feature_incompat) & mask);
}

/* JBD2_HAS_COMPAT_FEATURE(): any of @mask set in a V2 superblock. */
bool jbd2_has_compat(const journal_t *j, uint32_t mask)
{
	return j->j_format_version >= 2 && (be32_to_cpu(jsb(j)->s_feature_compat) & mask);
}

/* The kernel tests j_chksum_driver, loaded exactly when one of the two is set. */
bool jbd2_journal_has_csum_v2or3(const journal_t *j)
{
	return jbd2_has_incompat(j, JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3);
}

/* include/linux/jbd2.h journal_tag_bytes(): the size of one tag on disk. */
uint32_t journal_tag_bytes(const journal_t *j)
{
	uint32_t sz;

	if (jbd2_has_incompat(j, JBD2_FEATURE_INCOMPAT_CSUM_V3))
		return sizeof(journal_block_tag3_t);
	sz = sizeof(journal_block_tag_t);
	if (jbd2_has_incompat(j, JBD2_FEATURE_INCOMPAT_CSUM_V2))
		sz += sizeof(uint16_t);
	if (jbd2_has_incompat(j, JBD2_FEATURE_INCOMPAT_64BIT))
		return sz;
	return sz - sizeof(uint32_t);
}

/* csum_size of commit.c and revoke.c: the block tail when checksummed. */
static uint32_t tail_size(const journal_t *j)
{
	return jbd2_journal_has_csum_v2or3(j) ? sizeof(struct jbd2_journal_block_tail) : 0;
}

/*
 * jbd2_journal_commit_transaction() adds tags after the header, the 16-byte
 * UUID after the first, and submits the descriptor once space_left <
 * tag_bytes + 16 + csum_size, or at j_wbufsize (block size / 8) buffers.
 * After n tags space_left is bs - 12 - 16 - n * tb, so the descriptor takes
 * the first n with bs - 28 - n * tb < tb + 16 + cs: n = (bs - 44 - tb - cs) /
 * tb + 1 (1 KiB: 122 tags of 8 bytes, 81 of 12, 61 of 16 with csum v3).
 */
uint32_t jbd2_tags_per_descriptor(const journal_t *j)
{
	uint32_t bs = j->j_dev->bd_block_size, tb = journal_tag_bytes(j);

	return SIM_MIN((bs - 44 - tb - tail_size(j)) / tb + 1, bs / 8);
}

/* write_one_revoke_record(): 4- or 8-byte records after the 16-byte header. */
uint32_t journal_revoke_records_per_block(const journal_t *j)
{
	uint32_t sz = jbd2_has_incompat(j, JBD2_FEATURE_INCOMPAT_64BIT) ? 8 : 4;

	return (j->j_dev->bd_block_size - sizeof(jbd2_journal_revoke_header_t) - tail_size(j)) / sz;
}

/* crc32c(~0) over the 1024-byte superblock with s_checksum zero. */
uint32_t jbd2_superblock_csum(const journal_superblock_t *sb)
{
	journal_superblock_t copy;

	memcpy(&copy, sb, sizeof(copy));
	copy.s_checksum = 0;
	return cpu_to_be32(crc32c(~0u, &copy, sizeof(copy)));
}

/* crc32c(j_csum_seed) over the block with the 4-byte field at @off zero. */
static uint32_t block_csum(const journal_t *j, const uint8_t *b, uint32_t off)
{
	static const uint8_t zero[4];
	uint32_t bs = j->j_dev->bd_block_size, c;

	c = crc32c(j->j_csum_seed, b, off);
	c = crc32c(c, zero, 4);
	return crc32c(c, b + off + 4, bs - off - 4);
}

/* jbd2_descriptor_block_csum_set(): the tail of a descriptor or revoke block. */
void jbd2_descriptor_block_csum_set(const journal_t *j, uint8_t *b)
{
	uint32_t off = j->j_dev->bd_block_size - sizeof(struct jbd2_journal_block_tail);

	if (jbd2_journal_has_csum_v2or3(j))
		put_be32(b + off, block_csum(j, b, off));
}

/* recovery.c jbd2_descriptor_block_csum_verify(): true without csum v2/v3. */
bool jbd2_descriptor_block_csum_verify(const journal_t *j, const uint8_t *b)
{
	uint32_t off = j->j_dev->bd_block_size - sizeof(struct jbd2_journal_block_tail);

	return !jbd2_journal_has_csum_v2or3(j) || get_be32(b + off) == block_csum(j, b, off);
}

/* h_chksum_type, h_chksum_size and h_chksum[0] zero, then the block's crc32c. */
void jbd2_commit_block_csum_set(const journal_t *j, uint8_t *b)
{
	struct commit_header *h = (struct commit_header *)b;

	if (!jbd2_journal_has_csum_v2or3(j))
		return;
	h->h_chksum_type = 0;
	h->h_chksum_size = 0;
	h->h_chksum[0] = 0;
	h->h_chksum[0] = cpu_to_be32(crc32c(j->j_csum_seed, b, j->j_dev->bd_block_size));
}

/* recovery.c jbd2_commit_block_csum_verify(): h_chksum[0] read as zero. */
bool jbd2_commit_block_csum_verify(const journal_t *j, const uint8_t *b)
{
	return !jbd2_journal_has_csum_v2or3(j) ||
	       get_be32(b + offsetof(struct commit_header, h_chksum)) ==
	       block_csum(j, b, offsetof(struct commit_header, h_chksum));
}

/* The crc32c of a logged block: seed, the be32 sequence, the block. */
uint32_t jbd2_block_tag_csum(const journal_t *j, const uint8_t *data, uint32_t sequence)
{
	uint8_t seq[4];

	put_be32(seq, sequence);
	return crc32c(crc32c(j->j_csum_seed, seq, 4), data, j->j_dev->bd_block_size);
}

/* commit.c jbd2_block_tag_csum_set(): t_checksum, 32 bits (v3) or the low 16 (v2). */
void jbd2_block_tag_csum_set(const journal_t *j, uint8_t *tag, const uint8_t *data,
			     uint32_t sequence)
{
	uint32_t c;

	if (!jbd2_journal_has_csum_v2or3(j))
		return;
	c = jbd2_block_tag_csum(j, data, sequence);
	if (jbd2_has_incompat(j, JBD2_FEATURE_INCOMPAT_CSUM_V3))
		put_be32(tag + offsetof(journal_block_tag3_t, t_checksum), c);
	else            /* the be16 t_checksum: crc32c's low 16 bits */
		tag[4] = (uint8_t)(c >> 8), tag[5] = (uint8_t)c;
}

/* recovery.c jbd2_block_tag_csum_verify(): true without csum v2/v3. */
bool jbd2_block_tag_csum_verify(const journal_t *j, const uint8_t *tag, const uint8_t *data,
				uint32_t sequence)
{
	uint32_t c;

	if (!jbd2_journal_has_csum_v2or3(j))
		return true;
	c = jbd2_block_tag_csum(j, data, sequence);
	if (jbd2_has_incompat(j, JBD2_FEATURE_INCOMPAT_CSUM_V3))
		return get_be32(tag + offsetof(journal_block_tag3_t, t_checksum)) == c;
	return (uint16_t)(tag[4] << 8 | tag[5]) == (uint16_t)c;
}

/* recovery.c read_tag_block(): t_blocknr, with t_blocknr_high under 64bit. */
uint64_t jbd2_read_tag_block(const journal_t *j, const uint8_t *tag)
{
	uint64_t block = get_be32(tag);

	if (jbd2_has_incompat(j, JBD2_FEATURE_INCOMPAT_64BIT))
		block |= (uint64_t)get_be32(tag + offsetof(journal_block_tag_t, t_blocknr_high)) << 32;
	return block;
}

/* commit.c write_tag_block(): the inverse of jbd2_read_tag_block(). */
void jbd2_write_tag_block(const journal_t *j, uint8_t *tag, uint64_t block)
{
	put_be32(tag, (uint32_t)block);
	if (jbd2_has_incompat(j, JBD2_FEATURE_INCOMPAT_64BIT))
		put_be32(tag + offsetof(journal_block_tag_t, t_blocknr_high),
			 (uint32_t)(block >> 32));
}

/* be16_to_cpu(tag->t_flags) through journal_block_tag_t, as jbd2 reads both layouts. */
uint16_t jbd2_tag_flags(const uint8_t *tag)
{
	return (uint16_t)(tag[6] << 8 | tag[7]);
}

/* tag->t_flags = cpu_to_be16(flags), as jbd2_journal_commit_transaction() sets it. */
void jbd2_set_tag_flags(uint8_t *tag, uint16_t flags)
{
	tag[6] = (uint8_t)(flags >> 8);
	tag[7] = (uint8_t)flags;
}
