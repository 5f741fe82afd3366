/*
 * blkimage.h - the model's device as a file and back (run --image, run
 * --from-image, crashstates --images; docs/scenario-format.md, "Images").
 *
 * An image is the device's blocks in order, bd_nr_blocks * bd_block_size
 * bytes, nothing else: this file moves blocks and never reads what they
 * hold, so it does not depend on the on-disk format.  Written, it is a
 * sparse file: a block the device never wrote (it holds the sentinel) and a
 * block of zeros are holes, which a real device reads as zeros; every other
 * block is written.  Into a target that is not a regular file (a block
 * device, a FIFO) every block is written in order, holes as zeros.  Read, a
 * hole and a block of zeros are both a block of zeros on the device, and
 * every other block is written to it durable.
 */
#ifndef EXT4SIM_BLKIMAGE_H
#define EXT4SIM_BLKIMAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "crashstates.h"
#include "outfile.h"

/* The default of --max-image-bytes: the data the images of one command may hold. */
#define SIM_IMAGE_BYTES_DEFAULT ((int64_t)1 << 30)
#define SIM_IMAGE_BYTES_MAX ((int64_t)1 << 40)
/*
 * The largest image --from-image loads: the device holds every one of its
 * blocks in memory, holes and zero blocks too.
 */
#define SIM_IMAGE_LOAD_MAX ((int64_t)1 << 30)
#define SIM_IMAGE_ERR_MAX (OUTFILE_PATH_MAX + 256)

struct blkdev;

/* The bytes of @bd an image of it holds as data (its blocks neither never written nor zero). */
int64_t sim_image_data_bytes(const struct blkdev *bd);
/*
 * Write @bd's blocks (what a read returns) into @fd: a regular file is
 * truncated to the device's size and gets its data blocks, a target that is
 * not one every block in order.  0, or -1 with errno set.
 */
int sim_image_write_fd(const struct blkdev *bd, int fd);
/*
 * Write @bd to @path whole or not at all (lib/outfile.h); refused before
 * anything is written when its data passes @max_bytes (0: the default).
 * 0, or -1 with "ext4sim: ..." in @err.
 */
int sim_image_write(const struct blkdev *bd, const char *path, int64_t max_bytes, char *err,
		    size_t errlen);
/*
 * A device of @nr_blocks blocks of @block_size bytes holding image @path
 * (a regular file, read by SEEK_DATA and SEEK_HOLE, or a block device); NULL
 * with "PATH: message" in @err when it cannot be read, is larger than
 * SIM_IMAGE_LOAD_MAX, or its size is not the device's.
 */
struct blkdev *sim_image_load(const char *path, uint32_t block_size, uint32_t nr_blocks,
			      char *err, size_t errlen);

/*
 * crashstates --images DIR: the sink that writes each distinct crash state's
 * device as DIR/step-SS-state-NNNN.img (SS the crash step, NNNN the state's
 * number among the step's distinct states, from 1, across the step's crash
 * points), all into a temporary directory renamed to DIR by
 * sim_image_dir_close; the first image that would pass @max_bytes of data is
 * not written and fails the whole directory.
 */
struct sim_image_dir {
	struct cs_image_sink sink;      /* first: the sink crashstates.c calls */
	struct outfile_dir dir;
	int64_t max_bytes;
	int64_t used;                   /* data bytes written so far */
	uint32_t step_width;            /* digits of the step number */
	uint32_t step, nr_in_step;      /* the step of the last image and its count */
	uint32_t nr_images;
	bool failed;
	char err[SIM_IMAGE_ERR_MAX];    /* the first error */
};

/* Open DIR's temporary directory; 0, or -1 with "ext4sim: ..." in @err. */
int sim_image_dir_open(struct sim_image_dir *d, const char *path, int64_t max_bytes,
		       uint32_t nr_steps, char *err, size_t errlen);
/*
 * With @commit and no failure, rename the directory to DIR and return 0;
 * otherwise remove everything and return -1 with the first error in @err
 * (or nothing, when only @commit was false).
 */
int sim_image_dir_close(struct sim_image_dir *d, bool commit, char *err, size_t errlen);

#endif
