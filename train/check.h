/* The checks of Megatron-LM's functional-test checker
 * (tests/functional_tests/python_test_utils/common.py, pipeline()), on
 * curves: per metric a deterministic test (exact) and approximate tests
 * (np.isclose with rtol and atol), its thresholds table, its allowance of
 * failing steps, its "nan" strings, the steady-window median of
 * iteration-time, and what it does with a metric missing on one side.
 *
 * Only the golden's steps are compared; an actual step that is missing
 * counts as the string "nan", and every string is +inf on both sides
 * (np.isclose(inf, inf) holds: a golden "nan" passes against a missing
 * step, as in the checker -- counted in `masked`). A deterministic test,
 * or any test of one value, needs every step close; an approximate test
 * allows min(max(n // 100, 1), 50) failing steps, decided as the checker
 * decides it in floating point: mean(close) >= 1 - allowed / n.
 *
 * Beyond the checker: a band of several golden runs (mean and sample
 * standard deviation per step, as compute_golden_statistics.py derives
 * them) widens an approximate test's tolerance to K standard deviations
 * where the golden runs disagree more than rtol allows. */
#ifndef MSP_TRAIN_CHECK_H
#define MSP_TRAIN_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "format/curves.h"

enum { TEST_DETERMINISTIC, TEST_APPROXIMATE };
extern const char *const train_test_names[2];   /* "DETERMINISTIC", "APPROXIMATE" */

typedef struct {
    int kind;
    double rtol, atol;
} train_test;

enum { TRAIN_MAX_TESTS = 8 };

typedef struct {
    char *metric;
    train_test tests[TRAIN_MAX_TESTS];
    int ntests;
} train_check;

/* Megatron's CHECK_THRESHOLDS (test_pretraining_regular_pipeline.py) for
 * `metric`: 1 with its tests in *out (metric not set), 0 when the table has
 * none. */
int train_thresholds(const char *metric, train_check *out);
/* The metrics of the table, NULL-terminated, for messages. */
extern const char *const train_threshold_metrics[];

enum { V_PASSED, V_FAILED, V_SKIPPED };
extern const char *const train_verdict_names[3];   /* Megatron's words */

/* Why a test failed without steps to count. */
enum {
    WHY_NONE, WHY_MISSING_ACTUAL, WHY_MISSING_GOLDEN, WHY_NO_GOLDEN_VALUES, WHY_NO_FINITE, WHY_NO_STEADY
};

typedef struct {
    int verdict;
    int why;
    size_t n;                /* steps evaluated (1 for the median of iteration-time) */
    size_t failing, allowed;
    int64_t first_failing;   /* -1 */
    double max_rel_diff;     /* largest finite |a-g|/|g| over the steps (NaN: none) */
    size_t masked;           /* golden strings met by steps missing in the actual */
    /* iteration-time: the window and the medians compared */
    int median;
    int64_t window_lo, window_hi;
    size_t nwindow;
    int64_t first_window_step, last_window_step;
    double golden_median, actual_median;
} test_result;

typedef struct {
    const train_check *check;
    test_result r[TRAIN_MAX_TESTS];
    int failed;              /* a test FAILED */
    int64_t first_out;       /* first step out of the loosest tolerance (-1: none, or no steps) */
} metric_result;

/* A band of golden runs: per step of the golden (the mean curve), the
 * standard deviation, and k. NULL: no band. */
typedef struct {
    const curve *std;        /* same steps as the golden (the mean) */
    double k;
} train_band;

/* Is a within b's tolerance, as np.isclose(a, b, rtol, atol) decides it
 * (b the golden: the tolerance scales with |b|)? */
int train_isclose(double a, double b, double rtol, double atol);

/* Run one metric's checks; approximate_only skips the deterministic tests
 * (the checker's compare_approximate_results). golden/actual NULL when the
 * metric is missing there. The curves are already cut to the compared
 * steps. */
void train_check_metric(const train_check *chk, const curve *golden, const curve *actual, int approximate_only,
                        const train_band *band, metric_result *out);

/* The tolerance (atol + rtol |g|, or the band's) of the test at golden
 * position i. */
double train_tolerance(const train_test *t, const curve *golden, size_t i, const train_band *band);

/* The test whose tolerance a step table shows: the last approximate test
 * (the loosest the checker knows), else the first test. */
const train_test *train_display_test(const train_check *chk);

#endif
