/*
 * test_dir.c - one ext4 directory block (model/ext4/namei/dir.h): each function's
 * behaviour at 1, 2 and 4 KiB blocks, and the blocks held to e2fsprogs.
 *
 * The format: ext4_dir_rec_len, the tail, a new directory's block (. and
 * .., the tail, its checksum) and an appended empty block.  The kernel's
 * rules: a new entry goes to the first entry from the start whose slack
 * (or, unused, whose whole length) holds it, splitting a live entry; a
 * deleted entry is merged into the previous one and wiped, or, first in
 * its block, keeps its rec_len with inode 0; -EEXIST and -ENOSPC leave the
 * block as it was; each of ext4_check_dir_entry's reasons, and the callers
 * that meet a bad entry answering -EFSCORRUPTED; empty_dir (. and .. only;
 * unused entries ignored; a missing . or .. is not empty); the rename of a
 * directory rewriting .. (and refusing a .. that is not the old parent);
 * ext4_setent; the checksum over the block up to the tail.
 * Against libext2fs (e2fsprogs 1.47.0, tests/unit/ext4/e2ref.h) on the
 * image mke2fs makes: the root's and lost+found's blocks mke2fs wrote are
 * byte for byte the blocks these functions build; blocks built here verify
 * with ext2fs_dir_block_csum_verify and read back through
 * ext2fs_dir_iterate2 (ext2fs_process_dir_block) and ext2fs_lookup as the
 * iterator lists them; blocks ext2fs_link, ext2fs_unlink and
 * ext2fs_new_dir_block make verify and read back here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fixture.h"
#include "dir.h"
#include "e2ref.h"

#define SEED 0x5eed1234u
#define INODES 65536u
#define MAX_ENT 400u

static const uint32_t bss[] = { 1024, 2048, 4096 };
#define NBSS (sizeof(bss) / sizeof(bss[0]))

static struct ext4_dir_sb dsb(uint32_t bs, bool csum)
{
	return (struct ext4_dir_sb){ .ds_blocksize = bs, .ds_inodes_count = INODES,
				     .ds_metadata_csum = csum };
}

static uint16_t rd16(const uint8_t *b, unsigned off)
{
	uint16_t v;

	memcpy(&v, b + off, 2);
	return v;
}

static uint32_t rd32(const uint8_t *b, unsigned off)
{
	uint32_t v;

	memcpy(&v, b + off, 4);
	return v;
}

static void wr16(uint8_t *b, unsigned off, uint16_t v)
{
	memcpy(b + off, &v, 2);
}

static void wr32(uint8_t *b, unsigned off, uint32_t v)
{
	memcpy(b + off, &v, 4);
}

/* The entry at @off's fields. */
#define DE_INO(b, off) rd32(b, (off))
#define DE_REC(b, off) rd16(b, (off) + 4)
#define DE_NLEN(b, off) ((b)[(off) + 6])
#define DE_TYPE(b, off) ((b)[(off) + 7])

static uint8_t *new_block(const struct ext4_dir_sb *sb, uint32_t ino, uint32_t parent)
{
	uint8_t *b = malloc(sb->ds_blocksize);

	assert_non_null(b);
	ext4_init_new_dir_block(sb, SEED, b, ino, parent);
	return b;
}

/* add_dirent_to_buf() of @name that must succeed: the new entry's offset. */
static unsigned add_ok_seed(const struct ext4_dir_sb *sb, uint32_t seed, uint8_t *b,
			    const char *name, uint32_t ino, uint8_t type)
{
	unsigned off = ~0u;

	assert_int_equal(add_dirent_to_buf(sb, seed, b, ino, type, name, (unsigned)strlen(name),
					   &off), 0);
	assert_true(ext4_dirblock_csum_verify(sb, seed, b));
	assert_int_equal(DE_INO(b, off), ino);
	assert_int_equal(DE_TYPE(b, off), type);
	assert_int_equal(DE_NLEN(b, off), strlen(name));
	assert_memory_equal(b + off + 8, name, strlen(name));
	return off;
}

static unsigned add_ok(const struct ext4_dir_sb *sb, uint8_t *b, const char *name, uint32_t ino,
		       uint8_t type)
{
	return add_ok_seed(sb, SEED, b, name, ino, type);
}

/* ext4_search_dir's answer for @name: its offset, or -1 when absent. */
static int find(const struct ext4_dir_sb *sb, const uint8_t *b, const char *name)
{
	struct ext4_dirent d = { .d_off = ~0u };
	int rc = ext4_search_dir(sb, b, name, (unsigned)strlen(name), &d);

	assert_true(rc == 0 || rc == 1);
	if (!rc)
		return -1;
	assert_int_equal(d.d_ino, DE_INO(b, d.d_off));
	assert_int_equal(d.d_type, DE_TYPE(b, d.d_off));
	assert_int_equal(d.d_rec_len, DE_REC(b, d.d_off));
	assert_int_equal(d.d_name_len, strlen(name));
	assert_ptr_equal(d.d_name, (const char *)b + d.d_off + 8);
	return (int)d.d_off;
}

