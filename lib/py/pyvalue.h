/* A Python scalar as msprobe's code holds it: None, a bool, an int, a
 * float, a str, or (PV_OTHER) a list or dict known by its str(). Compare
 * cells (dump statistics through pandas), merge_result's cells (values
 * pandas read from a workbook) and the first-diff JSON are all made of
 * these. (A whole document is a value tree, base/value.h.) */
#ifndef MSP_PYVALUE_H
#define MSP_PYVALUE_H

#include <stdint.h>

#include "base/strbuf.h"

enum pv_kind { PV_NONE, PV_BOOL, PV_INT, PV_FLOAT, PV_STR, PV_OTHER };

typedef struct {
    uint8_t kind;      /* pv_kind */
    uint8_t wide_int;  /* PV_INT beyond 64 bits (pandas keeps its column as objects) */
    uint8_t pd_ok;     /* pandas.to_numeric(str(value)) is a number */
    uint32_t len;      /* text length */
    double num;        /* PV_BOOL (0/1), PV_INT, PV_FLOAT */
    double pd_num;     /* pandas.to_numeric(str(value)) for PV_STR and PV_INT; for
                        * PV_FLOAT the value itself (see pd_float_roundtrip) */
    const char *text;  /* PV_STR: the string; PV_OTHER: str() of a list/dict;
                        * PV_INT: its digits when known (a big int), else NULL */
} pyval;

/* str(v): "None", "True", "12", "1e-05", "nan", the text. An int without
 * its digits is written from `num`, which holds an integral value. */
void py_str_value(strbuf *sb, const pyval *v);

#endif
