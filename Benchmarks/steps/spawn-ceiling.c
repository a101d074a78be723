/*
 * The ceiling for process steps on this machine: a C loop that starts
 * `/usr/bin/true` with posix_spawn, N at once, and waits with wait(2). It
 * does the child set-up promise-run does (own process group, empty signal
 * mask, default dispositions, /dev/null stdin, closefrom(3), chdir) and
 * nothing else: no pipes, no output, no bookkeeping. No runner can be
 * faster than this, so the benchmarks show it beside xargs.
 *
 *   cc -O2 -o spawn-ceiling spawn-ceiling.c && ./spawn-ceiling 1000 8
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: spawn-ceiling COUNT CONCURRENCY\n");
        return 2;
    }
    int count = atoi(argv[1]), concurrency = atoi(argv[2]);
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
    posix_spawn_file_actions_addchdir_np(&actions, ".");

    int started = 0, running = 0, finished = 0, failed = 0;
    while (finished < count) {
        while (running < concurrency && started < count) {
            pid_t pid;
            int error = posix_spawn(&pid, "/usr/bin/true", &actions, &attr, arguments, environ);
            if (error != 0) {
                fprintf(stderr, "posix_spawn: error %d\n", error);
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
