#define _GNU_SOURCE
#include "CSystemShims.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* zlib's z_stream (zlib.h, the same layout since 1.0 on LP64). */
typedef struct {
    const uint8_t *next_in;
    unsigned avail_in;
    unsigned long total_in;
    uint8_t *next_out;
    unsigned avail_out;
    unsigned long total_out;
    const char *msg;
    void *state;
    void *zalloc;
    void *zfree;
    void *opaque;
    int data_type;
    unsigned long adler;
    unsigned long reserved;
} csh_z_stream;

/* zstd's buffers (zstd.h). */
typedef struct {
    const void *src;
    size_t size;
    size_t pos;
} csh_zstd_in;

typedef struct {
    void *dst;
    size_t size;
    size_t pos;
} csh_zstd_out;

static struct {
    int loaded; /* 1 yes, -1 no */
    const char *(*version)(void);
    int (*init)(csh_z_stream *stream, int window_bits, const char *version, int stream_size);
    int (*inflate)(csh_z_stream *stream, int flush);
    int (*end)(csh_z_stream *stream);
} zlib;

static struct {
    int loaded;
    void *(*create)(void *alloc, void *free, void *opaque);
    int (*decompress)(void *state, size_t *available_in, const uint8_t **next_in, size_t *available_out,
                      uint8_t **next_out, size_t *total_out);
    void (*destroy)(void *state);
    int (*error_code)(void *state);
    const char *(*error_string)(int code);
} brotli;

static struct {
    int loaded;
    void *(*create)(void);
    size_t (*init)(void *stream);
    size_t (*decompress)(void *stream, csh_zstd_out *output, csh_zstd_in *input);
    size_t (*free)(void *stream);
    unsigned (*is_error)(size_t code);
    const char *(*error_name)(size_t code);
} zstd;

static pthread_once_t codecs_once = PTHREAD_ONCE_INIT;

#define SYMBOL(library, table, field, name) (*(void **)&table.field = dlsym(library, name)) != NULL

static void csh_codecs_bind(void) {
    void *library = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    zlib.loaded = library && SYMBOL(library, zlib, version, "zlibVersion") && SYMBOL(library, zlib, init, "inflateInit2_")
        && SYMBOL(library, zlib, inflate, "inflate") && SYMBOL(library, zlib, end, "inflateEnd") ? 1 : -1;
    library = dlopen("libbrotlidec.so.1", RTLD_NOW | RTLD_LOCAL);
    brotli.loaded = library && SYMBOL(library, brotli, create, "BrotliDecoderCreateInstance")
        && SYMBOL(library, brotli, decompress, "BrotliDecoderDecompressStream")
        && SYMBOL(library, brotli, destroy, "BrotliDecoderDestroyInstance")
        && SYMBOL(library, brotli, error_code, "BrotliDecoderGetErrorCode")
        && SYMBOL(library, brotli, error_string, "BrotliDecoderErrorString") ? 1 : -1;
    library = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
    zstd.loaded = library && SYMBOL(library, zstd, create, "ZSTD_createDStream")
        && SYMBOL(library, zstd, init, "ZSTD_initDStream") && SYMBOL(library, zstd, decompress, "ZSTD_decompressStream")
        && SYMBOL(library, zstd, free, "ZSTD_freeDStream") && SYMBOL(library, zstd, is_error, "ZSTD_isError")
        && SYMBOL(library, zstd, error_name, "ZSTD_getErrorName") ? 1 : -1;
}

int csh_decoder_available(int kind) {
    pthread_once(&codecs_once, csh_codecs_bind);
    switch (kind) {
    case CSH_DECODE_GZIP:
    case CSH_DECODE_DEFLATE: return zlib.loaded == 1;
    case CSH_DECODE_BROTLI: return brotli.loaded == 1;
    case CSH_DECODE_ZSTD: return zstd.loaded == 1;
    default: return 0;
    }
}

struct csh_decoder {
    int kind;
    int started; /* deflate: whether the wrapper was detected */
    int has_first; /* deflate: the first byte, kept until a second comes */
    uint8_t first;
    int ended;
    csh_z_stream z;
    void *state; /* brotli or zstd */
};

csh_decoder *csh_decoder_new(int kind, char *message, size_t size) {
    if (!csh_decoder_available(kind)) {
        const char *library = kind == CSH_DECODE_BROTLI ? "libbrotlidec.so.1"
            : kind == CSH_DECODE_ZSTD ? "libzstd.so.1" : "libz.so.1";
        snprintf(message, size, "%s could not be loaded", library);
        return NULL;
    }
    csh_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) {
        snprintf(message, size, "out of memory");
        return NULL;
    }
    decoder->kind = kind;
    if (kind == CSH_DECODE_GZIP) {
        if (zlib.init(&decoder->z, 16 + 15, zlib.version(), (int)sizeof(csh_z_stream)) != 0) goto failed;
        decoder->started = 1;
    } else if (kind == CSH_DECODE_BROTLI) {
        decoder->state = brotli.create(NULL, NULL, NULL);
        if (decoder->state == NULL) goto failed;
    } else if (kind == CSH_DECODE_ZSTD) {
        decoder->state = zstd.create();
        if (decoder->state == NULL || zstd.is_error(zstd.init(decoder->state))) goto failed;
    }
    return decoder;
