/*
 * fuzz_analyses.c - libFuzzer harness for everything that reads a whole
 * trace file after the report path: every analysis at once (cputop,
 * syscalls, schedlat, io, irq, mem, periods, runqlat, biolatency) with
 * every view and a log callback,
 * their tables written as text, JSON and LAMI, the file's diagnostics,
 * and `strobe ps -i`'s path (the stored process table, then the events
 * replayed through the task model, then each task's details).
 *
 * The input is a whole trace file, put in a memfd so the reader opens it
 * like a real file.  Everything must end cleanly whatever the bytes; the
 * grouping (thread, process, container, CPU, PID namespace, all) and the
 * histogram options are taken from the input
 * size so all of them get exercised.  Seeds in corpus/fuzz_analyses/ are
 * small strobe recordings with the process table and the events of every
 * preset the analyses read (made from real recordings: kallsyms and
 * printk formats dropped, a few pages per CPU kept).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <traceevent/trace-seq.h>

#include <strobe/strobe.h>
#include "../unit/buf_of.h"

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\nleak:tep_parse_event\nleak:tep_load_plugins\n"
	       "leak:__isoc99_vsscanf\n";	/* libtraceevent's sscanf %ms: the unwinder stops in libc */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void keep_small(struct trace_seq *s)
{
	if (s->len > (1 << 20))
		trace_seq_reset(s);
}

static void on_log(void *arg, const struct strobe_table *t, const union strobe_value *row)
{
	struct trace_seq *s = arg;

	strobe_table_write_json_row(t, row, buf_of(s));
	strobe_table_write_text_row(t, row, buf_of(s));
	keep_small(s);
}

static void analyses(struct strobe_tracefile *tf, size_t size, struct trace_seq *s)
{
	struct strobe_analysis_opts o = { 0 };
	struct strobe_error err = { 0, "" };
	struct strobe_analysis *an = NULL;
	int i;

	o.group_by = (enum strobe_group_by)(size % 6);
	o.freq_msecs = size & 8;
	o.per_disk = size & 16;
	o.per_flags = size & 32;
	o.queued = size & 64;
	o.views = STROBE_VIEW_STATS | STROBE_VIEW_FREQ | STROBE_VIEW_LOG;
	o.freq_resolution = size % 3 ? 0 : 20;
	o.log = on_log;
	o.log_arg = s;
	/* periods: a root, a child, captures, every grouping, --aggregate-by */
	static const char *const periods[] = {
		"run : $evt.$name == \"sched_switch\" : $evt.$name == \"sched_switch\" && "
		"$evt.prev_pid == $begin.$evt.next_pid",
		"sys(run) : $evt.$name =* \"syscall_entry_*\" && "
		"$evt.tid == $parent.$begin.$evt.next_pid : $evt.$name =* \"syscall_exit_*\" && "
		"$evt.tid == $begin.$evt.tid",
	};
	static const char *const caps[] = { "run : next = $evt.next_comm : prev = $evt.prev_comm" };
	static const char *const groups[] = { NULL, "thread", "process", "container", "next" };
	o.periods = periods;
	o.nr_periods = 2;
	o.period_captures = caps;
	o.nr_period_captures = 1;
	o.period_group_by = groups[size % 5];
	o.aggregate_by = size % 7 == 0 ? "run" : NULL;
	if (strobe_analysis_new("cputop,syscalls,schedlat,io,irq,mem,periods,runqlat,biolatency",
				&o, &an, &err) < 0)
		__builtin_trap();
	if (strobe_analysis_run_file(an, tf, &err) == 0) {
		for (i = 0; i < strobe_analysis_nr_tables(an); i++) {
			const struct strobe_table *t = strobe_analysis_table(an, i);

			strobe_table_write_text(t, buf_of(s));
			strobe_table_write_json(t, buf_of(s));
			keep_small(s);
		}
		strobe_lami_write_results(an, buf_of(s));
		keep_small(s);
	}
	for (i = 0; i < strobe_analysis_nr_notes(an); i++)
		if (!strobe_analysis_note(an, i))
			__builtin_trap();
	strobe_analysis_free(an);
}

/* What `strobe ps -i` does. */
static void ps(struct strobe_tracefile *tf)
{
	struct strobe_error err = { 0, "" };
	struct strobe_stream_stats st;
	struct strobe_stream *s = NULL;
	struct strobe_model *m = NULL;
	const struct strobe_task *t;
	struct strobe_event ev;
	size_t cur = 0;
	int tids[4096], n = 0, i;

	if (strobe_model_new(&m, &err) < 0)
		return;
	strobe_model_set_options(m, STROBE_MODEL_KEEP_EXITED);
	if (strobe_model_load_file(m, tf, &err) < 0 ||
	    strobe_stream_open_file(tf, NULL, &s, &err) < 0)
		goto out;
	while (strobe_stream_next(s, &ev, &err) > 0) {
		strobe_tracefile_see_event(tf, &ev);
		strobe_model_update(m, &ev);
	}
	strobe_stream_stats(s, &st);
	strobe_tracefile_events_done(tf, &st, NULL);
	while ((t = strobe_model_next_task(m, &cur)) && n < 4096) {
		if (!t->container || strlen(t->comm) >= sizeof(t->comm) ||
		    strnlen(t->container->name, sizeof(t->container->name)) ==
		    sizeof(t->container->name))
			__builtin_trap();
		tids[n++] = t->tid;
	}
	for (i = 0; i < n; i++) {
		struct strobe_task_info info;

		strobe_model_task_info(m, tids[i], &info);
	}
out:
	strobe_stream_close(s);
	strobe_model_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strobe_error err = { 0, "" };
	struct strobe_tracefile *tf;
	struct trace_seq s;
	char path[64];
	const char *msg;
	int fd, i;

	if (size > (4 << 20))
		return 0;
	fd = memfd_create("fuzz_analyses", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	trace_seq_init(&s);
	if (strobe_tracefile_open(path, &tf, &err) == 0) {
		analyses(tf, size, &s);
		ps(tf);
		for (i = 0; (msg = strobe_tracefile_diag(tf, i, NULL)); i++)
			if (!*msg)
				__builtin_trap();
		strobe_tracefile_close(tf);
	}
	trace_seq_destroy(&s);
	close(fd);
	return 0;
}
