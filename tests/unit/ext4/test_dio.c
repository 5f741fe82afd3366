/*
 * test_dio.c - direct I/O writes (model/ext4/file.c's ext4_dio_write_iter,
 * inode.c's ext4_iomap_begin / ext4_iomap_alloc, model/iomap/direct-io.c):
 * the lock an overwrite and an extending write take, the extents a hole
 * inside and past i_size gets, the orphan and i_disksize of an extending
 * write, the page cache written back and dropped first, the zeroed pads of a
 * sub-block write, EINVAL for a misaligned one, data=journal's fall-back to
 * buffered I/O, the two size fixes (91562895f803, 45d8ec4d9fd5) through
 * a crash, and AIO: queued, completed later, lost at a crash, or waited for;
 * the old path's serialization of unaligned AIOs (372a03e01853,
 * 57a0da28ced8) and the model's wait for an AIO's bio to a block a
 * sub-block write keeps bytes of; fallocate through an O_SYNC descriptor,
 * synchronous.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../fixture.h"

static struct fx_world *world_with(uint32_t bs, enum ext4_data_mode data,
				   void (*tune)(struct ext4_semantics *))
{
	struct ext4_mount_opts o = fx_opts(bs, data, data != DATA_JOURNAL, FX_DISK_BLOCKS);
	struct fx_world *w = fx_world_format(&o);

	if (tune)
		tune(&w->sem);
	fx_world_mount(w);
	return w;
}

static int dio(struct fx_world *w, int64_t pos, int64_t len, uint8_t fill, unsigned flags,
	       unsigned *how)
{
	int64_t got;
	unsigned h;
	int err = ext4_file_write_kiocb(&w->fs, pos, len, fill, IOCB_DIRECT | flags, &got, &h);

	if (how)
		*how = h;
	if (!err)
		assert_int_equal(got, len);
	return err;
}

/* The block holding file block @lblk, as the device reads it. */
static void read_block(struct fx_world *w, uint32_t lblk, uint8_t *out)
{
	uint32_t pblk, len;

	assert_int_equal(es_lookup(&w->fs.inode->i_es, lblk, &pblk, &len), ES_WRITTEN);
	blkdev_read(w->bd, pblk, out);
}

/* An extending write: exclusive, orphan until its end, written extents, both sizes. */
static void test_dio__extending_write(void **state)
{
	struct fx_world *w = world_with(4096, DATA_ORDERED, NULL);
	uint8_t blk[4096];
	uint32_t pblk, len;
	unsigned how;

	(void)state;
	assert_int_equal(dio(w, 0, 8192, 0x61, 0, &how), 0);
	assert_true(how & EXT4_DIO_EXTEND);
	assert_false(how & EXT4_DIO_SHARED);
	assert_int_equal(w->fs.inode->i_size, 8192);
	assert_int_equal(w->fs.inode->i_disksize, 8192);
	assert_false(w->fs.inode->i_orphan);
	assert_int_equal(es_lookup(&w->fs.inode->i_es, 0, &pblk, &len), ES_WRITTEN);
	assert_int_equal(len, 2);
	assert_int_equal(w->fs.inode->i_mapping.a_nr, 0);      /* nothing cached */
	read_block(w, 1, blk);
	assert_int_equal(blk[0], 0x61);
	assert_int_equal(blk[4095], 0x61);
	assert_int_equal(w->fs.inode->i_rwsem_readers, 0);
	assert_false(w->fs.inode->i_rwsem_writer);
	fx_world_free(w);
}

