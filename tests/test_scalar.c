/* test_scalar.c - a kernel section's scalar arguments (src/core/scalar.h):
 * floating expressions in double with real division, C's literals (decimal,
 * exponent, hexadecimal, an f suffix), the functions, the point's parameters,
 * one rounding to float, half and bfloat16 (ties to even), the range of each
 * type (overflow, a non-zero value rounding to 0, not a number), integers that
 * stay integers (division truncates) and the bytes the kernel receives. */
#include "t.h"

#include <float.h>
#include <math.h>
#include <stdint.h>

#include "scalar.h"

/* The value of `TYPE expr` at p; NAN (and the error printed) when it fails. */
static double val(int type, const char *expr, const struct gl_params *p)
{
    struct gl_scalar s;
    char err[300];
    if (gl_scalar_eval(type, expr, p, &s, err, sizeof err) != 0) {
        printf("  %s %s: %s\n", gl_ktype_name(type), expr, err);
        return NAN;
    }
    return gl_scalar_is_float(type) ? s.d : (double)s.i;
}

/* The error of `TYPE expr` at p ("" when it evaluates). */
static const char *why(int type, const char *expr, const struct gl_params *p)
{
    static char err[300];
    struct gl_scalar s;
    err[0] = '\0';
    if (gl_scalar_eval(type, expr, p, &s, err, sizeof err) == 0)
        return "";
    return err;
}

static void test_float_expressions(void)
{
    struct gl_params p;
    gl_params_init(&p);
    p.n = 1024;
    CHECK(gl_params_user_set(&p, "STEPS", 10) == 0);
    CHECK(val(GL_KT_DOUBLE, "0.5", &p) == 0.5);
    CHECK(val(GL_KT_DOUBLE, "1e-3", &p) == 1e-3);
    CHECK(val(GL_KT_DOUBLE, ".25", &p) == 0.25);
    CHECK(val(GL_KT_DOUBLE, "9/10", &p) == 0.9);           /* real division, not 0 */
    CHECK(val(GL_KT_DOUBLE, "1 - 0.9", &p) == 1 - 0.9);
    CHECK(val(GL_KT_DOUBLE, "1/sqrt(N)", &p) == 1.0 / 32);
    CHECK(val(GL_KT_DOUBLE, "-2.5 * (1 + 1)", &p) == -5.0);
    CHECK(val(GL_KT_DOUBLE, "0x1.8p-3", &p) == 0.1875);    /* hexadecimal float */
    CHECK(val(GL_KT_DOUBLE, "0x10", &p) == 16.0);
    CHECK(val(GL_KT_DOUBLE, "pow(2, 10) + exp(0) + log(1)", &p) == 1025.0);
    CHECK(val(GL_KT_DOUBLE, "min(N, 3) + max(0.5, 0.25)", &p) == 3.5);
    CHECK(val(GL_KT_DOUBLE, "1/STEPS", &p) == 0.1);         /* a named parameter */
    CHECK(val(GL_KT_DOUBLE, "0.1f", &p) == (double)0.1f);   /* C's float literal */
    CHECK(val(GL_KT_FLOAT, "0.1", &p) == (double)0.1f);     /* rounded once to float */
    CHECK(val(GL_KT_FLOAT, "1/3", &p) == (double)(1.0f / 3.0f));
    /* errors, with what is wrong */
    CHECK(strstr(why(GL_KT_FLOAT, "1/(N-1024)", &p), "division by zero"));
    CHECK(strstr(why(GL_KT_FLOAT, "sqrt(0-1)", &p), "square root of a negative"));
    CHECK(strstr(why(GL_KT_FLOAT, "log(0)", &p), "not positive"));
    CHECK(strstr(why(GL_KT_FLOAT, "sqrtt(N)", &p), "did you mean 'sqrt'"));
    CHECK(strstr(why(GL_KT_FLOAT, "STEP", &p), "did you mean 'STEPS'"));
    CHECK(strstr(why(GL_KT_FLOAT, "N % 3", &p), "'%' is for integers"));
    CHECK(strstr(why(GL_KT_FLOAT, "0.5.5", &p), "malformed number"));
    CHECK(strstr(why(GL_KT_FLOAT, "1e", &p), "malformed number"));
    CHECK(strstr(why(GL_KT_FLOAT, "pow(2)", &p), "two arguments"));
    CHECK(strstr(why(GL_KT_FLOAT, "(1", &p), "expected ')'"));
    CHECK(strstr(why(GL_KT_FLOAT, "", &p), "empty"));
    CHECK(strstr(why(GL_KT_FLOAT, "K", &p), "'K' is not set"));
}

