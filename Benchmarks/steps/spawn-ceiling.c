/*
 * The ceiling for process steps on this machine: a C loop that starts
 * `/usr/bin/true`, N at once, and waits with wait(2). It starts children
 * with promise-run's own csh_spawn (Sources/CSystemShims/shims.c, linked
 * in: own process group, empty signal mask, default dispositions,
 * /dev/null stdin, close_range(3), a pidfd) and nothing else:
 * no pipes, no output, no bookkeeping. No runner can be faster than this,
 * so the benchmarks show it beside xargs. `posix` as a third argument uses
 * glibc's posix_spawn instead (what promise-run used before), for comparison.
 *
 * `capture` as a third argument is the least a runner that reports each
 * step's output must do, in C, one thread: a pipe for stdout and one for
 * stderr (read ends non-blocking), the child's pidfd and both pipes in
 * epoll, the output read until both pipes close, the exit read without
 * reaping, then the reap, and the next child started at once. It is the
 * floor for a runner that keeps the two streams apart and starts its
 * children from one thread (issue 29's anchor).
 *
 * `capture-threads N` is the same with the starts handed to N threads
 * (as promise-run's spawning threads do, Sources/Steps/Process/
 * SpawnThreads.swift): a start holds its thread until the child's exec,
 * and on a loaded machine that is mostly the child's wait for a core, so
 * one starting thread sets the pace. It is the floor for that design.
 *
 *   cc -O2 -I ../../Sources/CSystemShims/include -o spawn-ceiling \
 *       spawn-ceiling.c ../../Sources/CSystemShims/shims.c -lpthread \
 *       && ./spawn-ceiling 1000 8 [posix|capture|capture-threads N]
 */
#define _GNU_SOURCE
#include "CSystemShims.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* One running child of the `capture` mode. */
struct running {
    pid_t pid;
    int pidfd, out, err, open_pipes, exited;
    long bytes;
};

static void forget(int epoll, int *fd, struct running *child) {
    epoll_ctl(epoll, EPOLL_CTL_DEL, *fd, NULL);
    close(*fd);
    *fd = -1;
    child->open_pipes -= 1;
}

static int start(int epoll, struct running *child, char **arguments) {
    int out[2], err[2];
    if (csh_pipe(out, 1, 0) != 0 || csh_pipe(err, 1, 0) != 0) return errno;
    int error = csh_spawn(&child->pid, &child->pidfd, "/usr/bin/true", arguments, environ, NULL, -1, out[1], err[1]);
    close(out[1]);
    close(err[1]);
    if (error != 0) return error;
    child->out = out[0];
    child->err = err[0];
    child->open_pipes = 2;
    child->exited = 0;
    child->bytes = 0;
    int fds[3] = {child->pidfd, child->out, child->err};
    for (int i = 0; i < 3; i++) {
        // The child's address and which descriptor (user addresses fit in 62 bits).
        struct epoll_event event = {.events = EPOLLIN, .data.u64 = ((uint64_t)(uintptr_t)child << 2) | (uint64_t)i};
        epoll_ctl(epoll, EPOLL_CTL_ADD, fds[i], &event);
    }
    return 0;
}

/* One epoll event of the capture modes: output read, or the exit noted
 * (without reaping). Returns the child once it is over (exited, both
 * pipes closed) and reaped, else NULL. */
static struct running *handle(int epoll, struct epoll_event *event, char *buffer, size_t size, int *failed) {
    struct running *child = (struct running *)(uintptr_t)(event->data.u64 >> 2);
    int which = (int)(event->data.u64 & 3);
    if (which == 0) {
        if (child->pidfd < 0) return NULL;
        int code, status;
        if (csh_peek_exit(child->pid, &code, &status) != 1) return NULL;
        if (code != CLD_EXITED || status != 0) (*failed)++;
        epoll_ctl(epoll, EPOLL_CTL_DEL, child->pidfd, NULL);
        close(child->pidfd);
        child->pidfd = -1;
        child->exited = 1;
    } else {
        int *fd = which == 1 ? &child->out : &child->err;
        if (*fd < 0) return NULL;
        ssize_t got = read(*fd, buffer, size);
        if (got > 0) child->bytes += got;
        else if (got == 0 || errno != EAGAIN) forget(epoll, fd, child);
    }
    if (!child->exited || child->open_pipes != 0 || child->pid <= 0) return NULL;
    int status;
    waitpid(child->pid, &status, 0);
    child->pid = 0;
    return child;
}

