#define _GNU_SOURCE
#include "CSystemShims.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

int csh_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[],
              const char *cwd, int stdin_fd, int stdout_fd, int stderr_fd) {
    posix_spawnattr_t attr;
    posix_spawn_file_actions_t actions;
    int error = posix_spawnattr_init(&attr);
    if (error != 0) return error;
    error = posix_spawn_file_actions_init(&actions);
    if (error != 0) {
        posix_spawnattr_destroy(&attr);
        return error;
    }

    sigset_t empty, all;
    sigemptyset(&empty);
    sigfillset(&all);
    // A process group of its own (so the whole tree can be signalled), no
    // blocked signals (GCD threads block most of them, and the mask is
    // inherited), and default dispositions (promise-run ignores SIGPIPE and
    // may ignore SIGINT/SIGTERM to catch them with dispatch sources).
    short flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
    if ((error = posix_spawnattr_setflags(&attr, flags)) != 0) goto done;
    if ((error = posix_spawnattr_setpgroup(&attr, 0)) != 0) goto done;
    if ((error = posix_spawnattr_setsigmask(&attr, &empty)) != 0) goto done;
    if ((error = posix_spawnattr_setsigdefault(&attr, &all)) != 0) goto done;

    if (stdin_fd < 0) {
        error = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    } else {
        error = posix_spawn_file_actions_adddup2(&actions, stdin_fd, 0);
    }
    if (error != 0) goto done;
    if ((error = posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1)) != 0) goto done;
    if ((error = posix_spawn_file_actions_adddup2(&actions, stderr_fd, 2)) != 0) goto done;
    // Nothing but 0, 1 and 2 reaches the child, whatever another thread
    // opened without O_CLOEXEC.
    if ((error = posix_spawn_file_actions_addclosefrom_np(&actions, 3)) != 0) goto done;
    if (cwd != NULL) {
        if ((error = posix_spawn_file_actions_addchdir_np(&actions, cwd)) != 0) goto done;
    }

    error = posix_spawn(pid, path, &actions, &attr, argv, envp);

done:
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return error;
}

int csh_pipe(int fds[2], int nonblocking_read, int nonblocking_write) {
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    if (nonblocking_read && fcntl(fds[0], F_SETFL, O_NONBLOCK) != 0) goto fail;
    if (nonblocking_write && fcntl(fds[1], F_SETFL, O_NONBLOCK) != 0) goto fail;
    return 0;
fail: {
        int saved = errno;
        close(fds[0]);
        close(fds[1]);
        errno = saved;
        return -1;
    }
}

int csh_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int csh_peek_exit(pid_t pid, int *code, int *status) {
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return -1;
    if (info.si_pid == 0) return 0;
    *code = info.si_code;
    *status = info.si_status;
    return 1;
}

int csh_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int csh_epoll_ctl(int epfd, int fd, uint32_t events, uint64_t token, int modify) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = events;
    event.data.u64 = token;
    return epoll_ctl(epfd, modify ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &event);
}

int csh_epoll_remove(int epfd, int fd) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &event);
}

int csh_epoll_wait(int epfd, csh_event *out, int capacity, int timeout_ms) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epfd, events, capacity, timeout_ms);
    if (count < 0) return errno == EINTR ? 0 : -1;
    for (int i = 0; i < count; i++) {
        out[i].events = events[i].events;
        out[i].token = events[i].data.u64;
    }
    return count;
}

int csh_eventfd(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

int csh_eventfd_signal(int fd) {
    uint64_t one = 1;
    return write(fd, &one, sizeof one) == sizeof one ? 0 : -1;
}

int csh_eventfd_drain(int fd) {
    uint64_t value;
    return read(fd, &value, sizeof value) == sizeof value ? 0 : -1;
}

void csh_name_thread(const char *name) {
    pthread_setname_np(pthread_self(), name);
}
