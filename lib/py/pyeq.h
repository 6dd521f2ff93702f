/* Python's == between the objects json.loads / yaml.safe_load produce:
 * numbers by value across int, float and bool (1 == 1.0 == True), strings
 * by their characters, lists item by item, dicts by their key sets and
 * values whatever the order, None only with None. NaN is unequal to
 * everything, itself included (float('nan') != float('nan')). msprobe's
 * config_check compares hyper-parameter and statistics values this way. */
#ifndef MSP_PYEQ_H
#define MSP_PYEQ_H

#include "base/value.h"

int py_json_equal(const jval *a, const jval *b);

/* Is v a number in Python's eyes (int, float or bool)? Its value in *x. */
int py_json_number(const jval *v, double *x);

#endif
