/* The .npy reader of npy.h. The header, a Python dict literal, is read by
 * a small cursor over exactly the subset numpy writes -- quoted strings
 * without escapes, True / False, a tuple of integers -- with each of the
 * three keys required once, in any order; nothing is evaluated. Each check
 * on the way fails with a message naming the file and what is wrong. The
 * data is then described as a tensor view over the caller's buffer (read
 * byte-swapped when its byte order is not the host's), never copied.
 */
#include "format/npy.h"
#include "base/le.h"
#include "base/err.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A cursor over the header text. */
typedef struct {
    const char *p, *end;
    const char *path;
} cursor;

static void skip_space(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int expect(cursor *c, char ch, const char *what)
{
    skip_space(c);
    if (c->p >= c->end || *c->p != ch)
        return err_input(c->path, "malformed .npy header: expected '%c' %s", ch, what);
    c->p++;
    return 0;
}

/* A Python string literal without escapes (none of the legal values
 * needs one).  Returns its length, or -1. */
static int read_string(cursor *c, const char **s, size_t *len)
{
    skip_space(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return err_input(c->path, "malformed .npy header: expected a quoted string");
    char q = *c->p++;
    const char *start = c->p;
    while (c->p < c->end && *c->p != q) {
        if (*c->p == '\\' || *c->p == '\n')
            return err_input(c->path, "malformed .npy header: unexpected character in a string");
        c->p++;
    }
    if (c->p >= c->end)
        return err_input(c->path, "malformed .npy header: unterminated string");
    *s = start;
    *len = (size_t)(c->p - start);
    c->p++;
    return 0;
}

static int word_is(cursor *c, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n) != 0)
        return 0;
    const char *after = c->p + n;
    if (after < c->end && (*after == '_' || (*after >= 'a' && *after <= 'z') || (*after >= 'A' && *after <= 'Z')
                           || (*after >= '0' && *after <= '9')))
        return 0;
    c->p += n;
    return 1;
}

static int read_bool(cursor *c, int *v)
{
    skip_space(c);
    if (word_is(c, "True"))
        *v = 1;
    else if (word_is(c, "False"))
        *v = 0;
    else
        return err_input(c->path, "malformed .npy header: fortran_order must be True or False");
    return 0;
}

static int read_dim(cursor *c, int64_t *v)
{
    skip_space(c);
    if (c->p < c->end && *c->p == '-')
        return err_input(c->path, "malformed .npy header: negative dimension in shape");
    if (c->p >= c->end || *c->p < '0' || *c->p > '9')
        return err_input(c->path, "malformed .npy header: shape must be a tuple of integers");
    int64_t x = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        if (__builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, *c->p - '0', &x))
            return err_input(c->path, "shape is too large: a dimension does not fit in 64 bits");
        c->p++;
    }
    if (c->p < c->end && (*c->p == 'L' || *c->p == 'l')) /* Python 2 long literal */
        c->p++;
    *v = x;
    return 0;
}

static int read_shape(cursor *c, int *ndim, int64_t *shape)
{
    if (expect(c, '(', "to open the shape tuple") != 0)
        return -1;
    int n = 0, comma = 0;
    for (;;) {
        skip_space(c);
        if (c->p < c->end && *c->p == ')') {
            c->p++;
            break;
        }
        if (n == TENSOR_MAX_DIMS)
            return err_set(ERR_LIMIT, c->path, "shape has more than %d dimensions", TENSOR_MAX_DIMS);
        if (read_dim(c, &shape[n]) != 0)
            return -1;
        n++;
        skip_space(c);
        comma = c->p < c->end && *c->p == ',';
        if (comma)
            c->p++;
        else if (c->p >= c->end || *c->p != ')')
            return err_input(c->path, "malformed .npy header: expected ',' or ')' in shape");
    }
    /* "(5)" is the integer 5 in Python, not a tuple. */
    if (n == 1 && !comma)
        return err_input(c->path, "malformed .npy header: shape must be a tuple, e.g. (5,)");
    *ndim = n;
    return 0;
}

/* descr such as "<f4": returns 0 and sets dtype and byte order. */
static int parse_descr(const char *path, const char *s, size_t len, dtype_id *dt, int *big)
{
    char text[40];
    snprintf(text, sizeof text, "%.*s", (int)(len < 32 ? len : 32), s);
    size_t i = 0;
    char order = '=';
    if (len > 0 && strchr("<>|=", s[0])) {
        order = s[0];
        i = 1;
    }
    *big = order == '>' || (order != '<' && HOST_BIG_ENDIAN);
    if (i >= len)
        return err_input(path, "unsupported .npy dtype '%s'", text);
    char kind = s[i++];
    int size = 0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9' || size > 1000)
            return err_input(path, "unsupported .npy dtype '%s'", text);
        size = size * 10 + (s[i] - '0');
    }
    static const struct {
        char kind;
        int size;
        dtype_id dt;
    } kinds[] = {
        { 'b', 1, DT_BOOL }, { '?', 0, DT_BOOL }, { '?', 1, DT_BOOL }, { 'i', 1, DT_I8 }, { 'i', 2, DT_I16 },
        { 'i', 4, DT_I32 }, { 'i', 8, DT_I64 }, { 'u', 1, DT_U8 }, { 'u', 2, DT_U16 }, { 'u', 4, DT_U32 },
        { 'u', 8, DT_U64 }, { 'f', 2, DT_F16 }, { 'f', 4, DT_F32 }, { 'f', 8, DT_F64 }, { 'c', 8, DT_C64 },
        { 'c', 16, DT_C128 },
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        if (kinds[k].kind == kind && kinds[k].size == size) {
            *dt = kinds[k].dt;
            return 0;
        }
    switch (kind) {
    case 'O':
        return err_input(path, "object array (dtype '%s') needs pickle, which is not allowed", text);
    case 'V':
        return err_input(path, "raw void dtype '%s' is not supported (ml_dtypes bfloat16 arrays are saved this "
                               "way; save them as float32)", text);
    case 'g':
        return err_input(path, "unsupported .npy dtype '%s' (long double)", text);
    case 'f':
        if (size > 8)
            return err_input(path, "unsupported .npy dtype '%s' (long double)", text);
        return err_input(path, "unsupported .npy dtype '%s'", text);
    default:
        return err_input(path, "unsupported .npy dtype '%s'", text);
    }
}