/* The live entries in block order; the walk must end without error. */
static unsigned list(const struct ext4_dir_sb *sb, const uint8_t *b, struct ext4_dirent *out,
		     unsigned cap)
{
	struct ext4_dir_iter it;
	struct ext4_dirent d;
	unsigned n = 0;
	int rc;

	ext4_dir_iter_init(&it, sb, b);
	while ((rc = ext4_dir_iter_next(&it, &d)) == 1) {
		assert_true(n < cap);
		out[n++] = d;
	}
	assert_int_equal(rc, 0);
	return n;
}

/* ---- the format ---- */

static void test_dir__rec_len_and_types(void **state)
{
	(void)state;
	assert_int_equal(ext4_dir_rec_len(1), 12);
	assert_int_equal(ext4_dir_rec_len(4), 12);
	assert_int_equal(ext4_dir_rec_len(5), 16);
	assert_int_equal(ext4_dir_rec_len(10), 20);     /* lost+found */
	assert_int_equal(ext4_dir_rec_len(EXT4_NAME_LEN), 264);
	assert_int_equal(EXT4_DIR_REC_LEN(0), 8);
	assert_int_equal(ext4_type_by_mode(0100644), EXT4_FT_REG_FILE);
	assert_int_equal(ext4_type_by_mode(040755), EXT4_FT_DIR);
	assert_int_equal(ext4_type_by_mode(0120777), EXT4_FT_SYMLINK);
	assert_int_equal(ext4_type_by_mode(010644), EXT4_FT_FIFO);
	assert_int_equal(ext4_type_by_mode(020644), EXT4_FT_CHRDEV);
	assert_int_equal(ext4_type_by_mode(060644), EXT4_FT_BLKDEV);
	assert_int_equal(ext4_type_by_mode(0140644), EXT4_FT_SOCK);
	assert_int_equal(ext4_type_by_mode(0644), EXT4_FT_UNKNOWN);
	assert_int_equal(ext4_rec_len_to_disk(4096, 4096), 4096);
	assert_int_equal(ext4_rec_len_from_disk(1012, 1024), 1012);
}

/* . at 0 (12 bytes), .. filling the block up to the tail, the tail, its checksum. */
static void test_dir__new_dir_block_layout(void **state)
{
	(void)state;
	for (unsigned s = 0; s < NBSS; s++) {
		for (int csum = 0; csum < 2; csum++) {
			struct ext4_dir_sb sb = dsb(bss[s], csum);
			uint8_t *b = new_block(&sb, 20, 2);
			unsigned bs = bss[s], tail = bs - 12;

			assert_int_equal(DE_INO(b, 0), 20);
			assert_int_equal(DE_REC(b, 0), 12);
			assert_int_equal(DE_NLEN(b, 0), 1);
			assert_int_equal(DE_TYPE(b, 0), EXT4_FT_DIR);
			assert_memory_equal(b + 8, ".\0\0", 4);
			assert_int_equal(DE_INO(b, 12), 2);
			assert_int_equal(DE_REC(b, 12), bs - 12 - (csum ? 12 : 0));
			assert_int_equal(DE_NLEN(b, 12), 2);
			assert_int_equal(DE_TYPE(b, 12), EXT4_FT_DIR);
			assert_memory_equal(b + 20, "..\0\0", 4);
			assert_int_equal(get_dirent_tail(&sb, b), csum);
			if (csum) {
				assert_int_equal(DE_INO(b, tail), 0);
				assert_int_equal(DE_REC(b, tail), 12);
				assert_int_equal(DE_NLEN(b, tail), 0);
				assert_int_equal(DE_TYPE(b, tail), EXT4_FT_DIR_CSUM);
				assert_int_equal(rd32(b, tail + 8), ext4_dirblock_csum(SEED, b, tail));
			}
			for (unsigned i = 24; i < (csum ? tail : bs); i++)
				assert_int_equal(b[i], 0);
			assert_true(ext4_empty_dir(&sb, b, 0, 20));
			free(b);
		}
	}
}

/* dotdot_real_len: .. is 12 bytes and the next entry follows it. */
static void test_dir__dot_dotdot_real_len(void **state)
{
	struct ext4_dir_sb sb = dsb(1024, true);
	uint8_t b[1024] = { 0 };

	(void)state;
	assert_int_equal(ext4_init_dot_dotdot(&sb, b, 30, 31, true), 24);
	assert_int_equal(DE_REC(b, 12), 12);
	assert_int_equal(DE_INO(b, 12), 31);
	memset(b, 0, sizeof(b));
	assert_int_equal(ext4_init_dot_dotdot(&sb, b, 30, 31, false), 1024 - 12);
}

/* ext4_append's block: one unused entry up to the tail; empty; nothing listed. */
static void test_dir__empty_block(void **state)
{
	(void)state;
	for (unsigned s = 0; s < NBSS; s++) {
		struct ext4_dir_sb sb = dsb(bss[s], true);
		uint8_t *b = malloc(bss[s]);
		struct ext4_dirent d[4];

		assert_non_null(b);
		memset(b, 0xaa, bss[s]);
		ext4_init_empty_dirblock(&sb, SEED, b);
		assert_int_equal(DE_INO(b, 0), 0);
		assert_int_equal(DE_REC(b, 0), bss[s] - 12);
		assert_int_equal(b[8], 0);
		assert_true(get_dirent_tail(&sb, b));
		assert_true(ext4_dirblock_csum_verify(&sb, SEED, b));
		assert_true(ext4_empty_dir(&sb, b, 1, 20));
		assert_false(ext4_empty_dir(&sb, b, 0, 20));    /* no . in a first block */
		assert_int_equal(list(&sb, b, d, 4), 0);
		assert_int_equal(find(&sb, b, "a"), -1);
		/* the first name takes the unused entry whole, at 0 */
		assert_int_equal(add_ok(&sb, b, "a", 40, EXT4_FT_REG_FILE), 0);
		assert_int_equal(DE_REC(b, 0), bss[s] - 12);
		assert_false(ext4_empty_dir(&sb, b, 1, 20));
		free(b);
	}
}

