/* test_params.c - the parameter table and its accessors (src/params.c): names,
 * columns, limits, set/unset, text choices, masking, formatting, edit distance and
 * the "did you mean" rule. Must not depend on configs or the registry. */
#include <string.h>

#include "params.h"
#include "nearest.h"
#include "t.h"

static void test_table(void)
{
    static const char *const names[] = { "N", "M", "P", "BS", "K", "R", "G", "threads", "seed",
                                         "mem", "grid", "cache" };
    static const char *const cols[] = { "n", "m", "p", "bs", "k", "r", "g", "threads", "seed",
                                        "mem", "grid", "cache" };
    for (int i = 0; i < GL_NPARAMS; i++) {
        CHECK((int)gl_param_table[i].id == i);
        CHECK_STR(gl_param_table[i].name, names[i]);
        CHECK_STR(gl_param_table[i].column, cols[i]);
        CHECK(gl_param_table[i].desc && gl_param_table[i].desc[0]);
        CHECK(gl_param_by_name(names[i]) == &gl_param_table[i]);
        CHECK((gl_param_table[i].is_text != 0) == (i >= GL_P_MEM));
        CHECK((gl_param_table[i].choices != NULL) == (i >= GL_P_MEM));
    }
    CHECK(gl_param_table[GL_P_N].min == 1);
    CHECK(gl_param_table[GL_P_BS].min == 1);
    CHECK(gl_param_table[GL_P_R].min == 1);
    CHECK(gl_param_table[GL_P_G].min == 0);
    CHECK(gl_param_table[GL_P_THREADS].min == 0);
    CHECK(gl_param_table[GL_P_SEED].min == 0);
    CHECK_STR(gl_param_table[GL_P_MEM].choices[1], "zerocopy");
    CHECK(gl_param_table[GL_P_GRID].choices[3] == NULL);
    CHECK(gl_param_by_name("bs") == NULL);   /* exact, case-sensitive */
    CHECK(gl_param_by_name("") == NULL);
    CHECK(gl_param_by_name("radius") == NULL);
}

static void test_distance(void)
{
    CHECK(gl_edit_distance("kitten", "sitting") == 3);
    CHECK(gl_edit_distance("", "abc") == 3);
    CHECK(gl_edit_distance("abc", "") == 3);
    CHECK(gl_edit_distance("same", "same") == 0);
    CHECK(gl_edit_distance("a", "A") == 1);   /* case-sensitive; nearest() lowers case */
    CHECK(gl_edit_distance("flaw", "lawn") == 2);
    CHECK(gl_edit_distance("variants", "varients") == 1);
}

static void test_nearest(void)
{
    const char *s;
    CHECK((s = gl_param_nearest("Bs")) && strcmp(s, "BS") == 0);
    CHECK((s = gl_param_nearest("bs")) && strcmp(s, "BS") == 0);
    CHECK((s = gl_param_nearest("n")) && strcmp(s, "N") == 0);
    CHECK((s = gl_param_nearest("threds")) && strcmp(s, "threads") == 0);
    CHECK((s = gl_param_nearest("Seed")) && strcmp(s, "seed") == 0);
    CHECK((s = gl_param_nearest("memory")) && strcmp(s, "mem") == 0);
    CHECK((s = gl_param_nearest("grd")) && strcmp(s, "grid") == 0);
    CHECK(gl_param_nearest("radius") == NULL);
    CHECK(gl_param_nearest("xyzzy") == NULL);
    CHECK(gl_param_nearest("X") == NULL);   /* one letter off a one-letter name is not close */
}

static void test_accessors(void)
{
    struct gl_params p;
    gl_params_init(&p);
    for (int i = 0; i < GL_NPARAMS; i++)
        CHECK(!gl_params_is_set(&p, (enum gl_param_id)i));
    CHECK(gl_params_get(&p, GL_P_N) == GL_UNSET);
    CHECK(p.seed == GL_UNSET && p.threads == GL_UNSET);
    CHECK_STR(gl_params_get_text(&p, GL_P_MEM), "");
    CHECK(gl_params_get(&p, GL_P_MEM) == GL_UNSET);   /* text params have no integer value */

    gl_params_set(&p, GL_P_N, 2048);
    gl_params_set(&p, GL_P_BS, 16);
    gl_params_set(&p, GL_P_G, 0);
    CHECK(p.n == 2048 && gl_params_get(&p, GL_P_N) == 2048);
    CHECK(p.bs == 16 && gl_params_is_set(&p, GL_P_BS));
    CHECK(gl_params_is_set(&p, GL_P_G));   /* 0 is a value, not unset */
    gl_params_set(&p, GL_P_MEM, 5);        /* ignored for text params */
    CHECK(!gl_params_is_set(&p, GL_P_MEM));

    CHECK(gl_params_set_text(&p, GL_P_MEM, "zerocopy") == 0);
    CHECK_STR(p.mem, "zerocopy");
    CHECK(gl_params_is_set(&p, GL_P_MEM));
    CHECK(gl_params_set_text(&p, GL_P_MEM, "gpu") == -1);
    CHECK_STR(p.mem, "zerocopy");          /* unchanged on error */
    CHECK(gl_params_set_text(&p, GL_P_GRID, "block") == 0);
    CHECK(gl_params_set_text(&p, GL_P_CACHE, "hot") == -1);
    CHECK(gl_params_set_text(&p, GL_P_N, "1") == -1);
    /* zero-filled: equal parameters compare equal byte for byte */
    struct gl_params a, b;
    gl_params_init(&a);
    gl_params_init(&b);
    gl_params_set_text(&a, GL_P_MEM, "zerocopy");
    gl_params_set_text(&a, GL_P_MEM, "device");
    gl_params_set_text(&b, GL_P_MEM, "device");
    CHECK(memcmp(&a, &b, sizeof a) == 0);
    CHECK(gl_params_set_text(&a, GL_P_MEM, "") == 0 && !gl_params_is_set(&a, GL_P_MEM));

    gl_params_mask(&p, GL_PBIT(GL_P_N) | GL_PBIT(GL_P_MEM));
    CHECK(p.n == 2048 && p.bs == GL_UNSET && p.g == GL_UNSET);
    CHECK_STR(p.mem, "zerocopy");
    CHECK_STR(p.grid, "");
}

static void test_format(void)
{
    struct gl_params p;
    char buf[128];
    gl_params_init(&p);
    gl_params_format(&p, buf, sizeof buf);
    CHECK_STR(buf, "");
    gl_params_set_text(&p, GL_P_MEM, "device");
    gl_params_set(&p, GL_P_BS, 16);
    gl_params_set(&p, GL_P_N, 2048);
    gl_params_format(&p, buf, sizeof buf);
    CHECK_STR(buf, "N=2048 BS=16 mem=device");   /* table order, not call order */
    gl_params_set(&p, GL_P_THREADS, 8);
    gl_params_set_text(&p, GL_P_CACHE, "warm");
    gl_params_format(&p, buf, sizeof buf);
    CHECK_STR(buf, "N=2048 BS=16 threads=8 mem=device cache=warm");
    char small[10];
    memset(small, 'x', sizeof small);
    gl_params_format(&p, small, sizeof small);
    CHECK(strlen(small) < sizeof small);
    CHECK(strncmp(small, "N=2048", 6) == 0);
}

int main(void)
{
    test_table();
    test_distance();
    test_nearest();
    test_accessors();
    test_format();
    return t_done("test_params");
}
