#define _GNU_SOURCE
#include "CSystemShims.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Raw system calls and no allocation: the same code serves the runner
 * (any thread) and the watchdog (a child forked from a threaded process,
 * where only async-signal-safe calls may be made). */

static long csh_sys_open(const char *path, int flags) { return syscall(SYS_openat, (long)AT_FDCWD, path, (long)flags, 0L); }
static long csh_sys_read(int fd, void *buffer, size_t size) { return syscall(SYS_read, (long)fd, buffer, (long)size); }
static void csh_sys_close(int fd) { syscall(SYS_close, (long)fd); }

static size_t csh_format_int(char *out, long value) {
    char digits[24];
    size_t count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value > 0 && count < sizeof digits);
    for (size_t index = 0; index < count; index++) out[index] = digits[count - 1 - index];
    return count;
}

static int csh_environ_value_in(int pid, const char *name, char *out, size_t size, char *buffer, size_t capacity) {
    char path[40] = "/proc/";
    size_t length = 6;
    length += csh_format_int(path + length, pid);
    memcpy(path + length, "/environ", 9);
    long fd = csh_sys_open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t filled = 0;
    while (filled < capacity) {
        long got = csh_sys_read((int)fd, buffer + filled, capacity - filled);
        if (got <= 0) break;
        filled += (size_t)got;
    }
    csh_sys_close((int)fd);
    /* Nothing to read: no environment at all, or none yet (see
     * csh_between_images). */
    if (filled == 0) return -2;
    size_t name_length = strlen(name);
    size_t start = 0;
    size_t written = 0;
    int found = 0;
    while (start < filled) {
        size_t end = start;
        while (end < filled && buffer[end] != 0) end++;
        if (end - start > name_length && memcmp(buffer + start, name, name_length) == 0 && buffer[start + name_length] == '=') {
            size_t value_start = start + name_length + 1;
            size_t value_length = end - value_start;
            if (written + (found ? 1 : 0) + value_length + 1 > size) break;
            if (found) out[written++] = '\n';
            memcpy(out + written, buffer + value_start, value_length);
            written += value_length;
            found = 1;
        }
        start = end + 1;
    }
    if (!found) return -1;
    out[written] = 0;
    return (int)written;
}

int csh_environ_value(int pid, const char *name, char *out, size_t size) {
    char buffer[64 * 1024];
    return csh_environ_value_in(pid, name, out, size, buffer, sizeof buffer);
}

/* Whether `pid` is a live user process between two images, inside
 * execve: its new memory has no environment yet (`env_end`, field 51 of
 * /proc/PID/stat, is 0), so it shows none, though it will have the one it
 * was given. A process with an empty environment shows an `env_end`; a
 * zombie or a kernel thread shows 0 but is neither live nor a user
 * process. On a busy machine a process can stay in that window for a long
 * while (it reads its program and loader from disk). */
static int csh_between_images_in(long pid, char *buffer, size_t capacity) {
    char path[40] = "/proc/";
    size_t length = 6;
    length += csh_format_int(path + length, pid);
    memcpy(path + length, "/stat", 6);
    long fd = csh_sys_open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    long got = csh_sys_read((int)fd, buffer, capacity - 1);
    csh_sys_close((int)fd);
    if (got <= 0) return 0;
    buffer[got] = 0;
    /* Fields are counted after the last ')' (the name may hold any). */
    char *cursor = NULL;
    for (long index = got - 1; index >= 0; index--) {
        if (buffer[index] == ')') {
            cursor = buffer + index + 1;
            break;
        }
    }
    if (cursor == NULL) return 0;
    char state = 0;
    unsigned long flags = 0;
    unsigned long env_end = 1;
    /* Field 3 is the state; 9 the flags; 51 env_end. */
    for (int field = 3; field <= 51 && *cursor; field++) {
        while (*cursor == ' ') cursor++;
        char *start = cursor;
        while (*cursor && *cursor != ' ') cursor++;
        if (field == 3) state = *start;
        unsigned long value = 0;
        for (char *c = start; c < cursor && *c >= '0' && *c <= '9'; c++) value = value * 10 + (unsigned long)(*c - '0');
        if (field == 9) flags = value;
        if (field == 51) env_end = value;
    }
    const unsigned long kernel_thread = 0x00200000; /* PF_KTHREAD */
    return state != 'Z' && state != 'X' && !(flags & kernel_thread) && env_end == 0;
}

