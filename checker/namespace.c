/*
 * namespace.c - the checker's reference namespace (see namespace.h): the
 * versions N_0..N_m, the inodes and the promises, built from the step
 * dispatch's notes.  The judging of a recovered snapshot is nsjudge.c.
 */
#include "namespace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsref.h"
#include "sim.h"

#define NS_MAXSYMLINKS 40       /* MAXSYMLINKS: links followed in one lookup */
#define NS_NONE NSR_NONE

/* --- paths --- */

/* @path's parent into @out ("/" for "/" and for a top-level name). */
void nsr_parent(const char *path, char out[NSNAP_PATH_MAX])
{
	const char *slash = strrchr(path, '/');
	size_t n = (size_t)(slash - path);

	SIM_ASSERT(path[0] == '/' && strlen(path) < NSNAP_PATH_MAX);
	if (n == 0)
		n = 1;
	memcpy(out, path, n);
	out[n] = '\0';
}

/* @path's last component ("" for "/"). */
const char *nsr_comp(const char *path)
{
	return strrchr(path, '/') + 1;
}

/* @dir + "/" + @comp into @out: 0, or -E2BIG when it does not fit. */
int nsr_join(const char *dir, const char *comp, char out[NSNAP_PATH_MAX])
{
	int n = snprintf(out, NSNAP_PATH_MAX, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", comp);

	return n < 0 || n >= (int)NSNAP_PATH_MAX ? -E2BIG : 0;
}

/* Is @path @dir itself or below it? */
bool nsr_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* --- versions --- */

const struct chk_ns_version *nsr_cur(const struct chk_ns *ns)
{
	SIM_ASSERT(ns->ns_nr_ver > 0);
	return &ns->ns_ver[ns->ns_nr_ver - 1];
}

/* The index of @path in @v, or -1 (a binary search: names are sorted). */
int nsr_find(const struct chk_ns_version *v, const char *path)
{
	uint32_t lo = 0, hi = v->nv_nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(v->nv_names[mid].nn_path, path);

		if (c == 0)
			return (int)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* The id @path names in @v, or NS_NONE. */
uint32_t nsr_id_at(const struct chk_ns_version *v, const char *path)
{
	int i = nsr_find(v, path);

	return i < 0 ? NS_NONE : v->nv_names[i].nn_id;
}

static int name_cmp(const void *a, const void *b)
{
	const struct chk_ns_name *x = a, *y = b;

	return strcmp(x->nn_path, y->nn_path);
}

static void ver_sort(struct chk_ns_version *v)
{
	if (v->nv_nr > 1)
		qsort(v->nv_names, v->nv_nr, sizeof(*v->nv_names), name_cmp);
}

/* Is @path an entry of directory @dir (its parent's path), not the root? */
static bool is_child(const char *path, const char *dir)
{
	char parent[NSNAP_PATH_MAX];

	if (strcmp(path, "/") == 0)
		return false;
	nsr_parent(path, parent);
	return strcmp(parent, dir) == 0;
}

/* How many of @v's names are in directory @dir's path (its entries), and of them directories. */
static uint32_t ver_children(const struct chk_ns *ns, const struct chk_ns_version *v,
			     const char *dir, uint32_t *subdirs)
{
	uint32_t n = 0;

	*subdirs = 0;
	for (uint32_t i = 0; i < v->nv_nr; i++) {
		if (!is_child(v->nv_names[i].nn_path, dir))
			continue;
		n++;
		*subdirs += ns->ns_inodes[v->nv_names[i].nn_id].ni_type == NSNAP_DIR;
	}
	return n;
}

/*
 * The link count @v gives the inode of @v's name @i: its names (a file, a
 * link), 2 + its subdirectories (a directory), 1 past EXT4_LINK_MAX
 * (dir_nlink: ext4_inc_count).
 */
static uint32_t ver_nlink(const struct chk_ns *ns, const struct chk_ns_version *v, uint32_t i)
{
	uint32_t id = v->nv_names[i].nn_id, n = 0, sub;

	if (ns->ns_inodes[id].ni_type == NSNAP_DIR) {
		ver_children(ns, v, v->nv_names[i].nn_path, &sub);
		return 2 + sub > CHK_NS_LINK_MAX ? 1 : 2 + sub;
	}
	for (uint32_t k = 0; k < v->nv_nr; k++)
		n += v->nv_names[k].nn_id == id;
	return n;
}

/* A version complete: its link counts and sharing (nv_nlink, nv_share) computed once. */
static void ver_seal(const struct chk_ns *ns, struct chk_ns_version *v)
{
	free(v->nv_nlink);
	free(v->nv_share);
	v->nv_nlink = sim_zalloc((v->nv_nr + 1) * sizeof(*v->nv_nlink));
	v->nv_share = sim_zalloc((v->nv_nr + 1) * sizeof(*v->nv_share));
	for (uint32_t i = 0; i < v->nv_nr; i++) {
		v->nv_nlink[i] = ver_nlink(ns, v, i);
		v->nv_share[i] = i;
		for (uint32_t k = 0; k < i; k++)
			if (v->nv_names[k].nn_id == v->nv_names[i].nn_id) {
				v->nv_share[i] = k;
				break;
			}
	}
}

static uint32_t *dup_u32(const uint32_t *src, uint32_t n)
{
	return sim_dup_array(src, n, n + 1, sizeof(*src));
}

/* -E2BIG when one more operation (a version, a promise) would pass a limit, else 0. */
static int room(const struct chk_ns *ns)
{
	return ns->ns_nr_ver >= CHK_NS_MAX_VERSIONS || ns->ns_nr_p >= CHK_NS_MAX_PROMISES ?
	       -E2BIG : 0;
}

/* A new version, a copy of the current one, made by @op at @step (room() said yes). */
static struct chk_ns_version *ver_push(struct chk_ns *ns, uint32_t step, const char *op)
{
	struct chk_ns_version *v;
	const struct chk_ns_version *cur;

	SIM_ASSERT(room(ns) == 0);
	ns->ns_ver = sim_realloc_array(ns->ns_ver, ns->ns_nr_ver + 1, sizeof(*ns->ns_ver));
	cur = nsr_cur(ns);
	v = &ns->ns_ver[ns->ns_nr_ver++];
	v->nv_names = sim_dup_array(cur->nv_names, cur->nv_nr, cur->nv_nr, sizeof(*v->nv_names));
	v->nv_nr = cur->nv_nr;
	v->nv_nlink = v->nv_share = NULL;
	v->nv_step = step;
	snprintf(v->nv_op, sizeof(v->nv_op), "%s", op);
	ns->ns_ops++;
	return v;
}

static void ver_add(struct chk_ns_version *v, const char *path, uint32_t id)
{
	SIM_ASSERT(v->nv_nr < CHK_NS_MAX_NAMES && strlen(path) < NSNAP_PATH_MAX);
	v->nv_names = sim_realloc_array(v->nv_names, v->nv_nr + 1, sizeof(*v->nv_names));
	snprintf(v->nv_names[v->nv_nr].nn_path, NSNAP_PATH_MAX, "%s", path);
	v->nv_names[v->nv_nr++].nn_id = id;
	ver_sort(v);
}

static void ver_remove(struct chk_ns_version *v, const char *path)
{
	int i = nsr_find(v, path);

	SIM_ASSERT(i >= 0);
	memmove(&v->nv_names[i], &v->nv_names[i + 1],
		(v->nv_nr - (uint32_t)i - 1) * sizeof(*v->nv_names));
	v->nv_nr--;
}

/* --- inodes --- */

/* The live inode (one with a name, or nameless but still noted) of model number @ino. */
uint32_t nsr_id_of_ino(const struct chk_ns *ns, uint32_t ino)
{
	for (uint32_t i = ns->ns_nr_inodes; i-- > 0;)
		if (ns->ns_inodes[i].ni_ino == ino)
			return i;       /* the newest record of the number */
	return NS_NONE;
}

static uint32_t inode_new(struct chk_ns *ns, uint32_t ino, uint8_t type)
{
	uint32_t old = nsr_id_of_ino(ns, ino);
	struct chk_ns_inode *ni;

	SIM_ASSERT(old == NS_NONE || ns->ns_inodes[old].ni_freed);
	SIM_ASSERT(ns->ns_nr_inodes < CHK_NS_MAX_INODES);
	ns->ns_inodes = sim_realloc_array(ns->ns_inodes, ns->ns_nr_inodes + 1,
					  sizeof(*ns->ns_inodes));
	ni = &ns->ns_inodes[ns->ns_nr_inodes];
	memset(ni, 0, sizeof(*ni));
	ni->ni_ino = ino;
	ni->ni_type = type;
	ni->ni_content = NS_BYTES;
	runs_init(&ni->ni_data);
	ni->ni_born_epoch = ns->ns_epoch;
	return ns->ns_nr_inodes++;
}

/*
 * The content hash and size of inode @id as the reference knows them:
 * false when its content is unknown (the size is still set).
 */
bool nsr_content(const struct chk_ns *ns, uint32_t id, uint64_t hash[2], int64_t *size)
{
	const struct chk_ns_inode *ni = &ns->ns_inodes[id];
	struct nsnap_hasher h;
	int64_t at = 0;

	*size = ni->ni_type == NSNAP_DIR ? 0 : ni->ni_size;
	hash[0] = hash[1] = 0;
	if (ni->ni_type == NSNAP_DIR)
		return true;
	if (ni->ni_content != NS_BYTES) {
		hash[0] = ni->ni_hash[0];
		hash[1] = ni->ni_hash[1];
		return ni->ni_content == NS_HASH;
	}
	nsnap_hash_init(&h);
	for (uint32_t i = 0; i < ni->ni_data.nr; i++) {
		const struct run *r = &ni->ni_data.r[i];

		nsnap_hash_fill(&h, 0, (uint64_t)(r->r_off - at));
		nsnap_hash_fill(&h, r->r_byte, (uint64_t)r->r_len);
		at = r->r_off + r->r_len;
	}
	nsnap_hash_fill(&h, 0, (uint64_t)(ni->ni_size - at));
	nsnap_hash_final(&h, hash);
	return true;
}

/* --- lookup --- */

/* Take the first component of @rest into @comp, advance @rest; false at the end. */
static bool next_comp(const char **rest, char comp[NSNAP_PATH_MAX])
{
	const char *p = *rest, *e;

	while (*p == '/')
		p++;
	if (!*p)
		return false;
	e = strchr(p, '/');
	if (!e)
		e = p + strlen(p);
	SIM_ASSERT((size_t)(e - p) < NSNAP_PATH_MAX);
	memcpy(comp, p, (size_t)(e - p));
	comp[e - p] = '\0';
	*rest = e;
	return true;
}

/* Is there a component after @rest? */
static bool more_comps(const char *rest)
{
	while (*rest == '/')
		rest++;
	return *rest != '\0';
}

/* A symbolic link met on the way: the rest of the walk becomes its target + @rest. */
static int follow_link(const struct chk_ns *ns, uint32_t id, const char *rest, char *buf,
		       size_t cap, char cur[NSNAP_PATH_MAX], const char **walk)
{
	const struct chk_ns_inode *ni = &ns->ns_inodes[id];
	int n = snprintf(buf, cap, "%s/%s", ni->ni_target, rest);

	if (n < 0 || (size_t)n >= cap || (int64_t)strlen(ni->ni_target) != ni->ni_size)
		return -E2BIG;  /* too long, or a target a rebase's snapshot kept cut */
	if (ni->ni_target[0] == '/')
		snprintf(cur, NSNAP_PATH_MAX, "/");
	*walk = buf;
	return 0;
}

/*
 * Resolve @path in the current version into @out (namespace.h): every
 * inner component an existing directory (or a link to follow), the last
 * one followed when it is a link and @follow_last.  The last component
 * need not exist.  0, or a negative errno.
 */
int nsr_resolve(const struct chk_ns *ns, const char *path, bool follow_last,
		char out[NSNAP_PATH_MAX])
{
	const struct chk_ns_version *v = nsr_cur(ns);
	char buf[2][3 * NSNAP_PATH_MAX], comp[NSNAP_PATH_MAX], next[NSNAP_PATH_MAX];
	const char *walk = path;
	int links = 0, err;

	snprintf(out, NSNAP_PATH_MAX, "/");
	while (next_comp(&walk, comp)) {
		bool last = !more_comps(walk);
		uint32_t id = nsr_id_at(v, out);

		if (id == NS_NONE || ns->ns_inodes[id].ni_type != NSNAP_DIR)
			return id == NS_NONE ? -ENOENT : -ENOTDIR;
		if (strcmp(comp, ".") == 0 || strcmp(comp, "..") == 0) {
			if (comp[1] == '.')
				nsr_parent(out, next), memcpy(out, next, NSNAP_PATH_MAX);
			continue;
		}
		if (nsr_join(out, comp, next))
			return -E2BIG;
		id = nsr_id_at(v, next);
		if (id != NS_NONE && ns->ns_inodes[id].ni_type == NSNAP_LNK && (!last || follow_last)) {
			if (++links > NS_MAXSYMLINKS)
				return -ELOOP;
			/* the rest of the walk may lie in the buffer being rewritten: alternate */
			if ((err = follow_link(ns, id, walk, buf[links % 2], sizeof(buf[0]), out,
					       &walk)))
				return err;
			continue;
		}
		memcpy(out, next, NSNAP_PATH_MAX);
	}
	return 0;
}

/* --- promises and the names operations change --- */

static bool dname_eq(const struct chk_ns_dname *a, uint32_t dir, const char *comp)
{
	return a->dn_dir == dir && strcmp(a->dn_comp, comp) == 0;
}

/* The (directory id, component) of @path in the current version; false for "/". */
bool nsr_dname(const struct chk_ns *ns, const char *path, struct chk_ns_dname *dn)
{
	char parent[NSNAP_PATH_MAX];

	if (strcmp(path, "/") == 0)
		return false;
	nsr_parent(path, parent);
	dn->dn_dir = nsr_id_at(nsr_cur(ns), parent);
	SIM_ASSERT(dn->dn_dir != NS_NONE);
	snprintf(dn->dn_comp, sizeof(dn->dn_comp), "%s", nsr_comp(path));
	return true;
}

static void later_add(struct chk_ns_promise *p, const struct chk_ns_dname *dn)
{
	for (uint32_t i = 0; i < p->p_nr_later; i++)
		if (dname_eq(&p->p_later[i], dn->dn_dir, dn->dn_comp))
			return;
	p->p_later = sim_realloc_array(p->p_later, p->p_nr_later + 1, sizeof(*p->p_later));
	p->p_later[p->p_nr_later++] = *dn;
}

/* Remember @list's operation count for name @dn (a name changed, a directory fsynced). */
static void stamp(struct chk_ns_touch **list, uint32_t *nr, const struct chk_ns_dname *dn,
		  uint32_t op)
{
	for (uint32_t i = 0; i < *nr; i++)
		if (dname_eq(&(*list)[i].t_name, dn->dn_dir, dn->dn_comp)) {
			(*list)[i].t_op = op;
			return;
		}
	*list = sim_realloc_array(*list, *nr + 1, sizeof(**list));
	(*list)[*nr].t_name = *dn;
	(*list)[(*nr)++].t_op = op;
}

/* The operation count @list holds for @dn, or 0 (none since the last sync). */
static uint32_t stamp_of(const struct chk_ns_touch *list, uint32_t nr,
			 const struct chk_ns_dname *dn)
{
	for (uint32_t i = 0; i < nr; i++)
		if (dname_eq(&list[i].t_name, dn->dn_dir, dn->dn_comp))
			return list[i].t_op;
	return 0;
}

/* The operation being noted changes name @path: every promise about it learns so. */
static void touch(struct chk_ns *ns, const char *path)
{
	struct chk_ns_dname dn;

	if (!nsr_dname(ns, path, &dn))
		return;
	stamp(&ns->ns_touch, &ns->ns_nr_touch, &dn, ns->ns_ops + 1);
	for (uint32_t i = 0; i < ns->ns_nr_p; i++) {
		struct chk_ns_promise *p = &ns->ns_p[i];

		if (p->p_kind == NSP_DIR && p->p_id == dn.dn_dir)
			later_add(p, &dn);
		for (uint32_t k = 0; p->p_kind != NSP_DIR && k < p->p_nr; k++)
			if (dname_eq(&p->p_names[k], dn.dn_dir, dn.dn_comp))
				p->p_changed[k] = true;
	}
}

/* Was name @path durable before this operation (no change since a sync or its directory's fsync)? */
static bool name_durable(const struct chk_ns *ns, const char *path)
{
	struct chk_ns_dname dn, dir;
	uint32_t t;

	if (!nsr_dname(ns, path, &dn))
		return true;
	t = stamp_of(ns->ns_touch, ns->ns_nr_touch, &dn);
	dir.dn_dir = dn.dn_dir;
	dir.dn_comp[0] = '\0';
	return t == 0 || stamp_of(ns->ns_dsync, ns->ns_nr_dsync, &dir) >= t;
}

static struct chk_ns_promise *promise_new(struct chk_ns *ns, uint8_t kind, uint32_t step,
					  uint32_t id, uint32_t nr)
{
	struct chk_ns_promise *p;

	SIM_ASSERT(ns->ns_nr_p < CHK_NS_MAX_PROMISES);
	ns->ns_p = sim_realloc_array(ns->ns_p, ns->ns_nr_p + 1, sizeof(*ns->ns_p));
	p = &ns->ns_p[ns->ns_nr_p++];
	memset(p, 0, sizeof(*p));
	p->p_kind = kind;
	p->p_step = step;
	p->p_id = id;
	p->p_id2 = NS_NONE;
	p->p_nr = nr;
	p->p_names = sim_zalloc((nr ? nr : 1) * sizeof(*p->p_names));
	p->p_child = sim_zalloc((nr ? nr : 1) * sizeof(*p->p_child));
	p->p_changed = sim_zalloc((nr ? nr : 1) * sizeof(*p->p_changed));
	p->p_changes = ns->ns_inodes[id].ni_changes;
	p->p_hash_known = nsr_content(ns, id, p->p_hash, &p->p_size);
	p->p_epoch = ns->ns_commits;
	p->p_xattr_known = ns->ns_inodes[id].ni_xattr_state != NS_UNKNOWN;
	p->p_xattr_changes = ns->ns_inodes[id].ni_xattr_changes;
	p->p_nr_xattrs = ns->ns_inodes[id].ni_nr_xattrs;
	memcpy(p->p_xattr_hash, ns->ns_inodes[id].ni_xattr_hash, sizeof(p->p_xattr_hash));
	return p;
}

static void promise_free(struct chk_ns_promise *p)
{
	free(p->p_names);
	free(p->p_child);
	free(p->p_changed);
	free(p->p_later);
}

/*
 * Inode @id lost a name: freed when it has none left.  A freed directory's
 * fsync promises end, and every other promise's names in it are changed:
 * the recovered state finds a directory by its inode number, which a later
 * mkdir may take again (ACE's seq-3: `rename A B` over the empty B, then
 * `mkdir A` gets B's old number).
 */
static void maybe_freed(struct chk_ns *ns, uint32_t id)
{
	const struct chk_ns_version *v = nsr_cur(ns);

	for (uint32_t i = 0; i < v->nv_nr; i++)
		if (v->nv_names[i].nn_id == id)
			return;
	ns->ns_inodes[id].ni_freed = true;
	for (uint32_t i = 0; i < ns->ns_nr_p; i++) {
		struct chk_ns_promise *p = &ns->ns_p[i];

		if (p->p_kind == NSP_DIR && p->p_id == id)
			p->p_void = true;
		for (uint32_t k = 0; p->p_kind != NSP_DIR && k < p->p_nr; k++)
			if (p->p_names[k].dn_dir == id)
				p->p_changed[k] = true;
	}
}

/* --- the operations --- */

/* Resolve @path to a name that must not exist yet, under an existing directory. */
static int resolve_new(const struct chk_ns *ns, const char *path, bool follow,
		       char out[NSNAP_PATH_MAX])
{
	int err = room(ns);

	if (err || (err = nsr_resolve(ns, path, follow, out)))
		return err;
	if (strcmp(out, "/") == 0 || nsr_find(nsr_cur(ns), out) >= 0)
		return -EEXIST;
	if (nsr_cur(ns)->nv_nr >= CHK_NS_MAX_NAMES || ns->ns_nr_inodes >= CHK_NS_MAX_INODES)
		return -E2BIG;
	return 0;
}

/* Resolve @path to an existing name (the last component not followed): its id in @id. */
static int resolve_old(const struct chk_ns *ns, const char *path, char out[NSNAP_PATH_MAX],
		       uint32_t *id)
{
	int err = room(ns);

	if (err || (err = nsr_resolve(ns, path, false, out)))
		return err;
	*id = nsr_id_at(nsr_cur(ns), out);
	return *id == NS_NONE ? -ENOENT : 0;
}

/* A new inode of @type named @path (create, mkdir, symlink). */
static int note_new(struct chk_ns *ns, uint32_t step, const char *verb, const char *path,
		    uint32_t ino, uint8_t type, struct chk_ns_inode **ni)
{
	char p[NSNAP_PATH_MAX], op[CHK_NS_OP_MAX];
	struct chk_ns_version *v;
	uint32_t id;
	int err = resolve_new(ns, path, type == NSNAP_REG, p);

	if (err)
		return err;
	snprintf(op, sizeof(op), "%s %s", verb, p);
	touch(ns, p);
	v = ver_push(ns, step, op);
	id = inode_new(ns, ino, type);
	ver_add(v, p, id);
	ver_seal(ns, v);
	*ni = &ns->ns_inodes[id];
	return 0;
}

int chk_ns_note_create(struct chk_ns *ns, uint32_t step, const char *path, uint32_t ino)
{
	struct chk_ns_inode *ni;

	return note_new(ns, step, "create", path, ino, NSNAP_REG, &ni);
}

int chk_ns_note_mkdir(struct chk_ns *ns, uint32_t step, const char *path, uint32_t ino)
{
	struct chk_ns_inode *ni;

	return note_new(ns, step, "mkdir", path, ino, NSNAP_DIR, &ni);
}

int chk_ns_note_symlink(struct chk_ns *ns, uint32_t step, const char *target, const char *path,
			uint32_t ino)
{
	struct chk_ns_inode *ni;
	int err = note_new(ns, step, "symlink", path, ino, NSNAP_LNK, &ni);

	if (err)
		return err;
	ni->ni_content = NS_HASH;
	ni->ni_size = (int64_t)strlen(target);
	nsnap_hash_bytes(target, strlen(target), ni->ni_hash);
	if (strlen(target) >= sizeof(ni->ni_target))
		return 0;       /* kept by its hash: a walk through it stops with -E2BIG */
	snprintf(ni->ni_target, sizeof(ni->ni_target), "%s", target);
	return 0;
}

int chk_ns_note_link(struct chk_ns *ns, uint32_t step, const char *oldpath, const char *newpath)
{
	char o[NSNAP_PATH_MAX], n[NSNAP_PATH_MAX], op[CHK_NS_OP_MAX];
	struct chk_ns_version *v;
	uint32_t id;
	int err = resolve_old(ns, oldpath, o, &id);

	if (err || (err = resolve_new(ns, newpath, false, n)))
		return err;
	if (ns->ns_inodes[id].ni_type == NSNAP_DIR)
		return -EISDIR;
	snprintf(op, sizeof(op), "link %s %s", o, n);
	touch(ns, n);
	v = ver_push(ns, step, op);
	ver_add(v, n, id);
	ver_seal(ns, v);
	return 0;
}

/* unlink (@dir false) and rmdir (@dir true) of @path. */
static int note_remove(struct chk_ns *ns, uint32_t step, const char *path, bool dir)
{
	char p[NSNAP_PATH_MAX], op[CHK_NS_OP_MAX];
	struct chk_ns_version *v;
	uint32_t id, sub;
	int err = resolve_old(ns, path, p, &id);

	if (err)
		return err;
	if ((ns->ns_inodes[id].ni_type == NSNAP_DIR) != dir)
		return dir ? -ENOTDIR : -EISDIR;
	if (strcmp(p, "/") == 0)
		return -EINVAL;
	if (dir && ver_children(ns, nsr_cur(ns), p, &sub))
		return -ENOTEMPTY;
	snprintf(op, sizeof(op), "%s %s", dir ? "rmdir" : "unlink", p);
	touch(ns, p);
	v = ver_push(ns, step, op);
	ver_remove(v, p);
	ver_seal(ns, v);
	maybe_freed(ns, id);
	return 0;
}

int chk_ns_note_unlink(struct chk_ns *ns, uint32_t step, const char *path)
{
	return note_remove(ns, step, path, false);
}

int chk_ns_note_rmdir(struct chk_ns *ns, uint32_t step, const char *path)
{
	return note_remove(ns, step, path, true);
}

/* Rename's refusals the model would have made (fs/namei.c, ext4_rename): 0 when none. */
static int rename_refused(const struct chk_ns *ns, const char *o, const char *n, uint32_t io,
			  uint32_t in, unsigned flags)
{
	uint32_t sub;
	bool odir = ns->ns_inodes[io].ni_type == NSNAP_DIR;

	if (strcmp(o, "/") == 0 || strcmp(n, "/") == 0 || nsr_under(n, o))
		return -EINVAL;
	if (flags & 2)
		return in == NS_NONE ? -ENOENT : nsr_under(o, n) ? -EINVAL : 0;
	if (in == NS_NONE)
		return 0;
	if (flags & 1)
		return -EEXIST;
	if (ns->ns_inodes[in].ni_type == NSNAP_DIR)
		return !odir ? -EISDIR : ver_children(ns, nsr_cur(ns), n, &sub) ? -ENOTEMPTY : 0;
	return odir ? -ENOTDIR : 0;
}

/* The path name @path takes when @from moves to @to, into @out: 0, or -E2BIG. */
static int moved_path(const char *path, const char *from, const char *to, char out[NSNAP_PATH_MAX])
{
	int n = snprintf(out, NSNAP_PATH_MAX, "%s%s", to, path + strlen(from));

	return n < 0 || n >= (int)NSNAP_PATH_MAX ? -E2BIG : 0;
}

/* Every name under @o moves under @n (and, exchanging, those under @n under @o); @dry only checks. */
static int move_names(struct chk_ns_version *v, const char *o, const char *n, bool exchange,
		      bool dry)
{
	char to[NSNAP_PATH_MAX];

	for (uint32_t i = 0; i < v->nv_nr; i++) {
		char *path = v->nv_names[i].nn_path;
		int err = 0;

		if (nsr_under(path, o))
			err = moved_path(path, o, n, to);
		else if (exchange && nsr_under(path, n))
			err = moved_path(path, n, o, to);
		else
			continue;
		if (err)
			return err;
		if (!dry)
			memcpy(path, to, NSNAP_PATH_MAX);
	}
	if (!dry)
		ver_sort(v);
	return 0;
}

/* The rename's promise: OLD and NEW as names, what they named, the moved file's content. */
static void rename_promise(struct chk_ns *ns, uint32_t step, const char *o, const char *n,
			   uint32_t io, uint32_t in, unsigned flags)
{
	struct chk_ns_promise *p = promise_new(ns, NSP_RENAME, step, io, 2);

	p->p_id2 = in;
	p->p_exchange = flags & 2;
	p->p_pre_durable = name_durable(ns, o) && name_durable(ns, n);
	SIM_ASSERT(nsr_dname(ns, o, &p->p_names[0]) && nsr_dname(ns, n, &p->p_names[1]));
}

int chk_ns_note_rename(struct chk_ns *ns, uint32_t step, const char *oldpath,
		       const char *newpath, unsigned flags)
{
	char o[NSNAP_PATH_MAX], n[NSNAP_PATH_MAX], op[CHK_NS_OP_MAX];
	struct chk_ns_version *v;
	uint32_t io, in;
	int err = resolve_old(ns, oldpath, o, &io);

	if (err || (err = nsr_resolve(ns, newpath, false, n)))
		return err;
	in = nsr_id_at(nsr_cur(ns), n);
	if (flags > 2)
		return -EINVAL;
	if (in == io)
		return 0;       /* two links of one inode: rename does nothing */
	if ((err = rename_refused(ns, o, n, io, in, flags)))
		return err;
	if ((err = move_names((struct chk_ns_version *)nsr_cur(ns), o, n, flags & 2, true)))
		return err;
	snprintf(op, sizeof(op), "rename%s %s %s", flags == 1 ? " -n" : flags == 2 ? " -x" : "",
		 o, n);
	rename_promise(ns, step, o, n, io, in, flags);
	touch(ns, o);
	touch(ns, n);
	ns->ns_p[ns->ns_nr_p - 1].p_changed[0] = ns->ns_p[ns->ns_nr_p - 1].p_changed[1] = false;
	v = ver_push(ns, step, op);
	if (in != NS_NONE && !(flags & 2))
		ver_remove(v, n);
	move_names(v, o, n, flags & 2, false);
	ver_seal(ns, v);
	if (in != NS_NONE && !(flags & 2))
		maybe_freed(ns, in);
	return 0;
}

/* --- content --- */

/* The inode the content notes mean: the newest record of @ino (NULL: one the reference dropped). */
static struct chk_ns_inode *content_inode(struct chk_ns *ns, uint32_t ino)
{
	uint32_t id = nsr_id_of_ino(ns, ino);

	if (id == NS_NONE)
		return NULL;
	SIM_ASSERT(ns->ns_inodes[id].ni_type == NSNAP_REG);
	ns->ns_inodes[id].ni_changes++;
	return &ns->ns_inodes[id];
}

void chk_ns_note_write(struct chk_ns *ns, uint32_t ino, int64_t off, int64_t len, uint8_t byte)
{
	struct chk_ns_inode *ni = content_inode(ns, ino);

	SIM_ASSERT(off >= 0 && len >= 0);
	if (!ni || len == 0)
		return;
	if (ni->ni_content == NS_BYTES)
		runs_fill(&ni->ni_data, off, len, byte);
	else
		ni->ni_content = NS_UNKNOWN;
	ni->ni_size = SIM_MAX(ni->ni_size, off + len);
}

void chk_ns_note_truncate(struct chk_ns *ns, uint32_t ino, int64_t size)
{
	struct chk_ns_inode *ni = content_inode(ns, ino);

	SIM_ASSERT(size >= 0);
	if (!ni)
		return;
	if (ni->ni_content == NS_BYTES)
		runs_truncate(&ni->ni_data, size);
	else if (size == 0)
		ni->ni_content = NS_BYTES;      /* empty: known again */
	else
		ni->ni_content = NS_UNKNOWN;
	if (ni->ni_content == NS_BYTES && size == 0) {
		runs_destroy(&ni->ni_data);
		runs_init(&ni->ni_data);
	}
	ni->ni_size = size;
}

void chk_ns_note_unknown(struct chk_ns *ns, uint32_t ino, int64_t size)
{
	struct chk_ns_inode *ni = content_inode(ns, ino);

	SIM_ASSERT(size >= 0);
	if (!ni)
		return;
	ni->ni_content = NS_UNKNOWN;
	ni->ni_size = size;
}

/* --- extended attributes --- */

/* The inode's list forgotten: @state NS_UNKNOWN, or NS_HASH (count and hash kept). */
static void xattrs_forget(struct chk_ns_inode *ni, uint8_t state)
{
	free(ni->ni_xattrs);
	ni->ni_xattrs = NULL;
	ni->ni_xattr_state = state;
	if (state == NS_UNKNOWN) {
		ni->ni_nr_xattrs = 0;
		ni->ni_xattr_hash[0] = ni->ni_xattr_hash[1] = 0;
	}
}

static void xattrs_rehash(struct chk_ns_inode *ni)
{
	uint32_t n = ni->ni_nr_xattrs;
	struct nsnap_xattr *nx = sim_zalloc((n ? n : 1) * sizeof(*nx));

	for (uint32_t i = 0; i < n; i++)
		nx[i] = (struct nsnap_xattr){ ni->ni_xattrs[i].x_name, ni->ni_xattrs[i].x_value,
					      ni->ni_xattrs[i].x_len };
	nsnap_xattr_hash(nx, n, ni->ni_xattr_hash);
	free(nx);
}

/* The live inode @ino names, its attributes' change counted; NULL when unknown. */
static struct chk_ns_inode *xattr_inode(struct chk_ns *ns, uint32_t ino)
{
	uint32_t id = nsr_id_of_ino(ns, ino);

	if (id == NS_NONE || ns->ns_inodes[id].ni_freed)
		return NULL;
	ns->ns_inodes[id].ni_xattr_changes++;
	return &ns->ns_inodes[id];
}

/* The index of @name in the inode's list (kept sorted), or where it would go, negated - 1. */
static int32_t xattr_find(const struct chk_ns_inode *ni, const char *name)
{
	uint32_t i = 0;
	int c = 1;

	while (i < ni->ni_nr_xattrs && (c = strcmp(ni->ni_xattrs[i].x_name, name)) < 0)
		i++;
	return i < ni->ni_nr_xattrs && c == 0 ? (int32_t)i : -(int32_t)i - 1;
}

int chk_ns_note_setxattr(struct chk_ns *ns, uint32_t step, uint32_t ino, const char *name,
			 const void *value, size_t len)
{
	struct chk_ns_inode *ni = xattr_inode(ns, ino);
	int32_t k;

	(void)step;
	if (!ni)
		return -ENOENT;
	if (ni->ni_xattr_state != NS_BYTES || len > CHK_NS_XATTR_VALUE_MAX ||
	    strlen(name) > CHK_NS_XATTR_NAME_MAX) {
		xattrs_forget(ni, NS_UNKNOWN);
		return 0;
	}
	if ((k = xattr_find(ni, name)) < 0) {
		if (ni->ni_nr_xattrs >= CHK_NS_MAX_XATTRS) {
			xattrs_forget(ni, NS_UNKNOWN);
			return 0;
		}
		k = -k - 1;
		ni->ni_xattrs = sim_realloc_array(ni->ni_xattrs, ni->ni_nr_xattrs + 1,
						  sizeof(*ni->ni_xattrs));
		memmove(&ni->ni_xattrs[k + 1], &ni->ni_xattrs[k],
			(ni->ni_nr_xattrs++ - (uint32_t)k) * sizeof(*ni->ni_xattrs));
		memset(&ni->ni_xattrs[k], 0, sizeof(ni->ni_xattrs[k]));
		snprintf(ni->ni_xattrs[k].x_name, sizeof(ni->ni_xattrs[k].x_name), "%s", name);
	}
	ni->ni_xattrs[k].x_len = (uint32_t)len;
	if (len)
		memcpy(ni->ni_xattrs[k].x_value, value, len);
	xattrs_rehash(ni);
	return 0;
}

int chk_ns_note_removexattr(struct chk_ns *ns, uint32_t step, uint32_t ino, const char *name)
{
	struct chk_ns_inode *ni = xattr_inode(ns, ino);
	int32_t k;

	(void)step;
	if (!ni)
		return -ENOENT;
	if (ni->ni_xattr_state != NS_BYTES) {
		xattrs_forget(ni, NS_UNKNOWN);
		return 0;
	}
	if ((k = xattr_find(ni, name)) < 0)
		return -ENOENT;
	memmove(&ni->ni_xattrs[k], &ni->ni_xattrs[k + 1],
		(--ni->ni_nr_xattrs - (uint32_t)k) * sizeof(*ni->ni_xattrs));
	xattrs_rehash(ni);
	return 0;
}

/* --- durability --- */

/* A file's promise: its names now, its size and content; new if created since the last commit. */
static void file_promise(struct chk_ns *ns, uint32_t step, uint32_t id, bool datasync, bool sync)
{
	const struct chk_ns_version *v = nsr_cur(ns);
	uint32_t nr = 0;
	struct chk_ns_promise *p;

	for (uint32_t i = 0; i < v->nv_nr; i++)
		nr += v->nv_names[i].nn_id == id;
	p = promise_new(ns, NSP_FILE, step, id, nr);
	p->p_datasync = datasync;
	p->p_xattr_known = p->p_xattr_known && !datasync;      /* fdatasync: data only */
	p->p_new_file = !sync && ns->ns_inodes[id].ni_born_epoch == ns->ns_epoch;
	p->p_sync = sync;
	for (uint32_t i = 0, k = 0; i < v->nv_nr; i++)
		if (v->nv_names[i].nn_id == id)
			SIM_ASSERT(nsr_dname(ns, v->nv_names[i].nn_path, &p->p_names[k++]));
}

/* A directory's promise: its entries now, and which inode each names. */
static void dir_promise(struct chk_ns *ns, uint32_t step, uint32_t id, bool datasync)
{
	const struct chk_ns_version *v = nsr_cur(ns);
	char dir[NSNAP_PATH_MAX];
	uint32_t sub, nr, k = 0;
	struct chk_ns_promise *p;
	struct chk_ns_dname self = { id, "" };

	for (uint32_t i = 0; i < v->nv_nr; i++)
		if (v->nv_names[i].nn_id == id)
			memcpy(dir, v->nv_names[i].nn_path, NSNAP_PATH_MAX);
	nr = ver_children(ns, v, dir, &sub);
	p = promise_new(ns, NSP_DIR, step, id, nr);
	p->p_datasync = datasync;
	for (uint32_t i = 0; i < v->nv_nr; i++) {
		if (!is_child(v->nv_names[i].nn_path, dir))
			continue;
		p->p_names[k].dn_dir = id;
		snprintf(p->p_names[k].dn_comp, NSNAP_PATH_MAX, "%s", nsr_comp(v->nv_names[i].nn_path));
		p->p_child[k++] = v->nv_names[i].nn_id;
	}
	stamp(&ns->ns_dsync, &ns->ns_nr_dsync, &self, ns->ns_ops);
}

int chk_ns_note_fsync(struct chk_ns *ns, uint32_t step, uint32_t ino, bool datasync)
{
	uint32_t id = nsr_id_of_ino(ns, ino);

	if (ns->ns_nr_p >= CHK_NS_MAX_PROMISES)
		return -E2BIG;
	if (id == NS_NONE)
		return -ENOENT;
	if (!ns->ns_inodes[id].ni_freed) {
		if (ns->ns_inodes[id].ni_type == NSNAP_DIR)
			dir_promise(ns, step, id, datasync);
		else
			file_promise(ns, step, id, datasync, false);
	}
	ns->ns_epoch++;         /* what was created before is no longer "since the last commit" */
	return 0;
}

void chk_ns_note_commit(struct chk_ns *ns, uint32_t commit_sequence)
{
	if (ns->ns_seq_known && commit_sequence != ns->ns_commit_seq) {
		ns->ns_epoch++;
		ns->ns_commits++;
	}
	ns->ns_commit_seq = commit_sequence;
	ns->ns_seq_known = true;
}

static void versions_free(struct chk_ns *ns)
{
	for (uint32_t i = 0; i < ns->ns_nr_ver; i++) {
		free(ns->ns_ver[i].nv_names);
		free(ns->ns_ver[i].nv_nlink);
		free(ns->ns_ver[i].nv_share);
	}
	free(ns->ns_ver);
	ns->ns_ver = NULL;
	ns->ns_nr_ver = 0;
}

static void promises_free(struct chk_ns *ns)
{
	for (uint32_t i = 0; i < ns->ns_nr_p; i++)
		promise_free(&ns->ns_p[i]);
	free(ns->ns_p);
	free(ns->ns_touch);
	free(ns->ns_dsync);
	ns->ns_p = NULL;
	ns->ns_touch = ns->ns_dsync = NULL;
	ns->ns_nr_p = ns->ns_nr_touch = ns->ns_nr_dsync = 0;
	ns->ns_ops = 0;
}

/* Keep only the inodes version @v names (their ids renumbered in @v), in id order. */
static void inodes_compact(struct chk_ns *ns, struct chk_ns_version *v)
{
	uint32_t *map = sim_zalloc((ns->ns_nr_inodes + 1) * sizeof(*map)), nr = 0;

	for (uint32_t i = 0; i < ns->ns_nr_inodes; i++)
		map[i] = NS_NONE;
	for (uint32_t i = 0; i < v->nv_nr; i++)
		map[v->nv_names[i].nn_id] = 0;
	for (uint32_t i = 0; i < ns->ns_nr_inodes; i++) {
		if (map[i] == NS_NONE) {
			runs_destroy(&ns->ns_inodes[i].ni_data);
			free(ns->ns_inodes[i].ni_xattrs);
			continue;
		}
		map[i] = nr;
		ns->ns_inodes[nr++] = ns->ns_inodes[i];
	}
	for (uint32_t i = 0; i < v->nv_nr; i++)
		v->nv_names[i].nn_id = map[v->nv_names[i].nn_id];
	ns->ns_nr_inodes = nr;
	free(map);
}

/* N_0 becomes a copy of the current version made by @op at @step; nothing older is kept. */
static void rebase_versions(struct chk_ns *ns, uint32_t step, const char *op)
{
	struct chk_ns_version v = *nsr_cur(ns);

	v.nv_names = sim_dup_array(v.nv_names, v.nv_nr, v.nv_nr, sizeof(*v.nv_names));
	v.nv_nlink = v.nv_share = NULL;
	v.nv_step = step;
	snprintf(v.nv_op, sizeof(v.nv_op), "%s", op);
	versions_free(ns);
	promises_free(ns);
	inodes_compact(ns, &v);
	ver_seal(ns, &v);
	ns->ns_ver = sim_realloc_array(NULL, 1, sizeof(*ns->ns_ver));
	ns->ns_ver[0] = v;
	ns->ns_nr_ver = 1;
}

int chk_ns_note_sync(struct chk_ns *ns, uint32_t step)
{
	rebase_versions(ns, step, "sync");
	for (uint32_t id = 0; id < ns->ns_nr_inodes; id++)
		if (ns->ns_inodes[id].ni_type == NSNAP_REG)
			file_promise(ns, step, id, false, true);
	ns->ns_epoch++;
	ns->ns_commits++;
	return 0;
}

/* --- life --- */

static void ns_empty(struct chk_ns *ns)
{
	memset(ns, 0, sizeof(*ns));
	ns->ns_ver = sim_realloc_array(NULL, 1, sizeof(*ns->ns_ver));
	memset(&ns->ns_ver[0], 0, sizeof(ns->ns_ver[0]));
	snprintf(ns->ns_ver[0].nv_op, CHK_NS_OP_MAX, "mount");
	ns->ns_nr_ver = 1;
}

void chk_ns_init(struct chk_ns *ns)
{
	static const struct { const char *path; uint32_t ino; uint8_t type; } image[] = {
		{ "/", CHK_NS_ROOT_INO, NSNAP_DIR },
		{ "/f", CHK_NS_FILE_INO, NSNAP_REG },
		{ "/lost+found", CHK_NS_LPF_INO, NSNAP_DIR },
	};

	ns_empty(ns);
	for (size_t i = 0; i < sizeof(image) / sizeof(image[0]); i++)
		ver_add(&ns->ns_ver[0], image[i].path, inode_new(ns, image[i].ino, image[i].type));
	ver_seal(ns, &ns->ns_ver[0]);
}

int chk_ns_rebase(struct chk_ns *ns, const struct nsnap *snap)
{
	if (snap->ns_nr > CHK_NS_MAX_NAMES)
		return -E2BIG;
	chk_ns_destroy(ns);
	ns_empty(ns);
	for (uint32_t i = 0; i < snap->ns_nr; i++) {
		const struct nsnap_entry *e = &snap->ns_e[i];
		uint32_t id = nsr_id_of_ino(ns, e->ne_ino);
		struct chk_ns_inode *ni;

		if (id == NS_NONE) {
			id = inode_new(ns, e->ne_ino, e->ne_type);
			ni = &ns->ns_inodes[id];
			ni->ni_content = e->ne_type == NSNAP_DIR ? NS_BYTES : NS_HASH;
			ni->ni_size = e->ne_type == NSNAP_DIR ? 0 : e->ne_size;
			memcpy(ni->ni_hash, e->ne_hash, sizeof(ni->ni_hash));
			memcpy(ni->ni_target, e->ne_target, NSNAP_TARGET_MAX);
			ni->ni_xattr_state = e->ne_nr_xattrs ? NS_HASH : NS_BYTES;
			ni->ni_nr_xattrs = e->ne_nr_xattrs;
			memcpy(ni->ni_xattr_hash, e->ne_xattr_hash, sizeof(ni->ni_xattr_hash));
		}
		ver_add(&ns->ns_ver[0], e->ne_path, id);
	}
	ver_seal(ns, &ns->ns_ver[0]);
	return 0;
}

void chk_ns_copy(struct chk_ns *dst, const struct chk_ns *src)
{
	*dst = *src;
	dst->ns_inodes = sim_dup_array(src->ns_inodes, src->ns_nr_inodes, src->ns_nr_inodes,
				       sizeof(*src->ns_inodes));
	for (uint32_t i = 0; i < src->ns_nr_inodes; i++) {
		const struct chk_ns_inode *si = &src->ns_inodes[i];

		runs_copy(&dst->ns_inodes[i].ni_data, &si->ni_data);
		dst->ns_inodes[i].ni_xattrs = si->ni_xattrs ?
			sim_dup_array(si->ni_xattrs, si->ni_nr_xattrs, si->ni_nr_xattrs ?
				      si->ni_nr_xattrs : 1, sizeof(*si->ni_xattrs)) : NULL;
	}
	dst->ns_ver = sim_dup_array(src->ns_ver, src->ns_nr_ver, src->ns_nr_ver, sizeof(*src->ns_ver));
	for (uint32_t i = 0; i < src->ns_nr_ver; i++) {
		const struct chk_ns_version *sv = &src->ns_ver[i];

		dst->ns_ver[i].nv_names = sim_dup_array(sv->nv_names, sv->nv_nr, sv->nv_nr,
							sizeof(struct chk_ns_name));
		dst->ns_ver[i].nv_nlink = dup_u32(sv->nv_nlink, sv->nv_nr);
		dst->ns_ver[i].nv_share = dup_u32(sv->nv_share, sv->nv_nr);
	}
	dst->ns_p = sim_dup_array(src->ns_p, src->ns_nr_p, src->ns_nr_p, sizeof(*src->ns_p));
	for (uint32_t i = 0; i < src->ns_nr_p; i++) {
		const struct chk_ns_promise *s = &src->ns_p[i];
		struct chk_ns_promise *d = &dst->ns_p[i];
		uint32_t n = s->p_nr ? s->p_nr : 1;

		d->p_names = sim_dup_array(s->p_names, s->p_nr, n, sizeof(*s->p_names));
		d->p_child = sim_dup_array(s->p_child, s->p_nr, n, sizeof(*s->p_child));
		d->p_changed = sim_dup_array(s->p_changed, s->p_nr, n, sizeof(*s->p_changed));
		d->p_later = sim_dup_array(s->p_later, s->p_nr_later, s->p_nr_later,
					   sizeof(*s->p_later));
	}
	dst->ns_touch = sim_dup_array(src->ns_touch, src->ns_nr_touch, src->ns_nr_touch,
				      sizeof(*src->ns_touch));
	dst->ns_dsync = sim_dup_array(src->ns_dsync, src->ns_nr_dsync, src->ns_nr_dsync,
				      sizeof(*src->ns_dsync));
}

void chk_ns_destroy(struct chk_ns *ns)
{
	for (uint32_t i = 0; i < ns->ns_nr_inodes; i++) {
		runs_destroy(&ns->ns_inodes[i].ni_data);
		free(ns->ns_inodes[i].ni_xattrs);
	}
	free(ns->ns_inodes);
	versions_free(ns);
	promises_free(ns);
	memset(ns, 0, sizeof(*ns));
}

void chk_ns_current(const struct chk_ns *ns, struct nsnap *out)
{
	const struct chk_ns_version *v = nsr_cur(ns);

	nsnap_init(out);
	for (uint32_t i = 0; i < v->nv_nr; i++) {
		const struct chk_ns_inode *ni = &ns->ns_inodes[v->nv_names[i].nn_id];
		struct nsnap_entry e = { .ne_type = ni->ni_type, .ne_ino = ni->ni_ino };

		memcpy(e.ne_path, v->nv_names[i].nn_path, NSNAP_PATH_MAX);
		e.ne_nlink = v->nv_nlink[i];
		nsr_content(ns, v->nv_names[i].nn_id, e.ne_hash, &e.ne_size);
		e.ne_nr_xattrs = ni->ni_nr_xattrs;
		memcpy(e.ne_xattr_hash, ni->ni_xattr_hash, sizeof(e.ne_xattr_hash));
		snprintf(e.ne_target, NSNAP_TARGET_MAX, "%.*s", (int)NSNAP_TARGET_MAX - 1,
			 ni->ni_target);
		SIM_ASSERT(nsnap_add(out, &e) == 0);
	}
	nsnap_sort(out);
}
