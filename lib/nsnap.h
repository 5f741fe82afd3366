/*
 * nsnap.h - a namespace as a mounted file system shows it: every path with
 * the inode it names, as a value the model fills (ext4_ns_read) and the
 * checker, the crash-state grouping and the reports read.
 *
 * A snapshot lists every name reachable from the root, the root itself
 * ("/") included, sorted by path bytewise, with the inode behind it: its
 * number (paths that share an inode are hard links), type, size, on-disk
 * link count and a 128-bit hash of its content (a regular file's bytes up
 * to its size, a symbolic link's target; 0 for a directory).  It also
 * lists the inodes in use that no name reaches (an orphan the mount did
 * not clean, a leak).  An inode's extended attributes are their number and
 * one hash of their sorted name/value pairs (nsnap_xattr_hash); an inode
 * without any adds nothing to the key or the text, as before they were
 * modelled.  Nothing in it depends on memory addresses, so two
 * equal namespaces give equal bytes (nsnap_key).
 */
#ifndef EXT4SIM_NSNAP_H
#define EXT4SIM_NSNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "md5.h"

#define NSNAP_PATH_MAX 256u             /* a path's bytes, the NUL included */
#define NSNAP_MAX_ENTRIES 4096u         /* names in one snapshot */
#define NSNAP_TARGET_MAX 64u            /* a symbolic link's target kept in full, NUL included */
#define NSNAP_MAX_UNREACHABLE 64u       /* unreachable inodes listed (more are counted) */

enum nsnap_type { NSNAP_REG = 1, NSNAP_DIR = 2, NSNAP_LNK = 7 };   /* ext4's EXT4_FT_* */

struct nsnap_entry {
	char ne_path[NSNAP_PATH_MAX];   /* "/", "/A", "/A/foo" */
	uint8_t ne_type;                /* enum nsnap_type */
	uint32_t ne_ino;
	uint32_t ne_nlink;              /* i_links_count as the inode holds it */
	int64_t ne_size;                /* i_size */
	uint64_t ne_hash[2];            /* content (see above) */
	char ne_target[NSNAP_TARGET_MAX];   /* a link's target (cut at the limit), else "" */
	uint32_t ne_nr_xattrs;          /* extended attributes */
	uint64_t ne_xattr_hash[2];      /* nsnap_xattr_hash of them; 0 with none */
};

/* One extended attribute, for nsnap_xattr_hash: the caller's bytes. */
struct nsnap_xattr {
	const char *nx_name;            /* the whole name, "user.foo" */
	const uint8_t *nx_value;
	uint32_t nx_len;
};

struct nsnap {
	struct nsnap_entry *ns_e;       /* sorted by ne_path once nsnap_sort ran */
	uint32_t ns_nr;
	uint32_t ns_cap;
	uint32_t ns_nr_unreachable;     /* inodes in use no name reaches */
	uint32_t ns_unreachable[NSNAP_MAX_UNREACHABLE];     /* the first ones, ascending */
	uint32_t ns_nr_orphans;         /* inodes still on the orphan list after the mount */
};

void nsnap_init(struct nsnap *s);
void nsnap_free(struct nsnap *s);
void nsnap_copy(struct nsnap *dst, const struct nsnap *src);
/* Append an entry (a copy); -ENOSPC past NSNAP_MAX_ENTRIES, else 0. */
int nsnap_add(struct nsnap *s, const struct nsnap_entry *e);
/* Record an inode in use that no name reaches (ascending order is the caller's). */
void nsnap_add_unreachable(struct nsnap *s, uint32_t ino);
/* Sort the entries by path, bytewise (strcmp). */
void nsnap_sort(struct nsnap *s);
/* The entry of @path in a sorted snapshot, or NULL. */
const struct nsnap_entry *nsnap_find(const struct nsnap *s, const char *path);
/* The names in a sorted snapshot that share inode @ino (its hard links). */
uint32_t nsnap_names_of(const struct nsnap *s, uint32_t ino);
/*
 * A 128-bit key of the whole snapshot (paths, types, sizes, link counts,
 * content hashes, which paths share an inode, the unreachable and orphan
 * counts), for grouping crash states; equal snapshots, equal keys.
 * Inode numbers enter only as sharing (the first path of each inode), so
 * two states that differ in nothing but the numbers chosen are one.
 */
void nsnap_key(const struct nsnap *s, uint64_t key[2]);
/* Are two sorted snapshots the same namespace (as nsnap_key compares them)? */
bool nsnap_equal(const struct nsnap *a, const struct nsnap *b);
/*
 * One line per entry ("/A/foo reg ino 13 nlink 1 size 4096 <hash>", then
 * " xattrs N <hash>" for an inode with N > 0 attributes), then
 * the unreachable inodes; into @buf of @cap bytes, cut with "..." when
 * longer.  Returns the length written.
 */
size_t nsnap_text(const struct nsnap *s, char *buf, size_t cap);
/*
 * The hash of @n extended attributes (sorted here by name, bytewise; names
 * are unique): MD5 over each one's name length (4 bytes, little-endian),
 * name, value length (4 bytes) and value, in name order, read as ne_hash
 * is.  @n 0 gives 0 (no attributes).
 */
void nsnap_xattr_hash(struct nsnap_xattr *x, uint32_t n, uint64_t hash[2]);
/* The type's name: "reg", "dir", "lnk" ("?" for another value). */
const char *nsnap_type_name(uint8_t type);
/*
 * ne_hash of some content (a regular file's bytes in [0, i_size), a
 * symbolic link's whole target): the MD5 digest of its maximal runs of
 * one repeated byte value, in order, each as its length (8 bytes,
 * little-endian) and its byte, the digest's bytes 0-7 and 8-15 read
 * little-endian into hash[0] and hash[1].  A hole is a run of zeros, so a
 * sparse file is hashed in time of its runs, not its size (feed a hole with
 * nsnap_hash_fill).  Fed in any pieces, the same content gives the same
 * hash.  An empty content's hash is MD5's of nothing, not 0 (a directory's).
 */
struct nsnap_hasher {
	struct md5 nh_md5;
	uint64_t nh_run;        /* bytes of the run being gathered */
	uint8_t nh_byte;        /* its byte value */
};

void nsnap_hash_init(struct nsnap_hasher *h);
/* The next @len bytes of the content. */
void nsnap_hash_update(struct nsnap_hasher *h, const void *data, size_t len);
/* The next @len bytes, each @byte (a hole: 0). */
void nsnap_hash_fill(struct nsnap_hasher *h, uint8_t byte, uint64_t len);
void nsnap_hash_final(struct nsnap_hasher *h, uint64_t hash[2]);
/* The hash of @len bytes at @data in one call. */
void nsnap_hash_bytes(const void *data, size_t len, uint64_t hash[2]);

#endif
