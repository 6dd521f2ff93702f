/* The page of train_compare (train.h): placeholder replaced below. */
#include "train/train.h"

void train_page(const train_run *r, strbuf *sb)
{
    (void)r;
    sb_adds(sb, "<!doctype html>\n");
}
