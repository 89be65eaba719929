/* profiler_configs.c - the metric configurations a worker has built, kept (up
 * to GLC_CONFIGS, the least recently used goes) so that a set met again takes
 * its images without validation or build. Calls nothing of the engine but its
 * state (profiler_common.c) and the host shim; must not start a session or a
 * range profiler object (profiler_setup.c and profiler_batch.c do). */
#include "profiler_int.h"

#include <string.h>

/* A sweep switches between a few metric sets (a section's own `metrics`, the
 * default); each one's validation and images (a host object and a configuration
 * image per range mode: tens to hundreds of ms) are made once and kept until
 * glc_shutdown. */
#define GLC_CONFIGS 8

static struct cfg_entry {
    int id;                    /* > 0; 0 = free slot */
    long used;                 /* last use (a counter), for eviction */
    int n, drain, smem_want;
    char names[GL_MAX_METRICS][GL_METRIC_NAME];
    int stored[GL_MAX_METRICS];
    struct mode_config mode[2];
} cache[GLC_CONFIGS];
static int next_id = 1;
static long use_clock;

static int same_request(const struct cfg_entry *e)
{
    if (e->id == 0 || e->n != glc_st.n || e->drain != glc_st.drain ||
        e->smem_want != glc_st.smem_want)
        return 0;
    for (int i = 0; i < e->n; i++)
        if (e->stored[i] != glc_st.stored[i] || strcmp(e->names[i], glc_st.names[i]) != 0)
            return 0;
    return 1;
}

static void entry_free(struct cfg_entry *e)
{
    for (int m = 0; m < 2; m++) {
        glh_destroy(e->mode[m].host);
        free(e->mode[m].config);
    }
    memset(e, 0, sizeof *e);
}

int glc_config_take(void)
{
    for (int i = 0; i < GLC_CONFIGS; i++)
        if (same_request(&cache[i])) {
            cache[i].used = ++use_clock;
            glc_st.mode[MODE_AUTO] = cache[i].mode[MODE_AUTO];
            glc_st.mode[MODE_USER] = cache[i].mode[MODE_USER];
            glc_st.mode_owned = 0;
            glc_st.cur_cfg = cache[i].id;
            return 1;
        }
    return 0;
}

void glc_config_keep(void)
{
    struct cfg_entry *e = &cache[0];
    for (int i = 0; i < GLC_CONFIGS; i++) {
        if (cache[i].id == 0) {
            e = &cache[i];
            break;
        }
        if (cache[i].used < e->used)
            e = &cache[i];
    }
    if (e->id != 0 && e->id == glc_st.object_cfg)
        glc_st.object_cfg = -2;   /* its object's configuration is gone: a fresh one */
    entry_free(e);
    e->id = next_id++;
    e->used = ++use_clock;
    e->n = glc_st.n;
    e->drain = glc_st.drain;
    e->smem_want = glc_st.smem_want;
    memcpy(e->names, glc_st.names, sizeof e->names);
    memcpy(e->stored, glc_st.stored, sizeof e->stored);
    e->mode[MODE_AUTO] = glc_st.mode[MODE_AUTO];
    e->mode[MODE_USER] = glc_st.mode[MODE_USER];
    glc_st.mode_owned = 0;
    glc_st.cur_cfg = e->id;
}

void glc_config_cache_free(void)
{
    for (int i = 0; i < GLC_CONFIGS; i++)
        entry_free(&cache[i]);
    next_id = 1;
    use_clock = 0;
}

