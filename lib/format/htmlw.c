/* HTML text (htmlw.h). */
#include "format/htmlw.h"

void htmlw_text(strbuf *sb, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': sb_adds(sb, "&lt;"); break;
        case '>': sb_adds(sb, "&gt;"); break;
        case '&': sb_adds(sb, "&amp;"); break;
        case '"': sb_adds(sb, "&quot;"); break;
        default: sb_addc(sb, *s);
        }
    }
}