static void test_rounding_and_range(void)
{
    struct gl_params p;
    gl_params_init(&p);
    /* half: 11 significant bits; 1 + 2^-11 lies halfway between 1 and 1 + 2^-10:
     * ties to even gives 1; 1 + 3 * 2^-11 rounds up to 1 + 2^-9 */
    CHECK(val(GL_KT_HALF, "0.25", &p) == 0.25);
    CHECK(val(GL_KT_HALF, "1 + pow(2, -11)", &p) == 1.0);
    CHECK(val(GL_KT_HALF, "1 + 3 * pow(2, -11)", &p) == 1.0 + ldexp(1, -9));
    CHECK(val(GL_KT_HALF, "0.1", &p) == 0.0999755859375);
    CHECK(val(GL_KT_HALF, "65504", &p) == 65504.0);
    CHECK(val(GL_KT_HALF, "pow(2, -24)", &p) == ldexp(1, -24));   /* the smallest subnormal */
    CHECK(strstr(why(GL_KT_HALF, "1e6", &p), "out of range for half (largest 65504)"));
    CHECK(strstr(why(GL_KT_HALF, "65520", &p), "out of range"));  /* rounds to infinity */
    CHECK(strstr(why(GL_KT_HALF, "1e-9", &p), "rounds to 0 in half"));
    CHECK(val(GL_KT_HALF, "0", &p) == 0.0);                       /* zero is no underflow */
    /* bfloat16: 8 significant bits, float's range */
    CHECK(val(GL_KT_BF16, "-2.5", &p) == -2.5);
    CHECK(val(GL_KT_BF16, "1 + pow(2, -8)", &p) == 1.0);           /* a tie: to even */
    CHECK(val(GL_KT_BF16, "1 + 3 * pow(2, -8)", &p) == 1.0 + ldexp(1, -6));
    CHECK(val(GL_KT_BF16, "1e30", &p) > 9.9e29);
    CHECK(strstr(why(GL_KT_BF16, "1e39", &p), "out of range for bfloat16"));
    CHECK(strstr(why(GL_KT_BF16, "1e-50", &p), "rounds to 0 in bfloat16"));
    /* float and double */
    CHECK(val(GL_KT_FLOAT, "3.4e38", &p) == (double)3.4e38f);
    CHECK(strstr(why(GL_KT_FLOAT, "1e39", &p), "out of range for float"));
    CHECK(strstr(why(GL_KT_FLOAT, "1e-50", &p), "rounds to 0 in float"));
    CHECK(strstr(why(GL_KT_DOUBLE, "exp(1000)", &p), "out of range for double"));
    CHECK(strstr(why(GL_KT_DOUBLE, "pow(0-8, 0.5)", &p), "not a number"));
    CHECK(strstr(why(GL_KT_DOUBLE, "1e400", &p), "too large for a double"));
}

static void test_integers(void)
{
    struct gl_params p;
    gl_params_init(&p);
    p.n = 1000;
    CHECK(val(GL_KT_INT, "N/3", &p) == 333);            /* integer division truncates */
    CHECK(val(GL_KT_INT, "-7/2", &p) == -3);
    CHECK(val(GL_KT_INT64, "N*N*N*N", &p) == 1e12);
    CHECK(val(GL_KT_UINT, "4294967295", &p) == 4294967295.0);
    CHECK(strstr(why(GL_KT_INT, "N*N*N*N", &p), "does not fit in int"));
    CHECK(strstr(why(GL_KT_UINT, "0-1", &p), "does not fit in uint"));
    CHECK(strstr(why(GL_KT_UINT64, "0-1", &p), "does not fit in uint64"));
    /* an integer argument written as a floating one: the check says which type to use */
    struct gl_expr_scope sc = { GL_PBIT(GL_P_N), 0, NULL, 0, 0 };
    char err[400];
    CHECK(gl_scalar_check(GL_KT_INT, "0.5", &sc, err, sizeof err) != 0 &&
          strstr(err, "int is an integer type") && strstr(err, "float 0.5"));
    CHECK(gl_scalar_check(GL_KT_INT, "N/2", &sc, err, sizeof err) == 0 &&
          (sc.used_params & GL_PBIT(GL_P_N)));
    sc.used_params = 0;
    CHECK(gl_scalar_check(GL_KT_FLOAT, "1/sqrt(N)", &sc, err, sizeof err) == 0 &&
          (sc.used_params & GL_PBIT(GL_P_N)));
    CHECK(gl_scalar_check(GL_KT_FLOAT, "1/sqrt(M)", &sc, err, sizeof err) != 0 &&
          strstr(err, "'M' is not set in this section"));
    /* constants are known when the config is read */
    CHECK(gl_scalar_is_constant("1 - 0.9") && gl_scalar_is_constant("0x1p-3") &&
          !gl_scalar_is_constant("1/sqrt(N)") && !gl_scalar_is_constant("TILE"));
}

