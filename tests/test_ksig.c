/* test_ksig.c - a kernel's parameters from its lowered (mangled) name and its
 * source (src/core/kernel_sig.h), and the check of a section's args against
 * them. The names are those NVRTC's nvrtcGetLoweredName and nvcc's cubins gave
 * for the kernels below (CUDA 13): plain functions, templates on types and on
 * integers, const pointers, half and bfloat16, int64_t / size_t, namespaces,
 * and names the reader must give up on (extern "C", what it does not know). */
#include "t.h"

#include "kernel_sig.h"
#include "scalar.h"

static struct gl_ksig sig;

/* "name(type, type, ...)" of a parsed name, or "-" when it does not parse. */
static const char *show(const char *lowered)
{
    static char buf[1024];
    if (gl_ksig_parse(lowered, &sig) != 0)
        return "-";
    snprintf(buf, sizeof buf, "%s(", sig.name);
    for (int i = 0; i < sig.nparams; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? ", " : "",
                 sig.params[i].type);
    snprintf(buf + strlen(buf), sizeof buf - strlen(buf), ")");
    return buf;
}

static void test_parse(void)
{
    /* __global__ void saxpy(float *y, const float *x, float a, int n) */
    CHECK_STR(show("_Z5saxpyPfPKffi"), "saxpy(float *, const float *, float, int)");
    CHECK(sig.params[0].pointer && sig.params[0].elem == GL_KT_FLOAT);
    CHECK(sig.params[1].pointer && sig.params[1].elem == GL_KT_FLOAT);
    CHECK(!sig.params[2].pointer && sig.params[2].elem == GL_KT_FLOAT);
    CHECK(!sig.params[3].pointer && sig.params[3].elem == GL_KT_INT);
    /* template <typename T> axpby(int n, T a, const T *__restrict__ x, T b, T *y) */
    CHECK_STR(show("_Z5axpbyIfEviT_PKS0_S0_PS0_"),
              "axpby(int, float, const float *, float, float *)");
    CHECK_STR(show("_Z5axpbyIdEviT_PKS0_S0_PS0_"),
              "axpby(int, double, const double *, double, double *)");
    CHECK(sig.params[2].pointer && sig.params[2].elem == GL_KT_DOUBLE);
    /* axpby<__half>: the class in the template arguments is a substitution too */
    CHECK_STR(show("_Z5axpbyI6__halfEviT_PKS1_S1_PS1_"),
              "axpby(int, __half, const __half *, __half, __half *)");
    CHECK(sig.params[1].elem == GL_KT_HALF && sig.params[4].elem == GL_KT_HALF);
    /* template <int BS, typename T> red(T *, const T *, size_t, int64_t, uint64_t, long long) */
    CHECK_STR(show("_Z3redILi256EfEvPT0_PKS0_mlmx"),
              "red(float *, const float *, unsigned long, long, unsigned long, long long)");
    CHECK(sig.params[2].elem == GL_KT_UINT64 && sig.params[3].elem == GL_KT_INT64 &&
          sig.params[5].elem == GL_KT_INT64);
    /* h(__half *, const __nv_bfloat16 *, __half, __nv_bfloat16, unsigned, double) */
    CHECK_STR(show("_Z1hP6__halfPK13__nv_bfloat16S_S1_jd"),
              "h(__half *, const __nv_bfloat16 *, __half, __nv_bfloat16, unsigned int, double)");
    CHECK(sig.params[1].elem == GL_KT_BF16 && sig.params[3].elem == GL_KT_BF16 &&
          sig.params[4].elem == GL_KT_UINT);
    /* namespace ns { template <typename T> k2(T *, const T *, T) } */
    CHECK_STR(show("_ZN2ns2k2IiEEvPT_PKS1_S1_"), "ns::k2(int *, const int *, int)");
    CHECK_STR(show("_ZN2ns2k2I13__nv_bfloat16EEvPT_PKS2_S2_"),
              "ns::k2(__nv_bfloat16 *, const __nv_bfloat16 *, __nv_bfloat16)");
    CHECK(sig.params[2].elem == GL_KT_BF16);
    /* template <int BS> reduce(float *out, const float *in, int n) */
    CHECK_STR(show("_Z10reduce_cubILi128EEvPfPKfi"), "reduce_cub(float *, const float *, int)");
    /* a struct by value and a pointer to one; no parameters */
    CHECK_STR(show("_Z4step6ParamsP6float4"), "step(Params, float4 *)");
    CHECK(sig.params[0].elem == -1 && !sig.params[0].pointer && sig.params[1].pointer &&
          sig.params[1].elem == -1);
    CHECK_STR(show("_Z4tickv"), "tick()");
    CHECK(sig.nparams == 0);
    /* what the reader gives up on: no guess */
    CHECK_STR(show("cfun"), "-");                     /* extern "C": no types */
    CHECK_STR(show("_Z1fA10_i"), "-");                 /* an array type */
    CHECK_STR(show("_Z1fILi1EEvDv4_f"), "-");          /* a vendor vector type */
    CHECK_STR(show("_Z1fPS0_"), "-");                  /* a substitution that is not there */
    CHECK_STR(show("_Z"), "-");
}

