/* Megatron-LM's golden values (tests/functional_tests/test_cases/.../
 * golden_values_<hardware>.json): the curves a functional test compares a
 * run with,
 *
 *   {"lm loss": {"start_step": 1, "end_step": 100, "step_interval": 5,
 *                "values": {"1": 10.84, "5": 10.83, ..., "100": "nan"}}, ...}
 *
 * read as Megatron's pydantic models take them: every metric an object
 * with integer start_step, end_step and step_interval (checked, never used
 * by the checks) and an object of values keyed by step (an integer
 * written as a string: "07" is step 7), each a number or a string (kept;
 * compared as +inf). What pydantic refuses is refused, naming the file
 * and the metric ("is not Megatron golden values: ..."): a file that is no
 * JSON object, holds no metric ({}), a metric that is not an object or
 * lacks a field, values that are a list (the old format) or empty. Beyond
 * pydantic: a metric or a step given twice with different values is
 * refused too (Python would keep the last silently). */
#ifndef MSP_GOLDEN_VALUES_H
#define MSP_GOLDEN_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "format/curves.h"
#include "base/strbuf.h"

/* Is data[0..n) a JSON object (its first non-blank byte '{')? */
int golden_sniff(const void *data, size_t n);

/* Read the golden values in buf[0..len) (the file `path`) into out. 0 or
 * -1 (error recorded). */
int golden_parse(const char *path, const void *buf, size_t len, curves *out);
/* The whole file, read with file_load. */
int golden_read(const char *path, curves *out);

/* Megatron's step_interval of the steps of a metric: the gcd of the gaps
 * between them, the first step left out when it is start_idx; default_ when
 * fewer than two steps remain (common.py's _infer_step_interval). */
int64_t golden_step_interval(const int64_t *steps, size_t n, int64_t start_idx, int64_t default_);

/* The curves as golden values, json.dumps(indent=4) the way Megatron's
 * get_test_results_from_tensorboard_logs.py writes them: metrics in order,
 * steps ascending, floats as Python's repr, ints as ints, a string as the
 * string, NaN as the string "nan" (Megatron's writer would raise; its
 * older one wrote "nan", which its checker reads). Series without values
 * are left out. Appended to sb. */
void golden_format(strbuf *sb, const curves *c, int64_t start_idx, int64_t default_interval);

#endif
