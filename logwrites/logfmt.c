/*
 * logfmt.c - reading a dm-log-writes log (see logfmt.h): the superblock,
 * then each counted entry's header and payload, every size checked against
 * the bytes there are before it is used.
 */
#include "logfmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Check the superblock and fill the log's sector size and count; 0 or -1 with @err. */
static int parse_super(struct lw_log *log, char *err, size_t errlen)
{
	uint64_t magic, version;
	uint32_t ss;

	if (log->lw_len < 28) {
		snprintf(err, errlen, "%llu bytes: too short for a log superblock",
			 (unsigned long long)log->lw_len);
		return -1;
	}
	magic = get64(log->lw_buf);
	version = get64(log->lw_buf + 8);
	log->lw_nr = get64(log->lw_buf + 16);
	ss = get32(log->lw_buf + 24);
	if (magic != LW_MAGIC) {
		snprintf(err, errlen, "byte 0: magic %#llx, not a dm-log-writes log (%#llx)",
			 (unsigned long long)magic, (unsigned long long)LW_MAGIC);
		return -1;
	}
	if (version != LW_VERSION) {
		snprintf(err, errlen, "byte 8: log version %llu (only %d is known)",
			 (unsigned long long)version, LW_VERSION);
		return -1;
	}
	if (ss < LW_SECTOR_MIN || ss > LW_SECTOR_MAX || (ss & (ss - 1))) {
		snprintf(err, errlen, "byte 24: sector size %u (a power of two from %u to %u)",
			 ss, LW_SECTOR_MIN, LW_SECTOR_MAX);
		return -1;
	}
	if (log->lw_nr > LW_ENTRIES_MAX) {
		snprintf(err, errlen, "byte 16: %llu entries (at most %u)",
			 (unsigned long long)log->lw_nr, LW_ENTRIES_MAX);
		return -1;
	}
	log->lw_sectorsize = ss;
	return 0;
}

/* The payload bytes of an entry, or UINT64_MAX when its sector count overflows. */
static uint64_t payload_len(const struct lw_entry *e, uint64_t data_len, uint32_t ss)
{
	if (e->le_flags & LW_MARK)
		return data_len;
	if (e->le_flags & LW_DISCARD)
		return 0;
	if (e->le_nr_sectors > LW_LOG_MAX / ss)
		return UINT64_MAX;
	return e->le_nr_sectors * ss;
}

/* Parse the entry whose header is at byte *@at; advance *@at past it. */
static int parse_entry(struct lw_log *log, uint64_t i, uint64_t *at, char *err, size_t errlen)
{
	struct lw_entry *e = &log->lw_entries[i];
	uint32_t ss = log->lw_sectorsize;
	const uint8_t *h = log->lw_buf + *at;
	uint64_t flags, len, span;

	if (*at > log->lw_len || log->lw_len - *at < ss) {
		snprintf(err, errlen, "entry %llu (byte %llu): the log ends before its header "
			 "(the superblock counts %llu entries)", (unsigned long long)i,
			 (unsigned long long)*at, (unsigned long long)log->lw_nr);
		return -1;
	}
	e->le_offset = *at;
	e->le_sector = get64(h);
	e->le_nr_sectors = get64(h + 8);
	flags = get64(h + 16);
	if (flags & ~(uint64_t)LW_FLAGS_KNOWN) {
		snprintf(err, errlen, "entry %llu (byte %llu): unknown flags %#llx",
			 (unsigned long long)i, (unsigned long long)*at, (unsigned long long)flags);
		return -1;
	}
	e->le_flags = (uint32_t)flags;
	len = payload_len(e, get64(h + 24), ss);
	span = len == UINT64_MAX ? UINT64_MAX : (len + ss - 1) / ss * ss;
	if (e->le_sector > LW_LOG_MAX / LW_SECTOR_MIN || span > log->lw_len - *at - ss) {
		snprintf(err, errlen, "entry %llu (byte %llu): %s", (unsigned long long)i,
			 (unsigned long long)*at, e->le_sector > LW_LOG_MAX / LW_SECTOR_MIN ?
			 "sector out of range" : "its data runs past the end of the log");
		return -1;
	}
	e->le_data = *at + ss;
	e->le_data_len = len;
	*at += ss + span;
	return 0;
}

int lw_parse(struct lw_log *log, const uint8_t *buf, uint64_t len, char *err, size_t errlen)
{
	uint64_t at;

	memset(log, 0, sizeof(*log));
	log->lw_buf = buf;
	log->lw_len = len;
	if (len > LW_LOG_MAX) {
		snprintf(err, errlen, "%llu bytes: larger than %llu", (unsigned long long)len,
			 (unsigned long long)LW_LOG_MAX);
		return -1;
	}
	if (parse_super(log, err, errlen))
		return -1;
	log->lw_entries = calloc(log->lw_nr ? log->lw_nr : 1, sizeof(*log->lw_entries));
	if (!log->lw_entries) {
		snprintf(err, errlen, "out of memory for %llu entries", (unsigned long long)log->lw_nr);
		return -1;
	}
	at = log->lw_sectorsize;
	for (uint64_t i = 0; i < log->lw_nr; i++) {
		if (parse_entry(log, i, &at, err, errlen)) {
			lw_free(log);
			return -1;
		}
	}
	return 0;
}

void lw_free(struct lw_log *log)
{
	free(log->lw_entries);
	log->lw_entries = NULL;
	log->lw_nr = 0;
}

int lw_is_write(const struct lw_entry *e)
{
	return !(e->le_flags & (LW_MARK | LW_DISCARD)) && e->le_nr_sectors > 0;
}

int64_t lw_find_text(const struct lw_log *log, const char *text)
{
	size_t n = strlen(text);

	for (uint64_t i = 0; i < log->lw_nr; i++) {
		const struct lw_entry *e = &log->lw_entries[i];

		if (lw_is_write(e) && e->le_data_len >= n && !memcmp(log->lw_buf + e->le_data, text, n))
			return (int64_t)i;
	}
	return -1;
}
