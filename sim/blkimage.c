/*
 * blkimage.c - the device as a sparse image file and back, block by block
 * (see blkimage.h): written through lib/outfile (a file, or a directory of
 * crash-state images) so that nothing half written is ever left; read with
 * SEEK_DATA and SEEK_HOLE so that a hole costs no read.
 */
#define _GNU_SOURCE                     /* SEEK_DATA, SEEK_HOLE */
#include "blkimage.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blkdev.h"
#include "sim.h"

/* Block @blk as an image holds it: its bytes, or NULL for a hole (never written, or zeros). */
static const uint8_t *data_block(const struct blkdev *bd, uint32_t blk)
{
	const uint8_t *p = blkdev_peek(bd, blk);
	uint32_t bs = bd->bd_block_size;

	if (!p || (p[0] == 0 && memcmp(p, p + 1, bs - 1) == 0))
		return NULL;
	return p;
}

int64_t sim_image_data_bytes(const struct blkdev *bd)
{
	int64_t n = 0;

	for (uint32_t blk = 0; blk < bd->bd_nr_blocks; blk++)
		n += data_block(bd, blk) ? bd->bd_block_size : 0;
	return n;
}

/* pwrite(2) of all @n bytes at @off; 0, or -1 with errno. */
static int pwrite_all(int fd, const uint8_t *buf, size_t n, off_t off)
{
	while (n > 0) {
		ssize_t k = pwrite(fd, buf, n, off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -1 : (errno = EIO, -1);
		buf += k;
		n -= (size_t)k;
		off += k;
	}
	return 0;
}

/* write(2) of all @n bytes (a target that is not seekable); 0, or -1 with errno. */
static int write_all(int fd, const uint8_t *buf, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, buf, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -1 : (errno = EIO, -1);
		buf += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Every block in order, holes as zeros: a block device or a FIFO. */
static int write_stream(const struct blkdev *bd, int fd)
{
	uint32_t bs = bd->bd_block_size;
	uint8_t *zero = sim_zalloc(bs);
	int rc = 0;

	for (uint32_t blk = 0; rc == 0 && blk < bd->bd_nr_blocks; blk++) {
		const uint8_t *p = data_block(bd, blk);

		rc = write_all(fd, p ? p : zero, bs);
	}
	free(zero);
	return rc;
}

int sim_image_write_fd(const struct blkdev *bd, int fd)
{
	uint32_t bs = bd->bd_block_size;
	struct stat st;

	if (fstat(fd, &st) != 0)
		return -1;
	if (!S_ISREG(st.st_mode))
		return write_stream(bd, fd);
	if (ftruncate(fd, 0) != 0 || ftruncate(fd, (off_t)bd->bd_nr_blocks * bs) != 0)
		return -1;
	for (uint32_t blk = 0; blk < bd->bd_nr_blocks; blk++) {
		const uint8_t *p = data_block(bd, blk);

		if (p && pwrite_all(fd, p, bs, (off_t)blk * bs) != 0)
			return -1;
	}
	return 0;
}

/* "ext4sim: --max-image-bytes N: WHAT D bytes of data; nothing written" into @err; -1. */
static int over_budget(char *err, size_t errlen, int64_t max, const char *what, int64_t need)
{
	snprintf(err, errlen, "ext4sim: --max-image-bytes %lld: %s %lld bytes of data; nothing "
		 "written", (long long)max, what, (long long)need);
	return -1;
}

int sim_image_write(const struct blkdev *bd, const char *path, int64_t max_bytes, char *err,
		    size_t errlen)
{
	int64_t max = max_bytes ? max_bytes : SIM_IMAGE_BYTES_DEFAULT;
	int64_t need = sim_image_data_bytes(bd);
	char what[OUTFILE_PATH_MAX + 16];
	struct outfile o;

	snprintf(what, sizeof(what), "%s needs", path);
	if (need > max)
		return over_budget(err, errlen, max, what, need);
	if (outfile_open(&o, path, false, err, errlen) < 0)
		return -1;
	if (sim_image_write_fd(bd, fileno(o.f)) < 0) {
		snprintf(err, errlen, "ext4sim: cannot write %s: %s", path, strerror(errno));
		outfile_abort(&o);
		return -1;
	}
	return outfile_commit(&o, err, errlen);
}

/* --- reading --- */

/* Block @blk of the image into @buf (zeros past its end); 0, or -1 with errno. */
static int read_block(int fd, uint32_t blk, uint32_t bs, uint8_t *buf)
{
	size_t got = 0;

	while (got < bs) {
		ssize_t k = pread(fd, buf + got, bs - got, (off_t)blk * bs + (off_t)got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	memset(buf + got, 0, bs - got);
	return 0;
}

/* Blocks [@from, @to) of the image onto @bd: read (@data) or zeros; 0, or -1 with errno. */
static int load_range(struct blkdev *bd, int fd, uint32_t from, uint32_t to, bool data,
		      uint8_t *buf)
{
	uint32_t bs = bd->bd_block_size;

	if (!data)
		memset(buf, 0, bs);
	for (uint32_t blk = from; blk < to; blk++) {
		if (data && read_block(fd, blk, bs, buf) != 0)
			return -1;
		blkdev_write_durable(bd, blk, buf);
	}
	return 0;
}

/*
 * The image's blocks onto @bd: a regular file's data extents read (SEEK_DATA,
 * SEEK_HOLE), its holes zero blocks; a block device read whole.  0, or -1.
 */
static int load_blocks(struct blkdev *bd, int fd, bool regular, int64_t size)
{
	uint32_t bs = bd->bd_block_size, next = 0;
	uint8_t *buf = sim_zalloc(bs);
	int rc = regular ? 0 : load_range(bd, fd, 0, bd->bd_nr_blocks, true, buf);

	while (regular && rc == 0 && next < bd->bd_nr_blocks) {
		off_t ds = lseek(fd, (off_t)next * bs, SEEK_DATA), de;

		if (ds < 0 && errno != ENXIO) {
			rc = -1;
			break;
		}
		ds = ds < 0 ? (off_t)size : ds;         /* ENXIO: no data past here */
		de = ds < size ? lseek(fd, ds, SEEK_HOLE) : (off_t)size;
		if (de < 0) {
			rc = -1;
			break;
		}
		rc = load_range(bd, fd, next, (uint32_t)(ds / bs), false, buf);
		if (rc == 0)
			rc = load_range(bd, fd, (uint32_t)(ds / bs),
					(uint32_t)((de + bs - 1) / bs), true, buf);
		next = (uint32_t)((de + bs - 1) / bs);
	}
	free(buf);
	return rc;
}

/* The image's size: a regular file's, or a block device's; -1 with @err otherwise. */
static int64_t image_size(const char *path, int fd, bool *regular, char *err, size_t errlen)
{
	struct stat st;
	off_t end;

	if (fstat(fd, &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	*regular = S_ISREG(st.st_mode);
	if (*regular)
		return st.st_size;
	if (!S_ISBLK(st.st_mode) || (end = lseek(fd, 0, SEEK_END)) < 0) {
		snprintf(err, errlen, "%s: not a regular file or a block device", path);
		return -1;
	}
	return end;
}

struct blkdev *sim_image_load(const char *path, uint32_t block_size, uint32_t nr_blocks,
			      char *err, size_t errlen)
{
	int64_t want = (int64_t)block_size * nr_blocks, size;
	struct blkdev *bd = NULL;
	bool regular = false, ok = false;
	int fd = open(path, O_RDONLY | O_NOCTTY);

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if ((size = image_size(path, fd, &regular, err, errlen)) < 0) {
		close(fd);
		return NULL;
	}
	if (size != want)
		snprintf(err, errlen, "%s: the image is %lld bytes, the device %lld (block size %u "
			 "times disk_blocks %u)", path, (long long)size, (long long)want, block_size,
			 nr_blocks);
	else if (size > SIM_IMAGE_LOAD_MAX)
		snprintf(err, errlen, "%s: %lld bytes: --from-image loads at most %lld (the device "
			 "holds every block in memory)", path, (long long)size,
			 (long long)SIM_IMAGE_LOAD_MAX);
	else if (load_blocks(bd = blkdev_create(nr_blocks, block_size), fd, regular, size) < 0)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	else
		ok = true;
	close(fd);
	if (!ok) {
		blkdev_destroy(bd);
		return NULL;
	}
	return bd;
}

/* --- crashstates --images --- */

static char *dir_write(struct cs_image_sink *sink, const struct cs_point *p,
		       const struct blkdev *dev);

int sim_image_dir_open(struct sim_image_dir *d, const char *path, int64_t max_bytes,
		       uint32_t nr_steps, char *err, size_t errlen)
{
	memset(d, 0, sizeof(*d));
	d->sink.cis_write = dir_write;
	d->max_bytes = max_bytes ? max_bytes : SIM_IMAGE_BYTES_DEFAULT;
	d->step_width = 2;
	for (uint32_t n = nr_steps; n >= 100; n /= 10)
		d->step_width++;
	return outfile_dir_open(&d->dir, path, err, errlen);
}

/* The sink: state @p's next image, DIR/step-SS-state-NNNN.img, or NULL after a failure. */
static char *dir_write(struct cs_image_sink *sink, const struct cs_point *p,
		       const struct blkdev *dev)
{
	struct sim_image_dir *d = (struct sim_image_dir *)sink;
	char name[OUTFILE_DIR_NAME_MAX], what[OUTFILE_DIR_NAME_MAX + 32], *path;
	int64_t need;
	int fd;

	if (d->failed)
		return NULL;
	if (p->step != d->step) {
		d->step = p->step;
		d->nr_in_step = 0;
	}
	snprintf(name, sizeof(name), "step-%0*u-state-%04u.img", (int)d->step_width, p->step,
		 ++d->nr_in_step);
	need = sim_image_data_bytes(dev);
	if (d->used + need > d->max_bytes) {
		snprintf(what, sizeof(what), "the images through %s need", name);
		d->failed = true;
		over_budget(d->err, sizeof(d->err), d->max_bytes, what, d->used + need);
		return NULL;
	}
	if ((fd = outfile_dir_create(&d->dir, name, d->err, sizeof(d->err))) < 0) {
		d->failed = true;
		return NULL;
	}
	if (sim_image_write_fd(dev, fd) != 0 || close(fd) != 0) {
		snprintf(d->err, sizeof(d->err), "ext4sim: cannot write %s/%s: %s", d->dir.path,
			 name, strerror(errno));
		d->failed = true;
		return NULL;
	}
	d->used += need;
	d->nr_images++;
	path = sim_zalloc(strlen(d->dir.path) + strlen(name) + 2);
	sprintf(path, "%s/%s", d->dir.path, name);
	return path;
}

int sim_image_dir_close(struct sim_image_dir *d, bool commit, char *err, size_t errlen)
{
	if (commit && !d->failed)
		return outfile_dir_commit(&d->dir, err, errlen);
	outfile_dir_abort(&d->dir);
	snprintf(err, errlen, "%s", d->failed ? d->err : "");
	return -1;
}
