/* sha256.h - SHA-256 (FIPS 180-4) of a byte buffer, for the config hash stored
 * with each session. Streaming (init/update/final) and a one-call hex digest.
 * Must not allocate or depend on anything outside libc. */
#ifndef GL_SHA256_H
#define GL_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct gl_sha256 {
    uint32_t h[8];           /* hash state H0..H7 */
    unsigned char block[64]; /* message block being filled */
    size_t used;             /* bytes in block */
    uint64_t total;          /* message length so far, bytes */
};

void gl_sha256_init(struct gl_sha256 *c);
void gl_sha256_update(struct gl_sha256 *c, const void *data, size_t len);
void gl_sha256_final(struct gl_sha256 *c, unsigned char digest[32]);
/* Lower-case hex digest of data[0..len) into out (64 digits + NUL). */
void gl_sha256_hex(const void *data, size_t len, char out[65]);

#endif
