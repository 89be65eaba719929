/* nearest.h - the one "did you mean" rule of gpulab: the edit distance between
 * two names and a search for the known name nearest to a typed one. Parameters,
 * config keys, families, variants and choices all suggest through it.
 * Must not know which names exist: callers offer them. */
#ifndef GL_NEAREST_H
#define GL_NEAREST_H

#ifdef __cplusplus
extern "C" {
#endif

/* Levenshtein distance (on the first 255 bytes of each). */
int gl_edit_distance(const char *a, const char *b);

/* Case-insensitive distance of typed from known, or -1 when they are too far
 * apart to suggest: at most a third of the longer name may differ, or the
 * shorter (3+ characters) must be a prefix of the longer ('memory' -> 'mem'). */
int gl_near_distance(const char *typed, const char *known);

/* A search: init with the typed name, offer every known name, read best (NULL
 * when none is near). Ties keep the first offered. */
struct gl_nearest {
    const char *typed;
    const char *best;
    int dist;
};
void gl_nearest_init(struct gl_nearest *n, const char *typed);
/* Offer known; returns 1 when it became the best so far. */
int gl_nearest_offer(struct gl_nearest *n, const char *known);

#ifdef __cplusplus
}
#endif

#endif
