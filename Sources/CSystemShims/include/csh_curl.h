#ifndef CSH_CURL_H
#define CSH_CURL_H
// libcurl, loaded at run time (dlopen of libcurl.so.4, the library
// FoundationNetworking also loads): no development headers are needed to
// build, and a run without HTTPS, HTTP/2 or a proxy never loads it. The
// option and info numbers below are libcurl's public, stable ABI
// (include/curl/curl.h); only the functions promise-run calls are bound.
#include <stddef.h>
#include <stdint.h>

/// Loads libcurl once (any thread; later calls return the first answer).
/// Returns 0, or -1 with the reason in `message`.
int csh_curl_load(char *message, size_t size);
/// libcurl's version text (`7.88.1`), once loaded.
const char *csh_curl_version(void);

/// (easy, socket, CURL_POLL_*, user data, the socket's own data)
typedef int (*csh_curl_socket_fn)(void *easy, int socket, int what, void *data, void *socket_data);
/// (multi, milliseconds or -1 to delete the timer, user data)
typedef int (*csh_curl_timer_fn)(void *multi, long milliseconds, void *data);
/// Body, header and upload callbacks: (bytes, 1, count, user data).
typedef size_t (*csh_curl_data_fn)(char *bytes, size_t size, size_t count, void *data);

void *csh_curl_multi_new(csh_curl_socket_fn on_socket, csh_curl_timer_fn on_timer, void *data);
/// Sets the data both callbacks get.
void csh_curl_multi_set_data(void *multi, void *data);
/// curl_multi_cleanup (remove every easy handle first).
void csh_curl_multi_free(void *multi);
int csh_curl_multi_set_long(void *multi, int option, long value);
int csh_curl_multi_add(void *multi, void *easy);
int csh_curl_multi_remove(void *multi, void *easy);
/// curl_multi_socket_action with `fd` (-1: the timer) and CURL_CSELECT_* bits.
int csh_curl_multi_action(void *multi, int fd, int events, int *running);
/// The next finished transfer, or NULL; its CURLcode in `*code`.
void *csh_curl_multi_next_done(void *multi, int *code);
int csh_curl_multi_assign(void *multi, int fd, void *socket_data);

void *csh_curl_easy_new(void);
void csh_curl_easy_reset(void *easy);
void csh_curl_easy_free(void *easy);
int csh_curl_set_long(void *easy, int option, long value);
int csh_curl_set_offset(void *easy, int option, int64_t value);
int csh_curl_set_pointer(void *easy, int option, const void *value);
int csh_curl_set_callback(void *easy, int option, csh_curl_data_fn callback);
/// (user data, offset, SEEK_SET...) → 0 ok, 1 fail, 2 cannot seek.
typedef int (*csh_curl_seek_fn)(void *data, int64_t offset, int origin);
/// CURLOPT_SEEKFUNCTION and CURLOPT_SEEKDATA: how libcurl rewinds an
/// upload it must send again (a reused connection that died, HTTP/2).
int csh_curl_set_seek(void *easy, csh_curl_seek_fn callback, void *data);
/// What libcurl's CURLOPT_DEBUGFUNCTION hears: `type` is a curl_infotype
/// (CSH_CURLINFO_HEADER_OUT, ...), `data` not NUL-terminated.
typedef int (*csh_curl_debug_fn)(void *easy, int type, char *data, size_t size, void *userdata);
/// CURLOPT_DEBUGFUNCTION and CURLOPT_DEBUGDATA, and CURLOPT_VERBOSE on
/// (libcurl calls the function only then): what goes over the wire, as
/// sent (`-vv`).
int csh_curl_set_debug(void *easy, csh_curl_debug_fn callback, void *data);
int csh_curl_info_long(void *easy, int info, long *value);
int csh_curl_info_offset(void *easy, int info, int64_t *value);
const char *csh_curl_error_text(int code);
/// Each line (`Subject:...`, `Expire date:...`) of CURLINFO_CERTINFO for
/// certificate `index` of the chain (0: the server's own). Returns how
/// many certificates the chain has (0 when libcurl gathered none).
typedef void (*csh_curl_line_fn)(void *data, const char *line);
int csh_curl_certificate_lines(void *easy, int index, csh_curl_line_fn on_line, void *data);

void *csh_curl_list_append(void *list, const char *line);
void csh_curl_list_free(void *list);