/* ---- insertion: ext4_find_dest_de, ext4_insert_dentry, add_dirent_to_buf ---- */

/* Names go one after another, each splitting the last entry's slack. */
static void test_dir__add_splits_the_last_entry(void **state)
{
	(void)state;
	for (unsigned s = 0; s < NBSS; s++) {
		struct ext4_dir_sb sb = dsb(bss[s], true);
		uint8_t *b = new_block(&sb, 2, 2);
		unsigned bs = bss[s];
		struct ext4_dirent d[8];

		assert_int_equal(add_ok(&sb, b, "lost+found", 11, EXT4_FT_DIR), 24);
		assert_int_equal(DE_REC(b, 12), 12);
		assert_int_equal(DE_REC(b, 24), bs - 12 - 24);
		assert_int_equal(add_ok(&sb, b, "f", 12, EXT4_FT_REG_FILE), 44);
		assert_int_equal(DE_REC(b, 24), 20);
		assert_int_equal(DE_REC(b, 44), bs - 12 - 44);
		assert_int_equal(list(&sb, b, d, 8), 4);
		assert_int_equal(d[2].d_ino, 11);
		assert_int_equal(d[2].d_type, EXT4_FT_DIR);
		assert_memory_equal(d[2].d_name, "lost+found", 10);
		assert_int_equal(d[3].d_off, 44);
		assert_int_equal(d[3].d_name_len, 1);
		assert_int_equal(find(&sb, b, "f"), 44);
		assert_int_equal(find(&sb, b, "lost+found"), 24);
		assert_int_equal(find(&sb, b, "lost+foun"), -1);
		assert_int_equal(find(&sb, b, "ff"), -1);
		free(b);
	}
}

/* First fit from the start: a hole left by a delete is taken before the end's slack. */
static void test_dir__add_first_fit_from_start(void **state)
{
	(void)state;
	for (unsigned s = 0; s < NBSS; s++) {
		struct ext4_dir_sb sb = dsb(bss[s], true);
		uint8_t *b = new_block(&sb, 2, 2);
		unsigned a, bo, c;

		a = add_ok(&sb, b, "aaaa", 13, EXT4_FT_REG_FILE);
		bo = add_ok(&sb, b, "bbbbbbbb", 14, EXT4_FT_REG_FILE);        /* 16 bytes */
		c = add_ok(&sb, b, "cccc", 15, EXT4_FT_REG_FILE);
		assert_int_equal(bo, a + 12);
		assert_int_equal(c, bo + 16);
		assert_int_equal(ext4_delete_entry_buf(&sb, SEED, b, bo), 0);
		assert_int_equal(DE_REC(b, a), 12 + 16);        /* merged into aaaa */
		/* 8 bytes fit in aaaa's 16 bytes of slack: there, not after cccc */
		assert_int_equal(add_ok(&sb, b, "dddd", 16, EXT4_FT_REG_FILE), bo);
		assert_int_equal(DE_REC(b, a), 12);
		assert_int_equal(DE_REC(b, bo), 16);
		/* 13 bytes (rec_len 24) fit nowhere before cccc's slack */
		assert_int_equal(add_ok(&sb, b, "eeeeeeeeeeeee", 17, EXT4_FT_SYMLINK), c + 12);
		assert_int_equal(find(&sb, b, "bbbbbbbb"), -1);
		assert_int_equal(find(&sb, b, "dddd"), (int)bo);
		free(b);
	}
}

/* -EEXIST and -ENOSPC leave the block unchanged; the block holds what the lengths allow. */
static void test_dir__add_eexist_and_enospc(void **state)
{
	(void)state;
	for (unsigned s = 0; s < NBSS; s++) {
		struct ext4_dir_sb sb = dsb(bss[s], true);
		uint8_t *b = new_block(&sb, 2, 2), *copy = malloc(bss[s]);
		unsigned n = 0, off = 0, room = bss[s] - 12 - 24;
		char name[16];

		assert_non_null(copy);
		for (;; n++) {
			snprintf(name, sizeof(name), "name%04u", n);    /* 8 bytes: 16 a slot */
			memcpy(copy, b, bss[s]);
			int rc = add_dirent_to_buf(&sb, SEED, b, 100 + n, EXT4_FT_REG_FILE, name, 8,
						   &off);
			if (rc == -ENOSPC)
				break;
			assert_int_equal(rc, 0);
		}
		assert_memory_equal(copy, b, bss[s]);
		assert_int_equal(n, room / 16);
		assert_int_equal(add_dirent_to_buf(&sb, SEED, b, 9, EXT4_FT_REG_FILE, "name0000", 8,
						   &off), -EEXIST);
		assert_memory_equal(copy, b, bss[s]);
		/* a 4-byte name still fits where 12 bytes are left, not a longer one */
		if (room % 16 >= 12) {
			assert_int_equal(add_dirent_to_buf(&sb, SEED, b, 9, 1, "abcde", 5, &off),
					 -ENOSPC);
			add_ok(&sb, b, "abcd", 9, EXT4_FT_REG_FILE);
		}
		free(copy);
		free(b);
	}
}

