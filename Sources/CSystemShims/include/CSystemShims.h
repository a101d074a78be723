#ifndef CSYSTEMSHIMS_H
#define CSYSTEMSHIMS_H
// libc pieces Swift cannot import on Linux: GNU-only posix_spawn file
// actions, pidfd_open, and the wait-status macros. Filled in by Steps.
#include <sys/types.h>
#include <sys/wait.h>

static inline int csh_wifexited(int status) { return WIFEXITED(status); }
static inline int csh_wexitstatus(int status) { return WEXITSTATUS(status); }
static inline int csh_wifsignaled(int status) { return WIFSIGNALED(status); }
static inline int csh_wtermsig(int status) { return WTERMSIG(status); }

#endif