int csh_between_images(int pid) {
    char buffer[1024];
    return csh_between_images_in(pid, buffer, sizeof buffer);
}

/* SIGKILLs process `pid` and its whole group (what it started there, even
 * with its environment cleared) when one of its marks (`value`, `length`
 * bytes, one a line) starts with `prefix`. Returns 1 when it did. */
static int csh_kill_if_marked(long pid, const char *prefix, const char *value, int length) {
    size_t prefix_length = strlen(prefix);
    for (int line = 0; line < length;) {
        int line_end = line;
        while (line_end < length && value[line_end] != '\n') line_end++;
        if (line_end - line >= (int)prefix_length && memcmp(value + line, prefix, prefix_length) == 0) {
            long group = syscall(SYS_getpgid, pid);
            if (group > 1) syscall(SYS_kill, -group, (long)SIGKILL);
            syscall(SYS_kill, pid, (long)SIGKILL);
            return 1;
        }
        line = line_end + 1;
    }
    return 0;
}

/* Reads each of `pids` again (processes a scan found inside execve):
 * SIGKILLs one that now shows a mark starting with `prefix`, keeps those
 * still inside execve, drops the rest. Returns how many it killed; `*count`
 * becomes the number kept. */
static int csh_watchdog_follow(const char *prefix, long *pids, int *count, char *value, size_t value_size,
                               char *buffer, size_t capacity) {
    int kept = 0;
    int killed = 0;
    for (int index = 0; index < *count; index++) {
        long pid = pids[index];
        int length = csh_environ_value_in((int)pid, "PROMISE_RUN_STEP", value, value_size, buffer, capacity);
        if (length == -2 && csh_between_images_in(pid, buffer, capacity)) {
            pids[kept++] = pid;
            continue;
        }
        killed += csh_kill_if_marked(pid, prefix, value, length);
    }
    *count = kept;
    return killed;
}

/* The watchdog's work once promise-run is gone: SIGKILL every process whose
 * marker starts with `prefix`, scanning again while it finds any. */
static void csh_watchdog_sweep(const char *prefix) {
    static char environ_buffer[64 * 1024];
    static char entries[32 * 1024];
    /* The processes the last scan found inside execve (their environment
     * not readable yet): any may be one of ours. */
    static long images[256];
    char value[512];
    /* Done after three rounds in a row that find nothing of ours, once the
     * processes the last of them found inside execve show they are not
     * ours either. On a busy machine nearly every scan finds some process
     * of someone else's inside execve: those are followed one by one, not
     * waited for with more scans. */
    int quiet = 0;
    for (int round = 0; round < 100; round++) {
        int found = 0;
        int image_count = 0;
        long directory = csh_sys_open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (directory < 0) return;
        for (;;) {
            long got = syscall(SYS_getdents64, directory, entries, (long)sizeof entries);
            if (got <= 0) break;
            for (long offset = 0; offset < got;) {
                struct {
                    unsigned long long inode;
                    long long next;
                    unsigned short length;
                    unsigned char type;
                    char name[];
                } *entry = (void *)(entries + offset);
                offset += entry->length;
                long pid = 0;
                int numeric = entry->name[0] != 0;
                for (const char *c = entry->name; *c; c++) {
                    if (*c < '0' || *c > '9') { numeric = 0; break; }
                    pid = pid * 10 + (*c - '0');
                }
                if (!numeric || pid <= 1) continue;
                int length = csh_environ_value_in((int)pid, "PROMISE_RUN_STEP", value, sizeof value, environ_buffer,
                                                  sizeof environ_buffer);
                if (length == -2 && csh_between_images_in(pid, environ_buffer, sizeof environ_buffer)) {
                    /* More than it can follow: the round is not quiet. */
                    if (image_count < (int)(sizeof images / sizeof images[0])) images[image_count++] = pid;
                    else found = 1;
                }
                /* Any of its marks (one per line) may be ours. */
                if (csh_kill_if_marked(pid, prefix, value, length)) found = 1;
            }
        }
        csh_sys_close((int)directory);
        quiet = found ? 0 : quiet + 1;
        if (quiet >= 3) {
            /* Each left inside execve is read again every 5 ms, for a
             * second at most: one of ours is killed, and the scans go on. */
            int killed = 0;
            for (int wait = 0; wait < 200 && image_count > 0 && !killed; wait++) {
                killed = csh_watchdog_follow(prefix, images, &image_count, value, sizeof value, environ_buffer,
                                             sizeof environ_buffer);
                if (!killed && image_count > 0) {
                    struct timespec pause = {0, 5 * 1000 * 1000};
                    syscall(SYS_nanosleep, &pause, NULL);
                }
            }
            if (!killed) return;
            quiet = 0;
        }
        struct timespec pause = {0, 50 * 1000 * 1000};
        syscall(SYS_nanosleep, &pause, NULL);
    }
}

