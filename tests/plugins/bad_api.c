/* bad_api.c - a plugin built for another plugin API (1): gpulab must refuse it
 * with "built for plugin API 1, this gpulab is N" (N = GL_PLUGIN_API;
 * tests/integration/plugins.sh). */
#include "plugin.h"

static const struct gl_plugin plugin = { 1, "old", 0, NULL, NULL, NULL };

const struct gl_plugin *gpulab_plugin(const struct gl_host *host)
{
    (void)host;
    return &plugin;
}
