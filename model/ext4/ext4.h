/*
 * ext4.h - the modelled file system: one ext4 with its files (in core as
 * struct ext4_inode_info each; model/ext4/namei/ for the namespace), its
 * block device, journal, allocator and page cache.
 *
 * Design.  The model keeps ext4's two views of the file apart, as the kernel
 * does: the in-memory inode (i_size, i_disksize, the block map with delayed
 * extents, the page cache) and the metadata blocks (superblock, group
 * descriptors, block bitmaps, the raw inode, extent blocks) that reach the
 * device only through jbd2.
 * Everything a crash can observe is bytes on the block device; recovery and
 * mount rebuild the in-memory state from those bytes alone.
 *
 * On-disk layout: ext4's (ext4_disk.h), as mke2fs made it (e2fs/): the
 * superblock, group descriptors, block bitmaps, inode tables, the journal
 * inode's blocks, the root directory holding the file (inode 12, `f`),
 * then data.  The model writes the file's inode in its inode-table block,
 * its extent tree (the root in i_block, up to four extent blocks), the
 * block bitmaps and group descriptors an allocation touches, the
 * superblock (the orphan list's head), each with its metadata_csum
 * checksum, and the journal in jbd2's format (docs/architecture.md, "The
 * on-disk format").
 *
 * Invariants checked after every step (ext4_check_state):
 *   (1) i_reserved_data_blocks == delayed blocks in the block map;
 *   (2) every written/unwritten extent's blocks are allocated in the
 *       in-memory bitmap and in the bitmap buffer, and owned once;
 *   (3) every delayed buffer in the page cache lies over a delayed extent,
 *       or over the extent a fallocate allocated under it (the buffer stays
 *       delayed until writeback maps it, as in ext4): never over a hole;
 *   (4) no handle is open between steps;
 *   (5) the superblock's and the descriptor table's buffers are held, and
 *       every extent block is held and allocated in the bitmap buffer and
 *       the free map;
 *   (6) i_rwsem has no holder (a direct write takes and drops it inside its step).
 * It then asserts jbd2.h's invariants (jbd2_check, and (4) against the
 * allocator) and blkdev.h's (blkdev_check).
 * The file-level invariants (i_disksize <= i_size and the others of
 * docs/invariants.md) are the checker's, in checker/.
 */
#ifndef EXT4SIM_EXT4_H
#define EXT4SIM_EXT4_H

#include <stdbool.h>
#include <stdint.h>

#include "blkdev.h"
#include "ext4_disk.h"
#include "extents.h"
#include "filemap.h"
#include "iomap.h"
#include "jbd2.h"
#include "profile.h"
#include "sim.h"

struct blkdev;
struct sim_bitmap;

enum ext4_data_mode { DATA_ORDERED, DATA_WRITEBACK, DATA_JOURNAL };

struct ext4_mount_opts {
	uint32_t block_size;
	enum ext4_data_mode data;
	bool delalloc;
	bool dioread_nolock;
	bool auto_da_alloc;
	uint32_t disk_blocks;
	/*
	 * mount -o ro: recovery and orphan cleanup run (as the kernel's do on a
	 * read-only mount of a crashed file system), but ext4_setup_super writes
	 * nothing; the mounts that judge crash states and read images use it.
	 */
	bool ro;
};

/* What a block of the device is, by its place in the layout (ext4_block_role). */
enum ext4_role {
	ROLE_DATA, ROLE_SUPER, ROLE_SUPER_BACKUP, ROLE_GDT, ROLE_GDT_BACKUP, ROLE_RESERVED_GDT,
	ROLE_BLOCK_BITMAP, ROLE_INODE_BITMAP, ROLE_INODE_TABLE, ROLE_JOURNAL, ROLE_ROOT_DIR,
	ROLE_LOST_FOUND, ROLE_RESIZE, ROLE_EXTENT_BLOCK, ROLE_COUNT
};

/* A run of blocks with one role; the layout keeps them sorted by mr_start. */
struct ext4_meta_range {
	uint32_t mr_start;
	uint32_t mr_len;
	uint32_t mr_role;               /* enum ext4_role */
};

#define EXT4_LAYOUT_MAX_RANGES 4096u    /* a bigger layout is refused at mount */
#define EXT4_LAYOUT_MAX_LEAVES 32u      /* extent blocks named in traces, first ones */
#define EXT4_JOURNAL_MAX_EXTENTS 16u    /* the journal inode's extents (in i_block or one leaf) */

/*
 * The geometry the superblock and group descriptors give (the kernel's
 * ext4_sb_info fields it stands for are named), read at mount; a value
 * type, so that a run's report keeps a copy to name blocks with.
 */
