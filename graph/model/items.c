/* The items of a node (spec §4.4): its dump entry read again from the
 * mapping, flattened into rows by model/dump (msprobe's read_op), each row
 * with the leaf it came from, placed in input_data or output_data; and an
 * item as the export writes it (§8.3). */
#include "graph/model/items.h"
#include "graph/model/values.h"
#include "base/err.h"
#include "base/mem.h"
#include "format/jsonw.h"

#include <stdlib.h>
#include <string.h>

void gitems_init(gitems *it)
{
    memset(it, 0, sizeof *it);
    arena_init(&it->mem, 1 << 16);
    dump_init(&it->rows, "dump.json");
    strmap_init(&it->seen, 64);
}

void gitems_free(gitems *it)
{
    arena_free(&it->mem);
    dump_free(&it->rows);
    free(it->in);
    free(it->out);
    free(it->leaves);
    strmap_free(&it->seen);
    memset(it, 0, sizeof *it);
}

static void on_leaf(void *ctx, const jval *leaf)
{
    gitems *it = ctx;
    GROW(it->leaves, it->capleaves, it->nleaves + 1);
    it->leaves[it->nleaves++] = leaf;
}

/* Output or input: by the row's state (spec §10 #3: msprobe tests the
 * substrings ".output." and ".input." of the name, which misplaces the
 * items of a module whose path has such a part); by msprobe's substrings
 * when the name has no state. */
static int is_output(const dump_row *r)
{
    if (r->state != ST_UNKNOWN)
        return r->state == ST_OUTPUT;
    return strstr(r->name, ".output.") && !strstr(r->name, ".input.");
}

int gitems_read(gitems *it, const rankdata *rd, long e)
{
    it->nin = it->nout = it->nleaves = 0;
    dump_clear(&it->rows);
    arena_reset(&it->mem);
    if (it->seen.count)
        strmap_clear(&it->seen);
    it->value = NULL;
    if (it->rd != rd) {
        free(it->rows.path);
        it->rows.path = xstrdup(rd->dump_path);
        it->rd = rd;
    }
    it->rows.p2pop_rows = rd->p2pop_rows;
    if (e < 0)
        return 0;
    const rank_entry *en = &rd->entries[e];
    jparser jp;
    jp_init(&jp, rd->dump_path, rd->dump.data + en->off, en->len);
    jval *value = arena_alloc(&it->mem, sizeof *value);
    int rc = jp_value(&jp, &it->mem, value);
    jp_free(&jp);
    if (rc != 0)
        return -1;
    it->value = value;
    if (dump_entry_rows(&it->rows, en->name, en->namelen, value, on_leaf, it) != 0)
        return -1;
    /* a few rows: repeated keys looked for by a scan; many: by a map */
    int small = it->rows.nrows <= 32;
    for (size_t i = 0; i < it->rows.nrows; i++) {
        const dump_row *r = &it->rows.rows[i];
        size_t klen = strlen(r->name);
        if (!klen)
            continue;
        int out = is_output(r);
        gitem g = {(uint32_t)i, it->leaves[i]};
        gitem *v = out ? it->out : it->in;
        size_t nv = out ? it->nout : it->nin, at = nv;
        if (small) {
            for (size_t k = 0; k < nv; k++)
                if (!strcmp(it->rows.rows[v[k].row].name, r->name)) {
                    at = k;
                    break;
                }
        } else {
            int added;
            at = *strmap_put(&it->seen, r->name, klen, nv, &added);
        }
        if (at < nv) {
            /* a repeated key: the last value at the first place */
            v[at] = g;
            continue;
        }
        if (out) {
            GROW(it->out, it->capout, it->nout + 1);
            it->out[it->nout++] = g;
        } else {
            GROW(it->in, it->capin, it->nin + 1);
            it->in[it->nin++] = g;
        }
    }
    return 0;
}

/* ---- an item as the export writes it (§8.3) ------------------------------ */

static const char *const STAT_KEYS[4] = {"Max", "Min", "Mean", "Norm"};

static int key_is(const jmember *m, const char *k) { return json_key_is(m, k); }

static int stat_index(const jmember *m)
{
    for (int k = 0; k < 4; k++)
        if (key_is(m, STAT_KEYS[k]))
            return k;
    return -1;
}

/* One member: "key": "value" as JSON text, then '\n'. */
static void member_key(strbuf *sb, const char *k, size_t n)
{
    jsonw_str_ascii(sb, k, n);
    sb_add(sb, ": ", 2);
}

