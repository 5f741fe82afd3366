/*
 * namespace.h - the checker's reference namespace and the namespace
 * invariants of docs/invariants.md ("Namespace"), judged on a recovered
 * crash state's snapshot (lib/nsnap.h).
 *
 * The reference is a naive model of what each successful operation did:
 * the versions N_0..N_m of the namespace (every path with the inode it
 * names; N_0 the namespace at the last sync, at the mount or at a rebase,
 * N_i after the i-th operation since), each inode's type, size and bytes
 * (through the write and truncate notes; a change of its bytes by any other
 * step marks its content unknown, and then only its size is judged), and
 * the promises made so far: fsync of a file, of a directory, sync, renames.
 * It never reads the model: the step dispatch tells it what each step did,
 * with the model's inode numbers, and chk_ns_judge compares a recovered
 * snapshot with it.  A recovered inode is matched with the reference's by
 * its number (a number names one live inode at a time; an inode freed and
 * its number used again is a new inode of the reference).
 *
 * Paths are given as the scenario gives them: relative to the root, a
 * leading "/" optional, components "." and ".." allowed (".." of the root
 * is the root), no empty component; the reference resolves them against
 * its current version as the kernel's lookup does: "." and ".." against
 * the directory reached so far, a symbolic link as an inner component
 * followed (40 at most, MAXSYMLINKS), a final one followed only by create
 * (creat and open -f of a link create its target).  A note comes only for
 * an operation that succeeded; a failed one (any errno) gets none.
 */
#ifndef EXT4SIM_NAMESPACE_H
#define EXT4SIM_NAMESPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "checker.h"
#include "nsnap.h"
#include "runs.h"

#define CHK_NS_ROOT_INO 2u              /* EXT4_ROOT_INO */
#define CHK_NS_LPF_INO 11u              /* lost+found, mke2fs's first inode */
#define CHK_NS_FILE_INO 12u             /* /f, the model's regular file */
#define CHK_NS_LINK_MAX 65000u          /* EXT4_LINK_MAX: dir_nlink's bound */

/* Limits of the reference (each note returns -E2BIG past one; see below). */
#define CHK_NS_MAX_NAMES 256u           /* names in one version, "/" included */
#define CHK_NS_MAX_VERSIONS 1024u       /* N_0..N_m kept since the last sync */
#define CHK_NS_MAX_INODES 1024u         /* inodes the reference has known since the last sync */
#define CHK_NS_MAX_PROMISES 256u        /* fsyncs and renames remembered since the last sync */
#define CHK_NS_OP_MAX (2 * NSNAP_PATH_MAX + 16)  /* an operation's text: "rename -x OLD NEW" */

struct chk_ns_name {
	char nn_path[NSNAP_PATH_MAX];   /* normalised: "/", "/A", "/A/foo" */
	uint32_t nn_id;                 /* index into ns_inodes */
};

/* One version N_i: its names sorted by path, the operation that made it. */
struct chk_ns_version {
	struct chk_ns_name *nv_names;
	uint32_t nv_nr;
	uint32_t *nv_nlink;             /* per name: the link count the names give its inode */
	uint32_t *nv_share;             /* per name: the index of its inode's first name */
	uint32_t nv_step;               /* the step of the operation (0 for N_0) */
	char nv_op[CHK_NS_OP_MAX];      /* "rename /a /b"; "sync" or "mount" for N_0 */
};

enum chk_ns_content { NS_BYTES, NS_HASH, NS_UNKNOWN };

#define CHK_NS_XATTR_NAME_MAX 255u      /* XATTR_NAME_MAX */
#define CHK_NS_XATTR_VALUE_MAX 255u     /* a value the reference keeps (longer: unknown) */
#define CHK_NS_MAX_XATTRS 512u          /* attributes of one inode (more: unknown) */

/* One extended attribute of an inode. */
struct chk_ns_xattr {
	char x_name[CHK_NS_XATTR_NAME_MAX + 1];
	uint32_t x_len;
	uint8_t x_value[CHK_NS_XATTR_VALUE_MAX];
};