static int parse_header(const char *path, const char *h, size_t len, dtype_id *dt, int *big, int *fortran,
                        int *ndim, int64_t *shape)
{
    cursor c = { h, h + len, path };
    if (expect(&c, '{', "at the start of the header") != 0)
        return -1;
    int have_descr = 0, have_order = 0, have_shape = 0;
    for (;;) {
        skip_space(&c);
        if (c.p < c.end && *c.p == '}') {
            c.p++;
            break;
        }
        const char *key;
        size_t klen;
        if (read_string(&c, &key, &klen) != 0 || expect(&c, ':', "after a key") != 0)
            return -1;
        int *seen;
        if (klen == 5 && memcmp(key, "descr", 5) == 0) {
            seen = &have_descr;
            skip_space(&c);
            if (c.p < c.end && *c.p == '[')
                return err_input(path, "structured .npy dtype (a list descr) is not supported");
            const char *s;
            size_t slen;
            if (read_string(&c, &s, &slen) != 0 || parse_descr(path, s, slen, dt, big) != 0)
                return -1;
        } else if (klen == 13 && memcmp(key, "fortran_order", 13) == 0) {
            seen = &have_order;
            if (read_bool(&c, fortran) != 0)
                return -1;
        } else if (klen == 5 && memcmp(key, "shape", 5) == 0) {
            seen = &have_shape;
            if (read_shape(&c, ndim, shape) != 0)
                return -1;
        } else {
            return err_input(path, "malformed .npy header: unexpected key '%.*s'", (int)(klen < 40 ? klen : 40), key);
        }
        if (*seen)
            return err_input(path, "malformed .npy header: key '%.*s' appears twice", (int)klen, key);
        *seen = 1;
        skip_space(&c);
        if (c.p < c.end && *c.p == ',')
            c.p++;
        else if (c.p >= c.end || *c.p != '}')
            return err_input(path, "malformed .npy header: expected ',' or '}' after a value");
    }
    skip_space(&c);
    if (c.p != c.end)
        return err_input(path, "malformed .npy header: unexpected text after the dictionary");
    if (!have_descr || !have_order || !have_shape)
        return err_input(path, "malformed .npy header: missing key '%s'",
                         !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
    return 0;
}

int npy_parse(const char *path, const unsigned char *buf, size_t size, tensor *out)
{
    memset(out, 0, sizeof *out);
    if (size < 10 || memcmp(buf, "\x93NUMPY", 6) != 0)
        return err_input(path, size < 10 ? "truncated .npy file: no complete header" : "not a .npy file (bad magic)");
    unsigned major = buf[6], minor = buf[7];
    if (major < 1 || major > 3 || minor != 0)
        return err_input(path, "unsupported .npy format version %u.%u", major, minor);
    size_t hstart = major == 1 ? 10 : 12;
    if (size < hstart)
        return err_input(path, "truncated .npy file: no complete header");
    size_t hlen = major == 1 ? le_get16(buf + 8) : le_get32(buf + 8);
    if (hlen > size - hstart)
        return err_input(path, "truncated .npy file: the header claims %zu bytes, %zu are present", hlen,
                         size - hstart);
    dtype_id dt = DT_F32;
    int big = 0, fortran = 0, ndim = 0;
    int64_t shape[TENSOR_MAX_DIMS];
    if (parse_header(path, (const char *)buf + hstart, hlen, &dt, &big, &fortran, &ndim, shape) != 0)
        return -1;
    out->dtype = dt;
    if (tensor_set_shape(out, path, ndim, shape, fortran) != 0)
        return -1;
    size_t data_off = hstart + hlen;
    size_t need = out->numel * dtype_size(dt);
    if (need > size - data_off)
        return err_input(path, "truncated .npy data: the shape needs %zu bytes of %s, %zu are present", need,
                         dtype_name(dt), size - data_off);
    out->byteswap = big != HOST_BIG_ENDIAN && dtype_size(dt) > 1;
    out->storage = buf + data_off;
    out->storage_size = size - data_off;
    return tensor_check_view(out, path);
}

