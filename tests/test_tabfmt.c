/* test_tabfmt.c - src/store/tabfmt.c's JSON form on hostile text: invalid UTF-8 bytes
 * become U+FFFD, control characters and DEL are \u escapes, valid UTF-8 passes
 * through, so that `query --json` is always valid JSON in valid UTF-8.
 * Must not open a store (test_store.c covers the formats on query results). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tabfmt.h"
#include "t.h"

/* Valid UTF-8 (no overlong forms, surrogates or code points over U+10FFFF). */
static int valid_utf8(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; u[i];) {
        unsigned c = u[i];
        size_t n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        if (n == 0)
            return 0;
        unsigned cp = n == 1 ? c : c & (0x7F >> n);
        for (size_t k = 1; k < n; k++) {
            if ((u[i + k] & 0xC0) != 0x80)
                return 0;
            cp = cp << 6 | (u[i + k] & 0x3F);
        }
        if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
            (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
            return 0;
        i += n;
    }
    return 1;
}

/* The table printed as JSON; caller frees. */
static char *json_of(const struct gl_table *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int rc = gl_table_print(t, GL_FMT_JSON, f);
    fclose(f);
    if (rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static void test_json_text(void)
{
    const char *names[] = { "name", "bad\xFFkey" };
    struct gl_table t;
    CHECK(gl_table_init(&t, 2, names) == 0);
    static const char v1[] = "caf\xE9 \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80";   /* Latin-1 é, then UTF-8 */
    static const char v2[] = "\x1b[31m\x7f\x01\t\"\\";
    static const char v3[] = "\xC0\xAF|\xED\xA0\x80|\xE2\x82|\x80|\xF5\x80\x80\x80";
    CHECK(gl_table_add_text(&t, v1, sizeof v1 - 1) == 0);
    CHECK(gl_table_add_text(&t, v2, sizeof v2 - 1) == 0);
    CHECK(gl_table_add_text(&t, v3, sizeof v3 - 1) == 0);
    CHECK(gl_table_add_int(&t, 7) == 0);
    char *out = json_of(&t);
    CHECK(out != NULL);
    if (out) {
        CHECK(valid_utf8(out));
        for (const char *p = out; *p; p++)
            if ((unsigned char)*p < 0x20 && *p != '\n')
                CHECK(!"raw control byte in JSON");
        CHECK(strstr(out, "\"bad\xEF\xBF\xBDkey\": "));
        CHECK(strstr(out, "\"caf\xEF\xBF\xBD \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\""));
        CHECK(strstr(out, "\"\\u001b[31m\\u007f\\u0001\\t\\\"\\\\\""));
        /* one U+FFFD per bad byte */
        CHECK(strstr(out, "\"\xEF\xBF\xBD\xEF\xBF\xBD|\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD|"
                          "\xEF\xBF\xBD\xEF\xBF\xBD|\xEF\xBF\xBD|"
                          "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\""));
        CHECK(strstr(out, ": 7}"));
        if (t_failed)
            printf("  got [%s]\n", out);
    }
    free(out);
    gl_table_free(&t);
}

int main(void)
{
    test_json_text();
    return t_done("test_tabfmt");
}