/* Without metadata_csum the last entry reaches the block's end. */
static void test_dir__add_without_tail(void **state)
{
	struct ext4_dir_sb sb = dsb(1024, false);
	uint8_t *b = new_block(&sb, 2, 2);
	unsigned off = add_ok(&sb, b, "x", 12, EXT4_FT_REG_FILE);

	(void)state;
	assert_int_equal(off, 24);
	assert_int_equal(DE_REC(b, 24), 1024 - 24);
	assert_false(get_dirent_tail(&sb, b));
	assert_true(ext4_dirblock_csum_verify(&sb, SEED, b));   /* nothing to verify */
	free(b);
}

/* ---- deletion: ext4_generic_delete_entry ---- */

static void test_dir__delete_merges_into_previous(void **state)
{
	(void)state;
	for (unsigned s = 0; s < NBSS; s++) {
		struct ext4_dir_sb sb = dsb(bss[s], true);
		uint8_t *b = new_block(&sb, 2, 2);
		unsigned a = add_ok(&sb, b, "a", 13, 1), bo = add_ok(&sb, b, "bb", 14, 1);
		unsigned c = add_ok(&sb, b, "ccc", 15, 1), last = DE_REC(b, c);
		struct ext4_dirent d[8];

		assert_int_equal(ext4_generic_delete_entry(&sb, b, bo, bss[s], 12), 0);
		assert_int_equal(DE_REC(b, a), 24);
		for (unsigned i = bo; i < c; i++)
			assert_int_equal(b[i], 0);              /* wiped */
		assert_false(ext4_dirblock_csum_verify(&sb, SEED, b));  /* not yet set */
		assert_true(ext4_dirblock_csum_set(&sb, SEED, b));
		/* the last entry: merged, the previous one reaches the tail */
		assert_int_equal(ext4_delete_entry_buf(&sb, SEED, b, c), 0);
		assert_int_equal(DE_REC(b, a), 24 + last);
		assert_int_equal(a + DE_REC(b, a), bss[s] - 12);
		assert_true(ext4_dirblock_csum_verify(&sb, SEED, b));
		assert_int_equal(list(&sb, b, d, 8), 3);
		/* not an entry's offset */
		assert_int_equal(ext4_delete_entry_buf(&sb, SEED, b, a + 4), -ENOENT);
		assert_int_equal(ext4_delete_entry_buf(&sb, SEED, b, bss[s] - 12), -ENOENT); /* the tail */
		assert_int_equal(ext4_delete_entry_buf(&sb, SEED, b, a), 0);
		assert_true(ext4_empty_dir(&sb, b, 0, 2));
		free(b);
	}
}

/* The first entry of a block keeps its rec_len with inode 0 and a wiped name. */
static void test_dir__delete_first_entry_keeps_rec_len(void **state)
{
	(void)state;
	for (unsigned s = 0; s < NBSS; s++) {
		struct ext4_dir_sb sb = dsb(bss[s], true);
		uint8_t *b = malloc(bss[s]);
		unsigned x, y;

		assert_non_null(b);
		ext4_init_empty_dirblock(&sb, SEED, b);
		x = add_ok(&sb, b, "xxxxx", 13, 1);
		y = add_ok(&sb, b, "y", 14, 1);
		assert_int_equal(x, 0);
		assert_int_equal(y, 16);
		assert_int_equal(ext4_delete_entry_buf(&sb, SEED, b, 0), 0);
		assert_int_equal(DE_INO(b, 0), 0);
		assert_int_equal(DE_REC(b, 0), 16);
		for (unsigned i = 6; i < 16; i++)
			assert_int_equal(b[i], 0);
		assert_int_equal(find(&sb, b, "xxxxx"), -1);
		assert_int_equal(find(&sb, b, "y"), 16);
		assert_false(ext4_empty_dir(&sb, b, 1, 20));
		/* the unused entry's 16 bytes take a name of up to 8 */
		assert_int_equal(add_ok(&sb, b, "zzzzzzzz", 15, 1), 0);
		free(b);
	}
}

/*
 * An unused entry whose name is still there (ext2fs_unlink of a block's
 * first entry clears only its inode) is no match: not found, not -EEXIST.
 */
static void test_dir__unused_entry_name_is_no_match(void **state)
{
	struct ext4_dir_sb sb = dsb(1024, true);
	uint8_t b[1024];

	(void)state;
	ext4_init_empty_dirblock(&sb, SEED, b);
	assert_int_equal(add_ok(&sb, b, "xxxxx", 13, 1), 0);
	add_ok(&sb, b, "y", 14, 1);
	wr32(b, 0, 0);
	ext4_dirblock_csum_set(&sb, SEED, b);
	assert_int_equal(find(&sb, b, "xxxxx"), -1);
	assert_int_equal(add_ok(&sb, b, "xxxxx", 15, 1), 0);
	assert_int_equal(DE_INO(b, 0), 15);
}

