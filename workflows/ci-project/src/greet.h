#ifndef GREET_H
#define GREET_H
#include <stddef.h>

#define GREET_VERSION "1.2.0"

/* Writes "hello, NAME" into buffer (at most size bytes); returns its length. */
int greet(const char *name, char *buffer, size_t size);

#endif