struct ext4_layout {
	uint32_t nr_blocks;             /* ext4_blocks_count() */
	uint32_t block_size;
	uint32_t first_data_block;      /* s_first_data_block: 1 with 1 KiB blocks */
	uint32_t blocks_per_group;      /* s_blocks_per_group */
	uint32_t inodes_per_group;      /* s_inodes_per_group */
	uint32_t inode_size;            /* s_inode_size */
	uint32_t desc_size;             /* s_desc_size */
	uint32_t groups_count;          /* s_groups_count */
	uint32_t gdt_blocks;            /* s_gdb_count */
	uint32_t sb_blk, sb_off;        /* the primary superblock's block and byte offset */
	uint32_t inode_blk, inode_off;  /* the file's inode: its inode-table block and offset */
	uint32_t data_start;            /* the allocator's first goal: group 0's first block */
	uint32_t extents_per_block;     /* an extent block's eh_max */
	uint32_t csum_seed;             /* s_csum_seed */
	uint32_t feature_compat, feature_incompat, feature_ro_compat;
	uint32_t journal_blocks;        /* the journal inode's length */
	uint32_t nr_jmap;
	struct jbd2_extent jmap[EXT4_JOURNAL_MAX_EXTENTS];     /* the journal's blocks */
	uint32_t meta_blocks;           /* the ranges' blocks, all marked used by mke2fs */
	uint32_t nr_ranges;
	/*
	 * Interned (balloc.c: one immutable copy per distinct list, kept for the
	 * process), so that the layout stays a small value that copies freely;
	 * the state keys hash the layout up to this field.
	 */
	const struct ext4_meta_range *ranges;
	uint32_t nr_leaves_seen;
	uint32_t leaves_seen[EXT4_LAYOUT_MAX_LEAVES];
};

/* A metadata buffer the file system holds (the kernel's buffer heads of metadata). */
struct ext4_mbuf {
	uint32_t mb_blocknr;
	uint8_t *mb_data;
};

#define EXT4_INODE_MAX_SIZE 1024u       /* a larger s_inode_size is refused at mount */
#define EXT4_EXT_ROOT_MAX 4u            /* entries in i_block's root */
#define EXT4_EXT_MAX_LEAVES EXT4_EXT_ROOT_MAX   /* depth 1: one index per leaf in the root */

/* An extent block of a depth-1 tree: its index entry in the root. */
struct ext4_ext_leaf {
	uint32_t el_lblk;               /* ei_block */
	uint32_t el_pblk;               /* ei_leaf */
};

#define EXT4_SYNC_FL 0x8u               /* chattr +S */
#define EXT4_MAX_LOGICAL_BLOCK 0xFFFFFFFEu

/* What a partial-block zeroing did, for its ordered-data step. */
struct zero_result {
	bool zeroed;            /* bytes were zeroed in the page cache */
	bool written;           /* the block is written on disk (not delayed/unwritten) */
};

struct ext4_inode_info {
	uint32_t i_ino;
	uint16_t i_mode;                /* S_IF* and permission bits, as the raw inode holds them */
	uint16_t i_links_count;         /* names (a directory: 2 + subdirectories) */
	uint32_t i_generation;
	uint32_t i_open;                /* open file descriptions (an unlinked inode lives on) */
	uint32_t i_next_orphan;         /* on the orphan list: the next one's number (i_dtime) */
	uint32_t i_loc_blk, i_loc_off;  /* the raw inode: its inode-table block and offset */
	bool i_fast_symlink;            /* the target in i_block (i_data), no extents */
	char i_data[60];                /* a fast symlink's target */
	int64_t i_size;                 /* VFS size (i_size_read) */
	int64_t i_disksize;             /* what the raw inode gets */
	uint32_t i_flags;
	uint64_t i_file_acl;             /* the xattr block (namei/xattr.c), or 0 */
	uint32_t i_sync_tid;
	uint32_t i_datasync_tid;
	bool i_orphan;                  /* on the orphan list (s_last_orphan names it) */
	bool i_da_alloc_close;          /* EXT4_STATE_DA_ALLOC_CLOSE */
	uint32_t i_reserved_data_blocks;
	uint32_t i_csum_seed;           /* crc32c of the file system's seed, number, generation */
	struct ext4_es_tree i_es;       /* extent tree + extent status tree */
	uint32_t i_ext_depth;           /* the on-disk tree's depth: 0 (in i_block) or 1 */
	uint32_t i_ext_nr_leaves;       /* depth 1: its extent blocks, in lblk order */
	struct ext4_ext_leaf i_ext_leaves[EXT4_EXT_MAX_LEAVES];
	struct address_space i_mapping;
	/*
	 * i_rwsem as a count of its holders (the model runs one task): readers
	 * (inode_lock_shared) and a writer (inode_lock); both 0 between steps.
	 */
	uint32_t i_rwsem_readers;
	bool i_rwsem_writer;
};

/* inode_lock() / inode_lock_shared() and their unlocks, on the current inode. */
static inline void ext4_inode_lock(struct ext4_inode_info *ei, bool shared)
{
	SIM_ASSERT(!ei->i_rwsem_writer && (shared || ei->i_rwsem_readers == 0));
	if (shared)
		ei->i_rwsem_readers++;
	else
		ei->i_rwsem_writer = true;
}

static inline void ext4_inode_unlock(struct ext4_inode_info *ei, bool shared)
{
	SIM_ASSERT(shared ? ei->i_rwsem_readers > 0 : ei->i_rwsem_writer);
	if (shared)
		ei->i_rwsem_readers--;
	else
		ei->i_rwsem_writer = false;
}

/* A block write in flight, and the io_end it belongs to (page-io.c). */
struct ext4_io {
	uint64_t io_seq;                /* device bio */
	uint64_t io_index;              /* folio */
	uint32_t io_end;                /* ext4_io_end id; 0: finished (a hole in fs->ios) */
	uint8_t io_bh;                  /* buffer in the folio */
};