static void test_names(void)
{
    char names[GL_KSIG_MAX][GL_KSIG_NAME];
    const char *src =
        "#define CUDA_CHECK(x) do { x; } while (0)\n"
        "__device__ float sq(float v) { return v * v; }\n"
        "// saxpy(y, x) in a comment: not a definition\n"
        "template <typename T>\n"
        "__global__ void __launch_bounds__(256) axpby(int n, T a, const T *__restrict__ x,\n"
        "                                             T b, T *y)\n"
        "{ }\n"
        "__global__ void saxpy(float *y, const float *x, float a, int n) { }\n"
        "__global__ void unnamed(float *, int) { }\n"
        "int main() { saxpy<<<1, 1>>>(0, 0, 2.0f, 3); }\n";
    CHECK(gl_ksig_names(src, "axpby", 5, names) == 1);
    CHECK_STR(names[0], "n");
    CHECK_STR(names[2], "x");
    CHECK_STR(names[4], "y");
    CHECK(gl_ksig_names(src, "saxpy", 4, names) == 1);
    CHECK_STR(names[2], "a");
    CHECK(gl_ksig_names(src, "unnamed", 2, names) == 1);
    CHECK_STR(names[0], "");
    CHECK_STR(names[1], "");
    CHECK(gl_ksig_names(src, "saxpy", 3, names) == 0);   /* no definition with 3 */
    CHECK(gl_ksig_names(src, "sq", 1, names) == 0);      /* not __global__ */
}

/* The names of the collection's kernels (tests/collection/, files with main(),
 * macros and templates), as the store records them for their scalars. */
