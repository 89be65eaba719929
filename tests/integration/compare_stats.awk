# tests/integration/compare_stats.awk - `gpulab compare`'s statistics computed a
# second way, in awk (plain doubles, as POSIX awk has), from the raw samples:
# L'Ecuyer's MRG32k3a seeded from (seed, the point's key), the percentile
# bootstrap of median(B) / median(A), the noise floor from each run's halves,
# the verdict band and the geometric mean with its joint interval, exactly as
# src/core/compare.h describes them. Used by tests/integration/compare.sh.
# Input: one line per point, tab-separated: key, then A's samples and B's
# samples, each a space-separated list in the order taken. Variables: R
# (resamples), SEED, T (the threshold; < 0: the noise floor). Output, one line
# per point: key, ratio, lo, hi, verdict (%.17g); then "noise_floor X" and
# "geomean G LO HI". Must not know gpulab's code: only the documented method.
BEGIN {
    FS = "\t"
    M1 = 4294967087; M2 = 4294944443
    A12 = 1403580; A13N = 810728; A21 = 527612; A23N = 1370589
    NORM = 2.328306549295727688e-10
    HMOD = 2147483647
    for (i = 32; i < 127; i++) ORD[sprintf("%c", i)] = i
    ALPHA = (1.0 - 0.95) / 2.0
    MINS = 4
}
function hash(s,    h, i) {
    h = 0
    for (i = 1; i <= length(s); i++) h = (h * 31 + ORD[substr(s, i, 1)]) % HMOD
    return h
}
function seed(key,    s, h, i) {
    s = SEED % HMOD; h = hash(key)
    S10 = s; S11 = h; S12 = 12345
    S20 = h; S21 = s; S22 = 12345
    for (i = 0; i < 10; i++) u()
}
function u(    p1, p2, k) {
    p1 = A12 * S11 - A13N * S10
    k = int(p1 / M1); p1 -= k * M1; if (p1 < 0) p1 += M1
    S10 = S11; S11 = S12; S12 = p1
    p2 = A21 * S22 - A23N * S20
    k = int(p2 / M2); p2 -= k * M2; if (p2 < 0) p2 += M2
    S20 = S21; S21 = S22; S22 = p2
    return p1 <= p2 ? (p1 - p2 + M1) * NORM : (p1 - p2) * NORM
}
# median of arr[1..n] (sorts a copy)
function median(arr, n,    c, i, j, t) {
    for (i = 1; i <= n; i++) c[i] = arr[i]
    for (i = 2; i <= n; i++) { t = c[i]; for (j = i - 1; j >= 1 && c[j] > t; j--) c[j + 1] = c[j]; c[j + 1] = t }
    return n % 2 ? c[(n + 1) / 2] : 0.5 * (c[n / 2] + c[n / 2 + 1])
}
function sortn(arr, n,    i, j, t) {
    for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j + 1] = arr[j]; arr[j + 1] = t }
}
function quant(arr, n, p,    h, i) {   # arr[1..n] sorted; position (n-1)p from 0
    h = (n - 1) * p; i = int(h)
    if (i >= n - 1) return arr[n]
    return arr[i + 1] + (h - i) * (arr[i + 2] - arr[i + 1])
}
# bootstrap of median(b)/median(a): sets BR, BLO, BHI; replicates in REP[1..R] (drawn order)
function boot(a, na, b, nb,    r, i, ra, rb, s, ma, mb) {
    BR = median(b, nb) / median(a, na)
    for (r = 1; r <= R; r++) {
        for (i = 1; i <= na; i++) s[i] = a[int(u() * na) + 1]
        ma = median(s, na)
        for (i = 1; i <= nb; i++) s[i] = b[int(u() * nb) + 1]
        mb = median(s, nb)
        REP[r] = mb / ma
    }
    for (r = 1; r <= R; r++) sr[r] = REP[r]
    sortn(sr, R)
    BLO = quant(sr, R, ALPHA); BHI = quant(sr, R, 1.0 - ALPHA)
}
function reach(x, n, key,    h, i, f, g, l, v) {
    if (n < MINS) return -1
    h = int(n / 2)
    for (i = 1; i <= h; i++) { f[i] = x[i]; g[i] = x[n - h + i] }
    seed(key)
    boot(f, h, g, h)
    l = log(BLO); if (l < 0) l = -l
    v = log(BHI); if (v < 0) v = -v
    return l > v ? l : v
}
{
    np++
    KEY[np] = $1
    na = split($2, a, " "); nb = split($3, b, " ")
    NA[np] = na; NB[np] = nb
    seed($1)
    boot(a, na, b, nb)
    RATIO[np] = BR; LO[np] = BLO; HI[np] = BHI
    for (r = 1; r <= R; r++) ALLREP[np, r] = REP[r]
    x = reach(a, na, $1 " #A"); if (x >= 0) RE[++nre] = x
    x = reach(b, nb, $1 " #B"); if (x >= 0) RE[++nre] = x
}
END {
    t = T
    if (t < 0) {
        sortn(RE, nre)
        k = int(0.95 * nre); if (k < 0.95 * nre) k++
        if (k < 1) k = 1
        t = exp(RE[k]) - 1
    }
    for (p = 1; p <= np; p++) {
        up = 1.0 + t; down = 1.0 / (1.0 + t)
        v = "unsure"
        if (LO[p] > up) v = "slower"
        else if (HI[p] < down) v = "faster"
        else if (LO[p] >= down && HI[p] <= up) v = "same"
        if (NA[p] < MINS || NB[p] < MINS) v = "unsure"
        printf "%s\t%.17g\t%.17g\t%.17g\t%s\n", KEY[p], RATIO[p], LO[p], HI[p], v
        s += log(RATIO[p])
    }
    printf "noise_floor\t%.17g\n", t
    for (r = 1; r <= R; r++) {
        g = 0
        for (p = 1; p <= np; p++) g += log(ALLREP[p, r])
        G[r] = exp(g / np)
    }
    sortn(G, R)
    printf "geomean\t%.17g\t%.17g\t%.17g\n", exp(s / np), quant(G, R, ALPHA), quant(G, R, 1.0 - ALPHA)
}