/* A range an io_end converts at completion (struct ext4_io_end_vec). */
struct ext4_io_end_vec {
	uint32_t lblk;
	uint32_t len;
};

struct ext4_io_end {
	uint32_t ie_id;
	uint32_t ie_ino;                /* the inode whose pages it writes */
	bool ie_unwritten;              /* convert the vecs' ranges at completion */
	struct ext4_io_end_vec *ie_vecs;/* ascending, not adjacent (owned) */
	uint32_t ie_nr_vecs;
	uint32_t ie_pending;            /* bios not yet completed */
	uint32_t ie_first, ie_last;     /* its bios lie in fs->ios[ie_first..ie_last] */
};


/* An entry of the xattr blocks' mb_cache (fs/mbcache.c: key h_hash, value the block). */
struct ext4_ea_cache_entry {
	uint32_t ce_hash;
	uint32_t ce_block;
	bool ce_reusable;               /* h_refcount below EXT4_XATTR_REFCOUNT_MAX */
};

struct ext4_fs {
	struct ext4_mount_opts opts;
	struct ext4_semantics sem;
	/*
	 * A bit per field of sem (its offset) that this mount read through
	 * ext4_sem(): a crash point's result depends only on the fields its
	 * mounts read, so the crash-point memo compares only those
	 * (crash/cpmemo.c).
	 */
	uint64_t s_sem_read;
	struct ext4_layout lay;
	struct blkdev *bdev;            /* not owned: survives a crash */
	struct sim_counters *counters;  /* not owned: counts across mounts */
	journal_t journal;
	struct ext4_mbuf *s_bufs;       /* metadata buffers, sorted by block (ext4_meta_bh) */
	uint32_t s_nr_bufs;
	uint32_t s_cap_bufs;
	const char *s_mount_error;      /* why the last mount refused the device, or NULL */
	const char *s_ns_error;         /* why the last namespace operation hit a model limit */
	bool s_time_ticks;              /* file_update_time() dirties the inode */
	struct sim_bitmap *free_map;    /* allocatable now (freed blocks: after commit) */
	uint64_t s_freeclusters;
	uint64_t s_dirtyclusters;       /* delalloc reservations */
	uint32_t s_mb_last_block;       /* next-fit cursor (locality-group stream) */
	struct ext4_ea_cache_entry *s_ea_cache; /* s_ea_block_cache, oldest first (xattr.c) */
	uint32_t s_nr_ea_cache;
	uint32_t s_cap_ea_cache;
	struct ext4_inode_info *inode;  /* the inode the running operation works on */
	struct ext4_inode_info **s_inodes;      /* in-core inodes, ascending i_ino */
	uint32_t s_nr_inodes;
	uint32_t s_cap_inodes;
	struct ext4_io *ios;            /* sorted by io_seq, with holes (io_end 0) */
	uint32_t nr_ios;                /* bios not finished (entries that are not holes) */
	uint32_t nr_io_slots;           /* entries in ios[], holes included */
	uint32_t cap_ios;
	uint32_t io_scans;              /* walks of ios[] under way: no compaction then */
	struct ext4_io_end *io_ends;
	uint32_t nr_io_ends;
	uint32_t cap_io_ends;
	uint32_t next_io_end;
	bool s_shutdown;
	struct iomap_dio *s_dios;       /* asynchronous direct writes in flight, oldest first */
	uint32_t s_nr_dios;
	struct iomap_dio_done *s_dio_done;      /* completed AIOs not reaped yet, oldest first */
	uint32_t s_nr_dio_done;
	/* model-only faults (`inject` steps): in memory, so a mount clears them */
	bool s_fault_enospc;            /* one ENOSPC armed in ext4_mb_new_blocks() */
	bool s_fault_fired;             /* it fired; ext4_writepages() has not retried yet */
	bool s_fault_nonda;             /* ext4_nonda_switch() reports too little space */
	uint32_t s_fault_enospc_after;  /* blocks allocated before the ENOSPC fires */
};

_Static_assert(sizeof(struct ext4_semantics) <= 64, "a bit of s_sem_read per field");

/* The bit of s_sem_read for field @f of struct ext4_semantics. */
#define EXT4_SEM_BIT(f) (1ull << offsetof(struct ext4_semantics, f))

/*
 * Field @f of @fs's semantics (a const @fs too: s_sem_read is bookkeeping,
 * not state), noted in s_sem_read.  Model code reads the semantics only so.
 */
#define ext4_sem(fs, f) \
	(((struct ext4_fs *)(fs))->s_sem_read |= EXT4_SEM_BIT(f), (fs)->sem.f)

/* What an inject step arms (the scenario's enum scn_fault, in the same order). */
enum ext4_fault { EXT4_FAULT_ENOSPC, EXT4_FAULT_NONDA, EXT4_FAULT_CLEAR };

/* ext4_map_blocks() flags (fs/ext4/ext4.h EXT4_GET_BLOCKS_*) */
#define GET_BLOCKS_CREATE 0x1u
#define GET_BLOCKS_UNWRIT_EXT 0x2u      /* allocate unwritten */
#define GET_BLOCKS_IO_SUBMIT 0x8u       /* writeback: ordered add_wait */
#define GET_BLOCKS_CONVERT 0x10u        /* unwritten -> written */
#define GET_BLOCKS_CONVERT_UNWRITTEN 0x20u /* written -> unwritten (zero range) */

