#ifndef CSH_CONTAINMENT_H
#define CSH_CONTAINMENT_H
// Keeping a step's processes attributable to it wherever they go (a new
// session, a double fork), and ending them when promise-run dies: every
// process a step starts carries PROMISE_RUN_STEP=<runner pid>.<n> in its
// environment, inherited by everything it starts.
#include <stddef.h>

/// Copies the values of every environment entry `name` (e.g.
/// "PROMISE_RUN_STEP"; a promise-run inside a step adds its own mark before
/// the one it inherited) of process `pid`, read from /proc/PID/environ (its
/// first 64 KiB), into `out`, separated by newlines and NUL-terminated.
/// Returns the length written, -1 when it has none or cannot be read, or
/// -2 when its environment reads empty (none, or none yet: inside execve).
int csh_environ_value(int pid, const char *name, char *out, size_t size);

/// Whether `pid` is a live user process inside execve, between its old
/// image and its new one: its environment reads empty for that while
/// (the watchdog's sweep follows it until it shows its marks).
/// 0 for a zombie, a kernel thread, or a process with an empty environment.
int csh_between_images(int pid);

/// Starts the watchdog: a process of its own session that waits for
/// promise-run to end (a pipe whose write end only promise-run holds reaches
/// end of file however it ends, SIGKILL included) and then SIGKILLs every
/// process whose PROMISE_RUN_STEP starts with `prefix` (scanning /proc
/// until none is left, at most about 5 s). Its standard streams are
/// /dev/null. Returns the watchdog's pid, or -1 with errno.
int csh_start_watchdog(const char *prefix);

/// Dismisses the watchdog, for a promise-run that has itself ended every
/// process of its steps: it exits at once, without a sweep, and is reaped
/// here (waiting a second at most). Returns 1 when it is gone, 0 when there
/// was none, -1 when it did not exit in time (it then sweeps as if
/// promise-run had died).
int csh_dismiss_watchdog(void);

#endif
