/*
 * tracefile_fixture.h - trace.dat files made by the tests themselves:
 * events given as (ts, cpu, payload) become ring-buffer pages (time
 * extends where a delta needs them, a new page when one is full), written
 * per CPU by strobe's own v6 writer with the formats given.  Used by the
 * tests of everything that reads files through a stream or a pipeline.
 *
 * Payloads are ftrace payloads: the 8-byte common header (common_type u16
 * at 0, common_pid s32 at 4) then the fields; fx_payload() builds one.
 *
 * Also the pieces tests that build files their own way share: the
 * header_page and header_event texts, fx_meta() (a file's metadata but
 * its formats), and raw_syscalls sys_enter/sys_exit (fx_syscalls).
 */
#ifndef STROBE_TRACEFILE_FIXTURE_H
#define STROBE_TRACEFILE_FIXTURE_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <strobe/strobe.h>

#include "formats.h"

#define FX_PS		4096u
#define FX_MAX_PAYLOAD	112u	/* type_len 1..28 words: no length word */

static const char fx_header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char fx_header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

#define FX_ID_SYS_ENTER	443
#define FX_ID_SYS_EXIT	444

static const char fx_fmt_sys_enter[] = "name: sys_enter\nID: 443\nformat:\n" FMT_COMMON
	FMT_SYS_ENTER_FIELDS "print fmt: \"NR %ld\", REC->id\n";
static const char fx_fmt_sys_exit[] = "name: sys_exit\nID: 444\nformat:\n" FMT_COMMON
	FMT_SYS_EXIT_FIELDS "print fmt: \"NR %ld = %ld\", REC->id, REC->ret\n";
static const struct strobe_tf_format fx_syscalls[] = {
	{ "raw_syscalls", fx_fmt_sys_enter, sizeof(fx_fmt_sys_enter) - 1 },
	{ "raw_syscalls", fx_fmt_sys_exit, sizeof(fx_fmt_sys_exit) - 1 },
};

/* strobe info of two hosts' recordings with clock pairings: "web" (trace
 * clock from 1000 s) and "db" (from 5 s), both starting at the same wall
 * time; web's offset drifts 1 us over its second. */
static const char fx_info_web[] = "strobe_version=0.1.0\nhost=web\n"
	"clock_sync_start=1000000000000 1795545551000000000 1500\n"
	"clock_sync_end=1001000000000 1795545552000001000 900\n";
static const char fx_info_db[] = "strobe_version=0.1.0\nhost=db\n"
	"clock_sync_start=5000000000 1795545551000000000 700\n"
	"clock_sync_end=6000000000 1795545552000000000 800\n";

/* A fixture file's metadata: 4 KiB pages, 8-byte longs, the header
 * texts above, the local clock, a 6.1 uname; no formats, no info. */
static inline void fx_meta(struct strobe_tf_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->page_size = FX_PS;
	m->long_size = 8;
	m->header_page = (struct strobe_tf_blob){ fx_header_page, sizeof(fx_header_page) - 1 };
	m->header_event = (struct strobe_tf_blob){ fx_header_event,
						   sizeof(fx_header_event) - 1 };
	m->clock = "local";
	m->uname = "Linux 6.1.0 #1 x86_64";
}

struct fx_event {
	uint64_t ts;
	int cpu;
	uint8_t data[FX_MAX_PAYLOAD];
	uint32_t size;		/* a multiple of 4, 8 .. FX_MAX_PAYLOAD */
};

static inline void fx_put16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static inline void fx_put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void fx_put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* An event of type `type` by pid at ts on cpu, with `size` payload bytes
 * (rounded up to 4), its fields zero: fill them in e->data. */
static inline struct fx_event *fx_payload(struct fx_event *e, uint64_t ts, int cpu, int type,
					  int pid, uint32_t size)
{
	memset(e, 0, sizeof(*e));
	e->ts = ts;
	e->cpu = cpu;
	e->size = (size + 3) & ~3u;
	if (e->size < 8)
		e->size = 8;
	if (e->size > FX_MAX_PAYLOAD)
		e->size = FX_MAX_PAYLOAD;
	fx_put16(e->data, (uint16_t)type);
	fx_put32(e->data + 4, (uint32_t)pid);
	return e;
}