/* fallocate(2) modes (include/uapi/linux/falloc.h) */
#define FALLOC_FL_KEEP_SIZE 0x01
#define FALLOC_FL_PUNCH_HOLE 0x02
#define FALLOC_FL_COLLAPSE_RANGE 0x08
#define FALLOC_FL_ZERO_RANGE 0x10
#define FALLOC_FL_INSERT_RANGE 0x20
#define FALLOC_FL_UNSHARE_RANGE 0x40

/* EXT4_MAP_* */
#define MAP_NEW 0x1u
#define MAP_MAPPED 0x2u
#define MAP_UNWRITTEN 0x4u
#define MAP_DELAYED 0x8u

struct ext4_map_blocks {
	uint32_t m_lblk;
	uint32_t m_len;
	uint32_t m_pblk;
	uint32_t m_flags;
};

/* jbd2 handle types (EXT4_HT_*) */
enum { HT_MISC, HT_INODE, HT_WRITE_PAGE, HT_MAP_BLOCKS, HT_TRUNCATE, HT_DIR, HT_XATTR };

/*
 * ext4_inode_journal_mode() for the current inode: a directory's or a
 * symbolic link's blocks are always journaled (metadata), a regular file's
 * as the data mode says.
 */
static inline bool ext4_should_journal_data(const struct ext4_fs *fs)
{
	return fs->opts.data == DATA_JOURNAL || !S_ISREG(fs->inode->i_mode);
}

static inline bool ext4_should_order_data(const struct ext4_fs *fs)
{
	return fs->opts.data == DATA_ORDERED && S_ISREG(fs->inode->i_mode);
}

static inline bool ext4_should_dioread_nolock_opts(const struct ext4_mount_opts *o)
{
	return o->dioread_nolock && o->delalloc && o->data != DATA_JOURNAL;
}

/*
 * ext4_set_def_opts(): dioread_nolock (true) stands for the kernel's default
 * mount.  Before 244adf6426ee (the dioread_nolock_default toggle off) the
 * default is dioread_lock for every block size; before e89fdcc425b6 (the
 * dioread_nolock_subpage toggle off) dioread_nolock is the default only for
 * page-sized blocks, so a smaller block size mounts with dioread_lock.
 * Returns @o as the mount sees it.
 */
static inline struct ext4_mount_opts ext4_set_def_opts(const struct ext4_mount_opts *o,
							const struct ext4_semantics *sem)
{
	struct ext4_mount_opts m = *o;

	if (!sem->dioread_nolock_default)
		m.dioread_nolock = false;
	if (!sem->dioread_nolock_subpage && m.block_size < PAGE_SIZE)
		m.dioread_nolock = false;
	return m;
}

static inline bool ext4_should_dioread_nolock(const struct ext4_fs *fs)
{
	return ext4_should_dioread_nolock_opts(&fs->opts);
}

static inline uint32_t ext4_blkbits(const struct ext4_fs *fs)
{
	return fs->inode->i_mapping.a_blkbits;
}

/*
 * A deep copy of @src, between two steps, over device @bd (a clone of
 * @src's) and counters @c: a forked world's file system (explore's prefix
 * sharing), which behaves exactly as @src would from here on.
 */
void ext4_fs_clone(struct ext4_fs *dst, const struct ext4_fs *src, struct blkdev *bd,
		   struct sim_counters *c);

/*
 * The in-core inodes (super.c: ext4_alloc_inode, ext4_free_in_core_inode;
 * fs/inode.c's ilookup): each a struct ext4_inode_info of its own, held in
 * fs->s_inodes by number.  fs->inode is the one the running operation works
 * on (the current file of the data steps; a walk over several inodes, such
 * as a commit's ordered data or sync's writeback, sets it for each).
 */
struct ext4_inode_info *ext4_alloc_inode(struct ext4_fs *fs, uint32_t ino);
struct ext4_inode_info *ext4_ilookup(const struct ext4_fs *fs, uint32_t ino);
void ext4_free_in_core_inode(struct ext4_inode_info *ei);
void ext4_evict_in_core_inode(struct ext4_fs *fs, struct ext4_inode_info *ei);
/*
 * Make in-core inode @ino the one the running operation works on; returns
 * the one it was, for the caller to put back.  The inode must be in core.
 */
struct ext4_inode_info *ext4_set_current_inode(struct ext4_fs *fs, uint32_t ino);

/* Largest file size for the block size (ext4_max_size, extent files). */
int64_t ext4_max_size(const struct ext4_fs *fs);

/* super.c */
int ext4_fill_super(struct ext4_fs *fs, struct blkdev *bd,
		    const struct ext4_mount_opts *opts,
		    const struct ext4_semantics *sem, struct sim_counters *c,
		    struct jbd2_recovery_info *rinfo);
/* The same on an overlay of a device that holds @base's replay (jbd2.h). */
int ext4_fill_super_base(struct ext4_fs *fs, struct blkdev *bd,
			 const struct ext4_mount_opts *opts,
			 const struct ext4_semantics *sem, struct sim_counters *c,
			 struct jbd2_recovery_info *rinfo,
			 const struct jbd2_recovery_base *base);
