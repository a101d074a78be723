// SHA-256: libcrypto's by dlopen, or the portable implementation below
// (FIPS 180-4, section 6.2). See csh_sha256.h.
#include "csh_sha256.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

typedef struct {
    uint32_t h[8];
    uint64_t length;   // bytes hashed
    uint8_t block[64];
    size_t used;       // bytes waiting in block
} portable_ctx;

_Static_assert(sizeof(portable_ctx) <= sizeof(((csh_sha256_ctx *)0)->state), "portable state fits");

static struct {
    int (*init)(void *);
    int (*update)(void *, const void *, size_t);
    int (*final)(unsigned char *, void *);
} crypto;
static int crypto_loaded;
static pthread_once_t crypto_once = PTHREAD_ONCE_INIT;

static void crypto_bind(void) {
    void *library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) library = dlopen("libcrypto.so", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return;
    *(void **)&crypto.init = dlsym(library, "SHA256_Init");
    *(void **)&crypto.update = dlsym(library, "SHA256_Update");
    *(void **)&crypto.final = dlsym(library, "SHA256_Final");
    crypto_loaded = crypto.init != NULL && crypto.update != NULL && crypto.final != NULL;
}

int csh_sha256_uses_libcrypto(void) {
    pthread_once(&crypto_once, crypto_bind);
    return crypto_loaded;
}

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void compress(uint32_t h[8], const uint8_t *p) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += k;
}

void csh_sha256_init(csh_sha256_ctx *ctx, int portable) {
    memset(ctx, 0, sizeof *ctx);
    if (!portable && csh_sha256_uses_libcrypto()) {
        ctx->backend = 1;
        crypto.init(ctx->state);
        return;
    }
    portable_ctx *s = (portable_ctx *)ctx->state;
    static const uint32_t start[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, start, sizeof start);
}

void csh_sha256_update(csh_sha256_ctx *ctx, const void *data, size_t count) {
    if (ctx->backend == 1) {
        crypto.update(ctx->state, data, count);
        return;
    }
    portable_ctx *s = (portable_ctx *)ctx->state;
    const uint8_t *p = data;
    s->length += count;
    if (s->used > 0) {
        size_t take = 64 - s->used < count ? 64 - s->used : count;
        memcpy(s->block + s->used, p, take);
        s->used += take; p += take; count -= take;
        if (s->used < 64) return;
        compress(s->h, s->block);
        s->used = 0;
    }
    for (; count >= 64; p += 64, count -= 64) compress(s->h, p);
    memcpy(s->block, p, count);
    s->used = count;
}

void csh_sha256_final(csh_sha256_ctx *ctx, uint8_t digest[32]) {
    if (ctx->backend == 1) {
        crypto.final(digest, ctx->state);
        return;
    }
    portable_ctx *s = (portable_ctx *)ctx->state;
    uint64_t bits = s->length * 8;
    uint8_t pad[72] = {0x80};
    size_t padding = (s->used < 56 ? 56 : 120) - s->used;
    for (int i = 0; i < 8; i++) pad[padding + i] = (uint8_t)(bits >> (56 - 8 * i));
    csh_sha256_update(ctx, pad, padding + 8);
    for (int i = 0; i < 8; i++) {
        digest[4 * i] = (uint8_t)(s->h[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
        digest[4 * i + 3] = (uint8_t)s->h[i];
    }
}
