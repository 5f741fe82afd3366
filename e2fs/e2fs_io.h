/*
 * e2fs_io.h - an io_manager of libext2fs (e2fsprogs' lib/ext2fs/ext2_io.h)
 * over the model's block device, so that e2fsprogs' own code writes the
 * model's device in process.
 *
 * A channel reads and writes the device's durable contents (mkfs runs
 * before anything is cached or in flight), at any channel block size and
 * byte count libext2fs asks for (zap_sector's 512-byte sectors, the
 * primary superblock's 1024 bytes at offset 1024); whole blocks go straight
 * to the device, parts of blocks are read, patched and written back.  A
 * block nothing wrote reads as the device's sentinel (what was there before
 * mkfs).  zeroout records zero blocks that cost no memory
 * (blkdev_zeroout_durable).  No statistics (s_kbytes_written keeps the 1
 * mke2fs starts it at), no discard, no options.
 */
#ifndef EXT4SIM_E2FS_IO_H
#define EXT4SIM_E2FS_IO_H

struct blkdev;
struct struct_io_manager;

/* The manager; pass it to ext2fs_initialize() or ext2fs_open(). */
extern struct struct_io_manager *const e2fs_io_manager;

/*
 * The device the next open of a channel of e2fs_io_manager attaches (once;
 * whatever name libext2fs is given; a later call replaces a device no open
 * took).  The device outlives the channel.
 */
void e2fs_io_attach(struct blkdev *bd);

#endif