void ext4_put_super(struct ext4_fs *fs);        /* clean unmount */
void ext4_free_bufs_from(struct ext4_fs *fs, uint32_t from);
void ext4_free_fs(struct ext4_fs *fs);          /* drop memory (after crash) */
int ext4_sync_fs(struct ext4_fs *fs);
/*
 * The metadata buffer of block @blk (the kernel's sb_bread of a block the
 * file system holds): ext4_meta_bh() asserts it is held, ext4_meta_peek()
 * returns NULL when not; ext4_meta_get() reads it from the device when not
 * yet held; ext4_meta_new() holds it zeroed (a new extent block);
 * ext4_meta_forget() drops it (a freed extent block).
 */
uint8_t *ext4_meta_bh(struct ext4_fs *fs, uint32_t blk);
const uint8_t *ext4_meta_peek(const struct ext4_fs *fs, uint32_t blk);
uint8_t *ext4_meta_get(struct ext4_fs *fs, uint32_t blk);
uint8_t *ext4_meta_new(struct ext4_fs *fs, uint32_t blk);
void ext4_meta_forget(struct ext4_fs *fs, uint32_t blk);
/* ext4_handle_dirty_super(): the superblock's checksum, then the buffer under @h. */
void ext4_handle_dirty_super(struct ext4_fs *fs, handle_t *h);
/* The superblock in its buffer, read and written by copy. */
void ext4_get_super(const struct ext4_fs *fs, struct ext4_super_block *es);
void ext4_put_super_fields(struct ext4_fs *fs, const struct ext4_super_block *es);
/* The superblock's block without the fields mount and unmount rewrite in place. */
void ext4_sb_journaled_bytes(const struct ext4_layout *lay, const uint8_t *blk, uint8_t *out);
/* Why ext4_fill_super() refused the device (its errno's reason), or NULL. */
const char *ext4_mount_error(const struct ext4_fs *fs);
void ext4_check_state(const struct ext4_fs *fs);

/* balloc.c: block groups, their descriptors and block bitmaps (fs/ext4/balloc.c, bitmap.c) */
uint32_t ext4_group_of(const struct ext4_layout *lay, uint32_t blk);
uint32_t ext4_group_first_block_no(const struct ext4_layout *lay, uint32_t group);
uint32_t ext4_group_nr_blocks(const struct ext4_layout *lay, uint32_t group);
bool ext4_bg_has_super(const struct ext4_layout *lay, uint32_t group);
uint32_t ext4_bg_num_gdb(const struct ext4_layout *lay, uint32_t group);
void ext4_get_group_desc(const struct ext4_fs *fs, uint32_t group, struct ext4_group_desc *gd);
/* The descriptor table block that holds group @group's descriptor. */
uint32_t ext4_group_desc_block(const struct ext4_layout *lay, uint32_t group);
void ext4_put_group_desc(struct ext4_fs *fs, uint32_t group, struct ext4_group_desc *gd);
uint32_t ext4_block_bitmap(const struct ext4_fs *fs, uint32_t group);
uint16_t ext4_group_desc_csum(const struct ext4_layout *lay, uint32_t group,
			      const struct ext4_group_desc *gd);
int ext4_check_descriptors(struct ext4_fs *fs);
const uint8_t *ext4_read_block_bitmap(struct ext4_fs *fs, uint32_t group);
int ext4_layout_ranges(struct ext4_fs *fs);
void ext4_read_raw_inode(const struct ext4_fs *fs, uint32_t ino, struct ext4_inode *raw);
bool ext4_bitmap_bit(const struct ext4_fs *fs, uint32_t blk);
uint32_t ext4_free_blocks_count(const struct ext4_fs *fs);
/* Used blocks of the bitmaps outside the layout's metadata ranges (the file's and its tree's). */
uint64_t ext4_used_data_blocks(const struct ext4_fs *fs);
/*
 * The blocks whose on-disk bytes the journal changes besides extent blocks,
 * sorted: the superblock's, the descriptor blocks, every block bitmap and
 * the file's inode-table block (a new array; *@n its length).
 */
uint32_t *ext4_journaled_set(const struct ext4_fs *fs, uint32_t *n);

/* extents.c: the on-disk extent tree (fs/ext4/extents.c) */
int ext4_ext_load(struct ext4_fs *fs);
/* Can the tree take @extra more extents (a split's two) without a second level? */
bool ext4_ext_has_room(const struct ext4_fs *fs, uint32_t extra);
uint32_t ext4_ext_capacity(const struct ext4_fs *fs);
/* Is the extent [@start, @start + 1) the last of its leaf, the next leaf starting after it? */
bool ext4_ext_leaf_ends_at(const struct ext4_fs *fs, uint32_t start);
/* The root as i_block holds it (60 bytes), from the in-memory tree. */
void ext4_ext_root(const struct ext4_fs *fs, uint8_t root[60]);
uint32_t ext4_ext_meta_blocks(const struct ext4_fs *fs);
bool ext4_ext_is_leaf(const struct ext4_fs *fs, uint32_t blk);
/* Is @blk a block of an in-core directory or slow symbolic link (metadata, journaled)? */
bool ext4_is_dir_block(const struct ext4_fs *fs, uint32_t blk);
/* Does an in-core inode name @blk as its xattr block (i_file_acl)? */
bool ext4_is_xattr_block(const struct ext4_fs *fs, uint32_t blk);
/* Parse an extent root or block's entries (depth 0: extents into the block map). */
int ext4_ext_parse_leaf(struct ext4_fs *fs, const uint8_t *hdr, uint32_t max, bool insert,
			struct jbd2_extent *map, uint32_t *nr_map, uint32_t cap_map);