struct chk_ns_inode {
	uint32_t ni_ino;                /* the model's inode number */
	uint8_t ni_type;                /* enum nsnap_type */
	bool ni_freed;                  /* no name since it lost its last one */
	uint8_t ni_content;             /* enum chk_ns_content */
	struct runs ni_data;            /* NS_BYTES: the bytes (a link: unused) */
	uint64_t ni_hash[2];            /* NS_HASH: the content's hash (a link: its target's) */
	int64_t ni_size;
	uint32_t ni_changes;            /* content changes so far (write, truncate, unknown) */
	uint32_t ni_born_epoch;         /* ns_epoch when it was created */
	char ni_target[NSNAP_PATH_MAX];     /* a link's target (cut only when a rebase's snapshot cut it) */
	/*
	 * Its extended attributes: NS_BYTES, the list (sorted by name) and
	 * its hash; NS_HASH, the hash and count alone (a rebase's); NS_UNKNOWN
	 * after a set or remove on a list not known (not judged).
	 */
	uint8_t ni_xattr_state;         /* enum chk_ns_content */
	struct chk_ns_xattr *ni_xattrs; /* NS_BYTES: the list (owned) */
	uint32_t ni_nr_xattrs;
	uint64_t ni_xattr_hash[2];      /* nsnap_xattr_hash of the list */
	uint32_t ni_xattr_changes;      /* setxattr and removexattr notes so far */
};

/* A (directory, component) pair: a name as a directory holds it. */
struct chk_ns_dname {
	uint32_t dn_dir;                /* the directory's id */
	char dn_comp[NSNAP_PATH_MAX];
};

enum chk_ns_promise_kind { NSP_FILE, NSP_DIR, NSP_RENAME };

/*
 * A promise made by an fsync (of a file: its names then, its size and
 * content; of a directory: its entries then) or a rename (its two names,
 * the inodes they named before), and the names later operations changed.
 */
struct chk_ns_promise {
	uint8_t p_kind;                 /* enum chk_ns_promise_kind */
	uint32_t p_step;
	uint32_t p_id;                  /* file or directory fsynced; rename: the moved inode */
	uint32_t p_id2;                 /* rename: the inode NEW named (UINT32_MAX: none) */
	bool p_datasync, p_new_file, p_exchange;
	bool p_sync;                    /* file: made by a sync (every file then) */
	bool p_pre_durable;             /* rename: both names durable before it */
	bool p_void;                    /* dir: the directory is gone since */
	uint32_t p_changes;             /* the inode's ni_changes then */
	int64_t p_size;
	bool p_hash_known;
	uint64_t p_hash[2];
	bool p_xattr_known;             /* file, fsync or sync: its attributes promised */
	uint32_t p_xattr_changes;       /* the inode's ni_xattr_changes then */
	uint32_t p_nr_xattrs;
	uint64_t p_xattr_hash[2];
	uint32_t p_epoch;               /* ns_epoch then (rename: replace_via_rename) */
	struct chk_ns_dname *p_names;   /* file: its names; dir: its entries; rename: OLD, NEW */
	uint32_t *p_child;              /* dir: the id each entry named */
	bool *p_changed;                /* per name: a later operation changed it */
	uint32_t p_nr;
	struct chk_ns_dname *p_later;   /* dir: names of it a later operation changed */
	uint32_t p_nr_later;
};

/* When a name last changed (operation count), for a rename's pre_durable. */
struct chk_ns_touch {
	struct chk_ns_dname t_name;
	uint32_t t_op;
};

struct chk_ns {
	struct chk_ns_inode *ns_inodes;
	uint32_t ns_nr_inodes;
	struct chk_ns_version *ns_ver;  /* N_0..N_m */
	uint32_t ns_nr_ver;
	struct chk_ns_promise *ns_p;
	uint32_t ns_nr_p;
	struct chk_ns_touch *ns_touch;  /* names changed since the last sync */
	uint32_t ns_nr_touch;
	uint32_t ns_ops;                /* operations since the last sync */
	uint32_t ns_epoch;              /* commits, syncs and fsyncs noted: "since the last commit" */
	uint32_t ns_commits;            /* commits and syncs noted: replace_via_rename's arming */
	uint32_t ns_commit_seq;         /* the last j_commit_sequence noted */
	bool ns_seq_known;              /* ns_commit_seq holds one */
	struct chk_ns_touch *ns_dsync;  /* per directory: the operation count at its last fsync */
	uint32_t ns_nr_dsync;
};