/* ---- ext4_check_dir_entry ---- */

/* A block with . and .. whose .. entry gets @rec_len, @name_len and @ino. */
static const char *check_dotdot(unsigned rec_len, unsigned name_len, uint32_t ino)
{
	struct ext4_dir_sb sb = dsb(1024, true);
	uint8_t b[1024];

	ext4_init_new_dir_block(&sb, SEED, b, 2, 2);
	wr16(b, 12 + 4, (uint16_t)rec_len);
	b[12 + 6] = (uint8_t)name_len;
	wr32(b, 12, ino);
	return ext4_check_dir_entry(&sb, b, 1024, 12);
}

static void test_dir__check_reasons(void **state)
{
	struct ext4_dir_sb sb = dsb(1024, true);
	uint8_t b[1024];

	(void)state;
	assert_null(check_dotdot(1024 - 24, 2, 2));
	assert_string_equal(check_dotdot(8, 2, 2), "rec_len is smaller than minimal");
	assert_string_equal(check_dotdot(14, 2, 2), "rec_len % 4 != 0");
	assert_string_equal(check_dotdot(16, 20, 2), "rec_len is too small for name_len");
	assert_string_equal(check_dotdot(1024 - 8, 2, 2), "directory entry overrun");
	assert_string_equal(check_dotdot(1024 - 12 - 8, 2, 2),
			    "directory entry too close to block end");
	assert_null(check_dotdot(1024 - 12 - 12, 2, INODES));
	assert_string_equal(check_dotdot(1024 - 24, 2, INODES + 1), "inode out of bounds");
	/* '.' ending the data */
	ext4_init_new_dir_block(&sb, SEED, b, 2, 2);
	wr16(b, 4, 1024 - 12);
	assert_string_equal(ext4_check_dir_entry(&sb, b, 1024 - 12, 0),
			    "'.' directory cannot be the last in data block");
	/* the tail is a valid entry of the whole block */
	assert_null(ext4_check_dir_entry(&sb, b, 1024, 1024 - 12));
}

/* Every walk meets a bad entry with -EFSCORRUPTED; the iterator names the reason. */
static void test_dir__bad_entry_is_efscorrupted(void **state)
{
	struct ext4_dir_sb sb = dsb(1024, true);
	uint8_t b[1024];
	unsigned off = 0, c;
	struct ext4_dir_iter it;
	struct ext4_dirent d, res;

	(void)state;
	ext4_init_new_dir_block(&sb, SEED, b, 2, 2);
	add_ok(&sb, b, "a", 13, 1);
	c = add_ok(&sb, b, "c", 14, 1);
	wr16(b, c + 4, 14);                                     /* rec_len % 4 */
	assert_int_equal(ext4_search_dir(&sb, b, "c", 1, &res), -EFSCORRUPTED);
	assert_int_equal(ext4_search_dir(&sb, b, "a", 1, &res), 1);     /* before it: found */
	assert_int_equal(res.d_ino, 13);
	assert_int_equal(add_dirent_to_buf(&sb, SEED, b, 15, 1, "d", 1, &off), -EFSCORRUPTED);
	assert_int_equal(ext4_delete_entry_buf(&sb, SEED, b, c), -EFSCORRUPTED);
	assert_false(ext4_empty_dir(&sb, b, 0, 2));
	ext4_dir_iter_init(&it, &sb, b);
	assert_int_equal(ext4_dir_iter_next(&it, &d), 1);
	assert_int_equal(ext4_dir_iter_next(&it, &d), 1);
	assert_int_equal(ext4_dir_iter_next(&it, &d), 1);
	assert_int_equal(ext4_dir_iter_next(&it, &d), -EFSCORRUPTED);
	assert_string_equal(it.di_reason, "rec_len % 4 != 0");
	assert_int_equal(ext4_dir_iter_next(&it, &d), 0);       /* skipped to the block's end */
	/* rec_len 0: the search stops rather than loop */
	wr16(b, c + 4, 0);
	assert_int_equal(ext4_search_dir(&sb, b, "zz", 2, &res), -EFSCORRUPTED);
}

/* ---- empty_dir, the rename of a directory, ext4_setent ---- */

static void test_dir__empty_dir(void **state)
{
	(void)state;
	for (unsigned s = 0; s < NBSS; s++) {
		struct ext4_dir_sb sb = dsb(bss[s], true);
		uint8_t *b = new_block(&sb, 20, 2);
		unsigned off;

		assert_true(ext4_empty_dir(&sb, b, 0, 20));
		assert_false(ext4_empty_dir(&sb, b, 0, 21));    /* . is not this inode */
		off = add_ok(&sb, b, "sub", 21, EXT4_FT_DIR);
		assert_false(ext4_empty_dir(&sb, b, 0, 20));
		assert_int_equal(ext4_delete_entry_buf(&sb, SEED, b, off), 0);
		assert_true(ext4_empty_dir(&sb, b, 0, 20));
		b[8] = 'x';                                     /* "missing '.'" */
		assert_false(ext4_empty_dir(&sb, b, 0, 20));
		b[8] = '.';
		b[21] = 'a';                                    /* "missing '..'": ".a" */
		assert_false(ext4_empty_dir(&sb, b, 0, 20));
		assert_int_equal(ext4_get_first_dir_block(&sb, b, 20, &off), -EFSCORRUPTED);
		b[21] = '.';
		assert_true(ext4_empty_dir(&sb, b, 0, 20));
		wr32(b, 12, 0);                                 /* "missing '..'": inode 0 */
		assert_false(ext4_empty_dir(&sb, b, 0, 20));
		assert_int_equal(ext4_get_first_dir_block(&sb, b, 20, &off), -EFSCORRUPTED);
		free(b);
	}
}