/* inode.c: the raw inode (__ext4_iget, ext4_do_update_inode) */
int ext4_iget(struct ext4_fs *fs);
int __ext4_iget(struct ext4_fs *fs, uint32_t ino, bool orphan, struct ext4_inode_info **out);
void ext4_set_raw_dtime(struct ext4_fs *fs, struct ext4_inode_info *ei, uint32_t t);
/* i_flags of @ei's raw inode |= @flags (a slow symlink's EXT4_EXTENTS_FL). */
void ext4_set_raw_flags(struct ext4_fs *fs, struct ext4_inode_info *ei, uint32_t flags);
void ext4_fill_raw_inode(const struct ext4_fs *fs, uint8_t *raw);
uint32_t ext4_inode_csum(const struct ext4_layout *lay, uint32_t ino, const uint8_t *raw);
void ext4_inode_loc(const struct ext4_layout *lay, const struct ext4_fs *fs, uint32_t ino,
		    uint32_t *blk, uint32_t *off);

/* ext4_jbd2.c */
/*
 * The handle wrappers name their caller in the event log, as the kernel's do:
 * @where is the kernel function that starts or stops the handle, a string
 * literal at the call (never the C function's own name: renaming a model helper must not
 * change a trace).
 */
handle_t *__ext4_journal_start(struct ext4_fs *fs, const char *where, int type, uint32_t credits);
int __ext4_journal_stop(const char *where, struct ext4_fs *fs, handle_t *h);
#define ext4_journal_start(fs, where, type, credits) \
	__ext4_journal_start((fs), (where), (type), (credits))
#define ext4_journal_stop(fs, where, h) __ext4_journal_stop((where), (fs), (h))
handle_t *ext4_journal_current_handle(struct ext4_fs *fs);
void ext4_handle_sync(handle_t *h);
int ext4_mark_inode_dirty(struct ext4_fs *fs, handle_t *h);
void ext4_ext_dirty(struct ext4_fs *fs, handle_t *h);
void ext4_bitmap_dirty(struct ext4_fs *fs, handle_t *h, uint32_t pblk, uint32_t len,
		       bool used);
void ext4_jbd2_inode_add_write(struct ext4_fs *fs, handle_t *h, int64_t start, int64_t len);
void ext4_jbd2_inode_add_wait(struct ext4_fs *fs, handle_t *h, int64_t start, int64_t len);
void ext4_jbd2_file_inode(struct ext4_fs *fs, handle_t *h);
void ext4_update_inode_fsync_trans(struct ext4_fs *fs, handle_t *h, bool datasync);
extern const struct jbd2_fs_ops ext4_jbd2_ops;
void sim_folio_lock(struct ext4_fs *fs, struct folio *f, enum sim_lock_site site);

/* mballoc.c */
int ext4_mb_new_blocks(struct ext4_fs *fs, handle_t *h, uint32_t goal, uint32_t len,
		       bool reserved, uint32_t *pblk, uint32_t *got);
void ext4_free_blocks(struct ext4_fs *fs, handle_t *h, uint32_t pblk, uint32_t len);
void ext4_mb_release_freed(struct ext4_fs *fs, uint32_t pblk, uint32_t len);
int ext4_mb_new_meta_block(struct ext4_fs *fs, handle_t *h, uint32_t goal, uint32_t *pblk);
void ext4_free_meta_block(struct ext4_fs *fs, handle_t *h, uint32_t pblk);
int ext4_da_reserve_space(struct ext4_fs *fs);
void ext4_da_release_space(struct ext4_fs *fs, uint32_t nr);
bool ext4_nonda_switch(struct ext4_fs *fs);
/* Arm (or with EXT4_FAULT_CLEAR disarm) a model-only fault; @after: enospc's blocks. */
void ext4_fault_inject(struct ext4_fs *fs, enum ext4_fault fault, uint32_t after);

/* inode.c: block mapping and the buffered write path */
int ext4_map_blocks(struct ext4_fs *fs, handle_t *h, struct ext4_map_blocks *map,
		    uint32_t flags);
int ext4_buffered_write(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t fill,
			int64_t readable, int64_t *written);
int generic_perform_write(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t fill,
			  const uint8_t *src, int64_t readable, int64_t *written);
/* What disk block @blk holds in the layout: "superblock", "block bitmap", ... */
const char *ext4_block_role(const struct ext4_layout *lay, uint32_t blk);
/* The same, naming the file system's current extent blocks too. */
const char *ext4_block_role_fs(const struct ext4_fs *fs, uint32_t blk);
/* Is @blk a data block: in no metadata range of the layout, not an extent block? */
bool ext4_is_data_block(const struct ext4_fs *fs, uint32_t blk);
/* Is @blk one of the blocks the model journals as metadata (ext4_journaled_set, extent blocks)? */
bool ext4_is_meta_block(const struct ext4_fs *fs, uint32_t blk);
/*
 * The rule behind a change of i_size or i_disksize, written at the call that
 * makes it: the kernel function that applies it, the condition and the new
 * size in words, and, where kernels differ, the patch toggle (its field of
 * struct ext4_semantics) that decides it.  The change's event carries the
 * rule (model/events.h), so `run --explain`, diff's "rule only" lines and the
 * JSON need no table of their own: a new call site, or one under an
 * experimental toggle, names its rule here and nowhere else
 * (docs/writing-a-toggle.md).  Define one static, next to its call:
 *
 *	static const struct ext4_size_rule r = EXT4_SIZE_RULE("ext4_foo", "...");
 */
