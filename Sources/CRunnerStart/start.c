#define _GNU_SOURCE
#include "CRunnerStart.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static int signal_pipe[2] = {-1, -1};
static int installed_at_start = 0;

/* Async-signal-safe: one byte, the signal's number. The write end does not
 * block: with 64 KiB of unread signals, more are dropped (a stop is
 * already under way). */
static void crs_handler(int signal) {
    int saved = errno;
    unsigned char number = (unsigned char)signal;
    ssize_t ignored = write(signal_pipe[1], &number, 1);
    (void)ignored;
    errno = saved;
}

int crs_install(void) {
    if (signal_pipe[0] >= 0) return 0;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        /* Started with its descriptor table full (a parent that leaks
         * descriptors to its children): make room under the hard limit
         * (the run raises its limit anyway) and try once more. */
        struct rlimit limit;
        if (errno != EMFILE || getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return -1;
        struct rlimit raised = {limit.rlim_cur + 64 < limit.rlim_max ? limit.rlim_cur + 64 : limit.rlim_max, limit.rlim_max};
        if (setrlimit(RLIMIT_NOFILE, &raised) != 0 || pipe2(fds, O_CLOEXEC) != 0) return -1;
    }
    fcntl(fds[1], F_SETFL, O_NONBLOCK);
    signal_pipe[0] = fds[0];
    signal_pipe[1] = fds[1];
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = crs_handler;
    action.sa_flags = SA_RESTART;
    sigfillset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGHUP, &action, NULL);
    /* A parent may start us with them blocked (a Dispatch or Swift
     * concurrency thread blocks every signal, and its children inherit
     * that): unblocked here, in the main thread and so in the threads it
     * starts, a pending one is handled at once, and later ones on arrival.
     * Otherwise they could wait, pending, for a thread that never unblocks
     * them. */
    sigset_t stopping;
    sigemptyset(&stopping);
    sigaddset(&stopping, SIGINT);
    sigaddset(&stopping, SIGTERM);
    sigaddset(&stopping, SIGHUP);
    pthread_sigmask(SIG_UNBLOCK, &stopping, NULL);
    return 0;
}

/* Runs before main, and before the Swift runtime starts any thread. Only
 * in the promise-run executable: a test process that links its code keeps
 * its own signal handling. */
__attribute__((constructor)) static void crs_install_at_start(void) {
    if (strcmp(program_invocation_short_name, "promise-run") != 0) return;
    if (crs_install() == 0) installed_at_start = 1;
}

int crs_installed_at_start(void) { return installed_at_start; }

void crs_unblock_in_this_thread(void) {
    sigset_t stopping;
    sigemptyset(&stopping);
    sigaddset(&stopping, SIGINT);
    sigaddset(&stopping, SIGTERM);
    sigaddset(&stopping, SIGHUP);
    pthread_sigmask(SIG_UNBLOCK, &stopping, NULL);
}

int crs_next_signal(void) {
    unsigned char number;
    for (;;) {
        ssize_t got = read(signal_pipe[0], &number, 1);
        if (got == 1) return number;
        if (got < 0 && errno == EINTR) continue;
        return -1;
    }
}
