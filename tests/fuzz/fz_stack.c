/* stack.json (model/stack.h), both layouts: loaded, then every name it
 * holds looked up with msprobe's checks and rendered as the
 * NPU_Stack_Info cell. */
#include "tests/fuzz/fuzz.h"

#include "model/stack.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_init();
    fz_write("stack.json", data, size);
    char *path = fz_path("stack.json");
    stack_map s;
    int rc = stack_load(path, &s);
    fz_done(rc);
    if (rc == 0) {
        /* the names of the old layout are the top-level keys; of the new
         * one, the strings of each group's first list */
        for (uint32_t i = 0; s.root.type == J_OBJECT && i < s.root.len; i++) {
            const jmember *m = &s.root.u.members[i];
            char *name = strndup(m->key, m->keylen);
            int bad = 0;
            const stack_info *si = stack_get(&s, name, &bad);
            fz_done(bad ? -1 : 0);
            if (si)
                stack_repr((stack_info *)si);
            stack_find(&s, name);
            const jval *v = &m->val;
            if (v->type == J_ARRAY && v->len == 2 && v->u.items[0].type == J_ARRAY) {
                const jval *names = &v->u.items[0];
                for (uint32_t k = 0; k < names->len; k++) {
                    if (names->u.items[k].type != J_STRING)
                        continue;
                    char *n2 = strndup(names->u.items[k].u.str, names->u.items[k].len);
                    bad = 0;
                    si = stack_get(&s, n2, &bad);
                    fz_done(bad ? -1 : 0);
                    if (si)
                        stack_repr((stack_info *)si);
                    free(n2);
                }
            }
            free(name);
        }
    }
    stack_free(&s);
    free(path);
    return 0;
}
