/* test_sha256.c - gl_sha256 against the FIPS 180-2 example vectors ("", "abc",
 * the 448-bit two-block message, a million 'a') and against digests computed by
 * coreutils' sha256sum for lengths around the padding boundaries (55, 56, 63, 64,
 * 65, 119, 120 bytes of 'x'), one call and fed in uneven pieces.
 * Must not depend on anything but sha256.c. */
#include <stdlib.h>

#include "sha256.h"
#include "t.h"

static void hex_of(const unsigned char d[32], char out[65])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[64] = '\0';
}

/* The digest of buf fed in pieces of 1, 2, 3 ... bytes, to cross block edges
 * at every offset. */
static void pieces_hex(const char *buf, size_t len, char out[65])
{
    struct gl_sha256 c;
    unsigned char d[32];
    gl_sha256_init(&c);
    size_t off = 0, step = 1;
    while (off < len) {
        size_t n = step < len - off ? step : len - off;
        gl_sha256_update(&c, buf + off, n);
        off += n;
        step++;
    }
    gl_sha256_final(&c, d);
    hex_of(d, out);
}

int main(void)
{
    char h[65];

    gl_sha256_hex("", 0, h);
    CHECK_STR(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    gl_sha256_hex("abc", 3, h);
    CHECK_STR(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    gl_sha256_hex(two, strlen(two), h);
    CHECK_STR(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    pieces_hex(two, strlen(two), h);
    CHECK_STR(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");

    /* One million 'a', fed 1000 bytes at a time. */
    char thousand[1000];
    memset(thousand, 'a', sizeof thousand);
    struct gl_sha256 c;
    unsigned char d[32];
    gl_sha256_init(&c);
    for (int i = 0; i < 1000; i++)
        gl_sha256_update(&c, thousand, sizeof thousand);
    gl_sha256_final(&c, d);
    hex_of(d, h);
    CHECK_STR(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

    /* Padding edges: 55 bytes fit one block with the length, 56 do not. */
    static const struct {
        size_t len;
        const char *hex;
    } xs[] = {
        { 55, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072" },
        { 56, "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e" },
        { 63, "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2" },
        { 64, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c" },
        { 65, "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9" },
        { 119, "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c" },
        { 120, "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98" },
        { 1000, "44f8354494a5ba03ba1792a8d3e9c534c47a9181980fde7a3f44b06ef2ae7c7f" },
    };
    char xbuf[1000];
    memset(xbuf, 'x', sizeof xbuf);
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        gl_sha256_hex(xbuf, xs[i].len, h);
        if (!CHECK_STR(h, xs[i].hex))
            printf("  length %zu\n", xs[i].len);
        pieces_hex(xbuf, xs[i].len, h);
        if (!CHECK_STR(h, xs[i].hex))
            printf("  length %zu in pieces\n", xs[i].len);
    }

    /* A one-bit change changes the digest. */
    char a[65], b[65];
    gl_sha256_hex("gpulab", 6, a);
    gl_sha256_hex("gpulac", 6, b);
    CHECK(strcmp(a, b) != 0);
    return t_done("sha256");
}
