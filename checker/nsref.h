/*
 * nsref.h - the reference namespace's helpers that its judge (nsjudge.c)
 * shares with its builder (namespace.c); not an interface for others: the
 * interface is namespace.h.
 */
#ifndef EXT4SIM_NSREF_H
#define EXT4SIM_NSREF_H

#include "namespace.h"

#define NSR_NONE UINT32_MAX     /* no inode */

void nsr_parent(const char *path, char out[NSNAP_PATH_MAX]);
const char *nsr_comp(const char *path);
int nsr_join(const char *dir, const char *comp, char out[NSNAP_PATH_MAX]);
bool nsr_under(const char *path, const char *dir);
const struct chk_ns_version *nsr_cur(const struct chk_ns *ns);
int nsr_find(const struct chk_ns_version *v, const char *path);
uint32_t nsr_id_at(const struct chk_ns_version *v, const char *path);
uint32_t nsr_id_of_ino(const struct chk_ns *ns, uint32_t ino);
bool nsr_content(const struct chk_ns *ns, uint32_t id, uint64_t hash[2], int64_t *size);
int nsr_resolve(const struct chk_ns *ns, const char *path, bool follow_last,
		char out[NSNAP_PATH_MAX]);
bool nsr_dname(const struct chk_ns *ns, const char *path, struct chk_ns_dname *dn);

#endif
