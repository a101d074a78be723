#ifndef CSH_NET_H
#define CSH_NET_H
// TCP sockets for the HTTP/1.1 client: non-blocking connects and name
// resolution, with the sockaddr juggling kept out of Swift.
#include <stddef.h>
#include <stdint.h>

/// A non-blocking, close-on-exec TCP socket with TCP_NODELAY, connecting to
/// `address` (4 bytes for AF_INET, 16 for AF_INET6) at `port`. Returns the
/// descriptor with `*status` 0 (connected) or EINPROGRESS, or -1 with
/// `*status` the errno value.
int csh_tcp_connect(int family, const uint8_t *address, uint16_t port, int *status);
/// A non-blocking, close-on-exec stream socket connecting to the Unix
/// domain socket at `path`. Returns the descriptor with `*status` 0 or
/// EINPROGRESS, or -1 with `*status` the errno value.
int csh_unix_connect(const char *path, int *status);
/// Asks the kernel to stamp each segment `fd` receives with the moment it
/// arrived (SO_TIMESTAMPNS), for `csh_read_stamped`. 0, or -1 with errno.
int csh_stamp_receives(int fd);
/// read() that also says how long ago the kernel received the last byte
/// it returns: `*age_ns`, or -1 when the kernel gave no stamp (the socket
/// asked for none, or timestamping was still being switched on). A
/// response read late (the event loop defers reads) keeps its true time.
ptrdiff_t csh_read_stamped(int fd, void *buffer, size_t size, int64_t *age_ns);
/// The pending error of a socket (SO_ERROR), 0 when none.
int csh_socket_error(int fd);
/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC (a connection no child
/// inherits); -1 with errno set.
int csh_accept(int fd);
/// Resolves `host` with getaddrinfo (blocking: call it off the event
/// loop). Writes up to `capacity` addresses, IPv4 first: the family in
/// `families[i]` and 16 bytes at `addresses + 16 * i`. Returns how many,
/// or -1 with getaddrinfo's words in `message`.
int csh_resolve(const char *host, int *families, uint8_t *addresses, int capacity, char *message, size_t size);
/// Parses a numeric IPv4 or IPv6 address (no brackets). Returns the family
/// (AF_INET, AF_INET6) with the bytes in `address` (16 bytes), or 0.
int csh_parse_address(const char *text, uint8_t *address);
static inline int csh_af_inet(void) { return 2; }
static inline int csh_af_inet6(void) { return 10; }

#endif