static void test_dir__rename_dir_rewrites_dotdot(void **state)
{
	(void)state;
	for (unsigned s = 0; s < NBSS; s++) {
		struct ext4_dir_sb sb = dsb(bss[s], true);
		uint8_t *b = new_block(&sb, 20, 2);
		unsigned pde = 0;
		struct ext4_dirent d[4];

		add_ok(&sb, b, "child", 22, EXT4_FT_REG_FILE);
		assert_int_equal(ext4_rename_dir_prepare(&sb, b, 20, 3, &pde), -EFSCORRUPTED);
		assert_int_equal(ext4_rename_dir_prepare(&sb, b, 21, 2, &pde), -EFSCORRUPTED);
		assert_int_equal(ext4_rename_dir_prepare(&sb, b, 20, 2, &pde), 0);
		assert_int_equal(pde, 12);
		ext4_rename_dir_finish(&sb, SEED, b, pde, 30);
		assert_true(ext4_dirblock_csum_verify(&sb, SEED, b));
		assert_int_equal(list(&sb, b, d, 4), 3);
		assert_int_equal(d[1].d_ino, 30);
		assert_int_equal(d[1].d_rec_len, 12);
		assert_int_equal(d[2].d_ino, 22);
		assert_int_equal(ext4_get_first_dir_block(&sb, b, 20, &pde), 0);
		assert_int_equal(ext4_rename_dir_prepare(&sb, b, 20, 30, &pde), 0);
		free(b);
	}
}

static void test_dir__setent_replaces_inode_and_type(void **state)
{
	struct ext4_dir_sb sb = dsb(4096, true);
	uint8_t *b = new_block(&sb, 2, 2);
	unsigned off = add_ok(&sb, b, "new", 40, EXT4_FT_REG_FILE), rec = DE_REC(b, off);
	struct ext4_dirent d[4];

	(void)state;
	ext4_setent(&sb, SEED, b, off, 41, EXT4_FT_SYMLINK);
	assert_true(ext4_dirblock_csum_verify(&sb, SEED, b));
	assert_int_equal(list(&sb, b, d, 4), 3);
	assert_int_equal(d[2].d_ino, 41);
	assert_int_equal(d[2].d_type, EXT4_FT_SYMLINK);
	assert_int_equal(d[2].d_rec_len, rec);
	free(b);
}

/* ---- the checksum ---- */

static void test_dir__tail_checksum(void **state)
{
	struct ext4_dir_sb sb = dsb(1024, true);
	uint8_t *b = new_block(&sb, 2, 2);

	(void)state;
	assert_int_equal(ext4_i_csum_seed(SEED, 2, 0), ext4_i_csum_seed(SEED, 2, 0));
	assert_int_not_equal(ext4_i_csum_seed(SEED, 2, 0), ext4_i_csum_seed(SEED, 3, 0));
	assert_int_not_equal(ext4_i_csum_seed(SEED, 2, 0), ext4_i_csum_seed(SEED, 2, 1));
	assert_true(ext4_dirblock_csum_verify(&sb, SEED, b));
	assert_false(ext4_dirblock_csum_verify(&sb, SEED + 1, b));     /* another inode's seed */
	b[100] ^= 1;                                            /* a byte the checksum covers */
	assert_false(ext4_dirblock_csum_verify(&sb, SEED, b));
	b[100] ^= 1;
	b[1024 - 12 + 7] = 0;                                   /* no tail: nothing verifies */
	assert_false(get_dirent_tail(&sb, b));
	assert_false(ext4_dirblock_csum_verify(&sb, SEED, b));
	assert_false(ext4_dirblock_csum_set(&sb, SEED, b));
	free(b);
}

/* ---- against libext2fs ---- */

/* The model's view of the image's geometry. */
static struct ext4_dir_sb image_sb(const struct e2ref *r)
{
	return (struct ext4_dir_sb){ .ds_blocksize = e2ref_block_size(r),
				     .ds_inodes_count = e2ref_inodes_count(r),
				     .ds_metadata_csum = true };
}

static uint32_t image_seed(struct e2ref *r, uint32_t ino)
{
	return ext4_i_csum_seed(e2ref_csum_seed(r), ino, e2ref_generation(r, ino));
}

