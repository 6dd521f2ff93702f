/* What an option table says to people: --help, and the tag lines of a
 * manual page's OPTIONS section. */
#ifndef MSP_OPTS_HELP_H
#define MSP_OPTS_HELP_H

#include "base/opts_table.h"

#include <stdio.h>

/* Help text, at most OPTS_WIDTH columns; option help starts in column
 * OPTS_HELP_COL. */
enum { OPTS_WIDTH = 80, OPTS_HELP_COL = 30 };
void opts_help(const opts_spec *spec, FILE *out);
/* "  TAG   TEXT", TEXT wrapped from column `col` on (TAG alone on its line
 * when it is too long); for lists like the commands. */
void opts_item(FILE *out, const char *tag, const char *text, int col);
/* TEXT wrapped to OPTS_WIDTH columns, every line indented by `indent`. */
void opts_wrap(FILE *out, const char *text, int indent);
void opts_version(FILE *out);
/* The tag lines (.TP) a man page's OPTIONS section must have, in order. */
void opts_man_tags(const opts_spec *spec, FILE *out);

#endif
