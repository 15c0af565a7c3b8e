/*
 * test_ch_sender.c - the ClickHouse sender that never holds up its
 * producer (lib/sinks/ch-sender.c), without a server: its client points
 * at a closed loopback port (a real connection, really refused), so
 * every batch ends in the spool file or, past its bound, is dropped and
 * counted.  Checked: the backoff schedule; sends that return at once
 * while the server refuses; the spool's bound on disk; the counts
 * (pending + dropped = sent, per table); the close's message naming the
 * spool and never the password; the spool file read back by
 * strobe_ch_spool_replay byte for byte (raw records written by the
 * producer and gzip ones written by the thread); a replay that stops at
 * a damaged record and resumes there; a spool name in use is never
 * overwritten; an unwritable spool drops (counted) and says why; a stop
 * flag (Ctrl-C) ends the last attempts at once.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <strobe/strobe.h>
#include <strobe/clickhouse.h>

#include "test.h"

/* internal (lib/sinks/sinks-int.h), linked from the static library */
double strobe_ch_backoff(double prev, double min, double max);

#define NB	40	/* batches sent */
#define BLEN	2000	/* bytes each */

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Batch i: its index, then bytes that do not compress. */
static void fill(uint8_t *p, int i)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1);
	int j;

	for (j = 0; j < BLEN; j++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[j] = (uint8_t)x;
	}
	memcpy(p, &i, sizeof(i));
}

static const char *table_of(int i)
{
	return i % 2 ? "container_seconds" : "events";
}

static void test_backoff_schedule_doubles_from_min_to_max(void)
{
	static const double want[] = { 0.5, 1, 2, 4, 8, 16, 30, 30, 30 };
	double b = 0;
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		b = strobe_ch_backoff(b, 0.5, 30);
		CHECK(b == want[i]);
	}
	CHECK(strobe_ch_backoff(0, 2, 1) == 1);
}

/* A client of a loopback port nobody listens on (fd keeps it taken). */
static struct strobe_clickhouse *refusing_client(int *fd)
{
	struct strobe_clickhouse_opts o = { 0 };
	struct strobe_clickhouse *ch = NULL;
	struct strobe_error err = { 0, "" };
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	char url[128];

	*fd = socket(AF_INET, SOCK_STREAM, 0);
	if (*fd < 0)
		return NULL;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(*fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(*fd, (struct sockaddr *)&sa, &sl) < 0)
		return NULL;
	snprintf(url, sizeof(url), "http://bob:Sekr1t-pw@127.0.0.1:%d/", ntohs(sa.sin_port));
	o.url = url;
	o.timeout_s = 5;
	if (strobe_clickhouse_new(&o, &ch, &err) < 0)
		return NULL;
	return ch;
}

struct got {
	int n;
	bool seen[NB];
	uint64_t rows[2];
	bool bad;
};

/* The replay's receiver: each batch must be one sent, intact, once. */
static int receive(void *arg, const char *table, const void *data, size_t len, uint64_t rows,
		   struct strobe_error *err)
{
	struct got *g = arg;
	uint8_t want[BLEN];
	int i;

	if (len != BLEN) {
		g->bad = true;
		return 0;
	}
	memcpy(&i, data, sizeof(i));
	if (i < 0 || i >= NB || g->seen[i]) {
		g->bad = true;
		return 0;
	}
	fill(want, i);
	if (memcmp(want, data, BLEN) || strcmp(table, table_of(i)) || rows != (uint64_t)i + 1)
		g->bad = true;
	g->seen[i] = true;
	g->n++;
	g->rows[i % 2] += rows;
	return 0;
}

static char dir[] = "/tmp/strobe-ch-sender.XXXXXX";

/* The tests' folder, made by the first test that needs it. */
static bool have_dir(void)
{
	return !strstr(dir, "XXXXXX") || mkdtemp(dir) != NULL;
}

/* Send NB batches to a refusing server through a sender whose spool is
 * at path with the bound max; close it.  Returns close's result. */
static int run_refused(const char *path, uint64_t max, struct strobe_ch_sender_stats *st,
		       struct strobe_error *err, double *send_s)
{
	struct strobe_ch_sender_opts so = { .spool_path = path, .spool_max = max, .mem_max = 1,
					    .backoff_min_s = 0.01, .backoff_max_s = 0.02 };
	struct strobe_ch_sender *s = NULL;
	struct strobe_clickhouse *ch;
	uint8_t b[BLEN];
	double t0;
	int fd = -1, i, ret;

