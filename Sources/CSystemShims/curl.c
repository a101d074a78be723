#define _GNU_SOURCE
#include "CSystemShims.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* libcurl's functions, bound by dlsym. The variadic ones (setopt, getinfo)
 * are called through variadic pointers with exactly the argument type
 * each option takes, as curl.h's own prototypes would. */
/* struct CURLMsg (multi.h): CURLMSG is an int-sized enum. */
typedef struct {
    int msg;
    void *easy_handle;
    union {
        void *whatever;
        int result;
    } data;
} csh_curl_message;

static struct {
    int (*global_init)(long flags);
    const char *(*version)(void);
    void *(*multi_init)(void);
    int (*multi_cleanup)(void *multi);
    int (*multi_setopt)(void *multi, int option, ...);
    int (*multi_add_handle)(void *multi, void *easy);
    int (*multi_remove_handle)(void *multi, void *easy);
    int (*multi_socket_action)(void *multi, int fd, int events, int *running);
    csh_curl_message *(*multi_info_read)(void *multi, int *left);
    int (*multi_assign)(void *multi, int fd, void *data);
    void *(*easy_init)(void);
    void (*easy_reset)(void *easy);
    void (*easy_cleanup)(void *easy);
    int (*easy_setopt)(void *easy, int option, ...);
    int (*easy_getinfo)(void *easy, int info, ...);
    const char *(*easy_strerror)(int code);
    void *(*slist_append)(void *list, const char *line);
    void (*slist_free_all)(void *list);
} curl;

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static char curl_failure[512];
static int curl_loaded = -1;

#define BIND(field, name)                                                              \
    do {                                                                               \
        *(void **)&curl.field = dlsym(library, name);                                  \
        if (curl.field == NULL) {                                                      \
            snprintf(curl_failure, sizeof curl_failure, "libcurl.so.4 has no %s", name); \
            return;                                                                    \
        }                                                                              \
    } while (0)

static void csh_curl_bind(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(curl_failure, sizeof curl_failure, "%s", reason ? reason : "libcurl.so.4 could not be loaded");
        return;
    }
    BIND(global_init, "curl_global_init");
    BIND(version, "curl_version");
    BIND(multi_init, "curl_multi_init");
    BIND(multi_cleanup, "curl_multi_cleanup");
    BIND(multi_setopt, "curl_multi_setopt");
    BIND(multi_add_handle, "curl_multi_add_handle");
    BIND(multi_remove_handle, "curl_multi_remove_handle");
    BIND(multi_socket_action, "curl_multi_socket_action");
    BIND(multi_info_read, "curl_multi_info_read");
    BIND(multi_assign, "curl_multi_assign");
    BIND(easy_init, "curl_easy_init");
    BIND(easy_reset, "curl_easy_reset");
    BIND(easy_cleanup, "curl_easy_cleanup");
    BIND(easy_setopt, "curl_easy_setopt");
    BIND(easy_getinfo, "curl_easy_getinfo");
    BIND(easy_strerror, "curl_easy_strerror");
    BIND(slist_append, "curl_slist_append");
    BIND(slist_free_all, "curl_slist_free_all");
    /* CURL_GLOBAL_ALL; thread-safe in libcurl >= 7.84, and run once here. */
    if (curl.global_init(3L) != 0) {
        snprintf(curl_failure, sizeof curl_failure, "curl_global_init failed");
        return;
    }
    curl_loaded = 0;
}

int csh_curl_load(char *message, size_t size) {
    pthread_once(&curl_once, csh_curl_bind);
    if (curl_loaded != 0 && message != NULL && size > 0) snprintf(message, size, "%s", curl_failure);
    return curl_loaded;
}

const char *csh_curl_version(void) {
    return curl_loaded == 0 ? curl.version() : "";
}

void *csh_curl_multi_new(csh_curl_socket_fn on_socket, csh_curl_timer_fn on_timer, void *data) {
    void *multi = curl.multi_init();
    if (multi == NULL) return NULL;
    curl.multi_setopt(multi, 20001 /* CURLMOPT_SOCKETFUNCTION */, on_socket);
    curl.multi_setopt(multi, 10002 /* CURLMOPT_SOCKETDATA */, data);
    curl.multi_setopt(multi, 20004 /* CURLMOPT_TIMERFUNCTION */, on_timer);
    curl.multi_setopt(multi, 10005 /* CURLMOPT_TIMERDATA */, data);
    return multi;
}

