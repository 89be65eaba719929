/* dup_plugin.c - a plugin that declares a variant the built-in CPU plugin
 * already has (vecadd/seq): gpulab must refuse it and name both files
 * (tests/integration/plugins.sh). */
#include "plugin.h"

static int run(const struct gl_variant *v, const struct gl_params *p, const struct gl_timing *t,
               struct gl_result *r)
{
    (void)v;
    (void)p;
    (void)t;
    r->status = GL_FAILED;
    return 0;
}

static const struct gl_variant variants[] = {
    { "vecadd", "seq", "cpu", "a second vecadd/seq", GL_PBIT(GL_P_N), NULL, NULL, NULL, run,
      NULL },
};

static const struct gl_plugin plugin = { GL_PLUGIN_API, "dup", 1, variants, NULL, NULL };

const struct gl_plugin *gpulab_plugin(const struct gl_host *host)
{
    (void)host;
    return &plugin;
}
