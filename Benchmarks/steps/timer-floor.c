// The machine's own timer floor: a C loop that sleeps to absolute
// deadlines RATE times a second for SECONDS (clock_nanosleep, timer slack
// 1 µs, nothing else to do) and prints how late it woke: "p50 p99 p99.9
// max" in milliseconds. load-bench.sh prints it beside promise-run's
// lateness: no program on the machine starts work more on time than this.
//
//   gcc -O2 -o timer-floor timer-floor.c && ./timer-floor 5000 10
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

static int compare(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: timer-floor RATE SECONDS\n");
        return 2;
    }
    long rate = atol(argv[1]), seconds = atol(argv[2]), count = rate * seconds;
    if (rate <= 0 || count <= 0) return 2;
    prctl(PR_SET_TIMERSLACK, 1000, 0, 0, 0);
    long *late = malloc(count * sizeof(long));
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long start = now.tv_sec * 1000000000L + now.tv_nsec;
    for (long k = 0; k < count; k++) {
        long due = start + k * 1000000000L / rate;
        struct timespec deadline = {due / 1000000000L, due % 1000000000L};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
        late[k] = now.tv_sec * 1000000000L + now.tv_nsec - due;
    }
    qsort(late, count, sizeof(long), compare);
    printf("%.3f %.3f %.3f %.3f\n", late[count / 2] / 1e6, late[count * 99 / 100] / 1e6, late[count * 999 / 1000] / 1e6,
           late[count - 1] / 1e6);
    return 0;
}
