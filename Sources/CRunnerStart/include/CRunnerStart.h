#ifndef CRUNNERSTART_H
#define CRUNNERSTART_H
// The promise-run executable's stopping signals (SIGINT, SIGTERM, SIGHUP):
// caught from its first moments (a constructor, before main and before any
// thread) by a handler that writes the signal's number into a pipe, so
// that none is lost, ignored or fatal, whenever it comes. A thread reads
// the pipe (crs_next_signal). Not a signalfd with the signals blocked:
// libdispatch parks the main thread in sigsuspend with an empty mask, which
// would let a blocked signal through at its default action (death).

/// Installs the handler and the pipe once; later calls do nothing.
/// Returns 0, or -1 when the pipe could not be made.
int crs_install(void);

/// Unblocks them in the calling thread: the reader calls it first, so that
/// one thread always takes them, whatever mask it was started with (a
/// Dispatch thread blocks every signal, and libdispatch lets the main
/// thread exit).
void crs_unblock_in_this_thread(void);

/// Waits for the next of those signals; returns its number, or -1.
int crs_next_signal(void);

/// Whether the constructor installed it (the program is named promise-run).
int crs_installed_at_start(void);

#endif