/*
 * The namespace of a fresh image (mke2fs's, docs/architecture.md): "/"
 * (inode 2), "/lost+found" (inode 11), "/f" (inode 12, an empty regular
 * file), all durable: N_0.
 */
void chk_ns_init(struct chk_ns *ns);
/*
 * The reference becomes the namespace of sorted snapshot @snap (a recovered
 * crash state the run goes on from, or an image it starts from): N_0 is
 * @snap's names, every inode's content its hash, no promise left.  Returns
 * -E2BIG when @snap holds more than CHK_NS_MAX_NAMES names (nothing changes
 * then), else 0.
 */
int chk_ns_rebase(struct chk_ns *ns, const struct nsnap *snap);
/* @dst (not initialised) becomes a deep copy of @src. */
void chk_ns_copy(struct chk_ns *dst, const struct chk_ns *src);
void chk_ns_destroy(struct chk_ns *ns);

/*
 * The notes of the step dispatch, each after an operation that succeeded,
 * @step its 1-based step index.  Each returns 0, or -E2BIG when the
 * operation would pass one of the limits above (the reference is then
 * unchanged, and the run must stop with a message naming the limit: the
 * verdicts would be wrong without the note).  Paths as the header says.
 *
 * chk_ns_note_create: PATH is new and names regular file @ino, empty
 * (creat, open -f of a path that did not exist).  chk_ns_note_mkdir: PATH
 * is a new empty directory @ino.  chk_ns_note_symlink: PATH is a new
 * symbolic link @ino to @target (the whole target, any length; its size
 * is strlen(@target)).  chk_ns_note_link: NEW is a new name of OLD's
 * inode.  chk_ns_note_unlink: PATH (not a directory) is gone.
 * chk_ns_note_rmdir: PATH, an empty directory, is gone.
 * chk_ns_note_rename: rename(OLD, NEW) with @flags 0, 1 (RENAME_NOREPLACE)
 * or 2 (RENAME_EXCHANGE), as it succeeded: OLD's inode now at NEW, what NEW
 * named before (an inode, an empty directory) replaced, or, with EXCHANGE,
 * the two swapped; OLD and NEW already naming one inode is a no-op, noted
 * or not.  An O_TRUNC of an existing file (open -t, creat of an existing
 * path) is chk_ns_note_truncate(ino, 0), not a create.  Besides -E2BIG,
 * a note returns -ENOENT, -EEXIST, -ENOTDIR, -EISDIR, -ENOTEMPTY, -EINVAL
 * or -ELOOP when its operation could not have succeeded on the reference's
 * current version (the model and the reference disagree: a bug; the
 * dispatch asserts that a note returns 0 or -E2BIG).  Nothing changes then.
 */
int chk_ns_note_create(struct chk_ns *ns, uint32_t step, const char *path, uint32_t ino);
int chk_ns_note_mkdir(struct chk_ns *ns, uint32_t step, const char *path, uint32_t ino);
int chk_ns_note_symlink(struct chk_ns *ns, uint32_t step, const char *target, const char *path,
			uint32_t ino);
int chk_ns_note_link(struct chk_ns *ns, uint32_t step, const char *oldpath,
		     const char *newpath);
int chk_ns_note_unlink(struct chk_ns *ns, uint32_t step, const char *path);
int chk_ns_note_rmdir(struct chk_ns *ns, uint32_t step, const char *path);
int chk_ns_note_rename(struct chk_ns *ns, uint32_t step, const char *oldpath,
		       const char *newpath, unsigned flags);

/*
 * Content notes, by the model's inode number @ino of the file the step
 * acted on (the current file of the data steps, named or already
 * unlinked): chk_ns_note_write, @len bytes of @byte at @off (what the step
 * reports written); chk_ns_note_truncate, the size set to @size (truncate,
 * O_TRUNC); chk_ns_note_unknown, any other change of the file's bytes or
 * size (fallocate, zero range, punch, collapse, insert, mwrite, a copy),
 * @size the model's i_size after it: its content is then not judged.
 * No return value: these hold no limit.
 */
