#include "monitor/data2db/monitor2trend.h"
#include "base/mem.h"
int monitor2trend_run(const monitor2trend_opts *o, out_run *outputs, char **why)
{
    *why = xstrdup("todo");
    return 1;
}