struct ext4_size_rule {
	const char *sr_func;    /* the kernel function: the event's name */
	const char *sr_rule;    /* the rule, in words */
	bool sr_toggled;        /* a toggle decides it ... */
	size_t sr_toggle;       /* ... this field of struct ext4_semantics */
};
#define EXT4_SIZE_RULE(func, rule) { (func), (rule), false, 0 }
#define EXT4_SIZE_RULE_TOGGLE(func, rule, field) \
	{ (func), (rule), true, offsetof(struct ext4_semantics, field) }

/*
 * Every change of i_size and i_disksize goes through these stores, which
 * record it in the event log with its @rule (a static object: the event
 * keeps the pointer), so that a trace can say which kernel function and rule
 * moved a size.  i_size_write() and ext4_set_i_disksize() store @newsize;
 * ext4_update_i_disksize() raises i_disksize, never lowers it, and counts
 * every call (update_i_disksize_calls: the kernel takes i_data_sem for
 * writing on each, whether or not the size moves);
 * ext4_update_inode_size() raises both (each with its rule) and says whether
 * either changed.
 */
void i_size_write(struct ext4_fs *fs, int64_t newsize, const struct ext4_size_rule *rule);
void ext4_set_i_disksize(struct ext4_fs *fs, int64_t newsize, const struct ext4_size_rule *rule);
void ext4_update_i_disksize(struct ext4_fs *fs, int64_t newsize,
			    const struct ext4_size_rule *rule);
bool ext4_update_inode_size(struct ext4_fs *fs, int64_t newsize,
			    const struct ext4_size_rule *isize,
			    const struct ext4_size_rule *disksize);
void pagecache_isize_extended(struct ext4_fs *fs, int64_t from, int64_t to);
/* mark_inode_dirty() -> ext4_dirty_inode(): the raw inode journaled in its own handle. */
void ext4_dirty_inode(struct ext4_fs *fs);
/*
 * file_update_time() / file_modified(): a write, a page fault's store or a
 * fallocate changes mtime and ctime.  The model has no clock: with
 * fs->s_time_ticks (a scenario of several files) the clock is taken to tick
 * between operations, as the recorded runs make sure it does, so the change
 * dirties the inode (ext4_dirty_inode) every time; without (a scenario of one
 * file, whose traces predate several files) the clock stands still.
 */
void file_update_time(struct ext4_fs *fs);
void ext4_note_size_point(struct ext4_fs *fs);
int ext4_block_zero_page_range(struct ext4_fs *fs, handle_t *h, int64_t from,
			       int64_t length, bool eof, bool *did_zero);
int ext4_zero_partial_blocks(struct ext4_fs *fs, handle_t *h, int64_t start,
			     int64_t len, bool eof, bool *did_zero);
int ext4_zero_eof_block(struct ext4_fs *fs, int64_t from, int64_t end, struct zero_result *zr);
int ext4_block_zero_eof(struct ext4_fs *fs, int64_t from, int64_t end);
void ext4_order_zeroed(struct ext4_fs *fs, handle_t *h, int64_t from, int64_t length,
		       const struct zero_result *zr, bool eof);
int ext4_page_mkwrite(struct ext4_fs *fs, struct folio *f);

/* fallocate.c: ext4_fallocate() through a descriptor opened without O_SYNC */
int ext4_fallocate(struct ext4_fs *fs, int mode, int64_t offset, int64_t len);
/* ext4_fallocate() through a descriptor opened O_SYNC when @o_sync (file->f_flags & O_SYNC) */
int ext4_fallocate_file(struct ext4_fs *fs, int mode, int64_t offset, int64_t len, bool o_sync);

/* inode.c: ext4_iomap_begin() for direct writes (IOMAP_WRITE) and the overwrite lookup */
int ext4_iomap_begin(struct ext4_fs *fs, int64_t offset, int64_t length, unsigned flags,
		     struct iomap *iomap);

/* readpage.c */
bool ext4_inode_datasync_dirty(struct ext4_fs *fs);
int ext4_read_folio(struct ext4_fs *fs, struct folio *f);
int ext4_dio_read(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t *out, int64_t *got);
int ext4_file_read(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t *out,
		   int64_t *got);
int ext4_read_bh(struct ext4_fs *fs, struct folio *f, unsigned i);
void ext4_peek(const struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t *out);

/* writepages.c and page-io.c */
enum wb_sync_mode { WB_SYNC_NONE, WB_SYNC_ALL };
int ext4_writepages(struct ext4_fs *fs, int64_t start, int64_t end,
		    enum wb_sync_mode mode, bool can_map);
int ext4_writeback_inodes(struct ext4_fs *fs, enum wb_sync_mode mode);
int ext4_bio_write_folio(struct ext4_fs *fs, struct folio *f, uint32_t len,
			 uint32_t io_end);