/* An aligned overwrite of written blocks: the shared lock and no handle at all. */
static void test_dio__overwrite_is_shared_and_handle_free(void **state)
{
	struct fx_world *w = world_with(4096, DATA_ORDERED, NULL);
	uint8_t blk[4096];
	uint64_t handles;
	unsigned how;

	(void)state;
	assert_int_equal(dio(w, 0, 8192, 0x61, 0, NULL), 0);
	handles = w->c.handles_started;
	assert_int_equal(dio(w, 4096, 4096, 0x62, 0, &how), 0);
	assert_true(how & EXT4_DIO_SHARED);
	assert_false(how & EXT4_DIO_EXTEND);
	assert_int_equal(w->c.handles_started, handles);
	read_block(w, 1, blk);
	assert_int_equal(blk[0], 0x62);
	read_block(w, 0, blk);
	assert_int_equal(blk[0], 0x61);
	fx_world_free(w);
}

/* A hole inside i_size is allocated unwritten, then converted; i_disksize stays. */
static void test_dio__hole_inside_isize_unwritten_then_converted(void **state)
{
	struct fx_world *w = world_with(4096, DATA_ORDERED, NULL);
	uint32_t pblk, len;
	uint64_t handles;
	unsigned how;

	(void)state;
	assert_int_equal(ext4_setattr_size(&w->fs, 16384), 0);
	handles = w->c.handles_started;
	assert_int_equal(dio(w, 4096, 4096, 0x63, 0, &how), 0);
	assert_false(how & EXT4_DIO_SHARED);    /* no overwrite: exclusive */
	assert_false(how & EXT4_DIO_EXTEND);
	assert_true(w->c.handles_started >= handles + 2);       /* allocation, conversion */
	assert_int_equal(es_lookup(&w->fs.inode->i_es, 1, &pblk, &len), ES_WRITTEN);
	assert_int_equal(es_lookup(&w->fs.inode->i_es, 0, &pblk, &len), ES_HOLE);
	assert_int_equal(w->fs.inode->i_disksize, 16384);
	fx_world_free(w);
}

/* Dirty page cache over the range is written back and dropped before the write. */
static void test_dio__page_cache_written_back_and_dropped(void **state)
{
	struct fx_world *w = world_with(4096, DATA_ORDERED, NULL);
	uint8_t buf[16];
	int64_t got;

	(void)state;
	assert_int_equal(ext4_file_write(&w->fs, 0, 8192, 0x11, 8192, &got), 0);
	assert_int_equal(w->fs.inode->i_mapping.a_nr, 2);
	assert_int_equal(dio(w, 0, 4096, 0x22, 0, NULL), 0);
	assert_null(filemap_get_folio(&w->fs.inode->i_mapping, 0));
	assert_int_equal(w->fs.inode->i_disksize, 4096);        /* its writeback raised it */
	assert_non_null(filemap_get_folio(&w->fs.inode->i_mapping, 1));       /* not its range */
	assert_int_equal(ext4_file_read(&w->fs, 0, 16, buf, &got), 0);
	assert_int_equal(buf[0], 0x22);
	assert_int_equal(ext4_file_read(&w->fs, 4096, 16, buf, &got), 0);
	assert_int_equal(buf[0], 0x11);
	fx_world_free(w);
}

/* A 512-byte write into a new block: zeros around it on the device, not the sentinel. */
static void test_dio__sub_block_write_zeroes_the_pads(void **state)
{
	struct fx_world *w = world_with(4096, DATA_ORDERED, NULL);
	uint8_t blk[4096];
	unsigned how;

	(void)state;
	assert_int_equal(dio(w, 512, 512, 0x44, 0, &how), 0);
	assert_true(how & EXT4_DIO_UNALIGNED);
	assert_int_equal(w->fs.inode->i_size, 1024);
	read_block(w, 0, blk);
	assert_int_equal(blk[0], 0);
	assert_int_equal(blk[511], 0);
	assert_int_equal(blk[512], 0x44);
	assert_int_equal(blk[1023], 0x44);
	assert_int_equal(blk[1024], 0);
	assert_int_equal(blk[4095], 0);
	fx_world_free(w);
}

