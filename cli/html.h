/*
 * html.h - ext4sim html (html.c) and the page it writes (html_page.c, made by
 * scripts/html-page from cli/html/page.html, page.css and page.js).
 */
#ifndef EXT4SIM_HTML_H
#define EXT4SIM_HTML_H

#include "commands.h"

/* The page up to the embedded JSON, and from after it to the end. */
extern const char html_page_head[];
extern const char html_page_tail[];

/* ext4sim html FILE.yaml [-o OUT.html] [--variant V] [--diff PATCH] [FLAGS] */
int cmd_html(int argc, struct cmd_opt *opts);

#endif