uint32_t ext4_init_io_end(struct ext4_fs *fs);
void ext4_io_end_set_unwritten(struct ext4_fs *fs, uint32_t io_end, uint32_t lblk,
			       uint32_t len);
void ext4_put_io_end(struct ext4_fs *fs, uint32_t io_end);
/* ext4_convert_unwritten_extents(NULL, ...): bytes [@pos, @pos + @len), a handle per extent. */
int ext4_convert_unwritten_extents_range(struct ext4_fs *fs, int64_t pos, int64_t len);
void ext4_wait_io_range(struct ext4_fs *fs, int64_t start, int64_t end);
bool ext4_io_range_busy(const struct ext4_fs *fs, int64_t start, int64_t end);

/* truncate.c and orphan.c */
int ext4_setattr_size(struct ext4_fs *fs, int64_t newsize);
int ext4_truncate(struct ext4_fs *fs);
void ext4_truncate_failed_write(struct ext4_fs *fs);
void truncate_pagecache(struct ext4_fs *fs, int64_t newsize);
int ext4_orphan_add(struct ext4_fs *fs, handle_t *h);
int ext4_orphan_del(struct ext4_fs *fs, handle_t *h);
int ext4_orphan_cleanup(struct ext4_fs *fs);
/* Does the on-disk orphan list (from s_last_orphan) name inode @ino? */
bool ext4_orphan_listed(const struct ext4_fs *fs, uint32_t ino);
int ext4_ext_remove_space(struct ext4_fs *fs, handle_t *h, uint32_t start, uint32_t end);
void truncate_pagecache_range(struct ext4_fs *fs, int64_t lstart, int64_t lend);

/* fsync.c and file.c: the system-call level */
int ext4_sync_file(struct ext4_fs *fs, int64_t start, int64_t end, bool datasync);
int ext4_sync_file_range(struct ext4_fs *fs, int64_t off, int64_t len, char flag);
int ext4_release_file(struct ext4_fs *fs);
int ext4_alloc_da_blocks(struct ext4_fs *fs);
int ext4_file_write(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t fill,
		    int64_t readable, int64_t *written);
int ext4_file_write_iter(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t fill,
			 const uint8_t *src, bool dsync, int64_t readable, int64_t *written);
int ext4_set_sync_flag(struct ext4_fs *fs, bool on);
/*
 * What ext4_dio_write_iter() did, for the trace (EXT4_DIO_* bits): the lock
 * it ran under, the conditions it found, whether it fell back to buffered I/O.
 */
#define EXT4_DIO_SHARED 0x1u            /* i_rwsem shared (an overwrite) */
#define EXT4_DIO_UNALIGNED 0x2u         /* not fs-block aligned */
#define EXT4_DIO_EXTEND 0x4u            /* extending: orphan added, size at completion */
#define EXT4_DIO_BUFFERED 0x8u          /* fell back to buffered I/O (data=journal, ...) */
#define EXT4_DIO_QUEUED 0x10u           /* an AIO submitted, -EIOCBQUEUED: completed later */
#define EXT4_DIO_QUEUED_WAITED 0x20u    /* ... then waited for (the old path's ext4_unwritten_wait) */
/*
 * write(2) of @len bytes of @fill at @pos with the kiocb flags @ki_flags
 * (IOCB_DIRECT, IOCB_DSYNC, IOCB_SYNC): ext4_file_write_iter(), which sends
 * an IOCB_DIRECT write to ext4_dio_write_iter(); *@how gets EXT4_DIO_* bits.
 */
int ext4_file_write_kiocb(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t fill,
			  unsigned ki_flags, int64_t *written, unsigned *how);
void ext4_evict_clean(struct ext4_fs *fs);
int ext4_mmap_load(struct ext4_fs *fs, int64_t pos, int64_t len, bool reverse, uint8_t *out,
		   int64_t *loaded);
int ext4_mmap_populate_write(struct ext4_fs *fs, int64_t pos, int64_t len, int64_t *done);
void ext4_mmap_dontneed(struct ext4_fs *fs, int64_t pos, int64_t len);
/* fadvise.c: posix_fadvise(2) as generic_fadvise() takes it */
int generic_fadvise(struct ext4_fs *fs, int64_t offset, int64_t len, char advice);
int ext4_mmap_store(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t fill,
		    int64_t *stored);
int ext4_mmap_store_dir(struct ext4_fs *fs, int64_t pos, int64_t len, uint8_t fill,
			bool reverse, int64_t *stored);
void ext4_munmap(struct ext4_fs *fs);

/* splice.c: copy_file_range(2) within the file (fs/read_write.c, fs/splice.c) */
int vfs_copy_file_range(struct ext4_fs *fs, int64_t pos_in, int64_t pos_out, int64_t len,
			int64_t *copied);
/* ext4_force_shutdown(EXT4_GOING_FLAGS_LOGFLUSH)'s commit before the crash */
void ext4_shutdown_logflush(struct ext4_fs *fs);
/* ext4_ioctl(EXT4_IOC_SHUTDOWN): -ENOTTY before shutdown_ioctl, else the log flush of -f; 0. */
int ext4_shutdown(struct ext4_fs *fs, bool logflush);

#endif
