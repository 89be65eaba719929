/* cpu_plugin.c - the one symbol of build/libgpulab_cpu.so: gpulab_plugin(),
 * the CPU baselines of every family as one plugin (src/core/plugin.h) for the
 * host CPU (no device operations), and the host function it provides to
 * users' plugins: gl_host.cpu_execute (cpu_host.c). The rows themselves are
 * declared next to their baselines; this file only puts the families' tables
 * end to end.
 * Must not declare a variant, nor need anything but the host CPU to load. */

#include "cpu.h"
#include "family.h"
#include "cpu_harness.h"

/* Each family's table, in the order `gpulab list` shows them. */
static const struct gl_family_table tables[] = {
    { gl_cpu_matmul_variants, &gl_cpu_matmul_nvariants },
    { gl_cpu_stencil_variants, &gl_cpu_stencil_nvariants },
    { gl_cpu_vecadd_variants, &gl_cpu_vecadd_nvariants },
};

#define CPU_MAX_VARIANTS 64

static struct gl_variant variants[CPU_MAX_VARIANTS];
static struct gl_plugin plugin;
static const struct gl_host provides = { GL_HOST_API, gl_cpu_host_execute, NULL };

/* Built on the first call (the driver calls it once, from one thread, at load).
 * NULL only if the tables outgrow CPU_MAX_VARIANTS; the loader reports it.
 * host: unused (this plugin is one of the host's). */
const struct gl_plugin *gpulab_plugin(const struct gl_host *host)
{
    (void)host;
    if (plugin.api == GL_PLUGIN_API)
        return &plugin;
    int n = gl_join_tables(tables, (int)(sizeof tables / sizeof tables[0]), variants, CPU_MAX_VARIANTS);
    if (n < 0)
        return NULL;
    plugin.name = "cpu";
    plugin.nvariants = n;
    plugin.variants = variants;
    plugin.device = NULL;
    plugin.provides = &provides;
    plugin.api = GL_PLUGIN_API;
    return &plugin;
}
