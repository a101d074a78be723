#define _GNU_SOURCE
#include "CSystemShims.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int csh_tcp_connect(int family, const uint8_t *address, uint16_t port, int *status) {
    int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
    if (fd < 0) {
        *status = errno;
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int result;
    if (family == AF_INET6) {
        struct sockaddr_in6 target;
        memset(&target, 0, sizeof target);
        target.sin6_family = AF_INET6;
        target.sin6_port = htons(port);
        memcpy(&target.sin6_addr, address, 16);
        result = connect(fd, (struct sockaddr *)&target, sizeof target);
    } else {
        struct sockaddr_in target;
        memset(&target, 0, sizeof target);
        target.sin_family = AF_INET;
        target.sin_port = htons(port);
        memcpy(&target.sin_addr, address, 4);
        result = connect(fd, (struct sockaddr *)&target, sizeof target);
    }
    if (result == 0) {
        *status = 0;
        return fd;
    }
    if (errno == EINPROGRESS) {
        *status = EINPROGRESS;
        return fd;
    }
    *status = errno;
    close(fd);
    return -1;
}

int csh_unix_connect(const char *path, int *status) {
    struct sockaddr_un target;
    if (strlen(path) >= sizeof target.sun_path) {
        *status = ENAMETOOLONG;
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        *status = errno;
        return -1;
    }
    memset(&target, 0, sizeof target);
    target.sun_family = AF_UNIX;
    memcpy(target.sun_path, path, strlen(path));
    if (connect(fd, (struct sockaddr *)&target, sizeof target) == 0) {
        *status = 0;
        return fd;
    }
    /* A Unix socket whose backlog is full answers EAGAIN: wait for it to
     * be writable, as for a TCP connect under way. */
    if (errno == EINPROGRESS || errno == EAGAIN) {
        *status = EINPROGRESS;
        return fd;
    }
    *status = errno;
    close(fd);
    return -1;
}

int csh_accept(int fd) {
    return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int csh_stamp_receives(int fd) {
    int one = 1;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
}

ptrdiff_t csh_read_stamped(int fd, void *buffer, size_t size, int64_t *age_ns) {
    struct iovec vector = { buffer, size };
    // Room for one SCM_TIMESTAMPNS (a timespec) and then some.
    union {
        char bytes[CMSG_SPACE(sizeof(struct timespec)) + 64];
        struct cmsghdr align;
    } control;
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control.bytes;
    message.msg_controllen = sizeof control.bytes;
    *age_ns = -1;
    ssize_t count = recvmsg(fd, &message, 0);
    if (count <= 0) return count;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_TIMESTAMPNS) continue;
        struct timespec stamp, now;
        memcpy(&stamp, CMSG_DATA(header), sizeof stamp);
        clock_gettime(CLOCK_REALTIME, &now);
        int64_t age = (int64_t)(now.tv_sec - stamp.tv_sec) * 1000000000 + (now.tv_nsec - stamp.tv_nsec);
        // The wall clock stepped back between the two: no age to trust.
        *age_ns = age < 0 ? -1 : age;
    }
    return count;
}

int csh_socket_error(int fd) {
    int error = 0;
    socklen_t length = sizeof error;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) return errno;
    return error;
}

int csh_resolve(const char *host, int *families, uint8_t *addresses, int capacity, char *message, size_t size) {
    struct addrinfo hints, *list = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_ADDRCONFIG;
    int code = getaddrinfo(host, NULL, &hints, &list);
    if (code != 0) {
        snprintf(message, size, "%s", code == EAI_SYSTEM ? strerror(errno) : gai_strerror(code));
        return -1;
    }
    int count = 0;
    for (int pass = 0; pass < 2; pass++) {
        int wanted = pass == 0 ? AF_INET : AF_INET6;
        for (struct addrinfo *item = list; item != NULL && count < capacity; item = item->ai_next) {
            if (item->ai_family != wanted) continue;
            memset(addresses + 16 * count, 0, 16);
            if (wanted == AF_INET) {
                memcpy(addresses + 16 * count, &((struct sockaddr_in *)item->ai_addr)->sin_addr, 4);
            } else {
                memcpy(addresses + 16 * count, &((struct sockaddr_in6 *)item->ai_addr)->sin6_addr, 16);
            }
            families[count++] = wanted;
        }
    }
    freeaddrinfo(list);
    if (count == 0) snprintf(message, size, "no IPv4 or IPv6 address");
    return count == 0 ? -1 : count;
}

int csh_parse_address(const char *text, uint8_t *address) {
    memset(address, 0, 16);
    if (inet_pton(AF_INET, text, address) == 1) return AF_INET;
    if (inet_pton(AF_INET6, text, address) == 1) return AF_INET6;
    return 0;
}
