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
 *   cc -O2 -I ../../Sources/CSystemShims/include -o spawn-ceiling \
 *       spawn-ceiling.c ../../Sources/CSystemShims/shims.c && ./spawn-ceiling 1000 8 [posix]
 */
#define _GNU_SOURCE
#include "CSystemShims.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: spawn-ceiling COUNT CONCURRENCY [posix]\n");
        return 2;
    }
    int count = atoi(argv[1]), concurrency = atoi(argv[2]);
    int posix = argc > 3 && strcmp(argv[3], "posix") == 0;
    char *arguments[] = {"true", NULL};

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