static int capture(int count, int concurrency, char **arguments) {
    int epoll = epoll_create1(EPOLL_CLOEXEC);
    struct running *children = calloc((size_t)concurrency, sizeof *children);
    int started = 0, finished = 0, failed = 0, running = 0;
    for (; started < count && running < concurrency; started++, running++) {
        if (start(epoll, &children[running], arguments) != 0) return 1;
    }
    char buffer[65536];
    struct epoll_event events[64];
    while (finished < count) {
        int ready = epoll_wait(epoll, events, 64, -1);
        if (ready < 0 && errno == EINTR) continue;
        for (int e = 0; e < ready; e++) {
            struct running *child = handle(epoll, &events[e], buffer, sizeof buffer, &failed);
            if (child == NULL) continue;
            finished++;
            if (started < count) {
                if (start(epoll, child, arguments) != 0) return 1;
                started++;
            }
        }
    }
    return failed == 0 ? 0 : 1;
}

/* capture-threads: the slots free to start a child in, handed to the
 * starting threads. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t ready;
    int *free_slots, free_count, started, count, epoll, error;
    struct running *children;
    char **arguments;
} starts = {.lock = PTHREAD_MUTEX_INITIALIZER, .ready = PTHREAD_COND_INITIALIZER};

static void *starting_thread(void *unused) {
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&starts.lock);
        while (starts.free_count == 0 && starts.started < starts.count) pthread_cond_wait(&starts.ready, &starts.lock);
        if (starts.started >= starts.count) {
            pthread_mutex_unlock(&starts.lock);
            return NULL;
        }
        int slot = starts.free_slots[--starts.free_count];
        starts.started++;
        pthread_mutex_unlock(&starts.lock);
        if (start(starts.epoll, &starts.children[slot], starts.arguments) != 0) starts.error = 1;
    }
}

static void free_slot(int slot) {
    pthread_mutex_lock(&starts.lock);
    starts.free_slots[starts.free_count++] = slot;
    pthread_cond_signal(&starts.ready);
    pthread_mutex_unlock(&starts.lock);
}

static int capture_threads(int count, int concurrency, int threads, char **arguments) {
    starts.epoll = epoll_create1(EPOLL_CLOEXEC);
    starts.children = calloc((size_t)concurrency, sizeof *starts.children);
    starts.free_slots = calloc((size_t)concurrency, sizeof(int));
    starts.count = count;
    starts.arguments = arguments;
    for (int i = 0; i < concurrency; i++) starts.free_slots[starts.free_count++] = i;
    pthread_t *ids = calloc((size_t)threads, sizeof *ids);
    for (int i = 0; i < threads; i++) pthread_create(&ids[i], NULL, starting_thread, NULL);
    int finished = 0, failed = 0;
    char buffer[65536];
    struct epoll_event events[64];
    while (finished < count && !starts.error) {
        int ready = epoll_wait(starts.epoll, events, 64, -1);
        if (ready < 0 && errno == EINTR) continue;
        for (int e = 0; e < ready; e++) {
            struct running *child = handle(starts.epoll, &events[e], buffer, sizeof buffer, &failed);
            if (child == NULL) continue;
            finished++;
            free_slot((int)(child - starts.children));
        }
    }
    pthread_mutex_lock(&starts.lock);
    pthread_cond_broadcast(&starts.ready);
    pthread_mutex_unlock(&starts.lock);
    for (int i = 0; i < threads; i++) pthread_join(ids[i], NULL);
    return failed == 0 && !starts.error ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: spawn-ceiling COUNT CONCURRENCY [posix|capture|capture-threads N]\n");
        return 2;
    }
    int count = atoi(argv[1]), concurrency = atoi(argv[2]);
    int posix = argc > 3 && strcmp(argv[3], "posix") == 0;
    char *arguments[] = {"true", NULL};
    if (argc > 3 && strcmp(argv[3], "capture") == 0) return capture(count, concurrency, arguments);
    if (argc > 4 && strcmp(argv[3], "capture-threads") == 0) return capture_threads(count, concurrency, atoi(argv[4]), arguments);

    posix_spawnattr_t attr;
    posix_spawn_file_actions_t actions;
    sigset_t empty, all;
    sigemptyset(&empty);
    sigfillset(&all);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setsigmask(&attr, &empty);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);

    int started = 0, running = 0, finished = 0, failed = 0;
    while (finished < count) {
        while (running < concurrency && started < count) {
            pid_t pid;
            int pidfd = -1;
            int error = posix ? posix_spawn(&pid, "/usr/bin/true", &actions, &attr, arguments, environ)
                              : csh_spawn(&pid, &pidfd, "/usr/bin/true", arguments, environ, NULL, -1, 1, 2);
            if (pidfd >= 0) close(pidfd);
            if (error != 0) {
                fprintf(stderr, "spawn: error %d\n", error);
                return 1;
            }
            started++;
            running++;
        }
        int status;
        if (wait(&status) < 0) {
            perror("wait");
            return 1;
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failed++;
        running--;
        finished++;
    }
    return failed == 0 ? 0 : 1;
}
