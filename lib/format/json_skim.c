/* jp_skim (format/json.h): a value of the plain shape most of a dump is
 * made of checked and skipped without building anything. */
#include "format/json.h"
#include "format/json_scan.h"

static inline void skip_ws(jparser *jp) { jp->p = json_skip_ws(jp->p, jp->end); }

static int literal(jparser *jp, const char *word)
{
    size_t n = json_literal(jp->p, jp->end, word);
    jp->p += n;
    return n != 0;
}

/* A plain string at p (the opening quote): printable ASCII up to the
 * closing quote, whose position is returned; NULL for anything else. */
static const char *skim_string(const char *p, const char *e, unsigned *seen)
{
    const char *s = ++p;
    for (;;) {
        p = json_skip_plain(p, e);
        if (p >= e)
            return NULL;
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            break;
        if (c < 0x20 || c == '\\' || c >= 0x80)
            return NULL;
        p++;
    }
    size_t n = (size_t)(p - s);
    if (n == 3 || (n == 4 && s[0] == '-')) {
        const char *w = s + (n == 4);
        char a = (char)(w[0] | 0x20), b = (char)(w[1] | 0x20), c = (char)(w[2] | 0x20);
        if ((a == 'n' && b == 'a' && c == 'n' && n == 3) || (a == 'i' && b == 'n' && c == 'f'))
            *seen |= JSKIM_NONFINITE_TEXT;
    }
    return p;
}

/* A number at p, by parse_number's grammar; the end, or NULL. */
static const char *skim_number(const char *p, const char *e, unsigned *seen)
{
    if (p < e && *p == '-')
        p++;
    if (p < e && *p == 'I') {
        if ((size_t)(e - p) < 8 || memcmp(p, "Infinity", 8) != 0)
            return NULL;
        *seen |= JSKIM_NONFINITE;
        return p + 8;
    }
    if (p >= e || !json_is_digit(*p))
        return NULL;
    const char *digits = p;
    if (*p == '0')
        p++;
    else
        while (p < e && json_is_digit(*p))
            p++;
    if (p < e && *p == '.') {
        p++;
        if (p >= e || !json_is_digit(*p))
            return NULL;
        while (p < e && json_is_digit(*p))
            p++;
    }
    /* 300 digits, or an exponent of three: it may not fit a double */
    if (p - digits >= 300)
        *seen |= JSKIM_NONFINITE;
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        if (p >= e || !json_is_digit(*p))
            return NULL;
        const char *x = p;
        while (p < e && json_is_digit(*p))
            p++;
        if (p - x >= 3)
            *seen |= JSKIM_NONFINITE;
    }
    return p;
}

enum { SKIM_DEPTH = 64 };

int jp_skim(jparser *jp, unsigned stop)
{
    const char *start = jp->p;
    char stack[SKIM_DEPTH];
    int depth = 0;
    unsigned seen = 0;
    const char *e = jp->end;
    if (jp->depth + SKIM_DEPTH > JSON_MAX_DEPTH)
        return 0;
value:
    skip_ws(jp);
    if (jp->p >= e)
        goto bail;
    switch (*jp->p) {
    case '{':
    case '[':
        if (depth == SKIM_DEPTH)
            goto bail;
        stack[depth++] = *jp->p++;
        skip_ws(jp);
        if (jp->p < e && *jp->p == (stack[depth - 1] == '{' ? '}' : ']')) {
            jp->p++;
            depth--;
            goto after;
        }
        if (stack[depth - 1] == '[')
            goto value;
        goto key;
    case '"': {
        const char *q = skim_string(jp->p, e, &seen);
        if (!q)
            goto bail;
        jp->p = q + 1;
        goto after;
    }
    case 't':
        if (!literal(jp, "true"))
            goto bail;
        goto after;
    case 'f':
        if (!literal(jp, "false"))
            goto bail;
        goto after;
    case 'n':
        if (!literal(jp, "null"))
            goto bail;
        goto after;
    case 'N':
        if (!literal(jp, "NaN"))
            goto bail;
        seen |= JSKIM_NONFINITE;
        goto after;
    default: {
        const char *q = skim_number(jp->p, e, &seen);
        if (!q)
            goto bail;
        jp->p = q;
        goto after;
    }
    }
key:
    skip_ws(jp);
    if (jp->p >= e || *jp->p != '"')
        goto bail;
    {
        unsigned ignored = 0;
        const char *q = skim_string(jp->p, e, &ignored);
        if (!q)
            goto bail;
        jp->p = q + 1;
    }
    skip_ws(jp);
    if (jp->p >= e || *jp->p != ':')
        goto bail;
    jp->p++;
    goto value;
after:
    if (seen & stop)
        goto bail;
    if (!depth)
        return 1;
    skip_ws(jp);
    if (jp->p >= e)
        goto bail;
    if (*jp->p == ',') {
        jp->p++;
        if (stack[depth - 1] == '{')
            goto key;
        goto value;
    }
    if (*jp->p == (stack[depth - 1] == '{' ? '}' : ']')) {
        jp->p++;
        depth--;
        goto after;
    }
bail:
    jp->p = start;
    return 0;
}