	ch = refusing_client(&fd);
	if (!ch)
		return -1000;
	if (strobe_ch_sender_new(ch, &so, &s, err) < 0) {
		strobe_clickhouse_free(ch);
		close(fd);
		return -1001;
	}
	t0 = now_s();
	for (i = 0; i < NB; i++) {
		fill(b, i);
		if (strobe_ch_sender_send(s, table_of(i), b, BLEN, (uint64_t)i + 1, err) < 0)
			return -1002;
	}
	*send_s = now_s() - t0;
	usleep(100000);	/* attempts fail, the thread spools */
	ret = strobe_ch_sender_close(s, 0.05, st, err);
	strobe_ch_sender_free(s);
	strobe_clickhouse_free(ch);
	close(fd);
	return ret;
}

static void test_sender_spools_what_a_refusing_server_cannot_take_within_the_bound(void)
{
	struct strobe_ch_sender_stats st;
	struct strobe_error err = { 0, "" };
	struct got g = { 0 };
	uint64_t ev_rows = 0, agg_rows = 0, r1 = 0, r2 = 0;
	char path[256];
	struct stat sb;
	double send_s = 0;
	int i, ret;

	REQUIRE(have_dir());
	snprintf(path, sizeof(path), "%s/spool", dir);
	for (i = 0; i < NB; i++)
		*(i % 2 ? &agg_rows : &ev_rows) += (uint64_t)i + 1;
	/* room for about half the batches */
	ret = run_refused(path, 20 * (BLEN + 64), &st, &err, &send_s);
	CHECK_EQ(ret, -ETIMEDOUT);
	CHECK(send_s < 2.0);	/* never waited for the network */
	CHECK(strstr(err.msg, path) != NULL);
	CHECK(strstr(err.msg, "not delivered") != NULL);
	CHECK(strstr(err.msg, "Sekr1t") == NULL);
	CHECK(strstr(st.last_error, "127.0.0.1") != NULL);
	CHECK(strstr(st.last_error, "Sekr1t") == NULL);
	CHECK_EQ(st.rows_delivered + st.agg_rows_delivered, 0);
	CHECK_EQ(st.rows_pending + st.rows_dropped, ev_rows);
	CHECK_EQ(st.agg_rows_pending + st.agg_rows_dropped, agg_rows);
	CHECK(st.rows_dropped + st.agg_rows_dropped > 0);	/* the bound bit */
	CHECK(st.bytes_dropped >= BLEN);
	CHECK(st.rows_pending > 0 && st.agg_rows_pending > 0);
	CHECK(st.failures >= 1);
	CHECK_STR(st.spool_path, path);
	REQUIRE(stat(path, &sb) == 0);
	CHECK(sb.st_size <= (off_t)(20 * (BLEN + 64) + 32));
	CHECK(sb.st_size >= (off_t)(15 * BLEN));
	CHECK_EQ((uint64_t)sb.st_size, st.spool_bytes + 32);

	/* read back: exactly the rows counted pending, byte for byte */
	ret = strobe_ch_spool_replay(path, receive, &g, &r1, &r2, &err);
	CHECK_EQ(ret, 0);
	CHECK(!g.bad);
	CHECK_EQ(g.rows[0], st.rows_pending);
	CHECK_EQ(g.rows[1], st.agg_rows_pending);
	CHECK_EQ(r1, st.rows_pending);
	CHECK_EQ(r2, st.agg_rows_pending);
	CHECK(access(path, F_OK) < 0);	/* delivered: removed */
}

static void test_replay_stops_at_a_damaged_record_and_resumes_there(void)
{
	struct strobe_ch_sender_stats st;
	struct strobe_error err = { 0, "" };
	struct got g = { 0 }, g2 = { 0 };
	uint64_t r1 = 0, r2 = 0;
	char path[256];
	struct stat sb;
	double send_s;
	uint8_t x;
	int fd, ret;

	snprintf(path, sizeof(path), "%s/damaged", dir);
	ret = run_refused(path, 1 << 20, &st, &err, &send_s);
	CHECK_EQ(ret, -ETIMEDOUT);
	CHECK_EQ(st.rows_dropped + st.agg_rows_dropped, 0);
	REQUIRE(stat(path, &sb) == 0);
	/* flip a byte in the middle of the last record's body */
	fd = open(path, O_RDWR);
	REQUIRE(fd >= 0);
	REQUIRE(pread(fd, &x, 1, sb.st_size - BLEN / 2) == 1);
	x ^= 0x55;
	REQUIRE(pwrite(fd, &x, 1, sb.st_size - BLEN / 2) == 1);
	close(fd);
	ret = strobe_ch_spool_replay(path, receive, &g, &r1, &r2, &err);
	CHECK_EQ(ret, -EBADMSG);
	CHECK(strstr(err.msg, "damaged") != NULL);
	CHECK(!g.bad);
	CHECK_EQ(g.n, NB - 1);	/* all but the damaged one */
	CHECK_EQ(r1 + r2, g.rows[0] + g.rows[1]);
	CHECK(r1 + r2 < st.rows_pending + st.agg_rows_pending);
	REQUIRE(access(path, F_OK) == 0);	/* kept */
	/* again: nothing delivered twice, the same record refused */
	ret = strobe_ch_spool_replay(path, receive, &g2, NULL, NULL, &err);
	CHECK_EQ(ret, -EBADMSG);
	CHECK_EQ(g2.n, 0);
	unlink(path);
}

