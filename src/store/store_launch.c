/* store_launch.c - a launch sequence's rows (kernel sections with launch.NAME
 * lines): one `launch` row per launch of the run (its order, launch line,
 * kernel as compiled, loop value, grid, block, dynamic shared memory) and one
 * `launch_metric` row per launch and counter measured for that launch alone
 * (the run's own `metric` rows stay the whole run's). Written with the run, in
 * its transaction (store_run.c).
 * Must not decide what was measured: a value that is not a finite number has
 * no row, as in `metric`. */
#include "store_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int store_launches(gl_store *s, long long run_id, const struct gl_result *r)
{
    if (r->nlaunch <= 0)
        return 0;
    if (r->nlaunch > GL_MAX_LAUNCHES || r->nlaunch_items < 0 || r->nlaunch_items > GL_LAUNCH_ITEMS ||
        r->nlaunch_profiled < 0 || r->nlaunch_profiled > GL_MAX_LAUNCH_PROFILED ||
        r->nlaunch_profiled > r->nlaunch) {
        store_err(s, "storing a result: %d launches, %d launch lines, %d profiled (out of range)",
                  r->nlaunch, r->nlaunch_items, r->nlaunch_profiled);
        return -1;
    }
    for (int i = 0; i < r->nlaunch; i++) {
        const struct gl_launch_row *l = &r->launch[i];
        const struct gl_launch_item *it = l->item >= 0 && l->item < r->nlaunch_items
                                          ? &r->launch_item[l->item] : NULL;
        struct row w;
        row_init(&w);
        row_int(&w, "run_id", run_id);
        row_int(&w, "idx", i);
        row_text_empty(&w, "name", it ? it->label : "?");
        row_text_empty(&w, "kernel", it ? it->kernel : "?");
        row_int(&w, "iter", l->iter);
        row_int(&w, "grid_x", l->grid[0]);
        row_int(&w, "grid_y", l->grid[1]);
        row_int(&w, "grid_z", l->grid[2]);
        row_int(&w, "block_x", l->block[0]);
        row_int(&w, "block_y", l->block[1]);
        row_int(&w, "block_z", l->block[2]);
        row_int(&w, "dynamic_smem", l->dynamic_smem);
        if (row_insert(s, &s->launch_insert, "launch", &w, "", "storing a launch") != 0)
            return -1;
    }
    for (int i = 0; i < r->nlaunch_profiled; i++)
        for (int m = 0; m < r->nmetrics && m < GL_MAX_METRICS; m++) {
            double v = r->launch_values[i][m];
            if (!isfinite(v))
                continue;
            struct row w;
            row_init(&w);
            row_int(&w, "run_id", run_id);
            row_int(&w, "idx", i);
            row_textn(&w, "name", r->metrics[m].name, sizeof r->metrics[m].name);
            row_real(&w, "value", v);
            row_textn(&w, "unit", r->metrics[m].unit, sizeof r->metrics[m].unit);
            if (row_insert(s, &s->launch_metric_insert, "launch_metric", &w, "",
                           "storing a launch's metric") != 0)
                return -1;
        }
    return 0;
}
