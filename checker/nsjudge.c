/*
 * nsjudge.c - chk_ns_judge (namespace.h): a recovered crash state's
 * namespace against the reference, one function per invariant.  A
 * recovered inode is the reference's by its number; a name (directory,
 * component) is found again through the recovered path of its directory's
 * inode, so a later rename of an ancestor moves nothing that is judged.
 */
#include "namespace.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsref.h"
#include "sim.h"

struct judge {
	const struct chk_ns *ns;
	const struct nsnap *rec;
	uint32_t step;
	struct chk_violation *out;
	uint32_t cap;
	uint32_t nr;            /* invariants broken (also those past @cap) */
	bool seen[INV_COUNT];
};

/* The first violation of @inv is kept; later ones of it add nothing. */
static void jreport(struct judge *j, enum chk_inv inv, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void jreport(struct judge *j, enum chk_inv inv, const char *fmt, ...)
{
	va_list ap;

	if (j->seen[inv])
		return;
	j->seen[inv] = true;
	if (j->nr < j->cap) {
		struct chk_violation *v = &j->out[j->nr];

		v->inv = inv;
		v->step = j->step;
		va_start(ap, fmt);
		vsnprintf(v->msg, sizeof(v->msg), fmt, ap);
		va_end(ap);
	}
	j->nr++;
}

/* The recovered entry of directory inode @ino (the first path naming it), or NULL. */
static const struct nsnap_entry *rec_dir(const struct nsnap *rec, uint32_t ino)
{
	for (uint32_t i = 0; i < rec->ns_nr; i++)
		if (rec->ns_e[i].ne_ino == ino && rec->ns_e[i].ne_type == NSNAP_DIR)
			return &rec->ns_e[i];
	return NULL;
}

/*
 * Name @dn in @rec: its path into @path and its entry (NULL: no such name);
 * false when @dn's directory is not in @rec at all.
 */
static bool rec_name(const struct judge *j, const struct chk_ns_dname *dn,
		     char path[NSNAP_PATH_MAX], const struct nsnap_entry **e)
{
	const struct nsnap_entry *d = rec_dir(j->rec, j->ns->ns_inodes[dn->dn_dir].ni_ino);

	*e = NULL;
	if (!d || nsr_join(d->ne_path, dn->dn_comp, path))
		return false;
	*e = nsnap_find(j->rec, path);
	return true;
}

static uint32_t ino_of(const struct judge *j, uint32_t id)
{
	return id == NSR_NONE ? 0 : j->ns->ns_inodes[id].ni_ino;
}

/* Is @e (maybe NULL) a name of reference inode @id? */
static bool names(const struct judge *j, const struct nsnap_entry *e, uint32_t id)
{
	return e && id != NSR_NONE && e->ne_ino == ino_of(j, id);
}

/* --- on the recovered state alone --- */

/* The recovered entries directly in directory @dir, and how many of them are directories. */
static uint32_t rec_children(const struct nsnap *rec, const char *dir, uint32_t *subdirs)
{
	char parent[NSNAP_PATH_MAX];
	uint32_t n = 0;

	*subdirs = 0;
	for (uint32_t i = 0; i < rec->ns_nr; i++) {
		if (strcmp(rec->ns_e[i].ne_path, "/") == 0)
			continue;
		nsr_parent(rec->ns_e[i].ne_path, parent);
		if (strcmp(parent, dir) == 0) {
			n++;
			*subdirs += rec->ns_e[i].ne_type == NSNAP_DIR;
		}
	}
	return n;
}

static void judge_link_count(struct judge *j)
{
	for (uint32_t i = 0; i < j->rec->ns_nr; i++) {
		const struct nsnap_entry *e = &j->rec->ns_e[i];
		uint32_t want, sub;

		if (e->ne_type == NSNAP_DIR) {
			rec_children(j->rec, e->ne_path, &sub);
			want = 2 + sub;
			if (want > CHK_NS_LINK_MAX && e->ne_nlink == 1)
				continue;       /* dir_nlink */
		} else {
			want = nsnap_names_of(j->rec, e->ne_ino);
		}
		if (e->ne_nlink != want)
			jreport(j, INV_NS_LINK_COUNT, "%s (inode %u) has link count %u, %s %u",
				e->ne_path, e->ne_ino, e->ne_nlink, e->ne_type == NSNAP_DIR ?
				"2 + its subdirectories are" : "the names pointing at it are", want);
	}
}

static void judge_no_orphan(struct judge *j)
{
	const struct nsnap *r = j->rec;

	if (r->ns_nr_unreachable)
		jreport(j, INV_NS_NO_ORPHAN, "%u inode(s) in use that no name reaches after "
			"recovery, the first inode %u", r->ns_nr_unreachable, r->ns_unreachable[0]);
	else if (r->ns_nr_orphans)
		jreport(j, INV_NS_NO_ORPHAN, "%u inode(s) still on the orphan list after the "
			"mount's orphan cleanup", r->ns_nr_orphans);
}

/* --- fsync's promises --- */

/* ns_file_fsync of the attributes an fsync or a sync promised, unchanged since. */
static void judge_file_xattrs(struct judge *j, const struct chk_ns_promise *p,
			      const struct nsnap_entry *e, const char *what)
{
	const struct chk_ns_inode *ni = &j->ns->ns_inodes[p->p_id];

	if (!p->p_xattr_known || p->p_xattr_changes != ni->ni_xattr_changes)
		return;
	if (e->ne_nr_xattrs != p->p_nr_xattrs || e->ne_xattr_hash[0] != p->p_xattr_hash[0] ||
	    e->ne_xattr_hash[1] != p->p_xattr_hash[1])
		jreport(j, INV_NS_FILE_FSYNC, "%s has %u extended attribute(s) after the crash, "
			"not the %u %s at the %s at step %u", e->ne_path, e->ne_nr_xattrs,
			p->p_nr_xattrs, e->ne_nr_xattrs == p->p_nr_xattrs ? "of other names or "
			"values" : "it held", what, p->p_step);
}

/* ns_file_fsync and ns_new_file_fsync for the names of file promise @p. */
static void judge_file(struct judge *j, const struct chk_ns_promise *p)
{
	bool content = p->p_changes == j->ns->ns_inodes[p->p_id].ni_changes;
	const char *what = p->p_sync ? "sync" : p->p_datasync ? "fdatasync" : "fsync";

	for (uint32_t k = 0; k < p->p_nr; k++) {
		char path[NSNAP_PATH_MAX];
		const struct nsnap_entry *e;
		bool dir = rec_name(j, &p->p_names[k], path, &e);

		if (p->p_changed[k])
			continue;
		if (p->p_new_file && !names(j, e, p->p_id))
			jreport(j, INV_NS_NEW_FILE_FSYNC, "%s does not name inode %u after the crash "
				"(%s), though the %s at step %u of that file, created since the last "
				"commit, made it durable", dir ? path : p->p_names[k].dn_comp,
				ino_of(j, p->p_id), !dir ? "its directory is gone" : e ?
				"it names another inode" : "no such name", what, p->p_step);
		if (!names(j, e, p->p_id))
			continue;
		judge_file_xattrs(j, p, e, what);
		if (!content)
			continue;
		if (e->ne_size != p->p_size)
			jreport(j, INV_NS_FILE_FSYNC, "%s has size %lld after the crash, %lld at "
				"the %s at step %u", path, (long long)e->ne_size,
				(long long)p->p_size, what, p->p_step);
		else if (p->p_hash_known && (e->ne_hash[0] != p->p_hash[0] ||
					     e->ne_hash[1] != p->p_hash[1]))
			jreport(j, INV_NS_FILE_FSYNC, "%s holds other bytes after the crash than "
				"at the %s at step %u", path, what, p->p_step);
	}
}

static bool later_changed(const struct chk_ns_promise *p, const char *comp)
{
	for (uint32_t i = 0; i < p->p_nr_later; i++)
		if (strcmp(p->p_later[i].dn_comp, comp) == 0)
			return true;
	return false;
}

/* Does directory promise @p list @comp? */
static bool had_entry(const struct chk_ns_promise *p, const char *comp)
{
	for (uint32_t i = 0; i < p->p_nr; i++)
		if (strcmp(p->p_names[i].dn_comp, comp) == 0)
			return true;
	return false;
}

/* ns_dir_fsync: the directory's entries then, each naming its inode; no other entry. */
static void judge_dir(struct judge *j, const struct chk_ns_promise *p)
{
	const struct nsnap_entry *d = rec_dir(j->rec, ino_of(j, p->p_id)), *e;
	char path[NSNAP_PATH_MAX], parent[NSNAP_PATH_MAX];

	if (!d || p->p_void)
		return;
	for (uint32_t k = 0; k < p->p_nr; k++) {
		if (later_changed(p, p->p_names[k].dn_comp) || !rec_name(j, &p->p_names[k], path, &e))
			continue;
		if (!names(j, e, p->p_child[k]))
			jreport(j, INV_NS_DIR_FSYNC, "%s %s after the crash, though it named inode "
				"%u at the fsync of its directory at step %u", path, e ?
				"names another inode" : "is gone", ino_of(j, p->p_child[k]), p->p_step);
	}
	for (uint32_t i = 0; i < j->rec->ns_nr; i++) {
		const char *q = j->rec->ns_e[i].ne_path;

		if (strcmp(q, "/") == 0)
			continue;
		nsr_parent(q, parent);
		if (strcmp(parent, d->ne_path) == 0 && !had_entry(p, nsr_comp(q)) &&
		    !later_changed(p, nsr_comp(q)))
			jreport(j, INV_NS_DIR_FSYNC, "%s is in its directory after the crash, "
				"though the directory did not hold it at its fsync at step %u and "
				"no later operation made it", q, p->p_step);
	}
}

/* --- rename --- */

/*
 * ns_rename_atomic for rename promise @p (both names durable before it):
 * NEW (unchanged since) names the moved inode, or what it named before
 * with OLD still naming the moved one; OLD, when unchanged since, is gone
 * once NEW names the moved inode.  An exchange: both swapped or neither.
 */
static void judge_rename(struct judge *j, const struct chk_ns_promise *p)
{
	char po[NSNAP_PATH_MAX], pn[NSNAP_PATH_MAX];
	const struct nsnap_entry *eo, *en;
	bool old_ok, pre, post;
	const char *why;

	if (!p->p_pre_durable || p->p_changed[1] || !rec_name(j, &p->p_names[1], pn, &en) ||
	    !rec_name(j, &p->p_names[0], po, &eo))
		return;
	old_ok = !p->p_changed[0];
	if (p->p_exchange) {
		pre = names(j, eo, p->p_id) && names(j, en, p->p_id2);
		post = names(j, eo, p->p_id2) && names(j, en, p->p_id);
		if (old_ok && !pre && !post)
			jreport(j, INV_NS_RENAME_ATOMIC, "rename -x %s %s at step %u is half done "
				"after the crash: %s names inode %u, %s inode %u", po, pn, p->p_step,
				po, eo ? eo->ne_ino : 0, pn, en ? en->ne_ino : 0);
		return;
	}
	pre = (p->p_id2 == NSR_NONE ? !en : names(j, en, p->p_id2)) &&
	      (!old_ok || names(j, eo, p->p_id));
	post = names(j, en, p->p_id) && (!old_ok || !eo);
	if (pre || post)
		return;
	why = names(j, en, p->p_id) && names(j, eo, p->p_id) ? "both names name the moved inode" :
	      !names(j, en, p->p_id) && !names(j, eo, p->p_id) ? "neither name names the "
	      "moved inode" : names(j, en, p->p_id) ? "the old name names another inode" :
	      "the new name names another inode";
	jreport(j, INV_NS_RENAME_ATOMIC, "rename %s %s at step %u is not atomic after the crash: "
		"%s (%s: inode %u, %s: inode %u)", po, pn, p->p_step, why, po, eo ? eo->ne_ino : 0,
		pn, en ? en->ne_ino : 0);
}

/*
 * replace_via_rename for rename promise @p: a regular file renamed over
 * an existing name (ext4_rename calls ext4_alloc_da_blocks when NEW has an
 * inode), its content known and unchanged since, a commit after the
 * rename: NEW holds the moved file's size and bytes.
 */
static void judge_replace(struct judge *j, const struct chk_ns_promise *p)
{
	const struct chk_ns_inode *moved = &j->ns->ns_inodes[p->p_id];
	char pn[NSNAP_PATH_MAX];
	const struct nsnap_entry *en;

	if (p->p_exchange || p->p_id2 == NSR_NONE || moved->ni_type != NSNAP_REG || !p->p_hash_known ||
	    p->p_changed[1] || p->p_changes != moved->ni_changes ||
	    j->ns->ns_commits == p->p_epoch || !rec_name(j, &p->p_names[1], pn, &en))
		return;
	if (!names(j, en, p->p_id))
		jreport(j, INV_REPLACE_VIA_RENAME, "%s %s after the crash, though a commit followed "
			"the rename over it at step %u", pn, en ? "still names the replaced file" :
			"is gone", p->p_step);
	else if (en->ne_size != p->p_size || en->ne_hash[0] != p->p_hash[0] ||
		 en->ne_hash[1] != p->p_hash[1])
		jreport(j, INV_REPLACE_VIA_RENAME, "%s has size %lld%s after the crash, the file "
			"renamed over it at step %u had size %lld and a commit followed", pn,
			(long long)en->ne_size, en->ne_size == p->p_size ? " and other bytes" : "",
			p->p_step, (long long)p->p_size);
}

/* --- the order of operations --- */

/* share[i]: the index of the first of @n names whose key (an inode) equals name i's. */
static void share_of(const uint32_t *key, uint32_t n, uint32_t *share)
{
	for (uint32_t i = 0; i < n; i++) {
		share[i] = i;
		for (uint32_t k = 0; k < i; k++)
			if (key[k] == key[i]) {
				share[i] = k;
				break;
			}
	}
}

/* The names of @v and of the recovered state that differ (a merge walk); the first in @first. */
static uint32_t version_diff(const struct judge *j, const struct chk_ns_version *v,
			     const uint32_t *rshare, const char **first)
{
	const struct nsnap *r = j->rec;
	uint32_t a = 0, b = 0, diff = 0;

	*first = NULL;
	while (a < v->nv_nr || b < r->ns_nr) {
		int c = a == v->nv_nr ? 1 : b == r->ns_nr ? -1 :
			strcmp(v->nv_names[a].nn_path, r->ns_e[b].ne_path);
		const char *at = c <= 0 ? v->nv_names[a].nn_path : r->ns_e[b].ne_path;
		bool same = c == 0 &&
			    j->ns->ns_inodes[v->nv_names[a].nn_id].ni_type == r->ns_e[b].ne_type &&
			    v->nv_nlink[a] == r->ns_e[b].ne_nlink &&
			    strcmp(v->nv_names[v->nv_share[a]].nn_path,
				   r->ns_e[rshare[b]].ne_path) == 0;

		if (!same && !diff++)
			*first = at;
		a += c <= 0;
		b += c >= 0;
	}
	return diff;
}

/* ns_op_order: the recovered names, types, sharing and link counts are some N_k's. */
static void judge_op_order(struct judge *j)
{
	const struct chk_ns *ns = j->ns;
	uint32_t n = j->rec->ns_nr, best = UINT32_MAX, best_k = 0;
	uint32_t *rkey, *rshare;
	const char *first, *best_first = "/";

	if (n > CHK_NS_MAX_NAMES) {
		jreport(j, INV_NS_OP_ORDER, "the recovered namespace holds %u names, more than any "
			"version since the last sync (%s at step %u)", n, ns->ns_ver[0].nv_op,
			ns->ns_ver[0].nv_step);
		return;
	}
	rkey = sim_zalloc((n + 1) * sizeof(*rkey));
	rshare = sim_zalloc((n + 1) * sizeof(*rshare));
	for (uint32_t i = 0; i < n; i++)
		rkey[i] = j->rec->ns_e[i].ne_ino;
	share_of(rkey, n, rshare);
	for (uint32_t k = ns->ns_nr_ver; k-- > 0 && best;) {
		const struct chk_ns_version *v = &ns->ns_ver[k];
		uint32_t d = v->nv_nr > n ? v->nv_nr - n : n - v->nv_nr;

		if (d >= best)
			continue;       /* at least that many names differ */
		d = version_diff(j, v, rshare, &first);
		if (d < best) {
			best = d;
			best_k = k;
			best_first = first;
		}
	}
	if (best)
		jreport(j, INV_NS_OP_ORDER, "the recovered namespace is none of N_0..N_%u (N_0: %s "
			"at step %u): the nearest, N_%u after %s at step %u, differs first at %s",
			ns->ns_nr_ver - 1, ns->ns_ver[0].nv_op, ns->ns_ver[0].nv_step, best_k,
			ns->ns_ver[best_k].nv_op, ns->ns_ver[best_k].nv_step, best_first);
	free(rkey);
	free(rshare);
}

uint32_t chk_ns_judge(const struct chk_ns *ns, const struct nsnap *rec, uint32_t step,
		      struct chk_violation *out, uint32_t cap)
{
	struct judge j = { .ns = ns, .rec = rec, .step = step, .out = out, .cap = cap };

	for (uint32_t i = 1; i < rec->ns_nr; i++)
		SIM_ASSERT(strcmp(rec->ns_e[i - 1].ne_path, rec->ns_e[i].ne_path) < 0);
	judge_link_count(&j);
	judge_no_orphan(&j);
	for (uint32_t i = 0; i < ns->ns_nr_p; i++) {
		const struct chk_ns_promise *p = &ns->ns_p[i];

		if (p->p_kind == NSP_FILE)
			judge_file(&j, p);
		else if (p->p_kind == NSP_DIR)
			judge_dir(&j, p);
		else
			judge_rename(&j, p), judge_replace(&j, p);
	}
	judge_op_order(&j);
	return j.nr;
}