/* Offsets and lengths not 512-aligned: EINVAL, the file unchanged. */
static void test_dio__misaligned_is_einval(void **state)
{
	struct fx_world *w = world_with(4096, DATA_ORDERED, NULL);

	(void)state;
	assert_int_equal(dio(w, 100, 4096, 0x55, 0, NULL), -EINVAL);
	assert_int_equal(dio(w, 0, 1000, 0x55, 0, NULL), -EINVAL);
	assert_int_equal(w->fs.inode->i_size, 0);
	assert_int_equal(w->fs.inode->i_disksize, 0);
	assert_false(w->fs.inode->i_orphan);
	assert_int_equal(ext4_used_data_blocks(&w->fs), 0);
	fx_world_free(w);
}

/* data=journal takes no direct I/O: a buffered write, its folio in the cache. */
static void test_dio__data_journal_falls_back_to_buffered(void **state)
{
	struct fx_world *w = world_with(4096, DATA_JOURNAL, NULL);
	unsigned how;

	(void)state;
	assert_int_equal(dio(w, 0, 4096, 0x66, 0, &how), 0);
	assert_true(how & EXT4_DIO_BUFFERED);
	assert_non_null(filemap_get_folio(&w->fs.inode->i_mapping, 0));
	assert_int_equal(w->fs.inode->i_size, 4096);
	fx_world_free(w);
}

static void before_6_7(struct ext4_semantics *sem)
{
	sem->dio_extension_in_end_io = false;
}

/* An extending RWF_DSYNC write's size after a crash: 91562895f803 on and off. */
static int64_t dsync_size_after_crash(void (*tune)(struct ext4_semantics *))
{
	struct fx_world *w = world_with(4096, DATA_ORDERED, tune);
	int64_t size;

	assert_int_equal(dio(w, 0, 4096, 0x77, 0, NULL), 0);
	assert_int_equal(ext4_sync_file(&w->fs, 0, INT64_MAX, false), 0);
	assert_int_equal(dio(w, 4096, 4096, 0x78, IOCB_DSYNC, NULL), 0);
	fx_world_crash(w);
	fx_world_mount(w);
	size = w->fs.inode->i_size;
	fx_world_free(w);
	return size;
}

static void test_dio__dsync_size_synced_in_end_io(void **state)
{
	(void)state;
	assert_int_equal(dsync_size_after_crash(NULL), 8192);
	assert_int_equal(dsync_size_after_crash(before_6_7), 4096);
}

static void old_path(struct ext4_semantics *sem)
{
	sem->dio_iomap = false;
}

static void old_path_before_4_16(struct ext4_semantics *sem)
{
	sem->dio_iomap = false;
	sem->dio_disksize_inside_isize = false;
}

/* A direct write inside i_size past i_disksize (after a delayed append): 45d8ec4d9fd5. */
static int64_t inside_isize_disksize(void (*tune)(struct ext4_semantics *), bool *orphan_seen)
{
	struct fx_world *w = world_with(4096, DATA_ORDERED, tune);
	int64_t got, disksize;
	unsigned how;

	assert_int_equal(ext4_file_write(&w->fs, 16384, 4096, 0x11, 4096, &got), 0);
	assert_int_equal(w->fs.inode->i_disksize, 0);
	assert_int_equal(dio(w, 0, 4096, 0x61, 0, &how), 0);
	*orphan_seen = how & EXT4_DIO_EXTEND;
	disksize = w->fs.inode->i_disksize;
	assert_false(w->fs.inode->i_orphan);
	fx_world_free(w);
	return disksize;
}

static void test_dio__disksize_inside_isize(void **state)
{
	bool extend;

	(void)state;
	assert_int_equal(inside_isize_disksize(old_path_before_4_16, &extend), 0);
	assert_false(extend);
	assert_int_equal(inside_isize_disksize(old_path, &extend), 4096);
	assert_true(extend);
	assert_int_equal(inside_isize_disksize(NULL, &extend), 4096);
	assert_true(extend);
}

