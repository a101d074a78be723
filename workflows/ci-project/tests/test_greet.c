#include "greet.h"
#include <stdio.h>
#include <string.h>

static int failures = 0;

static void expect(const char *name, const char *want) {
    char got[64];
    greet(name, got, sizeof got);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "FAIL: greet(%s) = \"%s\", want \"%s\"\n", name ? name : "NULL", got, want);
        failures++;
    }
}

int main(void) {
    expect("CI", "hello, CI");
    expect("", "hello, world");
    expect(NULL, "hello, world");
    if (failures > 0) {
        return 1;
    }
    puts("all tests passed");
    return 0;
}
