#ifndef CSYSTEMSHIMS_H
#define CSYSTEMSHIMS_H
// libc pieces Swift cannot import on Linux: a vfork-style spawn (clone with
// a pidfd), pipe2, epoll with a plain (unpacked) event record,
// eventfd, waitid's siginfo fields, and the wait-status macros.
#include <stdint.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "csh_codecs.h"
#include "csh_containment.h"
#include "csh_curl.h"
#include "csh_net.h"
#include "csh_sha256.h"
#include "csh_xml.h"

static inline int csh_wifexited(int status) { return WIFEXITED(status); }
static inline int csh_wexitstatus(int status) { return WEXITSTATUS(status); }
static inline int csh_wifsignaled(int status) { return WIFSIGNALED(status); }
static inline int csh_wtermsig(int status) { return WTERMSIG(status); }

/// Spawns `path` with `argv` and `envp` (NULL-terminated) in a new process
/// group of its own, with an empty signal mask and the standard signals
/// (1-31) at their default disposition, in the folder `cwd` (NULL: the
/// caller's), with `stdin_fd`, `stdout_fd` and `stderr_fd` as its
/// descriptors 0, 1 and 2 (`stdin_fd` < 0: /dev/null) and no other
/// descriptor. Returns 0 and sets `*pid` and `*pidfd` (a close-on-exec
/// pidfd of the child), or an errno value (from the exec or the chdir in
/// the child too; the child is reaped then). A vfork-style clone: cheaper
/// than posix_spawn, which resets all 64 signals and maps a stack per call.
int csh_spawn(pid_t *pid, int *pidfd, const char *path, char *const argv[], char *const envp[],
              const char *cwd, int stdin_fd, int stdout_fd, int stderr_fd);

/// Starts writing a range of a file to disk without waiting for it
/// (sync_file_range with SYNC_FILE_RANGE_WRITE), so that a later fsync
/// has little left to do. Returns 0 or -1 with errno.
int csh_start_writeback(int fd, long long offset, long long length);

/// Raises this process's soft limit on open descriptors to its hard limit
/// (thousands of connections at once need more than the usual 1024);
/// children spawned later get the old limit back. Call once, before any
/// spawn. Returns the limit now in force, or -1.
long csh_raise_descriptor_limit(void);

/// pipe2(fds, O_CLOEXEC), both ends; `nonblocking_read` / `nonblocking_write`
/// set O_NONBLOCK on that end only. Returns 0 or -1 with errno.
int csh_pipe(int fds[2], int nonblocking_read, int nonblocking_write);

/// waitid(P_PID, pid, WEXITED | WNOHANG | WNOWAIT): reads the exit of a
/// child without reaping it (so its pid, and its process group id, stay
/// reserved). Returns 1 with `*code` = CLD_EXITED / CLD_KILLED / CLD_DUMPED
/// and `*status` = exit code or signal; 0 when it has not exited; -1 errno.
int csh_peek_exit(pid_t pid, int *code, int *status);

static inline int csh_cld_exited(void) { return CLD_EXITED; }

/// An epoll event without the packed layout Swift cannot import.
typedef struct {
    uint32_t events;
    uint64_t token;
} csh_event;

int csh_epoll_create(void);
/// EPOLL_CTL_ADD (`modify` 0) or EPOLL_CTL_MOD (`modify` 1).
int csh_epoll_ctl(int epfd, int fd, uint32_t events, uint64_t token, int modify);
int csh_epoll_remove(int epfd, int fd);
/// epoll_wait into `out` (at most `capacity`), waiting at most
/// `timeout_ns` nanoseconds (negative: without end); EINTR returns 0. The
/// wait is epoll_pwait2's, to the nanosecond (a `rate`'s timers run on
/// this wait); on a kernel before 5.11, epoll_wait's, rounded up to the
/// millisecond.
int csh_epoll_wait(int epfd, csh_event *out, int capacity, int64_t timeout_ns);

static inline uint32_t csh_epollin(void) { return 0x001; }
static inline uint32_t csh_epollout(void) { return 0x004; }
static inline uint32_t csh_epollerr(void) { return 0x008; }
static inline uint32_t csh_epollhup(void) { return 0x010; }

/// A non-blocking, close-on-exec eventfd.
int csh_eventfd(void);
int csh_eventfd_signal(int fd);
int csh_eventfd_drain(int fd);

/// A non-blocking, close-on-exec inotify descriptor, or -1.
int csh_inotify_open(void);
/// Watches `path` (a folder, following links) for entries made, removed,
/// renamed or changed in mode, and for the folder itself going away.
/// Returns the watch descriptor or -1 with errno.
int csh_inotify_watch(int fd, const char *path);

/// Watches a folder for files made, removed, renamed, written or closed
/// after writing (--watch); the watch descriptor or -1.
int csh_inotify_watch_changes(int fd, const char *path);
/// Reads every queued event without blocking. Returns 0 when there was
/// none, 1 when something changed, 3 when also a watch was dropped (a
/// folder deleted or moved) or events were lost: the caller then watches
/// again.
int csh_inotify_drain(int fd);

/// Names the calling thread (as `ps -L`, perf and gdb show it).
void csh_name_thread(const char *name);

/// Sets the calling thread's timer slack (how late the kernel may wake it
/// from a timed wait, to group wake-ups; 50 µs by default), in nanoseconds.
void csh_set_timer_slack(unsigned long nanoseconds);

#endif
