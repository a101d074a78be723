#define _GNU_SOURCE
#include "CSystemShims.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif


/* The child half of csh_spawn. It runs on the parent's memory (CLONE_VM)
 * and stack, with every signal but SIGCHLD blocked (it has no children to
 * send it one), until execve or _exit. So it makes
 * raw system calls only: no libc wrapper that a sanitizer intercepts (their
 * bookkeeping is the parent's), no errno that matters, and it reports a
 * failure through `error`. */
/* The descriptor limit children get back (the runner raised its own);
 * rlim_cur 0: leave it alone. Written once, before any spawn. */
static struct rlimit csh_child_nofile = {0, 0};

struct csh_spawn_args {
    const char *path;
    char *const *argv;
    char *const *envp;
    const char *cwd;
    int fds[3];
    volatile int error;
};

/* The kernel's struct sigaction for rt_sigaction (not libc's). */
struct csh_kernel_sigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)(void);
    uint64_t mask;
};

__attribute__((no_sanitize("thread", "address", "undefined")))
static int csh_spawn_child(void *pointer) {
    struct csh_spawn_args *args = pointer;
    // Default dispositions: a handler of the parent's must not run here
    // (the memory is the parent's until execve), and what the parent
    // ignores (SIGPIPE, or SIGINT under nohup) is not passed on. The
    // real-time signals are left alone: nothing in promise-run handles or
    // ignores them, and execve resets handlers anyway.
    struct csh_kernel_sigaction fallback = {SIG_DFL, 0, NULL, 0};
    for (long sig = 1; sig < 32; sig++) {
        if (sig != SIGKILL && sig != SIGSTOP) syscall(SYS_rt_sigaction, sig, &fallback, NULL, sizeof(uint64_t));
    }
    long result = syscall(SYS_setpgid, 0L, 0L);
    if (result != 0) goto fail;
    // A source descriptor below 3 (the runner started with 0, 1 or 2
    // closed) would be overwritten by an earlier dup2: move them up first.
    for (int target = 0; target < 3; target++) {
        if (args->fds[target] < 3) {
            result = syscall(SYS_fcntl, (long)args->fds[target], (long)F_DUPFD_CLOEXEC, 3L);
            if (result < 0) goto fail;
            args->fds[target] = (int)result;
        }
    }
    for (int target = 0; target < 3; target++) {
        if (syscall(SYS_dup3, (long)args->fds[target], (long)target, 0L) < 0) goto fail;
    }
    if (args->cwd != NULL && syscall(SYS_chdir, args->cwd) != 0) goto fail;
    // The limit the runner started with: a program that uses select()
    // breaks on descriptors above 1024.
    if (csh_child_nofile.rlim_cur != 0) syscall(SYS_prlimit64, 0L, (long)RLIMIT_NOFILE, &csh_child_nofile, NULL);
    // Nothing but 0, 1 and 2 reaches the child, whatever another thread
    // opened without O_CLOEXEC.
    syscall(SYS_close_range, 3L, (long)~0U, 0L);
    uint64_t empty = 0;
    syscall(SYS_rt_sigprocmask, (long)SIG_SETMASK, &empty, NULL, sizeof(uint64_t));
    syscall(SYS_execve, args->path, args->argv, args->envp);
fail:
    args->error = errno;
    syscall(SYS_exit, 127L);
    return 127;
}

/* Exported by glibc (GLIBC_2.2.5) beside its weak alias clone. */
extern int __clone(int (*fn)(void *), void *stack, int flags, void *arg, ...);

static int csh_dev_null = -1;
static pthread_once_t csh_dev_null_once = PTHREAD_ONCE_INIT;
static void csh_open_dev_null(void) { csh_dev_null = open("/dev/null", O_RDONLY | O_CLOEXEC); }

