/*
 * The ceiling for process steps on this machine: a C loop that starts
 * `/usr/bin/true`, N at once, and waits with wait(2). It starts children
 * the way promise-run does (a vfork-style clone with a pidfd, see
 * Sources/CSystemShims/shims.c: own process group, empty signal mask,
 * default dispositions, /dev/null stdin, close_range(3)) and nothing else:
 * no pipes, no output, no bookkeeping. No runner can be faster than this,
 * so the benchmarks show it beside xargs. `posix` as a third argument uses
 * glibc's posix_spawn instead (what promise-run used before), for comparison.
 *
 *   cc -O2 -o spawn-ceiling spawn-ceiling.c && ./spawn-ceiling 1000 8 [posix]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif

extern char **environ;

struct child_args {
    const char *path;
    char *const *argv;
    int stdin_fd;
    volatile int error;
};

struct kernel_sigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)(void);
    uint64_t mask;
};

static int child(void *pointer) {
    struct child_args *args = pointer;
    struct kernel_sigaction fallback = {SIG_DFL, 0, NULL, 0};
    for (long sig = 1; sig < 32; sig++) {
        if (sig != SIGKILL && sig != SIGSTOP) syscall(SYS_rt_sigaction, sig, &fallback, NULL, sizeof(uint64_t));
    }
    if (syscall(SYS_setpgid, 0L, 0L) != 0) goto fail;
    if (syscall(SYS_dup3, (long)args->stdin_fd, 0L, 0L) < 0) goto fail;
    syscall(SYS_close_range, 3L, (long)~0U, 0L);
    uint64_t empty = 0;
    syscall(SYS_rt_sigprocmask, (long)SIG_SETMASK, &empty, NULL, sizeof(uint64_t));
    syscall(SYS_execve, args->path, args->argv, environ);
fail:
    args->error = errno;
    syscall(SYS_exit, 127L);
    return 127;
}

static int spawn_clone(const char *path, char *const argv[], int devnull) {
    struct child_args args = {path, argv, devnull, 0};
    char stack[16 * 1024] __attribute__((aligned(16)));
    sigset_t all, saved;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    int pidfd = -1;
    pid_t pid = clone(child, stack + sizeof stack, CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD, &args, &pidfd);
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    if (pid < 0) return errno;
    close(pidfd);
    return args.error;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: spawn-ceiling COUNT CONCURRENCY [posix]\n");
        return 2;
    }
    int count = atoi(argv[1]), concurrency = atoi(argv[2]);
    int posix = argc > 3 && strcmp(argv[3], "posix") == 0;
    char *arguments[] = {"true", NULL};
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);

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
            int error = posix ? posix_spawn(&pid, "/usr/bin/true", &actions, &attr, arguments, environ)
                              : spawn_clone("/usr/bin/true", arguments, devnull);
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
