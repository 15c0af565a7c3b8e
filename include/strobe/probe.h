/*
 * probe.h - user-space probes on programs inside containers
 * (lib/probe/): "PATH:FUNCTION" and USDT "PATH:PROVIDER:NAME" specs
 * resolved inside a target's mount namespace, turned into uprobes of a
 * session (session.h, strobe_session_add_uprobe), whose events then are
 * ordinary events of the recording.
 *
 * PATH is looked up under /proc/PID/root of a target process (its own
 * root: a container's file system, without knowing where it lives on
 * the host), following symbolic links inside that root as the process
 * itself would (an absolute link target starts again at its root, never
 * at the host's).  The function's file offset comes from the file's ELF
 * symbols, a USDT probe's from its .note.stapsdt note (symbols.h); the
 * kernel then places the probe on that file (its inode), whichever
 * process maps it.
 *
 * Arguments (after the place, separated by blanks) are the kernel's
 * fetch-args ("%di", "+0(%si):string", "$retval", "name=...:type"),
 * passed through, plus arg1..arg6 for the x86_64 calling convention's
 * integer arguments (rdi rsi rdx rcx r8 r9), usable wherever a register
 * is ("arg1", "len=arg3:u32", "+0(arg2):string").  A USDT probe's
 * arguments come from its note (see strobe_usdt_args).
 */
#ifndef STROBE_PROBE_H
#define STROBE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strobe_error;
struct strobe_session;
struct strobe_elf_probes;

/*
 * The file PATH as process pid sees it (pid 0: strobe's own root), as a
 * path the kernel can open from strobe's namespace ("/proc/42/root/
 * bin/busybox" for "/bin/sh" -> busybox), with every symbolic link
 * resolved inside that root, into kpath (size bytes).  0, -ENOENT "no
 * file '/bin/x' in the root of process 42", -ESRCH (no process pid),
 * -ELOOP, -EINVAL (not a regular file), -ENAMETOOLONG.
 */
int strobe_probe_path(pid_t pid, const char *path, char *kpath, size_t size,
		      struct strobe_error *err);

/*
 * The functions and USDT probes of PATH as process pid sees it (pid 0:
 * strobe's root): strobe_probe_path, then strobe_elf_probes_read.  *out
 * is freed with strobe_elf_probes_free.  0 or -errno as those two.
 */
int strobe_probe_list(pid_t pid, const char *path, struct strobe_elf_probes **out,
		      struct strobe_error *err);

/*
 * User fetch-args to the kernel's: each blank-separated token
 * "[NAME=]FETCH[:TYPE]" with arg1..arg6 replaced by their registers and
 * every token named (argN keeps its name, "$retval" is "retval", "%di"
 * is "di", others "argK" for the K-th token), into out.  0, -EINVAL
 * ("argN needs x86_64 ..." elsewhere, arg7 and beyond, bad tokens) or
 * -ENAMETOOLONG.  Pure.
 */
int strobe_probe_args(const char *args, char *out, size_t size, struct strobe_error *err);

/*
 * A USDT argument spec ("-4@%edi 8@-8(%rbp) 4@$5") to fetch-args named
 * arg1..argN ("arg1=%di:s32 arg2=-8(%bp):u64 arg3=\5:u32"): registers,
 * memory at a register plus an offset and constants are translated;
 * what is not (RIP-relative symbols, indexed operands, other
 * architectures) is left out and its 1-based position set in *skipped
 * (bit K-1 for argument K; may be NULL).  Returns the number of
 * arguments translated, or -ENAMETOOLONG.  Pure.
 */
int strobe_usdt_args(const char *spec, char *out, size_t size, unsigned *skipped);

/* strobe_probe_add flags */
#define STROBE_PROBE_USDT	(1u << 0)	/* spec is PATH:PROVIDER:NAME */

/*
 * Add the probe of spec to session s:
 *   "PATH:FUNCTION[%return] [ARGS...]"   a function's entry (or return)
 *   "PATH:PROVIDER:NAME"                 a USDT probe (STROBE_PROBE_USDT),
 *                                        its semaphore counted by the kernel
 * with PATH resolved in the root of each of the nr_roots processes
 * (roots NULL or nr_roots 0: strobe's own root); the same file met
 * through several roots is probed once.  The event is named after the
 * function ("work", "work__return") or the USDT probe
 * ("provider_name") in group strobe_<pid>; its "system:event" goes into
 * event (size bytes, may be NULL).  0, or -errno with one line in *err:
 * "no function 'x' in /bin/app (in the root of process 42; did you mean
 * work?)", "/bin/app is not an ELF file", ...
 */
int strobe_probe_add(struct strobe_session *s, const char *spec, unsigned flags,
		     const pid_t *roots, size_t nr_roots, char *event, size_t size,
		     struct strobe_error *err);

#ifdef __cplusplus
}
#endif

#endif