/* libext2fs's listing of @dir equals the iterator's over @b (its one block). */
static void same_listing(struct e2ref *r, const struct ext4_dir_sb *sb, uint32_t dir,
			 const uint8_t *b)
{
	static struct e2ref_dirent e[MAX_ENT];
	static struct ext4_dirent d[MAX_ENT];
	uint32_t n = 0, ino = 0;
	unsigned m = list(sb, b, d, MAX_ENT);

	assert_int_equal(e2ref_dir_iterate(r, dir, e, MAX_ENT, &n), 0);
	assert_int_equal(n, m);
	for (unsigned i = 0; i < m; i++) {
		assert_int_equal(e[i].off, d[i].d_off);
		assert_int_equal(e[i].ino, d[i].d_ino);
		assert_int_equal(e[i].type, d[i].d_type);
		assert_int_equal(e[i].name_len, d[i].d_name_len);
		assert_memory_equal(e[i].name, d[i].d_name, d[i].d_name_len);
		assert_int_equal(e2ref_lookup(r, dir, e[i].name, &ino), 0);
		assert_int_equal(ino, d[i].d_ino);
		assert_int_equal(find(sb, b, e[i].name), (int)d[i].d_off);
	}
}

/* mke2fs's root and lost+found blocks are the blocks these functions build. */
static void test_dir__mke2fs_blocks_are_ours(void **state)
{
	(void)state;
	for (unsigned s = 0; s < NBSS; s++) {
		struct ext4_mount_opts o = fx_opts(bss[s], DATA_ORDERED, true, FX_DISK_BLOCKS);
		struct fx_world *w = fx_world_format(&o);
		struct e2ref *r = e2ref_open_ok(w->bd);
		struct ext4_dir_sb sb = image_sb(r);
		uint8_t *disk = malloc(bss[s]), *ours = malloc(bss[s]);

		assert_non_null(disk);
		assert_non_null(ours);
		e2ref_dir_block_read(r, 2, 0, disk);
		ext4_init_new_dir_block(&sb, image_seed(r, 2), ours, 2, 2);
		add_ok_seed(&sb, image_seed(r, 2), ours, "lost+found", 11, EXT4_FT_DIR);
		add_ok_seed(&sb, image_seed(r, 2), ours, "f", 12, EXT4_FT_REG_FILE);
		assert_memory_equal(disk, ours, bss[s]);
		e2ref_dir_block_read(r, 11, 0, disk);
		ext4_init_new_dir_block(&sb, image_seed(r, 11), ours, 11, 2);
		assert_memory_equal(disk, ours, bss[s]);
		e2ref_dir_block_read(r, 11, 1, disk);           /* ext2fs_expand_dir's */
		ext4_init_empty_dirblock(&sb, image_seed(r, 11), ours);
		assert_memory_equal(disk, ours, bss[s]);
		free(disk);
		free(ours);
		e2ref_free(r);
		fx_world_free(w);
	}
}

/* The name of the @i-th test entry: lengths 1 to 19, so that rec_lens differ. */
static const char *nth_name(unsigned i, char *buf, size_t len)
{
	static const char pad[] = "abcdefghijklmnopqrs";

	snprintf(buf, len, "%u%.*s", i, (int)(i % 16), pad);
	return buf;
}

/* Blocks built here: libext2fs verifies their checksums and lists them as the iterator does. */
static void test_dir__our_blocks_read_by_libext2fs(void **state)
{
	(void)state;
	for (unsigned s = 0; s < NBSS; s++) {
		struct ext4_mount_opts o = fx_opts(bss[s], DATA_ORDERED, true, FX_DISK_BLOCKS);
		struct fx_world *w = fx_world_format(&o);
		struct e2ref *r = e2ref_open_ok(w->bd);
		struct ext4_dir_sb sb = image_sb(r);
		uint32_t seed = image_seed(r, 2), lseed = image_seed(r, 11), ino = 0;
		uint8_t *b = malloc(bss[s]);
		uint64_t pblk = e2ref_dir_block_read(r, 2, 0, b);
		unsigned offs[64], n = 0, pde = 0;
		char name[32];

		assert_non_null(b);
		/* the root: names added, every third deleted, one replaced */
		for (; n < 64; n++) {
			unsigned off;

			nth_name(n, name, sizeof(name));
			if (add_dirent_to_buf(&sb, seed, b, 12, EXT4_FT_REG_FILE, name,
					      (unsigned)strlen(name), &off))
				break;
			offs[n] = off;
		}
		assert_true(n > 10);
		for (unsigned i = 1; i < n; i += 3)
			assert_int_equal(ext4_delete_entry_buf(&sb, seed, b, offs[i]), 0);
		ext4_setent(&sb, seed, b, offs[0], 11, EXT4_FT_DIR);
		e2ref_block_write(r, pblk, b);
		assert_true(e2ref_dir_block_csum_ok(r, 2, b));
		same_listing(r, &sb, 2, b);
		assert_int_equal(e2ref_lookup(r, 2, nth_name(1, name, sizeof(name)), &ino), 1);
		b[bss[s] / 2] ^= 0x40;                          /* libext2fs sees a bad checksum */
		assert_false(e2ref_dir_block_csum_ok(r, 2, b));
		/* lost+found: a new directory's block, two names, .. moved to inode 12 */
		pblk = e2ref_dir_block_read(r, 11, 0, b);
		ext4_init_new_dir_block(&sb, lseed, b, 11, 2);
		add_ok_seed(&sb, lseed, b, "x", 12, EXT4_FT_REG_FILE);
		add_ok_seed(&sb, lseed, b, "yy", 12, EXT4_FT_REG_FILE);
		assert_int_equal(ext4_rename_dir_prepare(&sb, b, 11, 2, &pde), 0);
		ext4_rename_dir_finish(&sb, lseed, b, pde, 12);
		e2ref_block_write(r, pblk, b);
		assert_true(e2ref_dir_block_csum_ok(r, 11, b));
		same_listing(r, &sb, 11, b);
		assert_int_equal(e2ref_lookup(r, 11, "..", &ino), 0);
		assert_int_equal(ino, 12);
		free(b);
		e2ref_free(r);
		fx_world_free(w);
	}
}