static void test_a_spool_name_in_use_is_never_overwritten(void)
{
	struct strobe_ch_sender_stats st;
	struct strobe_error err = { 0, "" };
	char path[256], other[300], buf[16] = "";
	double send_s;
	int fd, ret;

	snprintf(path, sizeof(path), "%s/taken", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	REQUIRE(fd >= 0);
	REQUIRE(write(fd, "mine\n", 5) == 5);
	close(fd);
	ret = run_refused(path, 1 << 20, &st, &err, &send_s);
	CHECK_EQ(ret, -ETIMEDOUT);
	snprintf(other, sizeof(other), "%s.1", path);
	CHECK_STR(st.spool_path, other);
	fd = open(path, O_RDONLY);
	REQUIRE(fd >= 0);
	CHECK_EQ(read(fd, buf, sizeof(buf) - 1), 5);
	close(fd);
	CHECK_STR(buf, "mine\n");
	unlink(other);
	unlink(path);
	rmdir(dir);
}

static void test_an_unwritable_spool_drops_and_says_why(void)
{
	struct strobe_ch_sender_stats st;
	struct strobe_error err = { 0, "" };
	uint64_t ev_rows = 0, agg_rows = 0;
	double send_s;
	int i, ret;

	for (i = 0; i < NB; i++)
		*(i % 2 ? &agg_rows : &ev_rows) += (uint64_t)i + 1;
	ret = run_refused("/nonexistent-strobe-dir/spool", 1 << 20, &st, &err, &send_s);
	CHECK_EQ(ret, -ENOSPC);
	CHECK(send_s < 2.0);
	CHECK_EQ(st.rows_dropped, ev_rows);
	CHECK_EQ(st.agg_rows_dropped, agg_rows);
	CHECK_EQ(st.rows_pending + st.agg_rows_pending, 0);
	CHECK_STR(st.spool_path, "");
	CHECK(strstr(st.spool_error, "cannot write the spool '/nonexistent-strobe-dir/spool'") != NULL);
	CHECK(strstr(err.msg, "dropped") != NULL);
	CHECK(strstr(err.msg, "No such file") != NULL);
	CHECK(strstr(err.msg, "Sekr1t") == NULL);
}

static void test_stop_ends_the_last_attempts_at_once(void)
{
	static volatile sig_atomic_t stop;
	struct strobe_ch_sender_opts so = { .backoff_min_s = 0.01, .backoff_max_s = 0.02,
					    .stop = &stop };
	struct strobe_ch_sender_stats st;
	struct strobe_error err = { 0, "" };
	struct strobe_ch_sender *s = NULL;
	struct strobe_clickhouse *ch;
	char path[256];
	uint8_t b[BLEN];
	double t0;
	int fd = -1;

	REQUIRE(have_dir());
	snprintf(path, sizeof(path), "%s/stopped", dir);
	so.spool_path = path;
	ch = refusing_client(&fd);
	REQUIRE(ch);
	REQUIRE(strobe_ch_sender_new(ch, &so, &s, &err) == 0);
	fill(b, 0);
	CHECK_EQ(strobe_ch_sender_send(s, "events", b, BLEN, 1, &err), 0);
	stop = 1;	/* as a second Ctrl-C would */
	t0 = now_s();
	CHECK_EQ(strobe_ch_sender_close(s, 60, &st, &err), -ETIMEDOUT);
	CHECK(now_s() - t0 < 5);
	CHECK_EQ(st.rows_pending, 1);
	CHECK_STR(st.spool_path, path);
	strobe_ch_sender_free(s);
	strobe_clickhouse_free(ch);
	close(fd);
	unlink(path);
}

TESTS(T(test_backoff_schedule_doubles_from_min_to_max),
      T(test_stop_ends_the_last_attempts_at_once),
      T(test_an_unwritable_spool_drops_and_says_why),
      T(test_sender_spools_what_a_refusing_server_cannot_take_within_the_bound),
      T(test_replay_stops_at_a_damaged_record_and_resumes_there),
      T(test_a_spool_name_in_use_is_never_overwritten));
