/*
 * test_thread.c - strobe's background threads start with every signal
 * blocked, and starting one leaves the caller's signal mask as it was.
 */
#include <pthread.h>
#include <signal.h>

#include "test.h"
#include "util/thread.h"

static void *report_mask(void *arg)
{
	sigset_t *seen = arg;

	pthread_sigmask(SIG_BLOCK, NULL, seen);
	return NULL;
}

static void test_thread_blocks_every_signal(void)
{
	sigset_t seen, before, after;
	pthread_t t;

	sigemptyset(&seen);
	pthread_sigmask(SIG_BLOCK, NULL, &before);
	REQUIRE(strobe_thread_start(&t, report_mask, &seen) == 0);
	pthread_join(t, NULL);
	CHECK(sigismember(&seen, SIGINT));
	CHECK(sigismember(&seen, SIGTERM));
	CHECK(sigismember(&seen, SIGCHLD));
	CHECK(sigismember(&seen, SIGRTMIN));
	pthread_sigmask(SIG_BLOCK, NULL, &after);
	CHECK(!sigismember(&after, SIGINT));
	CHECK_EQ(sigismember(&after, SIGTERM), sigismember(&before, SIGTERM));
}

TESTS(T(test_thread_blocks_every_signal));
