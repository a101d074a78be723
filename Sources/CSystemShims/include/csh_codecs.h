#ifndef CSH_CODECS_H
#define CSH_CODECS_H
// Content-Encoding decoders: gzip and deflate (zlib), br (brotli) and zstd,
// each loaded at first use from the shared library libcurl itself links
// (libz.so.1, libbrotlidec.so.1, libzstd.so.1): no development headers.
#include <stddef.h>
#include <stdint.h>

typedef struct csh_decoder csh_decoder;

enum {
    CSH_DECODE_GZIP = 1,
    CSH_DECODE_DEFLATE = 2,
    CSH_DECODE_BROTLI = 3,
    CSH_DECODE_ZSTD = 4,
};

/// Whether the library for `kind` can be loaded (to advertise it in
/// Accept-Encoding).
int csh_decoder_available(int kind);
/// A decoder, or NULL with the reason in `message`.
csh_decoder *csh_decoder_new(int kind, char *message, size_t size);
/// Decodes from `input` into `output`. Sets how much it consumed and
/// produced. Returns 0 (more to come), 1 (the stream ended) or -1 (bad
/// data; the reason in `message`). Call again while it consumed less than
/// it was given or filled `output`.
int csh_decoder_run(csh_decoder *decoder, const uint8_t *input, size_t input_size, size_t *consumed,
                    uint8_t *output, size_t output_size, size_t *produced, char *message, size_t size);
void csh_decoder_free(csh_decoder *decoder);

#endif
