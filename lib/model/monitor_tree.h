/* The output tree of msprobe's training monitor (TrainerMon), as the
 * offline converters find their inputs in it (spec/analyzers.md §E.1, §E.4):
 *
 *   MONITOR_DIR/
 *     {%b%d_%H-%M-%S}-rank{R}-{uid8}/        one run directory per rank
 *        actv_0-7.csv  actv_grad_0-7.csv ... {type}_{start}-{end}.csv
 *     anomaly_detected/rank{R}/anomaly.json
 *
 * A run directory is recognised by msprobe's pattern ([\w-]{0,20})-rank(\d{1,5})-
 * at the start of its name, the first part being its time stamp (Asia/Shanghai
 * local time, no year). Every refusal is recorded (err.h) naming the path. */
#ifndef MSP_MODEL_MONITOR_TREE_H
#define MSP_MODEL_MONITOR_TREE_H

#include <stddef.h>

/* The data types (file name prefixes), in msprobe's order. */
enum monitor_type {
    MT_ACTV, MT_ACTV_GRAD, MT_EXP_AVG, MT_EXP_AVG_SQ, MT_GRAD_UNREDUCED, MT_GRAD_REDUCED,
    MT_PARAM_ORIGIN, MT_PARAM_UPDATED, MT_OTHER, MT_COUNT
};
extern const char *const monitor_type_names[MT_COUNT];
/* The type called `name` (its length n), or -1. */
int monitor_type_of(const char *name, size_t n);

/* A time stamp %b%d_%H-%M-%S ("Nov25_01-23-20") as Python's strptime reads
 * it (year 1900, English month abbreviations in any case, one- or two-digit
 * fields): seconds since 1900-01-01 00:00:00, or -1 when it is none. */
long long monitor_time_parse(const char *s, size_t n);

typedef struct {
    char *name;         /* the directory name */
    char *path;
    long rank;
    long long time;     /* monitor_time_parse of its stamp */
} monitor_run;

typedef struct {
    monitor_run *v;
    size_t n, cap;
    /* names that look like run directories but whose stamp is no time */
    char **bad;
    size_t nbad, badcap;
} monitor_runs;

/* The run directories of `root` whose stamp lies in [t_start, t_end]
 * (inclusive; -1: no bound), one per rank, sorted by rank. When a rank has
 * several, the latest stamp wins (then the greater name); *dropped counts
 * the others. A run directory itself, given where the directory of runs is
 * expected, is the set of that one run. 0 or -1. */
int monitor_runs_find(const char *root, long long t_start, long long t_end, monitor_runs *out, size_t *dropped);
/* Why `root` gave no run directory, as the rest of a message that names
 * root: none in the time window (windowed: one was given, and runs lie
 * outside it), the anomaly_detected directory given, the runs one level
 * further down ("... but ROOT/monitor_output does: -m takes that
 * directory", `option` being how the command takes it), or simply none.
 * malloc'ed. */
char *monitor_runs_absent(const char *root, int windowed, const char *option);
void monitor_runs_free(monitor_runs *r);

typedef struct {
    int type;           /* enum monitor_type */
    long long start, end;   /* the steps in its name */
    char *name;
    char *path;
} monitor_file;

typedef struct {
    monitor_file *v;
    size_t n, cap;
} monitor_files;

/* The csv files of a run directory named exactly {type}_{start}-{end}.csv
 * for the types whose bit is set in `types` (1 << type), sorted by type,
 * then start step. Other files are left alone. 0 or -1. */
int monitor_files_find(const char *run_dir, unsigned types, monitor_files *out);
void monitor_files_free(monitor_files *f);

#endif
