/*
 * symbols.h - names for code addresses (lib/symbols/): kernel addresses
 * from kallsyms, user addresses of a process through its memory maps and
 * the ELF files it runs, as seen from inside its own mount namespace.
 *
 * A profile of a containerised program names its functions without the
 * user knowing where the container's root file system lives: a mapped
 * file's path is opened through /proc/PID/root (the process's own root),
 * so a binary that exists only inside a container is read from there.
 * An ELF file is read with libelf: its .symtab, else .dynsym; when it has
 * no .symtab, a separate debug file is looked for (by build id under
 * /usr/lib/debug/.build-id, then by .gnu_debuglink next to the file, in
 * its .debug folder and under /usr/lib/debug), inside the process's root
 * first, then on the host, and used only when its build id matches.  JIT
 * code is named from perf's perf-PID.map convention, looked up in the
 * process's own /tmp under its namespaced PID (as perf does).  An address
 * with no symbol is named "[unknown]" with the module (file) it falls in.
 *
 * Files are loaded once per (device, inode, size, mtime) and shared by
 * every process that maps them, in a cache bounded by count and bytes
 * (least recently used unloaded first); a process's maps come from
 * perf's MMAP2 records as they arrive (strobe_symbols_mmap: processes
 * that exit before their samples are named still name right) and, for
 * processes that existed before, from /proc/PID/maps when first needed,
 * and are dropped after the process exited and its samples were named
 * (strobe_symbols_exit, strobe_symbols_expire), so memory stays bounded
 * in long system-wide profiles of many short processes.
 *
 * Errors: -errno and a struct strobe_error message (see strobe.h).
 */
#ifndef STROBE_SYMBOLS_H
#define STROBE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct strobe_error;
struct strobe_symbols;

struct strobe_symbols_opts {
	size_t size;		/* sizeof(struct strobe_symbols_opts), or 0 */
	/* The proc file system to read maps, roots and NSpid from (NULL:
	 * "/proc"); tests point it elsewhere. */
	const char *proc;
	/* kallsyms text (NULL: read /proc/kallsyms when first needed). */
	const char *kallsyms;
	/* Where debug files live (NULL: "/usr/lib/debug"). */
	const char *debug_dir;
	/* The file cache's bounds: files held (0: 1024) and the bytes of
	 * their symbol tables (0: 256 MiB); past either, the least recently
	 * used files are unloaded. */
	size_t max_files;
	size_t max_file_bytes;
};

/* 0, -ENOMEM.  Free with strobe_symbols_free. */
int strobe_symbols_new(const struct strobe_symbols_opts *o, struct strobe_symbols **out,
		       struct strobe_error *err);
void strobe_symbols_free(struct strobe_symbols *s);	/* NULL ok */

/* What an address is. */
struct strobe_sym {
	/* the function, or "[unknown]"; owned by s: a kernel name lives as
	 * long as s, a user one until the next strobe_symbols_user,
	 * _mmap, _exec, _fork, _touch or _expire (copy it to keep it) */
	const char *name;
	const char *module;	/* the file's base name ("libc.so.6",
				 * "[kernel.kallsyms]", a module's "[name]"),
				 * or NULL when no mapping holds the address */
	uint64_t offset;	/* from the function's start (0 if unknown) */
	bool known;		/* a symbol was found */
};

/*
 * Name kernel address addr.  *out's strings stay valid until s is freed.
 * Always fills *out ("[unknown]" when kallsyms has nothing there or
 * cannot be read); returns 0, or -ENOMEM.
 */
int strobe_symbols_kernel(struct strobe_symbols *s, uint64_t addr, struct strobe_sym *out);

/*
 * Name user address addr of process pid (a tgid).  The maps learnt for
 * pid are searched first; when they miss, /proc/PID/maps is read once.
 * Always fills *out; returns 0 or -ENOMEM.
 */
int strobe_symbols_user(struct strobe_symbols *s, pid_t pid, uint64_t addr,
			struct strobe_sym *out);

/*
 * What perf tells of processes: a file mapped (MMAP2: start, length,
 * file offset, the inode as the process saw it (0: unknown), the path in
 * the process's namespace), an exec (the old maps are dropped), a fork
 * (the child starts with the parent's maps).  0 or -ENOMEM.
 */
int strobe_symbols_mmap(struct strobe_symbols *s, pid_t pid, uint64_t start, uint64_t len,
			uint64_t pgoff, uint64_t ino, const char *path);
void strobe_symbols_exec(struct strobe_symbols *s, pid_t pid);
int strobe_symbols_fork(struct strobe_symbols *s, pid_t parent, pid_t child);

/*
 * Process pid exited at time ts (the samples' clock).  Its samples, all
 * earlier, may still wait to be named, so its maps are kept until
 * strobe_symbols_expire is called with a later time; a fork or exec of
 * the same PID before that (the PID reused) cancels the drop.
 */
