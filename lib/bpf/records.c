/*
 * records.c - the formats of the BPF source's records and the decoding
 * of one ring-buffer record into a pipeline payload (bpf.h:
 * strobe_bpf_declare, strobe_bpf_decode).
 *
 * This part needs no libbpf and no kernel, so the unit tests and the
 * fuzz harness run it everywhere and a library built without BPF still
 * recognises the formats.  The ring record is the kernel side's struct
 * (snoop.h): a time and a CPU, then the payload as the pipeline wants it
 * but for common_type, which holds the record's kind; decoding checks
 * the length, the kind and the string's __data_loc word against the
 * record's real size (a record the kernel side did not make is skipped,
 * never read past), copies the payload and puts the declared format's id
 * in common_type.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>

#include <strobe/strobe.h>
#include <strobe/stream.h>
#include <strobe/bpf.h>

#include "../util/err.h"
#include "snoop.h"
#include "bpf-int.h"

#define SYSTEM "strobe_bpf"

_Static_assert(offsetof(struct snoop_open, path) - SNOOP_PREFIX == SNOOP_OPEN_FIXED,
	       "open record layout");
_Static_assert(offsetof(struct snoop_exec, args) - SNOOP_PREFIX == SNOOP_EXEC_FIXED,
	       "exec record layout");
_Static_assert(offsetof(struct snoop_sync, path) - SNOOP_PREFIX == SNOOP_SYNC_FIXED,
	       "sync record layout");
_Static_assert(sizeof(struct snoop_tcp) - SNOOP_PREFIX == SNOOP_TCP_FIXED, "tcp record layout");
_Static_assert(offsetof(struct snoop_open, c) == SNOOP_PREFIX &&
	       offsetof(struct snoop_sync, c) == SNOOP_PREFIX &&
	       offsetof(struct snoop_tcp, c) == SNOOP_PREFIX, "record prefix");
_Static_assert(SNOOP_PATH_MAX == STROBE_BPF_PATH_MAX && SNOOP_ARGS_MAX == STROBE_BPF_ARGS_MAX &&
	       SNOOP_ARGS_BYTES == STROBE_BPF_ARGS_BYTES &&
	       SNOOP_CGROUPS_MAX == STROBE_BPF_CGROUPS_MAX, "limits");

#define P(f) (uint16_t)(offsetof(struct snoop_open, f) - SNOOP_PREFIX)
static const struct strobe_field_decl open_fields[] = {
	{ "s32", "tgid", P(tgid), 4, true },
	{ "u32", "uid", P(uid), 4, false },
	{ "s64", "ret", P(ret), 8, true },
	{ "u64", "flags", P(flags), 8, false },
	{ "u32", "mode", P(mode), 4, false },
	{ "s32", "dfd", P(dfd), 4, true },
	{ "u64", "cgroup", P(cgroup), 8, false },
	{ "char[16]", "comm", P(comm), 16, false },
	{ "u32", "call", P(call), 4, false },
	{ "__data_loc char[]", "path", P(path_loc), 4, false },
};
#undef P
#define P(f) (uint16_t)(offsetof(struct snoop_exec, f) - SNOOP_PREFIX)
static const struct strobe_field_decl exec_fields[] = {
	{ "s32", "tgid", P(tgid), 4, true },
	{ "u32", "uid", P(uid), 4, false },
	{ "s64", "ret", P(ret), 8, true },
	{ "s32", "ppid", P(ppid), 4, true },
	{ "u32", "argc", P(argc), 4, false },
	{ "u64", "cgroup", P(cgroup), 8, false },
	{ "char[16]", "comm", P(comm), 16, false },
	{ "u32", "cut", P(cut), 4, false },
	{ "__data_loc char[]", "args", P(args_loc), 4, false },
};
#undef P
#define P(f) (uint16_t)(offsetof(struct snoop_sync, f) - SNOOP_PREFIX)
static const struct strobe_field_decl sync_fields[] = {
	{ "s32", "tgid", P(tgid), 4, true },
	{ "u32", "uid", P(uid), 4, false },
	{ "s64", "ret", P(ret), 8, true },
	{ "u64", "lat", P(lat), 8, false },
	{ "u64", "cgroup", P(cgroup), 8, false },
	{ "char[16]", "comm", P(comm), 16, false },
	{ "u32", "call", P(call), 4, false },
	{ "s32", "fd", P(fd), 4, true },
	{ "u32", "cut", P(cut), 4, false },
	{ "__data_loc char[]", "path", P(path_loc), 4, false },
};
#undef P
#define P(f) (uint16_t)(offsetof(struct snoop_tcp, f) - SNOOP_PREFIX)
static const struct strobe_field_decl tcp_fields[] = {
	{ "s32", "tgid", P(tgid), 4, true },
	{ "s32", "state", P(state), 4, true },
	{ "u16", "family", P(family), 2, false },
	{ "u16", "sport", P(sport), 2, false },
	{ "u16", "dport", P(dport), 2, false },
	/* the addresses' 16 bytes as the kernel keeps them (network order,
	 * IPv4 in the first 4) in two u64 halves each: fixed arrays other
	 * than strings are not declared */
	{ "u64", "saddr_hi", P(saddr), 8, false },
	{ "u64", "saddr_lo", (uint16_t)(P(saddr) + 8), 8, false },
	{ "u64", "daddr_hi", P(daddr), 8, false },
	{ "u64", "daddr_lo", (uint16_t)(P(daddr) + 8), 8, false },
	{ "u64", "cgroup", P(cgroup), 8, false },
	{ "u64", "netns", P(netns), 8, false },
	{ "s32", "err", P(err), 4, true },
};
#undef P

