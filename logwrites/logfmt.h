/*
 * logfmt.h - a write log in dm-log-writes' format, as the kernel's
 * dm-log-writes target and qemu's blklogwrites driver write it (the kernel's
 * Documentation/admin-guide/device-mapper/log-writes.rst): read whole into
 * memory and checked before anything uses it.
 *
 * Layout, every number little-endian: sector 0 of the log is the superblock
 * {u64 magic, u64 version (1), u64 nr_entries, u32 sectorsize}; the entries
 * follow from sector 1, each a header sector {u64 sector, u64 nr_sectors,
 * u64 flags, u64 data_len} and then its payload, rounded up to whole
 * sectors: a mark's text (data_len bytes), nothing for a discard or a
 * flush, else nr_sectors sectors of the data written.  Sectors are of the
 * log's sectorsize, on the logged device and in the log alike.  The
 * superblock's count is the truth: bytes after the last counted entry are
 * ignored.
 */
#ifndef EXT4SIM_LOGFMT_H
#define EXT4SIM_LOGFMT_H

#include <stddef.h>
#include <stdint.h>

#define LW_MAGIC UINT64_C(0x6a736677736872)
#define LW_VERSION 1
#define LW_FLUSH 0x1u                   /* a cache flush: every entry before it is durable */
#define LW_FUA 0x2u                     /* a write durable when it completes */
#define LW_DISCARD 0x4u
#define LW_MARK 0x8u                    /* a user mark (dmsetup message): text only */
#define LW_METADATA 0x10u               /* a hint of the kernel's; no meaning here */
#define LW_FLAGS_KNOWN 0x1fu
#define LW_LOG_MAX (UINT64_C(1) << 34)  /* 16 GiB of log at most */
#define LW_ENTRIES_MAX 4000000u
#define LW_SECTOR_MIN 512u
#define LW_SECTOR_MAX 65536u

struct lw_entry {
	uint64_t le_sector;             /* first sector written (log sectors) */
	uint64_t le_nr_sectors;
	uint32_t le_flags;
	uint64_t le_data;               /* byte offset of the payload in the log */
	uint64_t le_data_len;           /* payload bytes (0 for a flush or a discard) */
	uint64_t le_offset;             /* byte offset of the header in the log */
};

struct lw_log {
	const uint8_t *lw_buf;          /* the whole log, not owned */
	uint64_t lw_len;
	uint32_t lw_sectorsize;
	uint64_t lw_nr;
	struct lw_entry *lw_entries;    /* lw_nr of them, owned */
};

/*
 * Parse @len bytes at @buf into @log (which points into @buf afterwards).
 * 0, or -1 with a one-line message in @err naming the entry and its byte
 * offset: a bad magic, version, sector size or flag, an entry count over
 * LW_ENTRIES_MAX, a write whose sectors overflow, or an entry that runs
 * past the end of the log.
 */
int lw_parse(struct lw_log *log, const uint8_t *buf, uint64_t len, char *err, size_t errlen);
void lw_free(struct lw_log *log);

/* Whether entry @e writes data to the device (a write or a write of zeroes). */
int lw_is_write(const struct lw_entry *e);

/*
 * The index of the first write whose payload starts with @text (a mark made
 * by writing it to the device), or -1.
 */
int64_t lw_find_text(const struct lw_log *log, const char *text);

#endif
