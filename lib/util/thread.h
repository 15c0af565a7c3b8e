/*
 * thread.h - strobe's background threads (per-CPU readers, the container
 * watcher, the ClickHouse sender) start with every signal blocked, so a
 * process-directed signal (Ctrl-C, SIGTERM, SIGCHLD) always reaches the
 * caller's threads and interrupts their waits; strobe's own threads never
 * run the caller's handlers.
 */
#ifndef STROBE_UTIL_THREAD_H
#define STROBE_UTIL_THREAD_H

#include <pthread.h>

/* pthread_create with all signals blocked in the new thread (the calling
 * thread's mask is unchanged on return).  Returns 0 or an errno value,
 * as pthread_create. */
int strobe_thread_start(pthread_t *t, void *(*fn)(void *), void *arg);

#endif