static const struct kind {
	unsigned program;	/* STROBE_BPF_* */
	int kind;		/* SNOOP_KIND_* */
	const char *name;
	const struct strobe_field_decl *fields;
	int nr_fields;
	uint32_t fixed;		/* payload bytes before the string */
	uint32_t str_max;	/* the string's most bytes (0: no string, the
				 * record is its fixed part) */
	bool str_nul;		/* the string ends in a NUL */
} kinds[] = {
	{ STROBE_BPF_OPEN, SNOOP_KIND_OPEN, "open", open_fields,
	  (int)(sizeof(open_fields) / sizeof(open_fields[0])), SNOOP_OPEN_FIXED,
	  SNOOP_PATH_MAX, true },
	{ STROBE_BPF_EXEC, SNOOP_KIND_EXEC, "exec", exec_fields,
	  (int)(sizeof(exec_fields) / sizeof(exec_fields[0])), SNOOP_EXEC_FIXED,
	  SNOOP_ARGS_BYTES, false },
	{ STROBE_BPF_SYNC, SNOOP_KIND_SYNC, "sync", sync_fields,
	  (int)(sizeof(sync_fields) / sizeof(sync_fields[0])), SNOOP_SYNC_FIXED,
	  SNOOP_PATH_MAX, true },
	{ STROBE_BPF_TCP, SNOOP_KIND_TCP, "tcp_retransmit", tcp_fields,
	  (int)(sizeof(tcp_fields) / sizeof(tcp_fields[0])), SNOOP_TCP_FIXED, 0, false },
};
#define NR_KINDS (int)(sizeof(kinds) / sizeof(kinds[0]))
_Static_assert(sizeof(kinds) / sizeof(kinds[0]) == BPF_NR_KINDS, "kinds");

int bpf_declare_programs(struct strobe_formats *f, unsigned programs, int *ids,
			 struct strobe_error *err)
{
	int i, r;

	for (i = 0; i < NR_KINDS; i++) {
		struct strobe_format_decl d = {
			.size = sizeof(d), .system = SYSTEM, .name = kinds[i].name,
			.fields = kinds[i].fields, .nr_fields = kinds[i].nr_fields,
		};

		ids[i] = -1;
		if (!(programs & kinds[i].program))
			continue;
		r = strobe_formats_declare(f, &d, NULL, err);
		if (r < 0)
			return r;
		ids[i] = r;
	}
	return 0;
}

/* The declared id of kind k in f, or -1. */
static int find_id(struct strobe_formats *f, int k)
{
	const struct strobe_format *fmt = strobe_formats_find(f, SYSTEM, kinds[k].name);

	return fmt ? strobe_format_id(fmt) : -1;
}

int bpf_decode_with(const int *ids, const void *rec, size_t len, uint8_t *out, size_t cap,
		    uint64_t *ts, int *cpu, uint32_t *size)
{
	const uint8_t *p = rec;
	const struct kind *k = NULL;
	struct snoop_common c;
	uint32_t loc, off, n, payload;
	__u64 t;
	__u32 cp;
	int i;

	if (!rec || len < SNOOP_PREFIX + sizeof(c))
		return 0;
	memcpy(&c, p + SNOOP_PREFIX, sizeof(c));
	for (i = 0; i < NR_KINDS; i++)
		if (kinds[i].kind == c.common_type)
			k = &kinds[i];
	if (!k || ids[k - kinds] < 0)
		return k ? -ENOENT : 0;
	payload = (uint32_t)(len - SNOOP_PREFIX);
	if (len - SNOOP_PREFIX > k->fixed + k->str_max || payload < k->fixed)
		return 0;
	if (!k->str_max) {
		n = 0;
		goto copy;
	}
	memcpy(&loc, p + SNOOP_PREFIX + k->fixed - 4, 4);
	off = loc & 0xffff;
	n = loc >> 16;
	if (off != k->fixed || n > payload - k->fixed || (k->str_nul && (!n || p[SNOOP_PREFIX + off + n - 1])))
		return 0;
copy:
	if (payload > cap)
		return -ENOSPC;
	memcpy(out, p + SNOOP_PREFIX, payload);
	c.common_type = (__u16)ids[k - kinds];
	memcpy(out, &c.common_type, sizeof(c.common_type));
	memcpy(&t, p, 8);
	memcpy(&cp, p + 8, 4);
	*ts = t;
	*cpu = (int)cp;
	*size = k->fixed + n;
	return 1;
}

void bpf_find_ids(struct strobe_formats *f, int *ids)
{
	int i;

	for (i = 0; i < NR_KINDS; i++)
		ids[i] = find_id(f, i);
}

int strobe_bpf_decode(struct strobe_formats *f, const void *rec, size_t len, uint8_t *out,
		      size_t cap, uint64_t *ts, int *cpu, uint32_t *size)
{
	int ids[NR_KINDS];

	if (!f)
		return -EINVAL;
	bpf_find_ids(f, ids);
	return bpf_decode_with(ids, rec, len, out, cap, ts, cpu, size);
}
