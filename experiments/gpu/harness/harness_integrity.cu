/* harness_integrity.cu - what keeps a GPU run's timing from being gamed, at
 * fixed points of harness_measure.cu: the persisting-L2 lines reset before
 * every timed launch (a kernel, or a plugin's stream attribute, may set an
 * access-policy window that keeps its data in L2 across the flush); the last
 * timed sample, taken with the outputs poisoned again first (untimed, with the
 * flush), so that the check after it sees what that launch wrote (a kernel that
 * computes once and then returns early is `wrong`); and the list of the checks
 * made (gl_result.integrity, stored as run.integrity; docs/measurement.md).
 * Must not allocate or free buffers, check outputs, or profile. */
#include "harness_int.cuh"

#include <stdio.h>
#include <string.h>

void gh_integrity_add(struct gl_result *r, const char *token)
{
    size_t used = strnlen(r->integrity, sizeof r->integrity);
    if (strstr(r->integrity, token))
        return;
    snprintf(r->integrity + used, sizeof r->integrity - used, "%s%s", used ? "," : "", token);
}

/* Lines marked persisting stay in L2 through the flush (it reads 2x the L2 in
 * normal lines). Nothing can persist while the set-aside is 0 (the default), so
 * only then is it reset: cudaCtxResetPersistingL2Cache makes every line normal
 * again. A GPU without persisting L2 reports the limit as unsupported: nothing
 * to reset there either. 1, or 0 with j->r failed. */
int gh_l2_persist_reset(struct gh_job *j)
{
    size_t setaside = 0;
    cudaError_t e = cudaDeviceGetLimit(&setaside, cudaLimitPersistingL2CacheSize);
    if (e == cudaErrorUnsupportedLimit || e == cudaErrorNotSupported) {
        (void)cudaGetLastError();
        return 1;
    }
    if (!gh_ok(j->r, e, "cudaDeviceGetLimit(persisting L2)"))
        return 0;
    if (setaside > 0 && !gh_ok(j->r, cudaCtxResetPersistingL2Cache(), "cudaCtxResetPersistingL2Cache"))
        return 0;
    return 1;
}

/* The checks every GPU run of the harness is made under (GL_INTEGRITY_*). */
void gh_integrity_note(struct gh_job *j)
{
    gh_integrity_add(j->r, GL_INTEGRITY_POISON_FIRST);
    gh_integrity_add(j->r, GL_INTEGRITY_POISON_LAST);
    if (j->cold)
        gh_integrity_add(j->r, GL_INTEGRITY_L2_FLUSH);
    gh_integrity_add(j->r, GL_INTEGRITY_L2_PERSIST);
}
