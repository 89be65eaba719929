/* registry.h - every variant gpulab can run, as the loaded plugins declare them
 * (src/core/plugin.h): the built-in CPU baselines and GPU kernels from build/,
 * and any plugin named on the command line (--plugin). Lookup by family and
 * name, "did you mean", each variant's origin, the device operations of the
 * GPU plugin, and the host functions (struct gl_host) handed to every plugin.
 * Must not declare variants itself (each is declared once, in its plugin), run
 * anything, or call a device operation: the worker does that. */
#ifndef GL_REGISTRY_H
#define GL_REGISTRY_H

#include <stddef.h>

#include "params.h"
#include "plugin.h"

#define GL_MAX_VARIANTS_ALL 256
#define GL_MAX_PLUGINS 16

/* Load the built-in plugins from dir (libgpulab_cpu.so, libgpulab_gpu.so),
 * unless already loaded. The CPU plugin must load (-1 + err); a GPU plugin that
 * does not load leaves its variants out and says why in gl_registry_gpu_why().
 * 0, or -1 with err. Environment: GPULAB_PLUGIN overrides the GPU plugin's path. */
int gl_registry_load(const char *dir, char *err, size_t errlen);
/* Add a plugin from a shared object: 0, or -1 with err (not loadable, no
 * gpulab_plugin symbol, another GL_PLUGIN_API, a variant named twice, naming
 * both origins; a GPU variant while no plugin has GPU device operations).
 * gpulab_plugin() is handed gl_registry_host(). */
int gl_registry_add_file(const char *path, char *err, size_t errlen);
/* The same for a user's plugin (--plugin PATH), after the built-in ones: its
 * variants' runs carry the SHA-256 of the file as their code hash. */
int gl_registry_add_user(const char *path, char *err, size_t errlen);
/* Add a plugin already in memory (tests). 0, or -1 with err. */
int gl_registry_add(const struct gl_plugin *pl, const char *origin, char *err, size_t errlen);

/* The host functions every plugin is handed: those the loaded built-in
 * plugins provide (gpu_execute NULL without a GPU plugin). */
const struct gl_host *gl_registry_host(void);

int gl_registry_count(void);
const struct gl_variant *gl_registry_at(int i);
/* The GPU's operations (from the plugin that declares GPU variants), or NULL. */
const struct gl_device_ops *gl_registry_gpu(void);
/* Why no GPU plugin is loaded ("" when one is). */
const char *gl_registry_gpu_why(void);

/* The path of the user's plugin (--plugin) that declares v, or NULL for a
 * built-in variant; the SHA-256 (hex) of that file, or NULL: part of the
 * resume key of v's runs (a rebuilt plugin runs its points again). */
const char *gl_variant_origin(const struct gl_variant *v);
const char *gl_variant_code_hash(const struct gl_variant *v);

const struct gl_variant *gl_variant_find(const char *family, const char *name);
/* Nearest variant name within the family (for "did you mean"), or NULL. */
const char *gl_variant_nearest(const char *family, const char *name);
int gl_family_known(const char *family);
/* Nearest known family name, or NULL. */
const char *gl_family_nearest(const char *family);

/* Fill the defaults of the parameters the variant reads and the config left
 * unset (gl_params_complete), then drop those it does not read. */
void gl_variant_complete(const struct gl_variant *v, struct gl_params *p);

#endif