void item_render(strbuf *sb, const gitems *it, const gitem *g, unsigned flags, const char *cols, size_t ncols)
{
    const dump_row *r = gitem_row(it, g);
    const jval *leaf = g->leaf;
    size_t start = sb->len;
    if (!leaf) {
        /* a null argument: every field None, Max among them */
        sb_adds(sb, "\"value\": \"null\"\n");
        return;
    }
    const jval *dtype = json_get(leaf, "dtype"), *type = json_get(leaf, "type");
    int filled = !json_truthy(dtype);
    int process_group = json_str_eq(type, "torch.ProcessGroup");
    int keep_md5 = (flags & ITEM_MD5) != 0, p2p = (flags & ITEM_BATCH_P2P) != 0;
    int have_stat[4] = {0}, have_dtype = 0, have_shape = 0, have_md5 = 0, have_dn = 0;
    int max_null = 0;
    size_t max_at = (size_t)-1;
    for (uint32_t i = 0; i < leaf->len; i++) {
        const jmember *m = &leaf->u.members[i];
        int k = stat_index(m);
        if (k >= 0)
            have_stat[k] = 1;
        if (key_is(m, "dtype"))
            have_dtype = 1;
        else if (key_is(m, "shape"))
            have_shape = 1;
        else if (key_is(m, "md5"))
            have_md5 = 1;
        else if (key_is(m, "data_name"))
            have_dn = 1;
        if (key_is(m, "requires_grad") || key_is(m, "full_op_name") || (key_is(m, "md5") && !keep_md5))
            continue;
        if (p2p && (key_is(m, "op") || key_is(m, "peer") || key_is(m, "tag") || key_is(m, "group_id")))
            continue;
        if (process_group && !key_is(m, "type") && !key_is(m, "group_ranks") && !key_is(m, "group_id") &&
            !key_is(m, "data_name"))
            continue;
        member_key(sb, m->key, m->keylen);
        if (k >= 0) {
            if (k == 0)
                max_at = sb->len;
            vis_pyval(sb, (const pyval[]){dump_stat(r, k)});
        } else if (key_is(m, "data_name")) {
            vis_string(sb, r->data_name, strlen(r->data_name));
        } else if (filled && key_is(m, "dtype")) {
            vis_string(sb, r->dtype, strlen(r->dtype));
        } else if (filled && key_is(m, "shape")) {
            vis_string(sb, r->shape, strlen(r->shape));
        } else if (key_is(m, "md5") && !json_truthy(&m->val)) {
            vis_string(sb, r->md5 ? r->md5 : "None", r->md5 ? strlen(r->md5) : 4);
        } else {
            vis_value_json(sb, &m->val);
        }
        sb_addc(sb, '\n');
    }
    /* gen_op_item's additions, in its order */
    if (!have_dn) {
        member_key(sb, "data_name", 9);
        vis_string(sb, r->data_name, strlen(r->data_name));
        sb_addc(sb, '\n');
    }
    if (!process_group) {
        for (int k = 0; k < 4; k++) {
            if (have_stat[k])
                continue;
            member_key(sb, STAT_KEYS[k], strlen(STAT_KEYS[k]));
            if (k == 0)
                max_at = sb->len;
            vis_pyval(sb, (const pyval[]){dump_stat(r, k)});
            sb_addc(sb, '\n');
        }
        if (filled && !have_dtype) {
            member_key(sb, "dtype", 5);
            vis_string(sb, r->dtype, strlen(r->dtype));
            sb_addc(sb, '\n');
        }
        if (filled && !have_shape) {
            member_key(sb, "shape", 5);
            vis_string(sb, r->shape, strlen(r->shape));
            sb_addc(sb, '\n');
        }
        if (keep_md5 && !have_md5) {
            member_key(sb, "md5", 3);
            vis_string(sb, r->md5 ? r->md5 : "None", r->md5 ? strlen(r->md5) : 4);
            sb_addc(sb, '\n');
        }
    }
    if (max_at != (size_t)-1)
        max_null = sb->len - max_at >= 6 && !memcmp(sb->buf + max_at, "\"null\"", 6) &&
                   (sb->buf[max_at + 6] == '\n');
    if (max_null) {
        /* Max is null: msprobe keeps only {"value": "null"} */
        sb->len = start;
        sb_adds(sb, "\"value\": \"null\"\n");
        return;
    }
    /* a process group keeps its four keys whatever the compare added to
     * the item (msprobe filters the item at export, after the compare) */
    if (!process_group)
        sb_add(sb, cols, ncols);
}