static void test_bytes_and_format(void)
{
    struct gl_scalar s;
    char err[200], txt[64];
    struct gl_params p;
    gl_params_init(&p);
    CHECK(gl_scalar_eval(GL_KT_FLOAT, "0.1", &p, &s, err, sizeof err) == 0 && s.size == 4);
    float f;
    memcpy(&f, s.bytes, 4);
    CHECK(f == 0.1f);
    gl_scalar_format(&s, txt, sizeof txt);
    CHECK_STR(txt, "0.1");   /* the fewest digits that read back as the same float */
    CHECK(gl_scalar_eval(GL_KT_HALF, "1/3", &p, &s, err, sizeof err) == 0 && s.size == 2);
    uint16_t h;
    memcpy(&h, s.bytes, 2);
    CHECK(h == 0x3555);      /* 1/3 in binary16 */
    gl_scalar_format(&s, txt, sizeof txt);
    CHECK_STR(txt, "0.3333");
    CHECK(gl_scalar_eval(GL_KT_BF16, "-2.5", &p, &s, err, sizeof err) == 0);
    memcpy(&h, s.bytes, 2);
    CHECK(h == 0xc020);
    CHECK(gl_scalar_eval(GL_KT_INT, "0-5", &p, &s, err, sizeof err) == 0 && s.size == 4);
    int32_t i;
    memcpy(&i, s.bytes, 4);
    CHECK(i == -5);
    gl_scalar_format(&s, txt, sizeof txt);
    CHECK_STR(txt, "-5");
    CHECK(gl_scalar_eval(GL_KT_DOUBLE, "1e-3", &p, &s, err, sizeof err) == 0 && s.size == 8);
    gl_scalar_format(&s, txt, sizeof txt);
    CHECK_STR(txt, "0.001");
}

static void test_type_params(void)
{
    struct gl_params p;
    gl_params_init(&p);
    CHECK(gl_params_user_set(&p, "T", GL_KT_PARAM_BASE + GL_KT_HALF) == 0);
    CHECK(gl_params_user_set(&p, "TILE", 32) == 0);
    CHECK(gl_ktype_at(GL_KT_FLOAT, "T", &p) == GL_KT_HALF);
    CHECK(gl_ktype_at(GL_KT_FLOAT, "", &p) == GL_KT_FLOAT);
    CHECK(gl_ktype_at(GL_KT_FLOAT, "U", &p) == -1);
    CHECK(gl_ktype_at(GL_KT_FLOAT, "TILE", &p) == -1);   /* an integer parameter */
    CHECK(gl_ktype_of_param(32) == -1 && gl_ktype_of_param(GL_UNSET) == -1);
    CHECK(strstr(why(GL_KT_FLOAT, "T * 2", &p), "'T' is a type parameter"));
    char buf[128];
    gl_params_user_format(&p, buf, sizeof buf);
    CHECK_STR(buf, "T=half TILE=32");
    CHECK_STR(gl_ktype_cname(GL_KT_BF16), "__nv_bfloat16");
    CHECK_STR(gl_ktype_cname(GL_KT_UINT64), "unsigned long long");
}

int main(void)
{
    test_float_expressions();
    test_rounding_and_range();
    test_integers();
    test_bytes_and_format();
    test_type_params();
    return t_done("test_scalar");
}