/* An aligned AIO overwrite is queued, its bios in flight; the completion writes it. */
static void test_dio__aio_overwrite_completes_later(void **state)
{
	struct fx_world *w = world_with(4096, DATA_ORDERED, NULL);
	struct iomap_dio_done done;
	uint8_t blk[4096];
	int64_t got;
	unsigned how;

	(void)state;
	assert_int_equal(dio(w, 0, 8192, 0x11, 0, NULL), 0);
	assert_int_equal(ext4_sync_file(&w->fs, 0, INT64_MAX, false), 0);
	assert_int_equal(ext4_file_write_kiocb(&w->fs, 0, 4096, 0x22, IOCB_DIRECT | IOCB_AIO, &got,
					       &how), -EIOCBQUEUED);
	assert_true(how & EXT4_DIO_QUEUED);
	assert_int_equal(w->fs.s_nr_dios, 1);
	read_block(w, 0, blk);
	assert_int_equal(blk[0], 0x11);         /* in flight: not read back yet */
	assert_false(iomap_dio_reap(&w->fs, &done));    /* not completed: nothing to reap */
	assert_true(iomap_dio_complete_one(&w->fs));
	assert_int_equal(w->fs.s_nr_dios, 0);
	assert_true(iomap_dio_reap(&w->fs, &done));
	assert_int_equal(done.dd_ret, 4096);
	assert_int_equal(done.dd_pos, 0);
	assert_false(iomap_dio_reap(&w->fs, &done));
	read_block(w, 0, blk);
	assert_int_equal(blk[0], 0x22);
	assert_false(iomap_dio_complete_one(&w->fs));
	fx_world_free(w);
}

static void old_path_unaligned_aio(struct ext4_semantics *sem)
{
	sem->dio_iomap = false;
	sem->dio_unaligned_aio_wait = false;
}

static void old_path_unaligned_aio_before_5_1(struct ext4_semantics *sem)
{
	old_path_unaligned_aio(sem);
	sem->dio_unaligned_aio_eof_block = false;
}

/*
 * generic/538's race on the old path: i_size 8704, an unaligned AIO of
 * [512, 8704) in flight, then one of [8704, 16896) past i_size into the
 * same (unwritten) block 2.  Before 372a03e01853 the second is not
 * serialized and block 2 ends as the first AIO's bio, zeros over the
 * second's bytes; from it, the second waits for the first's conversion
 * and keeps its bytes.  Returns byte 8704 of the device's block 2.
 */
static uint8_t unaligned_aio_past_isize(void (*tune)(struct ext4_semantics *))
{
	struct fx_world *w = world_with(4096, DATA_ORDERED, tune);
	struct iomap_dio_done done;
	uint8_t blk[4096], got;
	uint32_t reaped = 0;

	assert_int_equal(ext4_setattr_size(&w->fs, 8704), 0);
	/* queued on the old path; the iomap path waits for an unaligned AIO */
	assert_int_equal(dio(w, 512, 8192, 0x41, IOCB_AIO, NULL),
			 w->sem.dio_iomap ? 0 : -EIOCBQUEUED);
	assert_int_equal(dio(w, 8704, 8192, 0x42, IOCB_AIO, NULL), 0);
	while (iomap_dio_complete_one(&w->fs))
		;
	while (iomap_dio_reap(&w->fs, &done))
		reaped++;
	assert_int_equal(reaped, w->sem.dio_iomap ? 0 : 1);
	read_block(w, 2, blk);
	assert_int_equal(blk[0], 0x41);                 /* the first AIO's [8192, 8704) */
	got = blk[8704 - 8192];
	fx_world_free(w);
	return got;
}

static void test_dio__unaligned_aio_past_isize(void **state)
{
	(void)state;
	assert_int_equal(unaligned_aio_past_isize(old_path_unaligned_aio_before_5_1), 0x00);
	assert_int_equal(unaligned_aio_past_isize(old_path_unaligned_aio), 0x42);
	assert_int_equal(unaligned_aio_past_isize(old_path), 0x42);
	assert_int_equal(unaligned_aio_past_isize(NULL), 0x42);
}