/* CPU `cpu`'s events of ev[] (in time order) as pages, written to fd.
 * Returns the number of pages, -1 on a write error. */
static inline int fx_write_cpu(int fd, const struct fx_event *ev, int n, int cpu)
{
	uint8_t page[FX_PS];
	size_t len = 0;
	uint64_t last = 0;
	int i, pages = 0;
	bool open = false;

	for (i = 0; i <= n; i++) {
		const struct fx_event *e = i < n ? &ev[i] : NULL;
		uint64_t delta;
		size_t need;

		if (e && e->cpu != cpu)
			continue;
		need = e ? 4 + e->size + 8 : 0;	/* + a time extend at worst */
		if (open && (!e || 16 + len + need > FX_PS)) {
			fx_put64(page + 8, len);
			if (write(fd, page, FX_PS) != (ssize_t)FX_PS)
				return -1;
			pages++;
			open = false;
		}
		if (!e)
			break;
		if (!open) {
			memset(page, 0, FX_PS);
			fx_put64(page, e->ts);
			last = e->ts;
			len = 0;
			open = true;
		}
		delta = e->ts - last;
		if (delta >= (1u << 27)) {	/* time extend: 59 bits of delta */
			fx_put32(page + 16 + len, 30u | (uint32_t)(delta & ((1u << 27) - 1)) << 5);
			fx_put32(page + 16 + len + 4, (uint32_t)(delta >> 27));
			len += 8;
			delta = 0;
		}
		fx_put32(page + 16 + len, (e->size / 4) | (uint32_t)delta << 5);
		memcpy(page + 16 + len + 4, e->data, e->size);
		len += 4 + e->size;
		last = e->ts;
	}
	return pages;
}

/* Every CPU's pages of ev[0..n) added to w in order.  0 or -1. */
static inline int fx_add_cpus(struct strobe_tf_writer *w, const struct fx_event *ev, int n,
			      int nr_cpus, struct strobe_error *err)
{
	int cpu, r;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		char tmp[] = "/tmp/strobe-fxc-XXXXXX";
		int cfd = mkstemp(tmp);

		if (cfd < 0)
			return -1;
		unlink(tmp);
		r = fx_write_cpu(cfd, ev, n, cpu) < 0 ||
		    strobe_tf_writer_add_cpu(w, cpu, cfd, UINT64_MAX, false, err);
		close(cfd);
		if (r)
			return -1;
	}
	return 0;
}

/*
 * A v6 trace file at a new temporary path (returned, malloc'd; NULL on
 * failure) holding ev[0..n) on nr_cpus CPUs with formats fmts and the
 * strobe info `info` (may be NULL).
 */
static inline char *fx_write_file(const char *info, const struct strobe_tf_format *fmts,
				  int nr_fmts, const struct fx_event *ev, int n, int nr_cpus)
{
	struct strobe_tf_meta m;
	struct strobe_error err = { 0 };
	struct strobe_tf_writer *w = NULL;
	char *path = strdup("/tmp/strobe-fx-XXXXXX.dat");
	int fd;

	if (!path)
		return NULL;
	fd = mkstemps(path, 4);
	if (fd < 0) {
		free(path);
		return NULL;
	}
	close(fd);
	fx_meta(&m);
	m.formats = fmts;
	m.nr_formats = (size_t)nr_fmts;
	m.strobe_info = info;
	if (strobe_tf_writer_open(path, &m, nr_cpus, &w, &err) ||
	    fx_add_cpus(w, ev, n, nr_cpus, &err))
		goto fail;
	if (strobe_tf_writer_close(w, NULL, info, &err)) {
		w = NULL;
		goto fail;
	}
	return path;
fail:
	fprintf(stderr, "  fixture: %s\n", err.msg);
	if (w)
		strobe_tf_writer_close(w, NULL, NULL, NULL);
	unlink(path);
	free(path);
	return NULL;
}

#endif
