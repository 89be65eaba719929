/* cpuinfo.c - see cpuinfo.h. Reads /proc/cpuinfo and sysfs; fields it cannot
 * read stay 0 (stored as NULL). Must not time or run anything. */
#include "cpuinfo.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void read_model(char *buf, size_t len)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(buf, len, "unknown CPU");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon++;
                while (*colon == ' ' || *colon == '\t')
                    colon++;
                colon[strcspn(colon, "\n")] = '\0';
                snprintf(buf, len, "%s", colon);
            }
            break;
        }
    }
    fclose(f);
}

/* Size in KiB of cache index `idx` of cpu0 with the given level and type. */
static long cache_kb(int level, const char *type)
{
    for (int idx = 0; idx < 8; idx++) {
        char path[128], text[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", idx);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int lv = 0;
        if (fscanf(f, "%d", &lv) != 1)
            lv = 0;
        fclose(f);
        if (lv != level)
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", idx);
        f = fopen(path, "r");
        if (!f)
            continue;
        if (!fgets(text, sizeof text, f))
            text[0] = '\0';
        fclose(f);
        text[strcspn(text, "\n")] = '\0';
        if (strcmp(text, type) != 0)
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
        f = fopen(path, "r");
        if (!f)
            continue;
        long kb = 0;
        char unit = 'K';
        if (fscanf(f, "%ld%c", &kb, &unit) < 1)
            kb = 0;
        fclose(f);
        if (unit == 'M')
            kb *= 1024;
        return kb;
    }
    return 0;
}

void gl_cpu_describe(struct gl_device *d)
{
    char host[128];
    memset(d, 0, sizeof *d);
    snprintf(d->kind, sizeof d->kind, "cpu");
    read_model(d->name, sizeof d->name);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    d->cores = n > 0 ? (int)n : 0;
    d->l1d_kb = cache_kb(1, "Data");
    d->l2_kb = cache_kb(2, "Unified");
    d->l3_kb = cache_kb(3, "Unified");
    gl_hostname(host, sizeof host);
    snprintf(d->ident, sizeof d->ident, "%.60s/%.60s", host, d->name);
}
