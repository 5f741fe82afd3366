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

/* One pending write of a crash point. */
struct cs_write {
	uint32_t w_blocknr;
	uint8_t w_state;                /* enum bio_state: in flight or in the volatile cache */
	bool w_fua;
	struct bio_info w_info;
};

struct cs_point;
struct cs_state;

/* What a write is: "data block 1 of the file (disk 1044)", "journal commit block of tid 2". */
void cs_write_text(const struct ext4_layout *lay, enum bio_what what, uint32_t disk,
		   int64_t block, uint32_t tid, char *out, size_t cap);

/* The same for a pending write of a crash point. */
void cs_bio_text(const struct ext4_layout *lay, const struct cs_write *w, char *out, size_t cap);

/* Copy @bd's pending writes into @p (its writes, nr_writes). */
void cs_keep_writes(struct cs_point *p, const struct blkdev *bd);

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
