/* Turning one entry's value into rows (msprobe's op_item_parse), for
 * dump.c, which walks the entries. Not part of the dump API. */
#ifndef MSP_DUMP_LEAF_H
#define MSP_DUMP_LEAF_H

#include "model/dump_rows.h"
#include "base/strbuf.h"

/* msprobe refuses to flatten deeper than this (Const.MAX_DEPTH). */
#define FLATTEN_MAX_DEPTH 10

typedef struct {
    dump_data *d;
    int first_diff;           /* DUMP_FIRST_DIFF: msprobe 8.3's rows, statistics as its texts */
    int newer_rows;           /* DUMP_NEWER_ROWS (or first_diff): the rows of msprobe 8.2 and later */
    int p2pop_row;            /* of those rules, only a P2POp as one row (the newest msprobe's graph items) */
    int tree_walk;            /* DUMP_TREE_WALK: no entry read straight from the text */
    int dups;                 /* a name of `data` was repeated */
    int in_params_grad;       /* "parameters_grad" is a component of the prefix */
    uint8_t parse_state;      /* the row_state of the member being read (input_args ... parameters) */
    uint8_t *md5;             /* per entry: msprobe's md5_find() on its value */
    size_t md5_cap;
    const char *entry_name;
    /* dump_entry_rows(): told each row's leaf object (NULL: a null item) */
    void (*on_row)(void *ctx, const jval *leaf);
    void *on_row_ctx;
    strbuf prefix;
    strbuf tmp;
    /* the dtype and shape texts last interned, by a hash of their ends:
     * most rows find theirs here without hashing the whole text */
    const char *recent[64];
    uint32_t recent_len[64];
} flattener;

/* The members of a leaf object that make its row (NULL: absent). */
typedef struct {
    const jval *data_name, *stat[4], *dtype, *shape, *value, *type, *md5, *group_ranks, *requires_grad;
} leaf_fields;

/* A new row at the end of d->rows, zeroed, of the current entry. */
dump_row *dump_new_row(dump_data *d);
/* A null item's row (msprobe's default_item), named f->prefix. */
void dump_null_row(flattener *f);
/* Appends "." and the index i to a row name. */
void dump_add_index(strbuf *sb, uint32_t i);
/* Fills row r (just made by dump_new_row) from a leaf's members: msprobe's
 * gen_op_item(). -1: an error recorded (the leaf cannot make a row). */
int dump_leaf_fields_row(flattener *f, dump_row *r, const leaf_fields *lf);

/* `comp` is one of the dot-separated components of s[0..n). */
int dump_has_component(const char *s, size_t n, const char *comp);

/* msprobe's op_item_parse(): the rows of value v, named from f->prefix. */
int dump_flatten(flattener *f, const jval *v, int depth);

#endif
