/* The scenario of msprobe's nan_analyze unit test (test_nan_analyzer.py,
 * spec/analyzers.md §A.13): four ranks, each a sequence of compute ops and
 * p2p / collective communication ops, in four health variants. Shared by
 * the engine test (read the nan_analyze way) and the -da analyzer test
 * (written as compare results). */
#ifndef MSP_TEST_A13_H
#define MSP_TEST_A13_H

#include <string.h>

/* One op of msprobe's DumpDataBuilder: (name, type, src, dst, group). */
typedef struct {
    const char *name;        /* NULL: a compute op */
    const char *kind;        /* compute p2p_src p2p_dst p2g_src p2g_dst link */
    long src, dst;
    int group;               /* ranks 0-3 as a ProcessGroup */
} spec;

#define C {NULL, "compute", 0, 0, 0}
static const spec a13_order[4][14] = {
    {C, C, C, C, C, {"send", "p2p_src", 0, 1, 0}, {"recv", "p2p_dst", 1, 0, 0}, C, {"broadcast", "p2g_src", 0, 0, 1}, C,
     {"all_gather", "link", 0, 0, 0}, C, {"gather", "p2g_dst", 0, 0, 1}, C},
    {{"recv", "p2p_dst", 0, 0, 0}, C, C, {"send", "p2p_src", 0, 2, 0}, {"recv", "p2p_dst", 2, 0, 0}, C, C,
     {"send", "p2p_src", 0, 0, 0}, {"broadcast", "p2g_src", 0, 0, 1}, C, {"all_gather", "link", 0, 0, 0}, C,
     {"gather", "p2g_dst", 0, 0, 1}, C},
    {{"recv", "p2p_dst", 1, 0, 0}, C, C, {"send", "p2p_src", 0, 3, 0}, {"recv", "p2p_dst", 3, 0, 0}, C, C,
     {"send", "p2p_src", 0, 1, 0}, {"broadcast", "p2g_src", 0, 0, 1}, C, {"all_gather", "link", 0, 0, 0}, C,
     {"gather", "p2g_dst", 0, 0, 1}, C},
    {{"recv", "p2p_dst", 2, 0, 0}, C, C, C, {"send", "p2p_src", 0, 2, 0}, {"broadcast", "p2g_src", 0, 0, 1}, C,
     {"all_gather", "link", 0, 0, 0}, C, {"gather", "p2g_dst", 0, 0, 1}, C, C, C, C},
};
#undef C

/* How a generated op looks: compute ops have a clean input and an output
 * that is clean iff `normal`; comm ops have the two given. */
typedef struct {
    int normal, in_ok, out_ok;
} health;

enum scenario { NORMAL, PRE, ANOMALY, AFTER };

static inline health a13_health(enum scenario s, int rank, int i, int *start)
{
    health h = {1, 1, 1};
    switch (s) {
    case NORMAL: break;
    case PRE: h.normal = !(i == rank && (i == 0 || i == 1)); break;
    case ANOMALY:
        if (rank == 0) {
            if (i == 7)
                h.normal = 0;
            else if (i == 8)
                h.in_ok = h.out_ok = 0;
        } else if (a13_order[rank][i].name && !strcmp(a13_order[rank][i].name, "broadcast")) {
            *start = i;
            h.out_ok = 0;
        } else if (i > *start) {
            h.normal = h.in_ok = h.out_ok = 0;
        }
        break;
    case AFTER: h.normal = (rank != 2 || i != 13) && (rank != 3 || i != 11); break;
    }
    return h;
}

#endif
