/*
 * names.c - syscall and errno names, for the analyses and the expression
 * language alike (syscalls.h).
 *
 * raw_syscalls events carry a syscall number only, so names come from an
 * x86_64 table generated from the kernel's uapi header
 * (scripts/gen-syscall-table); numbers the table does not know have no
 * name here (the analyses print them as "sys_<nr>").  Traces with
 * syscalls:sys_enter_<name> events teach the syscalls analysis names of
 * their own (lib/analyses/syscalls.c).  Errno names come from glibc
 * (strerrorname_np, glibc 2.32 and later).
 */
#include <stdio.h>
#include <string.h>

#include "syscalls/syscalls.h"
#include "syscalls/syscall-table.h"

#define NR_TABLE ((int)(sizeof(x86_64_syscalls) / sizeof(x86_64_syscalls[0])))

const char *strobe_syscall_name(int nr)
{
	return nr >= 0 && nr < NR_TABLE ? x86_64_syscalls[nr] : NULL;
}

int strobe_syscall_nr(const char *name)
{
	int i;

	for (i = 0; i < NR_TABLE; i++)
		if (x86_64_syscalls[i] && !strcmp(x86_64_syscalls[i], name))
			return i;
	return -1;
}

const char *strobe_errno_name(int e)
{
	return e > 0 && e < 4096 ? strerrorname_np(e) : NULL;
}
