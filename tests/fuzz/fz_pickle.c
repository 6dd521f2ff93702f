/* The inert pickle machine (format/pickle.h) with a wide allow-list (the
 * data constructors it evaluates, torch's and numpy's names, and os.system,
 * which must only ever be recorded as a name, never called). */
#include "tests/fuzz/fuzz.h"

#include "format/pickle.h"

static const pk_global allowed[] = {
    {"collections", "OrderedDict"}, {"collections", "defaultdict"}, {"_codecs", "encode"},
    {"builtins", "bytes"},          {"builtins", "bytearray"},      {"builtins", "set"},
    {"builtins", "frozenset"},      {"torch.*", "*"},               {"numpy.*", "*"},
    {"os", "system"},               {"argparse", "Namespace"},
};

/* Walk what was built, as consumers do: along paths, with a depth bound
 * (the value may be a graph with cycles through the memo) and a bound on
 * the nodes visited: a list holding itself twice has 2^depth paths (the
 * first long run's timeout, tests/fuzz/regress/fz_pickle/), and a consumer
 * walking paths needs the same bound (config_check's state-dict walk). */
static void walk(const pk_value *v, int depth, long *budget)
{
    if (!v || depth > 64 || --*budget < 0)
        return;
    pk_kind_name(v->kind);
    switch (v->kind) {
    case PK_TUPLE:
    case PK_LIST:
    case PK_SET:
    case PK_DICT:
        for (size_t i = 0; i < v->u.seq.len; i++)
            walk(v->u.seq.item[i], depth + 1, budget);
        walk(v->attrs, depth + 1, budget);
        break;
    case PK_CALL:
        walk(v->u.call.callable, depth + 1, budget);
        walk(v->u.call.args, depth + 1, budget);
        walk(v->u.call.state, depth + 1, budget);
        break;
    case PK_PERSID:
        walk(v->u.pid, depth + 1, budget);
        break;
    case PK_STR:
    case PK_BYTES:
        if (v->u.str.len) {
            volatile char c = v->u.str.ptr[0] ^ v->u.str.ptr[v->u.str.len - 1];
            (void)c;
        }
        break;
    default:
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    arena a;
    arena_init(&a, 4096);
    pk_value *root;
    int rc = pickle_parse(&a, fz_dir(), "data.pkl", data, size, allowed, sizeof allowed / sizeof allowed[0], &root);
    fz_done(rc);
    if (rc == 0)
        walk(root, 0, &(long){(long)size + 16});
    arena_free(&a);
    return 0;
}
