/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * host-wake: what the host itself costs a QD1 command whose service time
 * is GAP, measured without QEMU (docs/devel/latency.md, finding 4).
 *
 * A device model with a service time of GAP sleeps in the main loop's
 * ppoll() for GAP while the guest's vCPU thread is halted on a futex; when
 * the timer fires, the main loop completes the command and wakes the vCPU
 * thread.  This program does the same with two threads and nothing else:
 * the main thread sleeps GAP in ppoll(), then wakes the other thread
 * through a futex, ROUNDS times.  Like QEMU (util/qemu-timer.c), it sets
 * its timer slack to 1 ns first.  It prints, in microseconds, the median
 * and 90th percentile of
 *
 *   overshoot  how late ppoll() returned after GAP
 *   wake       from the futex wake to the woken thread running
 *   excess     the sum: what the host adds to GAP one command at a time
 *
 *   host-wake GAP-NS ROUNDS
 */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_uint gen;         /* bumped by the main thread to wake */
static atomic_uint seen;        /* the generation the waiter has run */
static _Atomic int64_t woke_ns;

static int64_t now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void *waiter(void *arg)
{
    unsigned g = 0;

    (void)arg;
    for (;;) {
        while (atomic_load(&gen) == g) {
            syscall(SYS_futex, &gen, FUTEX_WAIT_PRIVATE, g, NULL, NULL, 0);
        }
        atomic_store(&woke_ns, now_ns());
        g = atomic_load(&gen);
        atomic_store(&seen, g);
        if (g == UINT32_MAX) {
            return NULL;
        }
    }
}

static int cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

static void print(const char *what, int64_t *v, int n)
{
    qsort(v, n, sizeof(*v), cmp);
    printf(" %s_p50_us=%.1f %s_p90_us=%.1f", what, v[n / 2] / 1000.0,
           what, v[n * 9 / 10] / 1000.0);
}

int main(int argc, char **argv)
{
    int64_t gap, *over, *wake, *sum;
    pthread_t th;
    int n, i;

    if (argc != 3 || (gap = atoll(argv[1])) < 0 || (n = atoi(argv[2])) < 10) {
        fprintf(stderr, "usage: host-wake GAP-NS ROUNDS (ROUNDS >= 10)\n");
        return 2;
    }
    prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0);
    over = calloc(n, sizeof(*over));
    wake = calloc(n, sizeof(*wake));
    sum = calloc(n, sizeof(*sum));
    if (!over || !wake || !sum || pthread_create(&th, NULL, waiter, NULL)) {
        fprintf(stderr, "host-wake: out of resources\n");
        return 1;
    }
    for (i = 0; i < n; i++) {
        struct timespec ts = { gap / 1000000000, gap % 1000000000 };
        unsigned g = atomic_load(&gen) + 1;
        int64_t t0 = now_ns(), t1;

        ppoll(NULL, 0, &ts, NULL);
        t1 = now_ns();
        atomic_store(&gen, i + 1 == n ? UINT32_MAX : g);
        syscall(SYS_futex, &gen, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        while (atomic_load(&seen) != atomic_load(&gen)) {
            /* the waiter stores woke_ns before seen */
        }
        over[i] = t1 - t0 - gap;
        wake[i] = atomic_load(&woke_ns) - t1;
        sum[i] = over[i] + wake[i];
    }
    pthread_join(th, NULL);
    printf("host-wake gap_us=%.0f rounds=%d", gap / 1000.0, n);
    print("overshoot", over, n);
    print("wake", wake, n);
    print("excess", sum, n);
    printf("\n");
    return 0;
}
