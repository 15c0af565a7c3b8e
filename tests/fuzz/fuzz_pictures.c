/*
 * fuzz_pictures.c - libFuzzer harness for the pictures' readers of trace
 * data (lib/pictures): off-CPU folding fed hostile sched_switch,
 * kernel_stack, user_stack and fork records (stack sizes that lie,
 * records shorter than their fields, stacks of other tasks, times going
 * backwards, comms of any bytes), then its folded text and its SVG
 * (every name through the one XML writer), and the XML escaper on the
 * raw input.  Everything must end cleanly, the SVG must balance.
 *
 * The input is a sequence of records: kind (1 byte: switch, kernel
 * stack, user stack, fork, other), cpu (1), pid (2, LE), time step (2,
 * LE), payload length (1), payload (after the 8-byte common header).
 * Seeds in corpus/fuzz_pictures/ are a sleeping task with stacks, one
 * with a user stack, and a lost stack.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include <strobe/strobe.h>
#include <strobe/pictures.h>

#include "format/format-int.h"
#include "output/svg.h"

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\nleak:tep_parse_event\nleak:tep_load_plugins\n";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char *const fmts[][2] = {
	{ "name: sched_switch\nID: 372\nformat:\n" COMMON
	  "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	  "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	  "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	  "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"prev_pid=%d\", REC->prev_pid\n", "sched" },
	{ "name: kernel_stack\nID: 4\nformat:\n" COMMON
	  "\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"
	  "print fmt: \"%d\", REC->size\n", "ftrace" },
	{ "name: user_stack\nID: 13\nformat:\n" COMMON
	  "\tfield:unsigned int tgid;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"
	  "print fmt: \"%d\", REC->tgid\n", "ftrace" },
	{ "name: sched_process_fork\nID: 703\nformat:\n" COMMON
	  "\tfield:char parent_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t parent_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:char child_comm[16];\toffset:28;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t child_pid;\toffset:44;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"%d\", REC->child_pid\n", "sched" },
	{ "name: other\nID: 500\nformat:\n" COMMON
	  "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"x=%d\", REC->x\n", "test" },
};
static const int ids[] = { 372, 4, 13, 703, 500 };

static char kallsyms[] =
	"ffffffff81000100 T entry_SYSCALL_64\n"
	"ffffffff81002000 T do_nanosleep\n"
	"ffffffff81004000 T __schedule\n"
	"ffffffff81006000 T trace_event_raw_event_sched_switch\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strobe_offcpu_opts o = { .size = sizeof(o) };
	struct strobe_flame_svg_opts so = { .size = sizeof(so), .unit = "ns", .root_levels = 2 };
	struct strobe_error err = { 0, "" };
	struct strobe_offcpu *oc = NULL;
	struct strobe_formats *f;
	struct strobe_buf *b;
	struct tep_handle *tep;
	struct strobe_xml x;
	uint8_t d[8 + 255];
	uint64_t ts = 1000;
	size_t i = 0;
	unsigned k;

	tep = tep_alloc();
	if (!tep)
		return 0;
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	for (k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++)
		tep_parse_event(tep, fmts[k][0], strlen(fmts[k][0]), fmts[k][1]);
	tep_parse_kallsyms(tep, kallsyms);
	f = strobe_formats_adopt(tep);
	b = strobe_buf_new();
	o.group_by = (enum strobe_flame_group)(size % 4);
	o.no_user = size % 5 == 0;
	if (!f || !b || strobe_offcpu_new(&o, &oc, &err) < 0)
		goto out;
	if (size % 3 == 0)
		strobe_offcpu_set_target(oc, "command", "1,2,x,,3", NULL, &err);
	while (i + 7 <= size) {
		struct strobe_event ev = { 0 };
		unsigned kind = data[i] % 5, len = data[i + 6];
		int pid = data[i + 2] | data[i + 3] << 8;

		ev.cpu = data[i + 1] % 4;
		ts += (uint64_t)(data[i + 4] | data[i + 5] << 8);
		i += 7;
		if (len > size - i)
			len = (unsigned)(size - i);
		memset(d, 0, sizeof(d));
		d[0] = (uint8_t)ids[kind];
		d[1] = (uint8_t)(ids[kind] >> 8);
		memcpy(d + 4, &pid, 4);
		memcpy(d + 8, data + i, len);
		i += len;
		ev.ts = ts;
		ev.data = d;
		ev.size = 8 + len;
		ev.type = ids[kind];
		ev.pid = pid;
		ev.format = strobe_formats_by_id(f, ids[kind]);
		strobe_offcpu_feed(oc, &ev, NULL);
	}
	if (strobe_offcpu_done(oc, &err) == 0) {
		strobe_flame_write_folded(strobe_offcpu_flame(oc), b);
		strobe_buf_reset(b);
		strobe_flame_write_svg(strobe_offcpu_flame(oc), &so, b, &err);
		strobe_buf_reset(b);
	}
	/* the escaper on the raw bytes, inside a balanced document */
	strobe_xml_init(&x, b);
	strobe_svg_begin(&x, 10, 10);
	strobe_xml_start(&x, "text");
	{
		char *z = malloc(size + 1);	/* attributes are C strings */

		if (z) {
			memcpy(z, data, size);
			z[size] = '\0';
			strobe_xml_attr(&x, "data-x", z);
			free(z);
		}
	}
	strobe_xml_text(&x, (const char *)data, size);
	strobe_xml_end(&x);
	strobe_xml_end(&x);
	(void)strobe_xml_finish(&x);
out:
	strobe_offcpu_free(oc);
	strobe_formats_free(f);
	strobe_buf_free(b);
	return 0;
}
