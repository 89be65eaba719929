/* search_space.h - a searched section's points as coordinates: one axis per
 * parameter the section sets (a zip group is one axis), in the product's
 * order, plus one for the variant when the section lists several. Each job of
 * the section (config.h: where-expressions already dropped points, check()
 * marked launches it refuses) is found by its coordinates; a coordinate
 * without a job was dropped by a `where`, one whose job has skip set was
 * rejected by check: neither is launchable, and the search never runs them.
 * Axes a variant does not read are 0 for its points (its jobs collapsed them).
 * Must not know the store or run anything. */
#ifndef GL_SEARCH_SPACE_H
#define GL_SEARCH_SPACE_H

#include "config.h"
#include "search_strategy.h"

struct gl_space {
    const struct gl_section *s;
    const struct gl_expansion *e;
    int si;
    int naxes;
    int len[GL_SEARCH_AXES];
    unsigned bits[GL_SEARCH_AXES];     /* parameter bits of each axis (GL_PBIT/GL_UBIT) */
    char name[GL_SEARCH_AXES][GL_UPARAM_NAME];   /* the axis's first parameter, or "variant" */
    int variant_axis;                  /* -1: one variant */
    unsigned long long vreads[GL_MAX_VARIANTS];  /* axes each variant reads (bit a) */
    long product;                      /* points of the product (times the variants) */
    long njobs;                        /* the section's jobs */
    int *job;                          /* their indices in e->jobs */
    long long *code;                   /* each job's coordinates, mixed radix, sorted */
    int *code_job;                     /* the job of code[i] */
    long nfeasible;                    /* launchable (not rejected by check) */
    int *feasible;                     /* their job indices */
    long nrejected;                    /* rejected by check */
    unsigned char *met;                /* per job index: a rejected job the search met */
    long nmet;                         /* how many */
    long long stride[GL_SEARCH_AXES];
    struct gl_space_view view;         /* what the strategy sees */
};

/* The space of section si of config c, expanded into e. 0, or -1 (out of memory). */
int gl_space_build(struct gl_space *sp, const struct gl_config *c, int si,
                   const struct gl_expansion *e);
/* The job index at coords (-1: dropped by a where, or not a point). */
int gl_space_job(const struct gl_space *sp, const int *coords);
/* The coordinates of job ji of e. */
void gl_space_coords(const struct gl_space *sp, int ji, int *coords);
/* "M=4 P=9" style: the axes and their lengths ("M 12, P 12, variant 2"). */
void gl_space_describe(const struct gl_space *sp, char *buf, size_t len);
void gl_space_free(struct gl_space *sp);

#endif
