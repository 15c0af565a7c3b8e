/*
 * bpf-int.h - what the two halves of lib/bpf share: records.c (formats
 * and decoding, no libbpf) and bpf.c (loading, the ring buffer).
 */
#ifndef STROBE_BPF_INT_H
#define STROBE_BPF_INT_H

#include <stddef.h>
#include <stdint.h>

#include "../util/err.h"

struct strobe_formats;
struct strobe_error;

/* Record kinds known (snoop.h's SNOOP_KIND_*), the size of the id
 * arrays below. */
#define BPF_NR_KINDS 4

/* Declare the formats of `programs` (STROBE_BPF_*) into f; ids[k] gets
 * kind k's id, or -1 when not asked for.  0 or -errno. */
int bpf_declare_programs(struct strobe_formats *f, unsigned programs, int *ids,
			 struct strobe_error *err) STROBE_HIDDEN;
/* The ids f holds for each kind (-1: none). */
void bpf_find_ids(struct strobe_formats *f, int *ids) STROBE_HIDDEN;
/* strobe_bpf_decode with the ids at hand. */
int bpf_decode_with(const int *ids, const void *rec, size_t len, uint8_t *out, size_t cap,
		    uint64_t *ts, int *cpu, uint32_t *size) STROBE_HIDDEN;

#endif