failed:
    snprintf(message, size, "the decoder could not be made");
    csh_decoder_free(decoder);
    return NULL;
}

/* Deflate comes as zlib data (RFC 1950) or, from some servers, raw (RFC
 * 1951): a zlib header is 0x?8 with the first two bytes a multiple of 31. */
static int csh_start_deflate(csh_decoder *decoder, const uint8_t *input, size_t input_size) {
    int raw = 1;
    if (input_size >= 2 && (input[0] & 0x0F) == 8 && ((input[0] << 8) | input[1]) % 31 == 0) raw = 0;
    if (zlib.init(&decoder->z, raw ? -15 : 15, zlib.version(), (int)sizeof(csh_z_stream)) != 0) return -1;
    decoder->started = 1;
    return 0;
}

int csh_decoder_run(csh_decoder *decoder, const uint8_t *input, size_t input_size, size_t *consumed,
                    uint8_t *output, size_t output_size, size_t *produced, char *message, size_t size) {
    *consumed = 0;
    *produced = 0;
    if (decoder->ended) {
        /* Bytes after the end of the stream are ignored, as curl does. */
        *consumed = input_size;
        return 1;
    }
    switch (decoder->kind) {
    case CSH_DECODE_GZIP:
    case CSH_DECODE_DEFLATE: {
        if (!decoder->started) {
            if (input_size == 0) return 0;
            if (!decoder->has_first && input_size == 1) {
                /* Two bytes tell zlib data from raw deflate: wait. */
                decoder->first = input[0];
                decoder->has_first = 1;
                *consumed = 1;
                return 0;
            }
            uint8_t head[2];
            head[0] = decoder->has_first ? decoder->first : input[0];
            head[1] = decoder->has_first ? input[0] : input[1];
            if (csh_start_deflate(decoder, head, 2) != 0) {
                snprintf(message, size, "the deflate decoder could not be made");
                return -1;
            }
        }
        if (decoder->has_first) {
            /* The kept byte goes first: decode the two together once. */
            uint8_t *joined = malloc(input_size + 1);
            if (joined == NULL) {
                snprintf(message, size, "out of memory");
                return -1;
            }
            joined[0] = decoder->first;
            memcpy(joined + 1, input, input_size);
            decoder->has_first = 0;
            size_t joined_consumed = 0;
            int code = csh_decoder_run(decoder, joined, input_size + 1, &joined_consumed, output, output_size,
                                       produced, message, size);
            free(joined);
            if (joined_consumed == 0) {
                decoder->has_first = 1; /* nothing taken: keep it */
                *consumed = 0;
            } else {
                *consumed = joined_consumed - 1;
            }
            return code;
        }
        csh_z_stream *z = &decoder->z;
        unsigned in = input_size > 0x40000000 ? 0x40000000 : (unsigned)input_size;
        unsigned out = output_size > 0x40000000 ? 0x40000000 : (unsigned)output_size;
        z->next_in = input;
        z->avail_in = in;
        z->next_out = output;
        z->avail_out = out;
        int code = zlib.inflate(z, 0);
        *consumed = in - z->avail_in;
        *produced = out - z->avail_out;
        if (code == 1) {
            decoder->ended = 1;
            *consumed = input_size;
            return 1;
        }
        if (code == 0 || code == -5 /* Z_BUF_ERROR: no progress possible, not fatal */) return 0;
        snprintf(message, size, "%s", z->msg ? z->msg : "invalid compressed data");
        return -1;
    }
    case CSH_DECODE_BROTLI: {
        size_t available_in = input_size, available_out = output_size;
        const uint8_t *next_in = input;
        uint8_t *next_out = output;
        int code = brotli.decompress(decoder->state, &available_in, &next_in, &available_out, &next_out, NULL);
        *consumed = input_size - available_in;
        *produced = output_size - available_out;
        if (code == 1) {
            decoder->ended = 1;
            *consumed = input_size;
            return 1;
        }
        if (code == 2 || code == 3) return 0;
        snprintf(message, size, "%s", brotli.error_string(brotli.error_code(decoder->state)));
        return -1;
    }
    case CSH_DECODE_ZSTD: {
        csh_zstd_in in = {input, input_size, 0};
        csh_zstd_out out = {output, output_size, 0};
        size_t code = zstd.decompress(decoder->state, &out, &in);
        *consumed = in.pos;
        *produced = out.pos;
        if (zstd.is_error(code)) {
            snprintf(message, size, "%s", zstd.error_name(code));
            return -1;
        }
        /* 0: a frame is complete; more frames may follow. */
        return 0;
    }
    }
    return -1;
}

void csh_decoder_free(csh_decoder *decoder) {
    if (decoder == NULL) return;
    if ((decoder->kind == CSH_DECODE_GZIP || decoder->kind == CSH_DECODE_DEFLATE) && decoder->started) zlib.end(&decoder->z);
    if (decoder->kind == CSH_DECODE_BROTLI && decoder->state) brotli.destroy(decoder->state);
    if (decoder->kind == CSH_DECODE_ZSTD && decoder->state) zstd.free(decoder->state);
    free(decoder);
}
