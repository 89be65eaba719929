/* cpuinfo.h - describe the CPU the baselines run on (model, logical cores, cache
 * sizes) as a struct gl_device of kind "cpu". Must not time or run anything. */
#ifndef GL_CPUINFO_H
#define GL_CPUINFO_H

#include "gpulab.h"

void gl_cpu_describe(struct gl_device *d);

#endif
