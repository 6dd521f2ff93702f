#include "jsonw.h"
#include "numfmt.h"

#include <math.h>

void jsonw_strn(strbuf *sb, const char *s, size_t n)
{
    sb_addc(sb, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': sb_add(sb, "\\\"", 2); break;
        case '\\': sb_add(sb, "\\\\", 2); break;
        case '\n': sb_add(sb, "\\n", 2); break;
        case '\r': sb_add(sb, "\\r", 2); break;
        case '\t': sb_add(sb, "\\t", 2); break;
        case '\b': sb_add(sb, "\\b", 2); break;
        case '\f': sb_add(sb, "\\f", 2); break;
        default:
            if (c < 0x20 || c == 0x7f)
                sb_addf(sb, "\\u%04x", c);
            else
                sb_addc(sb, (char)c);
        }
    }
    sb_addc(sb, '"');
}

void jsonw_str(strbuf *sb, const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    jsonw_strn(sb, s, n);
}

void jsonw_double(strbuf *sb, double x)
{
    if (isnan(x)) {
        sb_adds(sb, "NaN");
    } else if (isinf(x)) {
        sb_adds(sb, x > 0 ? "Infinity" : "-Infinity");
    } else {
        sb_grow(sb, NUMFMT_BUFSZ);
        sb->len += fmt_pyrepr(x, sb->buf + sb->len);
    }
}
