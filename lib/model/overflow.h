/* msprobe's per-API anomaly scenes (spec/analyzers.md §B, the
 * AnomalyDetector of core/overflow_check): what one dump.json entry says
 * about NaN/Inf, looked at on its own.
 *
 *   scene                              level     when
 *   InputNormalOutputAnomalyScene      critical  clean inputs, NaN/Inf out
 *   InputAnomalyOutputAnomalyScene     high      NaN/Inf in and out
 *   InputAnomalyOutputNormalScene      medium    NaN/Inf in, clean out
 *   NumericalMutationScene             high      max output Norm > 100 x max input Norm
 *
 * The first scene that matches is the entry's; a shipped rule table then
 * drops scenes where NaN/Inf is expected (uninitialised buffers: torch.empty
 * outputs, a recv's input buffer, ...). `nan_analyze --all` lists the scenes
 * of every entry; `graph` marks its nodes with their levels.
 *
 * A tensor statistic is anomalous when Max, Min or Mean is NaN or +-inf
 * (a JSON NaN/Infinity token or the text "nan", "inf", "-inf" in any case;
 * Norm does not count). Arguments are looked into through nested lists, as
 * msprobe does (up to 10 levels; deeper ones count as clean, where msprobe
 * raises); a dict argument is looked at on its own keys only.
 *
 * Where msprobe raises on odd input, these functions take the reading that
 * does not: a Norm that is text is no norm, input_kwargs that are not a dict
 * are none. */
#ifndef MSP_OVERFLOW_H
#define MSP_OVERFLOW_H

#include "base/value.h"

#include <stddef.h>
#include <stdint.h>

enum ovf_scene {
    OVF_NONE = 0,
    OVF_INPUT_NORMAL_OUTPUT_ANOMALY,
    OVF_INPUT_ANOMALY_OUTPUT_ANOMALY,
    OVF_INPUT_ANOMALY_OUTPUT_NORMAL,
    OVF_NUMERICAL_MUTATION,
};

/* In msprobe's OverflowLevel order. */
enum ovf_level { OVF_LEVEL_NONE = 0, OVF_MEDIUM, OVF_HIGH, OVF_CRITICAL };

#define OVF_MUTATION_THRESHOLD 100.0

/* msprobe's APIInfo of an entry: input_args (else input, else []),
 * input_kwargs ({} if absent), output ([] if absent). A member present but
 * of another type is kept as it is; NULL stands for the empty default. */
typedef struct {
    const jval *args, *kwargs, *outputs;
} ovf_api;

void ovf_api_of(const jval *entry, ovf_api *api);

/* The scene of an entry (a dump.json data value), before the ignore rules. */
int ovf_scene_of(const ovf_api *api);
/* Does a shipped ignore rule drop this entry's scene? `name` is the entry's
 * name (Torch.empty.0.forward -> rule torch.empty). */
int ovf_ignored(const char *name, const ovf_api *api);
/* Both: the scene msprobe reports for the entry after filter(); OVF_NONE
 * when none or dropped. */
int ovf_classify(const char *name, const jval *entry);

int ovf_scene_level(int scene);
const char *ovf_scene_name(int scene);    /* "InputNormalOutputAnomalyScene" */
const char *ovf_level_name(int level);    /* "critical", "high", "medium" */

/* A value's anomaly (_has_anomaly): a dict by its Max/Min/Mean, a list by
 * any element (10 levels deep at most), anything else clean. */
int ovf_value_anomalous(const jval *v);
/* Only the dict test (has_nan_inf), as the ignore rules use it. */
int ovf_stats_anomalous(const jval *v);

/* Is a JSON value NaN or +-inf as str(v).lower() spells it: a NaN or
 * infinite number, or the text nan/inf/-inf in any case ("inf\t" too when
 * `tab_too`, as nan_analyze's OVERFLOW_LIST has it)? */
int ovf_is_nan_inf(const jval *v, int tab_too);

#endif
