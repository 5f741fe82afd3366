/*
 * e2fs_io.c - the io_manager of e2fs_io.h: libext2fs's reads and writes
 * turned into reads and durable writes of the model's struct blkdev.  The
 * shape follows lib/ext2fs/unix_io.c (open, close with a reference count,
 * set_blksize, read_blk64/write_blk64 with a negative count meaning bytes,
 * zeroout), without its cache: the device is memory.
 */
#include <sys/types.h>

#include <ext2fs/ext2fs.h>
#include <stdlib.h>
#include <string.h>

#include "e2fs_io.h"
#include "blkdev.h"
#include "sim.h"

static struct blkdev *e2fs_io_next;     /* the device the next open attaches */

void e2fs_io_attach(struct blkdev *bd)
{
	SIM_ASSERT(bd != NULL);
	e2fs_io_next = bd;
}

static struct blkdev *chan_bdev(io_channel ch)
{
	SIM_ASSERT(ch->magic == EXT2_ET_MAGIC_IO_CHANNEL);
	return ch->private_data;
}

static errcode_t e2fs_io_open(const char *name, int flags, io_channel *channel)
{
	io_channel ch;

	(void)flags;
	if (!e2fs_io_next)
		return EXT2_ET_BAD_DEVICE_NAME;
	ch = sim_zalloc(sizeof(*ch));
	ch->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	ch->manager = e2fs_io_manager;
	ch->name = sim_zalloc(strlen(name) + 1);
	memcpy(ch->name, name, strlen(name) + 1);
	ch->block_size = 1024;
	ch->refcount = 1;
	ch->private_data = e2fs_io_next;
	e2fs_io_next = NULL;
	*channel = ch;
	return 0;
}

static errcode_t e2fs_io_close(io_channel ch)
{
	(void)chan_bdev(ch);
	if (--ch->refcount > 0)
		return 0;
	free(ch->name);
	free(ch);
	return 0;
}

static errcode_t e2fs_io_set_blksize(io_channel ch, int blksize)
{
	(void)chan_bdev(ch);
	if (blksize <= 0)
		return EXT2_ET_INVALID_ARGUMENT;
	ch->block_size = blksize;
	return 0;
}

/*
 * The byte range a channel request names: @count blocks of the channel's
 * size from @block, or -@count bytes; false when it leaves the device.
 */
static bool chan_range(io_channel ch, unsigned long long block, int count,
		       uint64_t *off, uint64_t *len)
{
	const struct blkdev *bd = chan_bdev(ch);
	uint64_t size = (uint64_t)bd->bd_nr_blocks * bd->bd_block_size;

	*len = count < 0 ? (uint64_t)-(int64_t)count : (uint64_t)count * (uint64_t)ch->block_size;
	if (block > size / (uint64_t)ch->block_size)
		return false;
	*off = block * (uint64_t)ch->block_size;
	return *off <= size && *len <= size - *off;
}

static errcode_t e2fs_io_read_blk64(io_channel ch, unsigned long long block, int count,
				    void *data)
{
	struct blkdev *bd = chan_bdev(ch);
	uint32_t bs = bd->bd_block_size;
	uint64_t off, len;
	uint8_t *out = data;

	if (!chan_range(ch, block, count, &off, &len))
		return EXT2_ET_SHORT_READ;
	while (len) {
		uint32_t in = (uint32_t)(off % bs), n = (uint32_t)SIM_MIN(len, (uint64_t)(bs - in));
		const uint8_t *p = blkdev_peek(bd, (uint32_t)(off / bs));

		if (p)
			memcpy(out, p + in, n);
		else
			memset(out, BLKDEV_SENTINEL, n);
		out += n;
		off += n;
		len -= n;
	}
	return 0;
}

static errcode_t e2fs_io_write_blk64(io_channel ch, unsigned long long block, int count,
				     const void *data)
{
	struct blkdev *bd = chan_bdev(ch);
	uint32_t bs = bd->bd_block_size;
	uint8_t *tmp = NULL;
	const uint8_t *src = data;
	uint64_t off, len;

	if (!chan_range(ch, block, count, &off, &len))
		return EXT2_ET_SHORT_WRITE;
	while (len) {
		uint32_t in = (uint32_t)(off % bs), n = (uint32_t)SIM_MIN(len, (uint64_t)(bs - in));
		uint32_t blk = (uint32_t)(off / bs);

		if (n == bs) {
			blkdev_write_durable(bd, blk, src);
		} else {                /* part of a block: read, patch, write back */
			if (!tmp)
				tmp = sim_zalloc(bs);
			blkdev_read(bd, blk, tmp);
			memcpy(tmp + in, src, n);
			blkdev_write_durable(bd, blk, tmp);
		}
		src += n;
		off += n;
		len -= n;
	}
	free(tmp);
	return 0;
}

static errcode_t e2fs_io_read_blk(io_channel ch, unsigned long block, int count, void *data)
{
	return e2fs_io_read_blk64(ch, block, count, data);
}

static errcode_t e2fs_io_write_blk(io_channel ch, unsigned long block, int count,
				   const void *data)
{
	return e2fs_io_write_blk64(ch, block, count, data);
}

/*
 * Zero blocks without memory when the range is whole device blocks;
 * otherwise EXT2_ET_UNIMPLEMENTED, and ext2fs_zero_blocks2() writes zeroes.
 */
static errcode_t e2fs_io_zeroout(io_channel ch, unsigned long long block,
				 unsigned long long count)
{
	struct blkdev *bd = chan_bdev(ch);
	uint64_t off, len;

	if (count > INT32_MAX / 2 || !chan_range(ch, block, (int)count, &off, &len))
		return EXT2_ET_SHORT_WRITE;
	if (off % bd->bd_block_size || len % bd->bd_block_size)
		return EXT2_ET_UNIMPLEMENTED;
	blkdev_zeroout_durable(bd, (uint32_t)(off / bd->bd_block_size),
			       (uint32_t)(len / bd->bd_block_size));
	return 0;
}

static errcode_t e2fs_io_flush(io_channel ch)
{
	(void)chan_bdev(ch);
	return 0;
}

static errcode_t e2fs_io_set_option(io_channel ch, const char *option, const char *arg)
{
	(void)chan_bdev(ch);
	(void)option;
	(void)arg;
	return EXT2_ET_INVALID_ARGUMENT;
}

static errcode_t e2fs_io_discard(io_channel ch, unsigned long long block,
				 unsigned long long count)
{
	(void)chan_bdev(ch);
	(void)block;
	(void)count;
	return EXT2_ET_UNIMPLEMENTED;
}

static struct struct_io_manager e2fs_io_ops = {
	.magic = EXT2_ET_MAGIC_IO_MANAGER,
	.name = "ext4sim blkdev I/O manager",
	.open = e2fs_io_open,
	.close = e2fs_io_close,
	.set_blksize = e2fs_io_set_blksize,
	.read_blk = e2fs_io_read_blk,
	.write_blk = e2fs_io_write_blk,
	.flush = e2fs_io_flush,
	.set_option = e2fs_io_set_option,
	.read_blk64 = e2fs_io_read_blk64,
	.write_blk64 = e2fs_io_write_blk64,
	.discard = e2fs_io_discard,
	.zeroout = e2fs_io_zeroout,
};

struct struct_io_manager *const e2fs_io_manager = &e2fs_io_ops;
