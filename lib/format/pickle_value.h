/* The values a pickle is read into (see format/pickle.h, which includes
 * this), and the text decoding and value building its reader
 * (format/pickle.c) shares with them.
 */
#ifndef MSP_PICKLE_VALUE_H
#define MSP_PICKLE_VALUE_H

#include "base/arena.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    PK_NONE, PK_BOOL, PK_INT, PK_BIGINT, PK_FLOAT, PK_STR, PK_BYTES,
    PK_TUPLE, PK_LIST, PK_DICT, PK_SET, PK_GLOBAL, PK_CALL, PK_PERSID
} pk_kind;

typedef struct pk_value pk_value;
struct pk_value {
    pk_kind kind;
    union {
        int64_t i;                                           /* BOOL, INT */
        double f;                                            /* FLOAT */
        struct { const char *ptr; size_t len; } str;         /* STR (UTF-8), BYTES */
        struct { pk_value **item; size_t len, cap; } seq;    /* TUPLE, LIST, SET;
                                                                DICT: key0, value0, key1, ... */
        struct { int id; const char *module, *name; } global; /* id: index in the allow-list */
        struct { pk_value *callable, *args, *state; int newobj; } call;
        pk_value *pid;                                       /* PERSID: the persistent id */
    } u;
    pk_value *attrs;   /* DICT made by OrderedDict(): a BUILD state, or NULL */
};

/* For messages, with an article: "an int", "a tuple", "a dict", "None", ... */
const char *pk_kind_name(pk_kind k);
/* Is v a GLOBAL with this allow-list id? A CALL of one (callable id)? */
int pk_is_global(const pk_value *v, int id);
int pk_is_call_of(const pk_value *v, int id);
/* Is v a str equal to s? */
int pk_str_eq(const pk_value *v, const char *s);
/* Tuple element count, or -1 when v is not a tuple. */
long pk_tuple_len(const pk_value *v);
/* d[key] for a dict d with str keys: the value of the first item whose key
 * is the str `key`; NULL when there is none or d is not a dict (or NULL). */
const pk_value *pk_dict_get(const pk_value *d, const char *key);


/* ---- for the reader (format/pickle.c) only ---------------------------- */

/* Where values are made (the arena) and where the reader is, for errors:
 * the file, what names the pickle in it, the offset of the opcode. */
typedef struct {
    arena *a;
    const char *path, *what;
    size_t op_pos;
} pk_reader;

/* An input error at the current opcode; returns -1. */
int pk_fail(const pk_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int pk_vfail(const pk_reader *r, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

pk_value *pk_new_value(arena *a, pk_kind k);
/* Appends x to the items of s (a TUPLE, LIST, SET or DICT). */
void pk_seq_add(arena *a, pk_value *s, pk_value *x);
/* A STR or BYTES value of p[0..len), not copied. */
pk_value *pk_make_str(arena *a, pk_kind k, const void *p, size_t len);

/* Text operands of protocol 0: a decimal integer; a UNICODE operand
 * (raw-unicode-escape); a STRING operand (a quoted Python 2 repr). NULL or
 * -1 after pk_fail. */
int pk_parse_int_text(const pk_reader *r, const char *s, size_t len, int64_t *out);
pk_value *pk_raw_unicode(const pk_reader *r, const char *s, size_t len);
pk_value *pk_quoted_string(const pk_reader *r, const char *s, size_t len);

/* REDUCE of the GLOBAL g on the tuple args when g is a builtin data
 * constructor (format/pickle.h lists them): its value, or NULL after
 * pk_fail; *done = 0 (and NULL) when g is not one. */
pk_value *pk_construct(const pk_reader *r, const pk_value *g, const pk_value *args, int *done);

#endif