static void test_collection_names(void)
{
    static const struct { const char *file, *func; int n; const char *want; } k[] = {
        { "sgemm.cu", "sgemm_naive", 8, "M N K alpha A B beta C" },
        { "sgemm.cu", "sgemm_tiled", 8, "M N K alpha A B beta C" },
        { "adamw.cu", "adamw_step", 11,
          "param grad exp_avg exp_avg_sq lr beta1 beta2 eps weight_decay step n" },
        { "adamw.cu", "adamw_step_vec4", 11,
          "param grad exp_avg exp_avg_sq lr beta1 beta2 eps weight_decay step n" },
        { "gelu_bf16.cu", "bias_gelu_bf16x2", 6, "y x bias alpha rows cols" },
        { "axpby.cu", "axpby", 5, "n a x b y" },
        { "axpby.cu", "axpby_gs", 5, "n a x b y" },
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        char path[256], text[65536], names[GL_KSIG_MAX][GL_KSIG_NAME], got[512] = "";
        snprintf(path, sizeof path, "tests/collection/%s", k[i].file);
        FILE *f = fopen(path, "r");
        size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
        if (f)
            fclose(f);
        text[len] = '\0';
        if (!CHECK(len > 0 && gl_ksig_names(text, k[i].func, k[i].n, names) == 1)) {
            printf("  %s in %s\n", k[i].func, path);
            continue;
        }
        for (int j = 0; j < k[i].n; j++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", j ? " " : "", names[j]);
        if (!CHECK(strcmp(got, k[i].want) == 0))
            printf("  %s: %s\n", k[i].func, got);
    }
}

/* A kernel section's args: y, x (float buffers), then the scalars given. */
static void setup(struct gl_kernel *k, const char *scalars[][2], int n)
{
    memset(k, 0, sizeof *k);
    k->args_line = 7;   /* as a config's: checked */
    k->nbuffers = 2;
    snprintf(k->buffers[0].name, GL_KNAME, "y");
    snprintf(k->buffers[1].name, GL_KNAME, "x");
    k->buffers[0].type = k->buffers[1].type = GL_KT_FLOAT;
    k->nargs = 2 + n;
    k->args[0].buffer = 0;
    k->args[1].buffer = 1;
    for (int i = 0; i < n; i++) {
        struct gl_karg *a = &k->args[2 + i];
        a->buffer = -1;
        for (int t = 0; t < GL_KT_COUNT; t++)
            if (strcmp(gl_ktype_name(t), scalars[i][0]) == 0)
                a->type = (enum gl_ktype)t;
        snprintf(a->expr, sizeof a->expr, "%s", scalars[i][1]);
    }
}

static const char *check(struct gl_kernel *k, const char *lowered, const char *display)
{
    static char msg[1024];
    static const char *src = "__global__ void saxpy(float *y, const float *x, float a, int n) {}";
    struct gl_params p;
    gl_params_init(&p);
    k->text = (char *)src;
    if (gl_ksig_check_lowered(k, &p, display, lowered, msg, sizeof msg) == 0)
        return "";
    return msg;
}

static void test_check(void)
{
    struct gl_kernel k;
    const char *ok[][2] = { { "float", "2" }, { "int", "N" } };
    setup(&k, ok, 2);
    CHECK_STR(check(&k, "_Z5saxpyPfPKffi", "saxpy"), "");
    /* swapped scalars */
    const char *swapped[][2] = { { "int", "N" }, { "float", "2" } };
    setup(&k, swapped, 2);
    CHECK_STR(check(&k, "_Z5saxpyPfPKffi", "saxpy"),
              "args: 3rd argument 'int N' but saxpy's 3rd parameter is float a");
    /* too few, too many */
    setup(&k, ok, 1);
    CHECK_STR(check(&k, "_Z5saxpyPfPKffi", "saxpy"),
              "args: 3 arguments but saxpy has 4 parameters (float *y, const float *x, float a, "
              "int n): the 4th, int n, has none");
    const char *more[][2] = { { "float", "2" }, { "int", "N" }, { "int", "1" } };
    setup(&k, more, 3);
    CHECK(strstr(check(&k, "_Z5saxpyPfPKffi", "saxpy"), "args: 5 arguments but saxpy has 4 "));
    /* a double where a float is: the scalar, and a buffer's element type */
    const char *dbl[][2] = { { "double", "2" }, { "int", "N" } };
    setup(&k, dbl, 2);
    CHECK_STR(check(&k, "_Z5saxpyPfPKffi", "saxpy"),
              "args: 3rd argument 'double 2' but saxpy's 3rd parameter is float a");
    setup(&k, ok, 2);
    k.buffers[1].type = GL_KT_DOUBLE;
    CHECK_STR(check(&k, "_Z5saxpyPfPKffi", "saxpy"),
              "args: 2nd argument 'x' (a double buffer) but saxpy's 2nd parameter is const "
              "float *x");
    /* a buffer where a scalar is, and a scalar where a pointer is */
    setup(&k, ok, 2);
    k.args[2].buffer = 1;
    CHECK(strstr(check(&k, "_Z5saxpyPfPKffi", "saxpy"), "3rd argument 'x' (a float buffer) but "
                 "saxpy's 3rd parameter is float a"));
    setup(&k, ok, 2);
    k.args[1].buffer = -1;
    k.args[1].type = GL_KT_FLOAT;
    snprintf(k.args[1].expr, sizeof k.args[1].expr, "1");
    CHECK(strstr(check(&k, "_Z5saxpyPfPKffi", "saxpy"), "2nd argument 'float 1' but saxpy's 2nd "
                 "parameter is const float *x"));
    /* int64 passes a long long and a long (int64_t); uint64 an unsigned long (size_t) */
    const char *wide[][2] = { { "int64", "N" }, { "uint64", "N" } };
    setup(&k, wide, 2);
    CHECK_STR(check(&k, "_Z4widePfPKfxm", "wide"), "");
    CHECK_STR(check(&k, "_Z4widePfPKflm", "wide"), "");
    CHECK(strstr(check(&k, "_Z4widePfPKfmm", "wide"), "3rd argument 'int64 N' but wide's 3rd "
                 "parameter is unsigned long"));
    /* half and bfloat16 scalars and buffers */
    const char *h[][2] = { { "half", "0.5" }, { "bfloat16", "1" } };
    setup(&k, h, 2);
    k.buffers[0].type = k.buffers[1].type = GL_KT_HALF;
    CHECK_STR(check(&k, "_Z2hbP6__halfPKS_S_13__nv_bfloat16", "hb"), "");
    CHECK(strstr(check(&k, "_Z2hbP6__halfPKS_S_S_", "hb"), "4th argument 'bfloat16 1' but hb's "
                 "4th parameter is __half"));
    /* a pointer to a type gpulab has no buffer of (float4 *, void *): taken as it is */
    setup(&k, ok, 2);
    CHECK_STR(check(&k, "_Z3vecP6float4PKS_fi", "vec"), "");
    CHECK_STR(check(&k, "_Z3vecPvPKvfi", "vec"), "");
    /* a parameter no scalar type passes (bool) */
    CHECK(strstr(check(&k, "_Z3vecPfPKffb", "vec"), "4th argument 'int N' but vec's 4th "
                 "parameter is bool"));
    /* templates: the instance's types; a type parameter resolved at the point */
    setup(&k, ok, 2);
    k.args[2].type = GL_KT_FLOAT;
    snprintf(k.args[2].tparam, sizeof k.args[2].tparam, "T");
    snprintf(k.buffers[0].tparam, sizeof k.buffers[0].tparam, "T");
    snprintf(k.buffers[1].tparam, sizeof k.buffers[1].tparam, "T");
    struct gl_params p;
    gl_params_init(&p);
    gl_params_user_set(&p, "T", GL_KT_PARAM_BASE + GL_KT_DOUBLE);
    char msg[512];
    CHECK(gl_ksig_check_lowered(&k, &p, "t<double>", "_Z1tIdEvPT_PKS0_S0_i", msg,
                                sizeof msg) == 0);
    CHECK(gl_ksig_check_lowered(&k, &p, "t<double>", "_Z1tIfEvPT_PKS0_S0_i", msg,
                                sizeof msg) != 0 &&
          strstr(msg, "1st argument 'y' (a double buffer) but t<double>'s 1st parameter is "
                 "float *"));
    /* extern "C" or unreadable: not checked */
    setup(&k, ok, 1);
    CHECK_STR(check(&k, "saxpy", "saxpy"), "");
    /* a kernel without an args line (built without a config): not checked */
    k.args_line = 0;
    CHECK_STR(check(&k, "_Z5saxpyPfPKffi", "saxpy"), "");
}

int main(void)
{
    test_parse();
    test_names();
    test_collection_names();
    test_check();
    return t_done("test_ksig");
}
