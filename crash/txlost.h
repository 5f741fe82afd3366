/*
 * txlost.h - what a crash state kept and lost of the file's size and block
 * map, by transaction.
 *
 * At a crash the in-memory inode holds every change the steps made: those
 * in committed transactions, in the one being committed and in the running
 * one (ext4_mark_inode_dirty put them there).  A crash state keeps what its
 * home blocks and the transactions recovery replayed hold; the rest was in a
 * transaction that did not reach the media (the running one, or a commit
 * whose commit block is not on the media).  Delayed extents are in no
 * transaction and are not counted.
 */
#ifndef EXT4SIM_TXLOST_H
#define EXT4SIM_TXLOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ext4.h"

#define CS_CHANGES_MAX 320

/*
 * @mem is the file system at the crash, @rec one recovered state of it;
 * @committing the tid being committed at the point (0: none) and whether
 * its commit block @landed.  @kept gets "i_disksize 8192, extents 0-1
 * written@1043" (the recovered inode: home blocks plus replayed
 * transactions); @lost what the in-memory inode has and @rec does not,
 * with the transactions it was in: "with tid 3 (running): i_disksize 4096
 * -> 8192, extents 1 written@1044", or "" when nothing of the size or the
 * extents was lost.
 */
void cs_tx_changes(const struct ext4_fs *mem, const struct ext4_fs *rec, uint32_t committing,
		   bool landed, char *kept, char *lost, size_t cap);

#endif
