#ifndef CSH_SHA256_H
#define CSH_SHA256_H
// SHA-256 (FIPS 180-4) for the shared cache's keys and content addresses:
// the platform's libcrypto when it can be loaded (dlopen of libcrypto.so.3,
// whose SHA-256 uses the CPU's SHA instructions), else the portable
// implementation in sha256.c. Both are checked against the NIST vectors.
#include <stddef.h>
#include <stdint.h>

/// A hash under way: room for either implementation's state.
typedef struct {
    uint64_t backend;
    uint64_t state[40];
} csh_sha256_ctx;

/// 1 when libcrypto's SHA-256 is in use, 0 for the portable one.
int csh_sha256_uses_libcrypto(void);

/// Starts a hash; `portable` nonzero forces the portable implementation.
void csh_sha256_init(csh_sha256_ctx *ctx, int portable);
void csh_sha256_update(csh_sha256_ctx *ctx, const void *data, size_t count);
/// Writes the 32-byte digest.
void csh_sha256_final(csh_sha256_ctx *ctx, uint8_t digest[32]);

#endif