// Options (CURLOPTTYPE_LONG 0, OBJECTPOINT 10000, FUNCTIONPOINT 20000, OFF_T 30000).
enum {
    CSH_CURLOPT_WRITEDATA = 10001,
    CSH_CURLOPT_URL = 10002,
    CSH_CURLOPT_PROXY = 10004,
    CSH_CURLOPT_READDATA = 10009,
    CSH_CURLOPT_ERRORBUFFER = 10010,
    CSH_CURLOPT_WRITEFUNCTION = 20011,
    CSH_CURLOPT_READFUNCTION = 20012,
    CSH_CURLOPT_POSTFIELDS = 10015,
    CSH_CURLOPT_LOW_SPEED_LIMIT = 19,
    CSH_CURLOPT_LOW_SPEED_TIME = 20,
    CSH_CURLOPT_HTTPHEADER = 10023,
    CSH_CURLOPT_SSLCERT = 10025,
    CSH_CURLOPT_HEADERDATA = 10029,
    CSH_CURLOPT_CUSTOMREQUEST = 10036,
    CSH_CURLOPT_NOPROGRESS = 43,
    CSH_CURLOPT_NOBODY = 44,
    CSH_CURLOPT_UPLOAD = 46,
    CSH_CURLOPT_POST = 47,
    CSH_CURLOPT_FOLLOWLOCATION = 52,
    CSH_CURLOPT_SSL_VERIFYPEER = 64,
    CSH_CURLOPT_CAINFO = 10065,
    CSH_CURLOPT_HEADERFUNCTION = 20079,
    CSH_CURLOPT_SSL_VERIFYHOST = 81,
    CSH_CURLOPT_HTTP_VERSION = 84,
    CSH_CURLOPT_SSLCERTTYPE = 10086,
    CSH_CURLOPT_SSLKEY = 10087,
    CSH_CURLOPT_SSLKEYTYPE = 10088,
    CSH_CURLOPT_NOSIGNAL = 99,
    CSH_CURLOPT_PRIVATE = 10103,
    CSH_CURLOPT_INFILESIZE_LARGE = 30115,
    CSH_CURLOPT_POSTFIELDSIZE_LARGE = 30120,
    CSH_CURLOPT_TCP_NODELAY = 121,
    CSH_CURLOPT_HTTP_TRANSFER_DECODING = 157,
    CSH_CURLOPT_HTTP_CONTENT_DECODING = 158,
    CSH_CURLOPT_NOPROXY = 10177,
    CSH_CURLOPT_PATH_AS_IS = 234,
    CSH_CURLOPT_PIPEWAIT = 237,
    CSH_CURLOPT_PROXY_CAINFO = 10246,
    CSH_CURLOPT_PROXY_SSL_VERIFYPEER = 248,
    CSH_CURLOPT_PROXY_SSL_VERIFYHOST = 249,
    CSH_CURLOPT_SUPPRESS_CONNECT_HEADERS = 265,
    CSH_CURLOPT_PROTOCOLS_STR = 10318,
    CSH_CURLOPT_CONNECTTIMEOUT_MS = 156,
    CSH_CURLOPT_RESOLVE = 10203,
    CSH_CURLOPT_UNIX_SOCKET_PATH = 10231,
    CSH_CURLOPT_CERTINFO = 172,
    CSH_CURLOPT_FRESH_CONNECT = 74,
};

// Multi options.
enum {
    CSH_CURLMOPT_PIPELINING = 3,
    CSH_CURLMOPT_MAX_HOST_CONNECTIONS = 7,
    CSH_CURLMOPT_MAX_TOTAL_CONNECTIONS = 13,
};

// Infos (CURLINFO_LONG 0x200000, CURLINFO_OFF_T 0x600000).
enum {
    CSH_CURLINFO_RESPONSE_CODE = 0x200002,
    CSH_CURLINFO_HTTP_VERSION = 0x20002E,
    CSH_CURLINFO_TOTAL_TIME_T = 0x600032,
    CSH_CURLINFO_NAMELOOKUP_TIME_T = 0x600033,
    CSH_CURLINFO_CONNECT_TIME_T = 0x600034,
    CSH_CURLINFO_STARTTRANSFER_TIME_T = 0x600036,
    CSH_CURLINFO_APPCONNECT_TIME_T = 0x600038,
};

// curl_infotype: what a debug callback is handed.
enum {
    CSH_CURLINFO_TEXT = 0,
    CSH_CURLINFO_HEADER_IN = 1,
    CSH_CURLINFO_HEADER_OUT = 2,
    CSH_CURLINFO_DATA_IN = 3,
    CSH_CURLINFO_DATA_OUT = 4,
};

enum {
    CSH_CURL_POLL_IN = 1,
    CSH_CURL_POLL_OUT = 2,
    CSH_CURL_POLL_INOUT = 3,
    CSH_CURL_POLL_REMOVE = 4,
    CSH_CURL_CSELECT_IN = 1,
    CSH_CURL_CSELECT_OUT = 2,
    CSH_CURL_CSELECT_ERR = 4,
    CSH_CURL_HTTP_VERSION_1_1 = 2,
    CSH_CURL_HTTP_VERSION_2_0 = 3,
    CSH_CURL_HTTP_VERSION_2TLS = 4,
    CSH_CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE = 5,
    CSH_CURLPIPE_MULTIPLEX = 2,
    CSH_CURL_ERROR_SIZE = 256,
};

// CURLcode values promise-run tells apart.
enum {
    CSH_CURLE_OK = 0,
    CSH_CURLE_UNSUPPORTED_PROTOCOL = 1,
    CSH_CURLE_URL_MALFORMAT = 3,
    CSH_CURLE_COULDNT_RESOLVE_PROXY = 5,
    CSH_CURLE_COULDNT_RESOLVE_HOST = 6,
    CSH_CURLE_COULDNT_CONNECT = 7,
    CSH_CURLE_WEIRD_SERVER_REPLY = 8,
    CSH_CURLE_PARTIAL_FILE = 18,
    CSH_CURLE_WRITE_ERROR = 23,
    CSH_CURLE_READ_ERROR = 26,
    CSH_CURLE_OPERATION_TIMEDOUT = 28,
    CSH_CURLE_SSL_CONNECT_ERROR = 35,
    CSH_CURLE_ABORTED_BY_CALLBACK = 42,
    CSH_CURLE_GOT_NOTHING = 52,
    CSH_CURLE_SEND_ERROR = 55,
    CSH_CURLE_RECV_ERROR = 56,
    CSH_CURLE_SSL_CERTPROBLEM = 58,
    CSH_CURLE_PEER_FAILED_VERIFICATION = 60,
    CSH_CURLE_SSL_CACERT_BADFILE = 77,
    CSH_CURLE_HTTP2 = 16,
    CSH_CURLE_HTTP2_STREAM = 92,
    CSH_CURLE_PROXY = 97,
};

#endif
