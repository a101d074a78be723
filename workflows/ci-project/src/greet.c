#include "greet.h"
#include <stdio.h>

int greet(const char *name, char *buffer, size_t size) {
    if (name == NULL || name[0] == '\0') {
        name = "world";
    }
    return snprintf(buffer, size, "hello, %s", name);
}