/* Blocks ext2fs_link, ext2fs_unlink and ext2fs_new_dir_block make, read back here. */
static void test_dir__libext2fs_blocks_read_back(void **state)
{
	(void)state;
	for (unsigned s = 0; s < NBSS; s++) {
		struct ext4_mount_opts o = fx_opts(bss[s], DATA_ORDERED, true, FX_DISK_BLOCKS);
		struct fx_world *w = fx_world_format(&o);
		struct e2ref *r = e2ref_open_ok(w->bd);
		struct ext4_dir_sb sb = image_sb(r);
		uint32_t seed = image_seed(r, 2);
		uint8_t *b = malloc(bss[s]), *ours = malloc(bss[s]);
		unsigned n = 0, off = 0;
		uint64_t pblk;
		long err = 0;
		char name[32];

		assert_non_null(b);
		assert_non_null(ours);
		pblk = e2ref_dir_block_read(r, 2, 0, ours);
		/* linked until full: the same bytes, and the same name refused, as here */
		for (;; n++) {
			nth_name(n, name, sizeof(name));
			err = e2ref_link(r, 2, name, 12, EXT4_FT_REG_FILE);
			int rc = add_dirent_to_buf(&sb, seed, ours, 12, EXT4_FT_REG_FILE, name,
						   (unsigned)strlen(name), &off);
			if (err) {
				assert_int_equal(rc, -ENOSPC);
				break;
			}
			assert_int_equal(rc, 0);
		}
		assert_true(n > 10);
		e2ref_dir_block_read(r, 2, 0, b);
		assert_memory_equal(b, ours, bss[s]);
		/* unlinked: merged into the previous entry, read back here */
		for (unsigned i = 2; i < n; i += 4)
			assert_int_equal(e2ref_unlink(r, 2, nth_name(i, name, sizeof(name))), 0);
		e2ref_dir_block_read(r, 2, 0, b);
		assert_true(ext4_dirblock_csum_verify(&sb, seed, b));
		same_listing(r, &sb, 2, b);
		assert_int_equal(find(&sb, b, nth_name(2, name, sizeof(name))), -1);
		/* and a name added here to libext2fs's block, read back there */
		add_ok_seed(&sb, seed, b, "added-here", 12, EXT4_FT_SYMLINK);
		e2ref_block_write(r, pblk, b);
		same_listing(r, &sb, 2, b);
		/* ext2fs_new_dir_block(20, 2): a new directory's first block, as ours */
		e2ref_new_dir_block(r, 20, 2, b);
		e2ref_dir_block_csum_set(r, 20, b);
		ext4_init_new_dir_block(&sb, image_seed(r, 20), ours, 20, 2);
		assert_memory_equal(b, ours, bss[s]);
		assert_true(ext4_dirblock_csum_verify(&sb, image_seed(r, 20), b));
		assert_int_equal(ext4_get_first_dir_block(&sb, b, 20, &off), 0);
		assert_int_equal(off, 12);
		assert_true(ext4_empty_dir(&sb, b, 0, 20));
		free(b);
		free(ours);
		e2ref_free(r);
		fx_world_free(w);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dir__rec_len_and_types),
		cmocka_unit_test(test_dir__new_dir_block_layout),
		cmocka_unit_test(test_dir__dot_dotdot_real_len),
		cmocka_unit_test(test_dir__empty_block),
		cmocka_unit_test(test_dir__add_splits_the_last_entry),
		cmocka_unit_test(test_dir__add_first_fit_from_start),
		cmocka_unit_test(test_dir__add_eexist_and_enospc),
		cmocka_unit_test(test_dir__add_without_tail),
		cmocka_unit_test(test_dir__delete_merges_into_previous),
		cmocka_unit_test(test_dir__delete_first_entry_keeps_rec_len),
		cmocka_unit_test(test_dir__unused_entry_name_is_no_match),
		cmocka_unit_test(test_dir__check_reasons),
		cmocka_unit_test(test_dir__bad_entry_is_efscorrupted),
		cmocka_unit_test(test_dir__empty_dir),
		cmocka_unit_test(test_dir__rename_dir_rewrites_dotdot),
		cmocka_unit_test(test_dir__setent_replaces_inode_and_type),
		cmocka_unit_test(test_dir__tail_checksum),
		cmocka_unit_test_teardown(test_dir__mke2fs_blocks_are_ours, fx_world_leftover),
		cmocka_unit_test_teardown(test_dir__our_blocks_read_by_libext2fs, fx_world_leftover),
		cmocka_unit_test_teardown(test_dir__libext2fs_blocks_read_back, fx_world_leftover),
	};

	return cmocka_run_group_tests_name("dir", tests, NULL, NULL);
}
