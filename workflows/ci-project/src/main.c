#include "greet.h"
#include <stdio.h>

int main(int argc, char **argv) {
    char line[256];
    greet(argc > 1 ? argv[1] : NULL, line, sizeof line);
    puts(line);
    fprintf(stderr, "greet %s\n", GREET_VERSION);
    return 0;
}
