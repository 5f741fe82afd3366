/*
 * log.h - the checker's logs of what the steps did since the baseline and
 * since the last crash, and their summary (log.c; chk_log_mode in checker.h).
 * Only checker.c uses these.
 */
#ifndef EXT4SIM_CHECKER_LOG_H
#define EXT4SIM_CHECKER_LOG_H

#include "checker.h"

/* Record mutation @m (the file's size after it is c->posix.size) in both logs. */
void chk_log_push(struct chk_state *c, struct chk_mut m);
/*
 * The file is durable at its current size: the baseline's log starts again
 * and a durable point is recorded (none at an aligned size unless the log is
 * kept in full; an equal point in a row is counted instead).
 */
void chk_log_durable(struct chk_state *c);
/* Forget everything since the last crash (the recovered file is the baseline). */
void chk_log_crash(struct chk_state *c);

#endif