void csh_curl_multi_set_data(void *multi, void *data) {
    curl.multi_setopt(multi, 10002 /* CURLMOPT_SOCKETDATA */, data);
    curl.multi_setopt(multi, 10005 /* CURLMOPT_TIMERDATA */, data);
}
void csh_curl_multi_free(void *multi) { curl.multi_cleanup(multi); }
int csh_curl_multi_set_long(void *multi, int option, long value) { return curl.multi_setopt(multi, option, value); }
int csh_curl_multi_add(void *multi, void *easy) { return curl.multi_add_handle(multi, easy); }
int csh_curl_multi_remove(void *multi, void *easy) { return curl.multi_remove_handle(multi, easy); }

int csh_curl_multi_action(void *multi, int fd, int events, int *running) {
    return curl.multi_socket_action(multi, fd, events, running);
}

void *csh_curl_multi_next_done(void *multi, int *code) {
    int left = 0;
    csh_curl_message *message;
    while ((message = curl.multi_info_read(multi, &left)) != NULL) {
        if (message->msg == 1 /* CURLMSG_DONE */) {
            *code = message->data.result;
            return message->easy_handle;
        }
    }
    return NULL;
}

int csh_curl_multi_assign(void *multi, int fd, void *socket_data) { return curl.multi_assign(multi, fd, socket_data); }

void *csh_curl_easy_new(void) { return curl.easy_init(); }
void csh_curl_easy_reset(void *easy) { curl.easy_reset(easy); }
void csh_curl_easy_free(void *easy) { curl.easy_cleanup(easy); }
int csh_curl_set_long(void *easy, int option, long value) { return curl.easy_setopt(easy, option, value); }
int csh_curl_set_offset(void *easy, int option, int64_t value) { return curl.easy_setopt(easy, option, (long long)value); }
int csh_curl_set_pointer(void *easy, int option, const void *value) { return curl.easy_setopt(easy, option, value); }
int csh_curl_set_callback(void *easy, int option, csh_curl_data_fn callback) {
    return curl.easy_setopt(easy, option, callback);
}
int csh_curl_set_seek(void *easy, csh_curl_seek_fn callback, void *data) {
    int code = curl.easy_setopt(easy, 20167 /* CURLOPT_SEEKFUNCTION */, callback);
    if (code == 0) code = curl.easy_setopt(easy, 10168 /* CURLOPT_SEEKDATA */, data);
    return code;
}
int csh_curl_set_debug(void *easy, csh_curl_debug_fn callback, void *data) {
    int code = curl.easy_setopt(easy, 20094 /* CURLOPT_DEBUGFUNCTION */, callback);
    if (code == 0) code = curl.easy_setopt(easy, 10095 /* CURLOPT_DEBUGDATA */, data);
    if (code == 0) code = curl.easy_setopt(easy, 41 /* CURLOPT_VERBOSE */, 1L);
    return code;
}
int csh_curl_info_long(void *easy, int info, long *value) { return curl.easy_getinfo(easy, info, value); }
int csh_curl_info_offset(void *easy, int info, int64_t *value) {
    long long result = 0;
    int code = curl.easy_getinfo(easy, info, &result);
    *value = (int64_t)result;
    return code;
}
const char *csh_curl_error_text(int code) { return curl_loaded == 0 ? curl.easy_strerror(code) : "libcurl is not loaded"; }

/* struct curl_slist and struct curl_certinfo (curl.h). */
typedef struct csh_curl_slist {
    char *data;
    struct csh_curl_slist *next;
} csh_curl_slist;

typedef struct {
    int num_of_certs;
    csh_curl_slist **certinfo;
} csh_curl_certinfo;

int csh_curl_certificate_lines(void *easy, int index, csh_curl_line_fn on_line, void *data) {
    csh_curl_certinfo *info = NULL;
    if (curl.easy_getinfo(easy, 0x400000 + 34 /* CURLINFO_CERTINFO */, &info) != 0 || info == NULL) return 0;
    if (index >= 0 && index < info->num_of_certs) {
        for (csh_curl_slist *line = info->certinfo[index]; line != NULL; line = line->next) {
            if (line->data != NULL) on_line(data, line->data);
        }
    }
    return info->num_of_certs;
}

void *csh_curl_list_append(void *list, const char *line) { return curl.slist_append(list, line); }
void csh_curl_list_free(void *list) { curl.slist_free_all(list); }
