/* nearest.c - see nearest.h. */
#include "nearest.h"

#include <ctype.h>
#include <string.h>

/* Two rows; names are short, so a fixed bound keeps this allocation-free. */
int gl_edit_distance(const char *a, const char *b)
{
    enum { MAXL = 255 };
    int prev[MAXL + 1], cur[MAXL + 1];
    size_t la = strlen(a), lb = strlen(b);
    if (la > MAXL)
        la = MAXL;
    if (lb > MAXL)
        lb = MAXL;
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int del = prev[j] + 1;
            int ins = cur[j - 1] + 1;
            int m = sub < del ? sub : del;
            cur[j] = m < ins ? m : ins;
        }
        memcpy(prev, cur, (lb + 1) * sizeof prev[0]);
    }
    return prev[lb];
}

static void lower_copy(char *dst, size_t len, const char *src)
{
    size_t i = 0;
    for (; src[i] && i + 1 < len; i++)
        dst[i] = (char)tolower((unsigned char)src[i]);
    dst[i] = '\0';
}

int gl_near_distance(const char *typed, const char *known)
{
    char a[256], b[256];
    lower_copy(a, sizeof a, typed);
    lower_copy(b, sizeof b, known);
    size_t la = strlen(a), lb = strlen(b);
    size_t longer = la > lb ? la : lb, shorter = la < lb ? la : lb;
    int d = gl_edit_distance(a, b);
    if ((size_t)d * 3 <= longer)
        return d;
    if (shorter >= 3 && strncmp(a, b, shorter) == 0)
        return d;
    return -1;
}

void gl_nearest_init(struct gl_nearest *n, const char *typed)
{
    n->typed = typed;
    n->best = NULL;
    n->dist = -1;
}

int gl_nearest_offer(struct gl_nearest *n, const char *known)
{
    int d = gl_near_distance(n->typed, known);
    if (d < 0 || (n->dist >= 0 && d >= n->dist))
        return 0;
    n->best = known;
    n->dist = d;
    return 1;
}