/*
 * 57a0da28ced8 on the old path: an unaligned AIO into a hole is waited for
 * (its conversion) before the call returns, so an aligned write of its block
 * lands after it.  Without it, the AIO stays in flight and its zeroed block
 * lands last.  Returns byte 0 of the file's block 0 after both.
 */
static uint8_t unaligned_aio_then_aligned(void (*tune)(struct ext4_semantics *), uint32_t *queued)
{
	struct fx_world *w = world_with(4096, DATA_ORDERED, tune);
	uint8_t blk[4096], got;

	assert_int_equal(ext4_setattr_size(&w->fs, 16384), 0);
	assert_int_equal(dio(w, 512, 1024, 0x41, IOCB_AIO, NULL), -EIOCBQUEUED);
	*queued = w->fs.s_nr_dios;
	assert_int_equal(dio(w, 0, 4096, 0x42, 0, NULL), 0);
	while (iomap_dio_complete_one(&w->fs))
		;
	read_block(w, 0, blk);
	got = blk[0];
	fx_world_free(w);
	return got;
}

static void test_dio__unaligned_aio_then_aligned(void **state)
{
	uint32_t queued;

	(void)state;
	assert_int_equal(unaligned_aio_then_aligned(old_path_unaligned_aio, &queued), 0x00);
	assert_int_equal(queued, 1);
	assert_int_equal(unaligned_aio_then_aligned(old_path, &queued), 0x42);
	assert_int_equal(queued, 0);
}

/*
 * A sub-block write into a written block while an AIO's bio to that block
 * is in flight: the model's bio carries the whole block, so the AIO
 * completes first (its result waits to be reaped) and both writes' bytes
 * are on the device, as the kernel's sector-sized bios leave them.
 */
static void test_dio__partial_block_waits_for_aio_bio(void **state)
{
	struct fx_world *w = world_with(4096, DATA_ORDERED, old_path_unaligned_aio);
	struct iomap_dio_done done;
	uint8_t blk[4096];

	(void)state;
	assert_int_equal(dio(w, 0, 4096, 0x11, 0, NULL), 0);
	assert_int_equal(dio(w, 512, 512, 0x22, IOCB_AIO, NULL), -EIOCBQUEUED);
	assert_int_equal(w->fs.s_nr_dios, 1);
	assert_int_equal(dio(w, 2048, 512, 0x33, 0, NULL), 0);
	assert_int_equal(w->fs.s_nr_dios, 0);
	assert_true(iomap_dio_reap(&w->fs, &done));
	assert_int_equal(done.dd_pos, 512);
	assert_int_equal(done.dd_ret, 512);
	read_block(w, 0, blk);
	assert_int_equal(blk[0], 0x11);
	assert_int_equal(blk[512], 0x22);
	assert_int_equal(blk[2048], 0x33);
	assert_int_equal(blk[4095], 0x11);
	fx_world_free(w);
}

/* An AIO into a preallocation lost at a crash: never converted, the file reads zeros. */
static void test_dio__aio_unwritten_lost_at_crash(void **state)
{
	struct fx_world *w = world_with(4096, DATA_ORDERED, NULL);
	uint32_t pblk, len;
	int64_t got;
	unsigned how;

	(void)state;
	assert_int_equal(ext4_fallocate(&w->fs, 0, 0, 16384), 0);
	assert_int_equal(ext4_sync_file(&w->fs, 0, INT64_MAX, false), 0);
	assert_int_equal(ext4_file_write_kiocb(&w->fs, 0, 8192, 0x33, IOCB_DIRECT | IOCB_AIO, &got,
					       &how), -EIOCBQUEUED);
	fx_world_crash(w);
	fx_world_mount(w);
	assert_int_equal(w->fs.s_nr_dios, 0);
	assert_int_equal(es_lookup(&w->fs.inode->i_es, 0, &pblk, &len), ES_UNWRITTEN);
	fx_world_free(w);
}

