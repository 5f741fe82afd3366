/*
 * pending.h - the writes a crash point leaves pending, in words.
 *
 * A crash point numbers its pending writes 1, 2, ... in submission order
 * (the numbers `crash --keep` takes).  With CS_WRITES, crash-state
 * enumeration keeps, per pending write, what the submitter said it is
 * (struct bio_info: the file block, the transaction, the home block, the
 * submit event's number), so a state can be read as "write 1 (e14, data
 * block 0 of the file, disk 1043) reached the media; write 2 (e17, data
 * block 1 of the file, disk 1044) did not".
 */
#ifndef EXT4SIM_PENDING_H
#define EXT4SIM_PENDING_H

#include <stddef.h>
#include <stdint.h>

#include "ext4.h"

/* What a pending write's block belongs to, in a namespace scenario (cs_name_writes). */
enum cs_owner_kind {
	CS_OWN_NONE,                    /* not named: "data block 0 of the file" as before */
	CS_OWN_DATA,                    /* a regular file's data block */
	CS_OWN_DIR,                     /* a directory block */
	CS_OWN_LINK,                    /* a slow symbolic link's target block */
	CS_OWN_EXTENT,                  /* an extent tree's leaf block */
	CS_OWN_ITABLE,                  /* an inode-table block */
};

/* One pending write of a crash point. */
struct cs_write {
	uint32_t w_blocknr;
	uint8_t w_state;                /* enum bio_state: in flight or in the volatile cache */
	bool w_fua;
	uint8_t w_own;                  /* enum cs_owner_kind */
	uint32_t w_ino;                 /* the inode it belongs to (ITABLE: the block's first) */
	uint32_t w_ino_last;            /* ITABLE: the block's last inode */
	int64_t w_own_lblk;             /* DATA, DIR, LINK: the inode's block */
	struct bio_info w_info;
};

/* An inode a named write belongs to, with its first path (sorted bytewise), or "". */
struct cs_owner {
	uint32_t o_ino;
	char o_path[256];               /* NSNAP_PATH_MAX */
};

struct cs_point;
struct cs_state;

/* What a write is: "data block 1 of the file (disk 1044)", "journal commit block of tid 2". */
void cs_write_text(const struct ext4_layout *lay, enum bio_what what, uint32_t disk,
		   int64_t block, uint32_t tid, char *out, size_t cap);

/*
 * The same for pending write @w of crash point @p; named by its owner when
 * cs_name_writes named it ("data block 0 of /A/foo (inode 14, disk 2067)",
 * "journal copy of the directory block 0 of /A (inode 13, disk 2070) for
 * tid 2 (disk 530)", "inode table (inodes 1-16, disk 41)").
 */
void cs_bio_text(const struct ext4_layout *lay, const struct cs_point *p, const struct cs_write *w,
		 char *out, size_t cap);

/* Copy @bd's pending writes into @p (its writes, nr_writes). */
void cs_keep_writes(struct cs_point *p, const struct blkdev *bd);

struct ext4_fs;
struct nsnap;
/*
 * A namespace scenario: say which inode each of @p's pending writes belongs
 * to, as @fs holds its blocks now (the in-core inodes' block maps and
 * extent leaves; the inode tables by the group descriptors), each inode
 * with its first path in @names (the tree after the last step; "" when no
 * name reaches it there).  Replaces what an earlier call said.
 */
void cs_name_writes(struct cs_point *p, const struct ext4_fs *fs, const struct nsnap *names);

/*
 * Which pending writes state @st's example keeps and which it loses, named:
 * "kept: 1 (e14) data block 0 of the file (disk 1043); lost: 2 (e17) ...".
 * Without the point's writes (no CS_WRITES) or for an example that is not
 * a keep list, @out is empty.  At most CS_WRITES_NAMED writes are named.
 */
void cs_describe_writes(const struct ext4_layout *lay, const struct cs_point *p,
			const struct cs_state *st, char *out, size_t cap);

#define CS_WRITES_NAMED 16u

#endif
