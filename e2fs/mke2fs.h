/*
 * mke2fs.h - the model's device starts as the file system Debian 12's
 * mke2fs makes:
 *
 *   E2FSPROGS_FAKE_TIME=1686355200 mke2fs -t ext4 -b BS \
 *       -U 0b7d3c2e-1f2a-4b5c-8d9e-0a1b2c3d4e5f \
 *       -E nodiscard,lazy_itable_init=0,lazy_journal_init=0,hash_seed=6a1c2b3d-4e5f-4a6b-9c7d-8e9f0a1b2c3d \
 *       DEVICE NR_BLOCKS
 *
 * then the model's one file, as `debugfs -w -R "write EMPTY f"` makes it
 * from an empty file of mode 0644: inode 12, mode 0100644, uid and gid 0,
 * one link, EXT4_EXTENTS_FL with an empty extent header, size 0, named `f`
 * in the root directory.  Made in process by libext2fs (e2fsprogs 1.47.0)
 * over the model's device, with mke2fs's own steps (mke2fs.c), once per
 * geometry per process: the image is frozen into a shared base
 * (blkdev.h) and every device made for that geometry reads through it.
 */
#ifndef EXT4SIM_MKE2FS_H
#define EXT4SIM_MKE2FS_H

#include <stdint.h>

/*
 * Every timestamp mkfs writes (s_mkfs_time, s_lastcheck, s_wtime, the
 * inodes' times): Debian 12's release, 2023-06-10 00:00:00 UTC.  The
 * fidelity test runs the real mke2fs and debugfs with
 * E2FSPROGS_FAKE_TIME set to it.
 */
#define E2FS_MKFS_TIME 1686355200u
/*
 * mke2fs makes no journal below 2048 blocks (ext2fs_default_journal_size()
 * returns -1), and the model needs one.
 */
#define E2FS_MIN_BLOCKS 2048u
#define E2FS_FILE_INO 12u       /* the model's file: the first non-reserved inode */
#define E2FS_FILE_NAME "f"

/* -U and -E hash_seed= above, as bytes. */
extern const uint8_t e2fs_uuid[16];
extern const uint8_t e2fs_hash_seed[16];

struct blkdev;
struct blkdev_base;

/*
 * Why mke2fs (or the model) refuses a device of @nr_blocks blocks of
 * @block_size bytes, or NULL when it makes one.
 */
const char *mke2fs_refuses(uint32_t nr_blocks, uint32_t block_size);
/*
 * The image of that geometry: made by mke2fs_make() on first use, then
 * kept for the process (the cache holds a reference).  NULL with *@why
 * set (a static string) when refused or when libext2fs fails.
 */
struct blkdev_base *mke2fs_base(uint32_t nr_blocks, uint32_t block_size, const char **why);
/*
 * A new device over that image (blkdev_create_on): nothing is copied.
 * NULL with *@why set when refused.
 */
struct blkdev *mke2fs_device(uint32_t nr_blocks, uint32_t block_size, const char **why);
/*
 * Run the sequence on @bd (a fresh device of the geometry, nothing
 * pending): 0, or libext2fs's error code with *@why naming the step.
 */
long mke2fs_make(struct blkdev *bd, const char **why);
/* Drop the cached images (their devices keep theirs alive). */
void mke2fs_cache_drop(void);

#endif
