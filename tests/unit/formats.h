/*
 * formats.h - pieces of event format texts as a 6.x kernel's tracefs
 * prints them, shared by the tests that parse formats (unit tests and
 * fuzz harnesses): the common header fields, and the fields of
 * sched_switch and raw_syscalls sys_enter/sys_exit.  Each test adds the
 * name, ID and print fmt it needs; the pieces are string literals, so
 *
 *     "name: sched_switch\nID: 372\nformat:\n" FMT_COMMON FMT_SWITCH_FIELDS
 *     "print fmt: \"prev_pid=%d\", REC->prev_pid\n"
 *
 * is one literal.  Each piece ends with the blank line after its fields.
 */
#ifndef STROBE_TEST_FORMATS_H
#define STROBE_TEST_FORMATS_H

#define FMT_COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

#define FMT_SWITCH_FIELDS \
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n" \
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n" \
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n" \
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n" \
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n" \
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n" \
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"

#define FMT_SYS_ENTER_FIELDS \
	"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n" \
	"\tfield:unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;\n\n"

#define FMT_SYS_EXIT_FIELDS \
	"\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n" \
	"\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"

#endif