int csh_spawn(pid_t *pid, int *pidfd, const char *path, char *const argv[], char *const envp[],
              const char *cwd, int stdin_fd, int stdout_fd, int stderr_fd) {
    if (stdin_fd < 0) {
        pthread_once(&csh_dev_null_once, csh_open_dev_null);
        if (csh_dev_null < 0) return ENOENT;
        stdin_fd = csh_dev_null;
    }
    struct csh_spawn_args args = {path, argv, envp, cwd, {stdin_fd, stdout_fd, stderr_fd}, 0};
    // The child borrows this thread's stack: CLONE_VFORK suspends the
    // thread until the child has called execve or _exit.
    char stack[16 * 1024] __attribute__((aligned(16)));
    sigset_t all, saved;
    // Every signal blocked while the child runs on this memory, but for
    // SIGCHLD (see below): the child has no children to send it one, and
    // the runner has no handler for it.
    sigfillset(&all);
    sigdelset(&all, SIGCHLD);
    pthread_sigmask(SIG_SETMASK, &all, &saved);
    int descriptor = -1;
    // glibc's __clone is its clone under the name ThreadSanitizer does not
    // intercept: TSan's clone wrapper runs fork bookkeeping in the child,
    // which with CLONE_VM writes over the parent thread's own state (two
    // threads spawning at once then trip TSan's internal checks).
    pid_t child = __clone(csh_spawn_child, stack + sizeof stack,
                          CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD, &args, &descriptor);
    int cloneError = errno;
    // A child's SIGCHLD goes to this thread, its parent. While the parent
    // blocks it (Dispatch's worker threads block every signal), the kernel
    // keeps it and wakes another thread of the runner to deliver it, once
    // per child, for nothing: the pidfd tells the exit. Unblocked, at the
    // default disposition, it is dropped when sent.
    sigdelset(&saved, SIGCHLD);
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    if (child < 0) return cloneError;
    if (args.error != 0) {
        int status;
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
        close(descriptor);
        return args.error;
    }
    *pid = child;
    *pidfd = descriptor;
    return 0;
}

int csh_start_writeback(int fd, long long offset, long long length) {
    return sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE);
}

long csh_raise_descriptor_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return -1;
    if (limit.rlim_cur >= limit.rlim_max) return (long)limit.rlim_cur;
    struct rlimit raised = {limit.rlim_max, limit.rlim_max};
    if (setrlimit(RLIMIT_NOFILE, &raised) != 0) return (long)limit.rlim_cur;
    csh_child_nofile = limit;
    return (long)raised.rlim_cur;
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

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441
#endif

/// Whether the kernel has epoll_pwait2 (until a call says ENOSYS, or
/// EPERM from a container's seccomp filter that predates it).
static int csh_has_epoll_pwait2 = 1;

int csh_epoll_wait(int epfd, csh_event *out, int capacity, int64_t timeout_ns) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count;
    int precise = __atomic_load_n(&csh_has_epoll_pwait2, __ATOMIC_RELAXED);
    if (precise) {
        struct timespec timeout = { (time_t)(timeout_ns / 1000000000), (long)(timeout_ns % 1000000000) };
        count = (int)syscall(SYS_epoll_pwait2, epfd, events, capacity, timeout_ns < 0 ? NULL : &timeout, NULL, 0);
        if (count < 0 && (errno == ENOSYS || errno == EPERM)) {
            __atomic_store_n(&csh_has_epoll_pwait2, 0, __ATOMIC_RELAXED);
            precise = 0;
        }
    }
    if (!precise) {
        int64_t milliseconds = timeout_ns < 0 ? -1 : (timeout_ns + 999999) / 1000000;
        count = epoll_wait(epfd, events, capacity, milliseconds > 0x7fffffff ? 0x7fffffff : (int)milliseconds);
    }
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

void csh_set_timer_slack(unsigned long nanoseconds) {
    prctl(PR_SET_TIMERSLACK, nanoseconds, 0, 0, 0);
}

int csh_inotify_open(void) {
    return inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
}

int csh_inotify_watch(int fd, const char *path) {
    return inotify_add_watch(fd, path, IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB |
                                           IN_DELETE_SELF | IN_MOVE_SELF);
}

int csh_inotify_drain(int fd) {
    char buffer[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    int result = 0;
    for (;;) {
        ssize_t count = read(fd, buffer, sizeof buffer);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) return result;
        result |= 1;
        for (char *at = buffer; at < buffer + count;) {
            const struct inotify_event *event = (const struct inotify_event *)at;
            if (event->mask & (IN_IGNORED | IN_Q_OVERFLOW | IN_DELETE_SELF | IN_MOVE_SELF)) result |= 3;
            at += sizeof(struct inotify_event) + event->len;
        }
    }
}

int csh_inotify_watch_changes(int fd, const char *path) {
    return inotify_add_watch(fd, path, IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_MODIFY |
                                           IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF);
}
