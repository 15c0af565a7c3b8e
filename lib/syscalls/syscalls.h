/*
 * syscalls.h - syscall names by number and errno names (internal).
 *
 * raw_syscalls events carry a syscall number only; the analyses print
 * and the expression language matches names, so both take them from
 * here (names.c, with the x86_64 table that scripts/gen-syscall-table
 * generates from the kernel's uapi header).
 */
#ifndef STROBE_SYSCALLS_H
#define STROBE_SYSCALLS_H

#include "util/err.h"

/* Name of x86_64 syscall nr ("openat"), NULL when the table has none. */
const char *strobe_syscall_name(int nr) STROBE_HIDDEN;
/* Number of syscall name, -1 unknown. */
int strobe_syscall_nr(const char *name) STROBE_HIDDEN;
/* Errno name ("ENOENT") of a positive errno, NULL unknown. */
const char *strobe_errno_name(int e) STROBE_HIDDEN;

#endif