/* An extending or unaligned AIO is waited for (IOMAP_DIO_FORCE_WAIT): nothing queued. */
static void test_dio__aio_extending_is_waited_for(void **state)
{
	struct fx_world *w = world_with(4096, DATA_ORDERED, NULL);
	unsigned how;

	(void)state;
	assert_int_equal(dio(w, 0, 4096, 0x44, IOCB_AIO, &how), 0);
	assert_false(how & EXT4_DIO_QUEUED);
	assert_true(how & EXT4_DIO_EXTEND);
	assert_int_equal(dio(w, 0, 512, 0x45, IOCB_AIO, &how), 0);
	assert_true(how & EXT4_DIO_UNALIGNED);
	assert_int_equal(w->fs.s_nr_dios, 0);
	assert_int_equal(w->fs.inode->i_disksize, 4096);
	fx_world_free(w);
}

/*
 * fallocate through an O_SYNC descriptor (open -s) is synchronous: mode 0
 * commits i_sync_tid (ext4_do_fallocate), a zero range with a partial block
 * syncs its last handle (ext4_zero_range), so the size each raised survives
 * a crash; through a plain descriptor it does not (nothing committed the
 * transaction), nor does a block-aligned zero range, which returns before
 * that handle (as 6.1 and 6.18 do; checked on 6.18.44).
 */
static void test_dio__osync_fallocate_durable(void **state)
{
	static const struct { int mode; int64_t len; bool synced; } c[] = {
		{ 0, 8192, true }, { FALLOC_FL_ZERO_RANGE, 8000, true },
		{ FALLOC_FL_ZERO_RANGE, 8192, false },
	};

	(void)state;
	for (unsigned k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
		for (int o_sync = 0; o_sync <= 1; o_sync++) {
			struct fx_world *w = world_with(4096, DATA_ORDERED, NULL);

			assert_int_equal(ext4_fallocate_file(&w->fs, c[k].mode, 0, c[k].len,
							     o_sync), 0);
			assert_int_equal(w->fs.inode->i_size, c[k].len);
			fx_world_crash(w);
			fx_world_mount(w);
			assert_int_equal(w->fs.inode->i_size, o_sync && c[k].synced ? c[k].len : 0);
			fx_world_free(w);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_dio__extending_write, fx_world_leftover),
		cmocka_unit_test_teardown(test_dio__overwrite_is_shared_and_handle_free,
					  fx_world_leftover),
		cmocka_unit_test_teardown(test_dio__hole_inside_isize_unwritten_then_converted,
					  fx_world_leftover),
		cmocka_unit_test_teardown(test_dio__page_cache_written_back_and_dropped,
					  fx_world_leftover),
		cmocka_unit_test_teardown(test_dio__sub_block_write_zeroes_the_pads,
					  fx_world_leftover),
		cmocka_unit_test_teardown(test_dio__misaligned_is_einval, fx_world_leftover),
		cmocka_unit_test_teardown(test_dio__data_journal_falls_back_to_buffered,
					  fx_world_leftover),
		cmocka_unit_test_teardown(test_dio__dsync_size_synced_in_end_io, fx_world_leftover),
		cmocka_unit_test_teardown(test_dio__disksize_inside_isize, fx_world_leftover),
		cmocka_unit_test_teardown(test_dio__aio_overwrite_completes_later,
					  fx_world_leftover),
		cmocka_unit_test_teardown(test_dio__aio_unwritten_lost_at_crash, fx_world_leftover),
		cmocka_unit_test_teardown(test_dio__aio_extending_is_waited_for, fx_world_leftover),
		cmocka_unit_test_teardown(test_dio__osync_fallocate_durable, fx_world_leftover),
		cmocka_unit_test_teardown(test_dio__unaligned_aio_past_isize, fx_world_leftover),
		cmocka_unit_test_teardown(test_dio__unaligned_aio_then_aligned, fx_world_leftover),
		cmocka_unit_test_teardown(test_dio__partial_block_waits_for_aio_bio,
					  fx_world_leftover),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