/* The watchdog's pid and the write end of its pipe, in promise-run. */
static long csh_watchdog_pid = -1;
static int csh_watchdog_pipe = -1;

int csh_start_watchdog(const char *prefix) {
    char copied[128];
    size_t length = strlen(prefix);
    if (length + 1 > sizeof copied) {
        errno = EINVAL;
        return -1;
    }
    memcpy(copied, prefix, length + 1);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    /* A raw fork: no atfork handlers run in a child of a threaded process. */
    long pid = syscall(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L);
    if (pid < 0) {
        int saved = errno;
        close(fds[0]);
        close(fds[1]);
        errno = saved;
        return -1;
    }
    if (pid == 0) {
        /* The watchdog: its own session (not ended with promise-run's
         * group), quiet streams (not holding a CI log's pipe open), no
         * descriptor but the pipe's read end, the signals a terminal or a
         * CI system sends to promise-run's group ignored. */
        syscall(SYS_setsid);
        long null = csh_sys_open("/dev/null", O_RDWR);
        if (null >= 0) {
            for (long target = 0; target < 3; target++) syscall(SYS_dup3, null, target, 0L);
        }
        int keep = fds[0];
        if (keep > 3) syscall(SYS_close_range, 3L, (long)(keep - 1), 0L);
        syscall(SYS_close_range, (long)(keep + 1), (long)~0U, 0L);
        struct { void (*handler)(int); unsigned long flags; void (*restorer)(void); unsigned long mask; } ignore = {SIG_IGN, 0, NULL, 0};
        syscall(SYS_rt_sigaction, (long)SIGINT, &ignore, NULL, 8L);
        syscall(SYS_rt_sigaction, (long)SIGTERM, &ignore, NULL, 8L);
        syscall(SYS_rt_sigaction, (long)SIGHUP, &ignore, NULL, 8L);
        syscall(SYS_rt_sigaction, (long)SIGPIPE, &ignore, NULL, 8L);
        unsigned long empty = 0;
        syscall(SYS_rt_sigprocmask, (long)SIG_SETMASK, &empty, NULL, 8L);
        /* The marks it inherited (promise-run inside a step of another)
         * renamed in its own copy of the environment, which /proc shows:
         * the outer run must not take the watchdog, still sweeping as the
         * inner run ends, for a process its step left behind. */
        for (char **entry = environ; entry != NULL && *entry != NULL; entry++) {
            if (strncmp(*entry, "PROMISE_RUN_STEP=", 17) == 0) (*entry)[0] = '_';
        }
        /* A byte: promise-run ended every process itself and dismisses
         * it. End of file: promise-run is gone, however it ended. */
        char byte;
        for (;;) {
            long got = csh_sys_read(keep, &byte, 1);
            if (got == 1) syscall(SYS_exit_group, 0L);
            if (got == 0) break;
            if (got < 0 && errno != EINTR) break;
        }
        csh_watchdog_sweep(copied);
        syscall(SYS_exit_group, 0L);
    }
    /* promise-run keeps the write end (close-on-exec: no step inherits it)
     * for as long as it lives. */
    close(fds[0]);
    csh_watchdog_pid = pid;
    csh_watchdog_pipe = fds[1];
    return (int)pid;
}

int csh_dismiss_watchdog(void) {
    if (csh_watchdog_pid < 0) return 0;
    long pid = csh_watchdog_pid;
    csh_watchdog_pid = -1;
    char byte = 'q';
    long wrote;
    do {
        wrote = syscall(SYS_write, (long)csh_watchdog_pipe, &byte, 1L);
    } while (wrote < 0 && errno == EINTR);
    close(csh_watchdog_pipe);
    csh_watchdog_pipe = -1;
    if (wrote != 1) return -1;
    for (int wait = 0; wait < 1000; wait++) {
        int status;
        long reaped = waitpid((pid_t)pid, &status, WNOHANG);
        if (reaped == pid || (reaped < 0 && errno == ECHILD)) return 1;
        struct timespec pause = {0, 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    return -1;
}
