/* The config_check family: what the command line decided, and the three
 * jobs it runs (spec/configcheck.md §A, §B). */
#ifndef MSP_CC_H
#define MSP_CC_H

enum { CC_FMT_AUTO = -1, CC_FMT_JSON = 2 }; /* besides TABLE_CSV and TABLE_XLSX */

typedef struct {
    const char *out;    /* -o as given, or the mode's default */
    int format;         /* TABLE_XLSX, TABLE_CSV, CC_FMT_JSON */
    int framework;      /* 'p' or 'm' (-f), 'p' when not given */
    int jobs;
    int force;          /* --force: replace an existing pack or checkpoint result */
} cc_opts;

/* -c BENCH.zip CMP.zip: result.xlsx in o->out. 0 or -1. */
int cc_compare_packs(const cc_opts *o, const char *bench, const char *cmp);

/* -d FILE...: the static pack o->out. 0 or -1. */
int cc_pack(const cc_opts *o, char **files, int nfiles);

/* -c CKPT1 CKPT2: ckpt_similarity.json (or csv / xlsx). 0 or -1. */
int cc_compare_ckpt(const cc_opts *o, const char *ckpt1, const char *ckpt2);

#endif
