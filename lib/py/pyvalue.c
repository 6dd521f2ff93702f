/* str() of the Python scalar of pyvalue.h, the text of most compare and
 * merge_result cells: an int by its own digits when it came from text (a
 * big int keeps every digit), else by the exact digits of its integral
 * double; a float by repr(); None and the bools by name; a str, list or
 * dict by the text it carries.
 */
#include "py/pyvalue.h"
#include "py/numfmt.h"

void py_str_value(strbuf *sb, const pyval *v)
{
    char buf[NUMFMT_BUFSZ];
    switch (v->kind) {
    case PV_NONE:
        sb_adds(sb, "None");
        return;
    case PV_BOOL:
        sb_adds(sb, v->num ? "True" : "False");
        return;
    case PV_INT:
        if (v->text) {
            sb_add(sb, v->text, v->len);
        } else if (v->num == 0) {
            sb_addc(sb, '0');   /* Python has no "-0" int */
        } else {
            sb_addf(sb, "%.0f", v->num);   /* the exact digits of an integral double */
        }
        return;
    case PV_FLOAT:
        sb_add(sb, buf, fmt_pyrepr(v->num, buf));
        return;
    default:
        sb_add(sb, v->text, v->len);
        return;
    }
}