void chk_ns_note_write(struct chk_ns *ns, uint32_t ino, int64_t off, int64_t len, uint8_t byte);
void chk_ns_note_truncate(struct chk_ns *ns, uint32_t ino, int64_t size);
void chk_ns_note_unknown(struct chk_ns *ns, uint32_t ino, int64_t size);

/*
 * Extended attributes, by the model's inode number @ino of the file or
 * directory setxattr(2) or removexattr(2) changed (its path's last link
 * followed): chk_ns_note_setxattr, @name (the whole name, "user.foo") now
 * holds @len bytes at @value; chk_ns_note_removexattr, @name is gone.
 * 0, or -ENOENT for a number the reference does not know or a name it
 * does not hold (a bug).  An fsync (not fdatasync) of the inode and a
 * sync promise its attributes then (ns_file_fsync), until the next note.
 */
int chk_ns_note_setxattr(struct chk_ns *ns, uint32_t step, uint32_t ino, const char *name,
			 const void *value, size_t len);
int chk_ns_note_removexattr(struct chk_ns *ns, uint32_t step, uint32_t ino, const char *name);
/*
 * Durability notes.  chk_ns_note_fsync: fsync (@datasync false) or
 * fdatasync (true) of inode @ino (a regular file or a directory; the
 * current file or fsync PATH's inode) returned 0.  chk_ns_note_sync:
 * sync(2) or syncfs returned 0: everything so far is durable, N_0 becomes
 * the current version.  chk_ns_note_commit: after every step, the
 * journal's j_commit_sequence (a change means a commit completed since the
 * last note: it arms replace_via_rename and ends "created since the last
 * commit"; the first note only records the value).  chk_ns_note_fsync
 * returns -E2BIG past CHK_NS_MAX_PROMISES, -ENOENT for a number the
 * reference does not know (a bug), else 0; chk_ns_note_sync always 0.
 * A clean remount is a sync: chk_ns_note_sync.
 */
int chk_ns_note_fsync(struct chk_ns *ns, uint32_t step, uint32_t ino, bool datasync);
int chk_ns_note_sync(struct chk_ns *ns, uint32_t step);
void chk_ns_note_commit(struct chk_ns *ns, uint32_t commit_sequence);

/*
 * Judge recovered snapshot @rec (sorted with nsnap_sort; the namespace
 * after a crash, journal recovery and the mount's orphan cleanup) against
 * @ns, which does not change (one reference serves every state of a crash
 * point; no copy is needed).  A state of a crash inside step k is judged
 * against the reference with step k's operation note (create, mkdir,
 * rename, ..., and the content notes) already made, N_k then one of the
 * versions, and without its durability notes (fsync, sync, commit): an
 * operation may be durable before its step ends, a promise only once it
 * returned.  After a crash the run goes on from, chk_ns_rebase with the
 * recovered snapshot; a run from an image starts with chk_ns_rebase of the
 * image's namespace instead of chk_ns_init.  Each broken invariant gives one struct chk_violation in
 * @out (at most @cap of them; the number of broken invariants is
 * returned, never more than the namespace invariants' count): its inv,
 * @step as its step, and a message naming the first path found breaking
 * it and the operation (with its step) whose promise it breaks.  Every
 * namespace invariant is judged: ns_link_count, ns_no_orphan,
 * ns_file_fsync, ns_dir_fsync, ns_rename_atomic, ns_new_file_fsync,
 * ns_op_order and replace_via_rename (docs/invariants.md).
 */
uint32_t chk_ns_judge(const struct chk_ns *ns, const struct nsnap *rec, uint32_t step,
		      struct chk_violation *out, uint32_t cap);

/*
 * The current version N_m as sorted snapshot @out (initialised here; the
 * caller frees it): sizes and hashes where the content is known (0 where
 * not), the link counts the names give.  For tests and traces.
 */
void chk_ns_current(const struct chk_ns *ns, struct nsnap *out);

#endif