void strobe_symbols_exit(struct strobe_symbols *s, pid_t pid, uint64_t ts);
/* Everything before ts was named (a consumer naming samples in time
 * order calls it with each sample's time): drop the processes that
 * exited before ts. */
void strobe_symbols_expire(struct strobe_symbols *s, uint64_t ts);

/*
 * Make sure the maps of process pid are known now, while it runs (read
 * /proc/PID/maps if nothing told them yet): the perf source calls it when
 * it reads a sample, so a process that exits or execs before its samples
 * are named still has them.  0 or -ENOMEM.
 */
int strobe_symbols_touch(struct strobe_symbols *s, pid_t pid);

struct strobe_symbols_stats {
	uint64_t files;		/* ELF files loaded (distinct dev/inode) */
	uint64_t files_failed;	/* could not be opened or read */
	uint64_t debug_files;	/* separate debug files used */
	uint64_t perf_maps;	/* perf-PID.map files read */
	uint64_t processes;	/* processes whose maps were learnt */
	uint64_t processes_held;	/* ... and are held now */
	uint64_t processes_dropped;	/* dropped after their exit */
	uint64_t files_held;	/* files in the cache now */
	uint64_t file_bytes;	/* their symbol tables' bytes */
	uint64_t files_evicted;	/* unloaded to stay within the bounds */
};
void strobe_symbols_stats(const struct strobe_symbols *s, struct strobe_symbols_stats *st);

/* ---- parsers (outside input; no I/O: tests and fuzzing call them) ---- */

/* One /proc/PID/maps line: 1 (filled), 0 (not a line of a mapping). */
struct strobe_maps_line {
	uint64_t start, end, pgoff, ino;
	char perms[5];
	const char *path;	/* points into the line, "" when anonymous */
	size_t path_len;
};
int strobe_symbols_parse_maps_line(const char *line, size_t n, struct strobe_maps_line *out);

/* One perf-PID.map line "START SIZE NAME" (hex): 1, or 0. */
int strobe_symbols_parse_perf_map_line(const char *line, size_t n, uint64_t *start,
				       uint64_t *size, const char **name, size_t *name_len);

/*
 * The function symbols of an ELF image in memory (a test's or a fuzzer's
 * bytes): how many there are (>= 0), the build id (up to 20 bytes into
 * build_id, its length in *build_id_len; both may be NULL), and the name
 * of virtual address vaddr into name (size bytes; "" when none).
 * -EINVAL when the bytes are not ELF libelf can read.
 */
int strobe_symbols_elf_probe(const void *image, size_t n, uint64_t vaddr, char *name,
			     size_t size, uint8_t *build_id, size_t *build_id_len);

/* ---- probe places: an ELF file's functions and USDT probes ---------- */

/* A defined function symbol (.symtab, else .dynsym) and where it is in
 * the file: a uprobe takes the file offset, not the address. */
struct strobe_elf_func {
	char *name;
	uint64_t addr;		/* st_value */
	uint64_t size;		/* st_size (0: unknown) */
	uint64_t offset;	/* file offset of addr (through PT_LOAD) */
};

/*
 * A USDT (SystemTap SDT) probe: one note of .note.stapsdt (name
 * "stapsdt", type 3): its address (adjusted by .stapsdt.base when the
 * file was moved, as prelink does), its semaphore (a counter the
 * program tests before it prepares the probe's arguments; the kernel
 * counts it up while a uprobe with that ref_ctr_offset is enabled), and
 * the argument spec ("-4@%edi 8@-8(%rbp)": size, '-' for signed, '@',
 * an assembler operand).
 */
struct strobe_usdt_note {
	char *provider, *name, *args;	/* args "" when none */
	uint64_t addr, offset;		/* the probe's address, its file offset */
	uint64_t semaphore;		/* address, 0: none */
	uint64_t semaphore_offset;	/* file offset, 0: none or outside PT_LOAD */
};

struct strobe_elf_probes {
	struct strobe_elf_func *funcs;	/* by address; only those inside a
					 * PT_LOAD segment of the file */
	size_t nr_funcs;
	struct strobe_usdt_note *usdt;	/* in note order */
	size_t nr_usdt;
	bool has_symtab;		/* funcs came from .symtab (else .dynsym) */
};

/*
 * Read ELF file fd (or, fd < 0, the image[0..n) a test or fuzzer gives):
 * its functions and USDT probes into *out (free with
 * strobe_elf_probes_free).  A note that does not hold together (sizes,
 * strings) is skipped.  0, -EINVAL "not an ELF file", -ENOMEM.  Pure
 * with an image: the bytes are outside input, every length is checked.
 */
int strobe_elf_probes_read(int fd, const void *image, size_t n, struct strobe_elf_probes **out,
			   struct strobe_error *err);
void strobe_elf_probes_free(struct strobe_elf_probes *p);	/* NULL ok */

#ifdef __cplusplus
}
#endif

#endif
