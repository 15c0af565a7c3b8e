/*
 * test_page.c - the ring-buffer page decoder against hand-built pages.
 *
 * Each page is built byte by byte (pb_* helpers) in a heap block of
 * exactly the page's size, so that any read past the page trips ASan.
 * Expected timestamps follow libtraceevent's kbuffer (see page.h).
 */
#include <errno.h>

#include <traceevent/kbuffer.h>

#include "test.h"
#include "stream/page.h"

#define PS 4096

struct pb {
	uint8_t *buf;		/* page_size bytes */
	uint32_t size;		/* page size */
	unsigned cs;		/* commit field size */
	uint32_t pos;		/* write position, from the page start */
};

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static void pb_init(struct pb *b, uint32_t size, unsigned cs, uint64_t ts)
{
	b->buf = calloc(1, size);
	b->size = size;
	b->cs = cs;
	b->pos = 8 + cs;
	put64(b->buf, ts);
}

static void pb_free(struct pb *b)
{
	free(b->buf);
}

static void pb_word(struct pb *b, uint32_t v)
{
	put32(b->buf + b->pos, v);
	b->pos += 4;
}

static void pb_hdr(struct pb *b, unsigned type_len, uint32_t delta)
{
	pb_word(b, type_len | (delta << 5));
}

/* Data event of `words` payload words (1..28), each word = fill. */
static void pb_small(struct pb *b, uint32_t delta, unsigned words, uint32_t fill)
{
	unsigned i;

	pb_hdr(b, words, delta);
	for (i = 0; i < words; i++)
		pb_word(b, fill);
}

/* type_len 0 event of `bytes` payload bytes (each = fill), padded to 4. */
static void pb_long(struct pb *b, uint32_t delta, uint32_t bytes, uint8_t fill)
{
	pb_hdr(b, 0, delta);
	pb_word(b, bytes + 4);
	memset(b->buf + b->pos, fill, bytes);
	b->pos += (bytes + 3) & ~3U;
}

static void pb_extend(struct pb *b, uint64_t delta)
{
	pb_hdr(b, 30, (uint32_t)(delta & ((1U << 27) - 1)));
	pb_word(b, (uint32_t)(delta >> 27));
}

static void pb_stamp(struct pb *b, uint64_t ts)
{
	pb_hdr(b, 31, (uint32_t)(ts & ((1U << 27) - 1)));
	pb_word(b, (uint32_t)(ts >> 27));
}

/* Padding record: with delta != 0 a discarded event of `len` bytes after
 * its length word (array[0] counts the length word too, as the kernel
 * writes it). */
static void pb_pad(struct pb *b, uint32_t delta, uint32_t len)
{
	pb_hdr(b, 29, delta);
	pb_word(b, len + 4);
	memset(b->buf + b->pos, 0xee, len);
	b->pos += len;
}

/* Write the commit field: data bytes so far plus extra, with flags. */
static uint32_t pb_commit(struct pb *b, int32_t extra, uint32_t flags)
{
	uint32_t len = b->pos - (8 + b->cs) + (uint32_t)extra;

	if (b->cs == 8)
		put64(b->buf + 8, (uint64_t)(len | flags));
	else
		put32(b->buf + 8, len | flags);
	return len;
}

static int init(struct strobe_page *p, struct pb *b, struct strobe_error *err)
{
	return strobe_page_init(p, b->buf, b->size, b->cs, err);
}

static void test_page_small_events_type_len_1_to_28(void)
{
	static const unsigned sizes[] = { 4, 8 };
	size_t k;

	for (k = 0; k < 2; k++) {
		struct strobe_page p;
		struct strobe_page_rec r;
		struct strobe_error err = { 0 };
		struct pb b;
		uint64_t ts = 1000;
		uint32_t off;
		unsigned t;

		pb_init(&b, PS, sizes[k], 1000);
		for (t = 1; t <= 28; t++)
			pb_small(&b, t, t, 0x01010101U * t);
		pb_commit(&b, 0, 0);
		REQUIRE(init(&p, &b, &err) == 0);
		CHECK_EQ(p.missed, 0);
		off = 8 + sizes[k];
		for (t = 1; t <= 28; t++) {
			REQUIRE(strobe_page_next(&p, &r, &err) == 1);
			ts += t;
			CHECK_EQ(r.ts, ts);
			CHECK_EQ(r.size, t * 4);
			CHECK_EQ(r.offset, off);
			CHECK(r.data == b.buf + off + 4);
			CHECK_EQ(r.data[0], t);
			CHECK_EQ(r.data[r.size - 1], t);
			off += 4 + t * 4;
		}
		CHECK_EQ(strobe_page_next(&p, &r, &err), 0);
		CHECK_EQ(strobe_page_next(&p, &r, &err), 0);
		pb_free(&b);
	}
}

static void test_page_long_events_type_len_0(void)
{
	struct strobe_page p;
	struct strobe_page_rec r;
	struct strobe_error err = { 0 };
	struct pb b;

	pb_init(&b, PS, 8, 50);
	pb_long(&b, 1, 200, 0xaa);
	pb_long(&b, 2, 201, 0xbb);	/* rounded up to 204 as kbuffer does */
	pb_small(&b, 3, 1, 7);
	pb_commit(&b, 0, 0);
	REQUIRE(init(&p, &b, &err) == 0);
	REQUIRE(strobe_page_next(&p, &r, &err) == 1);
	CHECK_EQ(r.ts, 51);
	CHECK_EQ(r.size, 200);
	CHECK_EQ(r.offset, 16);
	CHECK(r.data == b.buf + 16 + 8);
	CHECK_EQ(r.data[199], 0xaa);
	REQUIRE(strobe_page_next(&p, &r, &err) == 1);
	CHECK_EQ(r.ts, 53);
	CHECK_EQ(r.size, 204);
	CHECK_EQ(r.data[200], 0xbb);
	REQUIRE(strobe_page_next(&p, &r, &err) == 1);
	CHECK_EQ(r.ts, 56);
	CHECK_EQ(r.size, 4);
	CHECK_EQ(strobe_page_next(&p, &r, &err), 0);
	pb_free(&b);
}

static void test_page_time_extend_adds_delta(void)
{
	struct strobe_page p;
	struct strobe_page_rec r;
	struct strobe_error err = { 0 };
	struct pb b;
	uint64_t ext = (5ULL << 27) + 7;

	pb_init(&b, PS, 8, 100);
	pb_small(&b, 10, 1, 0);
	pb_extend(&b, ext);
	pb_small(&b, 3, 1, 0);
	pb_extend(&b, 0xffffffffULL << 27);	/* largest array[0] */
	pb_small(&b, 0, 1, 0);
	pb_commit(&b, 0, 0);
	REQUIRE(init(&p, &b, &err) == 0);
	REQUIRE(strobe_page_next(&p, &r, &err) == 1);
	CHECK_EQ(r.ts, 110);
	REQUIRE(strobe_page_next(&p, &r, &err) == 1);
	CHECK_EQ(r.ts, 110 + ext + 3);
	CHECK_EQ(r.offset, 16 + 8 + 8);
	REQUIRE(strobe_page_next(&p, &r, &err) == 1);
	CHECK(r.ts == 110 + ext + 3 + (0xffffffffULL << 27));
	CHECK_EQ(strobe_page_next(&p, &r, &err), 0);
	pb_free(&b);
}

static void test_page_time_stamp_is_absolute_keeps_top_bits(void)
{
	struct strobe_page p;
	struct strobe_page_rec r;
	struct strobe_error err = { 0 };
	struct pb b;
	uint64_t top = 3ULL << 60;		/* bits above 59 */
	uint64_t abs = (123456ULL << 27) + 99;	/* fits 59 bits */

	pb_init(&b, PS, 8, top + 1000);
	pb_small(&b, 5, 1, 0);
	pb_stamp(&b, abs);
	pb_small(&b, 0, 1, 0);
	pb_small(&b, 4, 1, 0);
	pb_stamp(&b, 77);	/* may go backwards: it replaces the time */
	pb_small(&b, 1, 1, 0);
	pb_commit(&b, 0, 0);
	REQUIRE(init(&p, &b, &err) == 0);
	REQUIRE(strobe_page_next(&p, &r, &err) == 1);
	CHECK(r.ts == top + 1005);
	REQUIRE(strobe_page_next(&p, &r, &err) == 1);
	CHECK(r.ts == (top | abs));
	REQUIRE(strobe_page_next(&p, &r, &err) == 1);
	CHECK(r.ts == (top | abs) + 4);
	REQUIRE(strobe_page_next(&p, &r, &err) == 1);
	CHECK(r.ts == (top | 77) + 1);
	CHECK_EQ(strobe_page_next(&p, &r, &err), 0);
	pb_free(&b);
}

static void test_page_padding_with_zero_delta_ends_page(void)
{
	struct strobe_page p;
	struct strobe_page_rec r;
	struct strobe_error err = { 0 };
	struct pb b;

	pb_init(&b, PS, 8, 0);
	pb_small(&b, 1, 2, 0);
	pb_hdr(&b, 29, 0);
	pb_small(&b, 1, 2, 0);	/* after the padding: never decoded */
	pb_commit(&b, 0, 0);
	REQUIRE(init(&p, &b, &err) == 0);
	REQUIRE(strobe_page_next(&p, &r, &err) == 1);
	CHECK_EQ(strobe_page_next(&p, &r, &err), 0);
	pb_free(&b);

	/* Padding running to the very end of the page's data. */
	pb_init(&b, 128, 8, 0);
	pb_small(&b, 1, 1, 0);
	pb_pad(&b, 1, 128 - b.pos - 8);
	CHECK_EQ(b.pos, 128);
	pb_commit(&b, 0, 0);
	REQUIRE(init(&p, &b, &err) == 0);
	REQUIRE(strobe_page_next(&p, &r, &err) == 1);
	CHECK_EQ(strobe_page_next(&p, &r, &err), 0);
	pb_free(&b);

	/* Zero-delta padding in the last 4 bytes: no length word is read. */
	pb_init(&b, 132, 8, 0);
	while (b.pos < 128)
		pb_small(&b, 1, 1, 0);
	pb_hdr(&b, 29, 0);
	pb_commit(&b, 0, 0);
	REQUIRE(init(&p, &b, &err) == 0);
	while (strobe_page_next(&p, &r, &err) == 1)
		;
	CHECK_EQ(p.pos, p.len);
	pb_free(&b);
}

static void test_page_discarded_event_skipped_delta_kept(void)
{
	struct strobe_page p;
	struct strobe_page_rec r;
	struct strobe_error err = { 0 };
	struct pb b;

	pb_init(&b, PS, 8, 500);
	pb_small(&b, 1, 1, 1);
	pb_pad(&b, 10, 12);
	pb_small(&b, 2, 1, 2);
	pb_pad(&b, 5, 0);		/* empty discarded event still advances */
	pb_small(&b, 3, 1, 3);
	pb_commit(&b, 0, 0);
	REQUIRE(init(&p, &b, &err) == 0);
	REQUIRE(strobe_page_next(&p, &r, &err) == 1);
	CHECK_EQ(r.ts, 501);
	REQUIRE(strobe_page_next(&p, &r, &err) == 1);
	CHECK_EQ(r.ts, 513);
	CHECK_EQ(r.data[0], 2);
	CHECK_EQ(r.offset, 16 + 8 + 4 + 4 + 12);
	REQUIRE(strobe_page_next(&p, &r, &err) == 1);
	CHECK_EQ(r.ts, 521);
	CHECK_EQ(r.data[0], 3);
	CHECK_EQ(strobe_page_next(&p, &r, &err), 0);
	pb_free(&b);

	/* A discarded event claiming more than the commit ends the page. */
	pb_init(&b, PS, 8, 0);
	pb_small(&b, 1, 1, 1);
	pb_pad(&b, 1, 8);
	pb_commit(&b, -4, 0);
	REQUIRE(init(&p, &b, &err) == 0);
	REQUIRE(strobe_page_next(&p, &r, &err) == 1);
	CHECK_EQ(strobe_page_next(&p, &r, &err), 0);
	pb_free(&b);
}

static void test_page_missed_flag_without_and_with_count(void)
{
	static const unsigned sizes[] = { 4, 8 };
	size_t k;

	for (k = 0; k < 2; k++) {
		struct strobe_page p;
		struct strobe_page_rec r;
		struct strobe_error err = { 0 };
		struct pb b;
		uint32_t len;

		pb_init(&b, PS, sizes[k], 0);
		pb_small(&b, 1, 1, 0);
		pb_commit(&b, 0, 1U << 31);
		REQUIRE(init(&p, &b, &err) == 0);
		CHECK_EQ(p.missed, -1);
		CHECK_EQ(p.len, 8);
		CHECK_EQ(strobe_page_next(&p, &r, &err), 1);
		CHECK_EQ(strobe_page_next(&p, &r, &err), 0);
		pb_free(&b);

		pb_init(&b, PS, sizes[k], 0);
		pb_small(&b, 1, 1, 0);
		len = pb_commit(&b, 0, 3U << 30);
		if (sizes[k] == 8)
			put64(b.buf + 16 + len, 123456789012ULL);
		else
			put32(b.buf + 12 + len, 4000000000U);
		REQUIRE(init(&p, &b, &err) == 0);
		CHECK(p.missed == (sizes[k] == 8 ? 123456789012LL : 4000000000LL));
		CHECK_EQ(p.len, 8);
		CHECK_EQ(strobe_page_next(&p, &r, &err), 1);
		CHECK_EQ(strobe_page_next(&p, &r, &err), 0);
		pb_free(&b);
	}
}

static void test_page_missed_count_past_page_end_is_error(void)
{
	struct strobe_page p;
	struct strobe_page_rec r;
	struct strobe_error err = { 0 };
	struct pb b;

	pb_init(&b, 64, 8, 0);
	while (b.pos < 64)
		pb_small(&b, 1, 1, 0);
	pb_commit(&b, 0, 3U << 30);
	CHECK_EQ(init(&p, &b, &err), -EINVAL);
	CHECK(strstr(err.msg, "lost-event count") != NULL);
	CHECK_EQ(strobe_page_next(&p, &r, &err), 0);
	pb_free(&b);
}

static void test_page_commit_size_4_data_at_12(void)
{
	struct strobe_page p;
	struct strobe_page_rec r;
	struct strobe_error err = { 0 };
	struct pb b;

	pb_init(&b, PS, 4, 9);
	pb_small(&b, 1, 1, 0x11);
	pb_long(&b, 1, 150, 0x22);
	pb_commit(&b, 0, 0);
	REQUIRE(init(&p, &b, &err) == 0);
	CHECK(p.data == b.buf + 12);
	REQUIRE(strobe_page_next(&p, &r, &err) == 1);
	CHECK_EQ(r.offset, 12);
	CHECK_EQ(r.data[0], 0x11);
	REQUIRE(strobe_page_next(&p, &r, &err) == 1);
	CHECK_EQ(r.offset, 20);
	CHECK_EQ(r.size, 152);
	CHECK_EQ(r.ts, 11);
	CHECK_EQ(strobe_page_next(&p, &r, &err), 0);
	pb_free(&b);
}

static void test_page_commit_larger_than_page_is_error(void)
{
	static const unsigned sizes[] = { 4, 8 };
	size_t k;

	for (k = 0; k < 2; k++) {
		struct strobe_page p;
		struct strobe_page_rec r;
		struct strobe_error err = { 0 };
		struct pb b;

		pb_init(&b, 128, sizes[k], 0);
		pb_small(&b, 1, 1, 0);
		pb_commit(&b, 128, 0);
		CHECK_EQ(init(&p, &b, &err), -EINVAL);
		CHECK_EQ(err.code, -EINVAL);
		CHECK(strstr(err.msg, "commit") != NULL);
		CHECK_EQ(strobe_page_next(&p, &r, &err), 0);
		/* Exactly the page's data size is fine. */
		pb_commit(&b, (int32_t)(128 - 8 - sizes[k]) - 8, 0);
		CHECK_EQ(init(&p, &b, &err), 0);
		pb_free(&b);
	}
}

static void test_page_bad_parameters_rejected(void)
{
	struct strobe_page p;
	struct strobe_error err = { 0 };
	uint8_t page[16] = { 0 };

	CHECK_EQ(strobe_page_init(&p, page, 16, 6, &err), -EINVAL);
	CHECK_EQ(strobe_page_init(&p, page, 16, 8, &err), -EINVAL);
	CHECK_EQ(strobe_page_init(&p, page, 12, 4, &err), -EINVAL);
	CHECK_EQ(strobe_page_init(&p, page, 13, 4, NULL), 0);
	CHECK_EQ(p.len, 0);
}

static void test_page_truncated_event_header_is_error(void)
{
	struct strobe_page p;
	struct strobe_page_rec r;
	struct strobe_error err = { 0 };
	struct pb b;

	/* Two stray bytes at the end of the commit, at the page's end. */
	pb_init(&b, 16 + 8 + 2, 8, 0);
	pb_small(&b, 1, 1, 0);
	pb_commit(&b, 2, 0);
	REQUIRE(init(&p, &b, &err) == 0);
	REQUIRE(strobe_page_next(&p, &r, &err) == 1);
	CHECK_EQ(strobe_page_next(&p, &r, &err), -EINVAL);
	CHECK(strstr(err.msg, "truncated event header at page offset 24") != NULL);
	CHECK_EQ(strobe_page_next(&p, &r, &err), 0);
	pb_free(&b);

	/* A time extend cut after its first word. */
	pb_init(&b, 16 + 4, 8, 0);
	pb_hdr(&b, 30, 1);
	pb_commit(&b, 0, 0);
	REQUIRE(init(&p, &b, &err) == 0);
	CHECK_EQ(strobe_page_next(&p, &r, &err), -EINVAL);
	pb_free(&b);

	/* A type_len 0 event whose length word is missing. */
	pb_init(&b, 16 + 4, 8, 0);
	pb_hdr(&b, 0, 1);
	pb_commit(&b, 0, 0);
	REQUIRE(init(&p, &b, &err) == 0);
	CHECK_EQ(strobe_page_next(&p, &r, &err), -EINVAL);
	pb_free(&b);
}

static void test_page_event_past_commit_is_error(void)
{
	struct strobe_page p;
	struct strobe_page_rec r;
	struct strobe_error err = { 0 };
	struct pb b;

	pb_init(&b, 16 + 12, 8, 0);
	pb_small(&b, 1, 2, 0);
	pb_commit(&b, -4, 0);
	REQUIRE(init(&p, &b, &err) == 0);
	CHECK_EQ(strobe_page_next(&p, &r, &err), -EINVAL);
	CHECK(strstr(err.msg, "past the commit") != NULL);
	pb_free(&b);

	pb_init(&b, 16 + 8 + 100, 8, 0);
	pb_hdr(&b, 0, 1);
	pb_word(&b, 0xfffffff0U);	/* huge length: no overflow, error */
	pb_commit(&b, 100, 0);
	REQUIRE(init(&p, &b, &err) == 0);
	CHECK_EQ(strobe_page_next(&p, &r, &err), -EINVAL);
	pb_free(&b);

	pb_init(&b, 16 + 8, 8, 0);
	pb_hdr(&b, 0, 1);
	pb_word(&b, 3);			/* shorter than its own length word */
	pb_commit(&b, 0, 0);
	REQUIRE(init(&p, &b, &err) == 0);
	CHECK_EQ(strobe_page_next(&p, &r, &err), -EINVAL);
	CHECK(strstr(err.msg, "bad event length") != NULL);
	pb_free(&b);
}

static void test_page_zero_commit_has_no_events(void)
{
	struct strobe_page p;
	struct strobe_page_rec r;
	struct strobe_error err = { 0 };
	struct pb b;

	pb_init(&b, PS, 8, 77);
	pb_small(&b, 1, 1, 0);	/* written but not committed */
	put64(b.buf + 8, 0);
	REQUIRE(init(&p, &b, &err) == 0);
	CHECK_EQ(p.len, 0);
	CHECK_EQ(p.ts, 77);
	CHECK_EQ(strobe_page_next(&p, &r, &err), 0);
	pb_free(&b);
}

static void test_page_commit_high_bits_masked(void)
{
	struct strobe_page p;
	struct strobe_page_rec r;
	struct strobe_error err = { 0 };
	struct pb b;

	/* Bits 27..29 are not part of the length (kbuffer masks 27 bits). */
	pb_init(&b, PS, 8, 0);
	pb_small(&b, 1, 1, 0);
	pb_commit(&b, 0, 7U << 27);
	REQUIRE(init(&p, &b, &err) == 0);
	CHECK_EQ(p.len, 8);
	CHECK_EQ(p.missed, 0);
	CHECK_EQ(strobe_page_next(&p, &r, &err), 1);
	CHECK_EQ(strobe_page_next(&p, &r, &err), 0);
	pb_free(&b);
}

/*
 * Differential check against libtraceevent's kbuffer (what trace-cmd
 * report uses) on a well-formed page holding every record kind: same
 * timestamps, payload pointers, sizes, offsets and lost-event count.
 */
static void test_page_matches_libtraceevent_kbuffer(void)
{
	static const unsigned sizes[] = { 4, 8 };
	size_t k;

	for (k = 0; k < 2; k++) {
		struct strobe_page p;
		struct strobe_page_rec r;
		struct strobe_error err = { 0 };
		struct kbuffer *kb;
		struct pb b;
		unsigned long long kts;
		void *kd;
		uint32_t len;
		int n = 0;

		pb_init(&b, PS, sizes[k], (1ULL << 61) + 12345);
		pb_small(&b, 3, 2, 1);
		pb_long(&b, 100, 333, 2);
		pb_extend(&b, (9ULL << 27) + 5);
		pb_small(&b, 0, 28, 3);
		pb_pad(&b, 17, 20);
		pb_small(&b, 2, 1, 4);
		pb_stamp(&b, (77777ULL << 27) + 3);
		pb_small(&b, 6, 3, 5);
		pb_long(&b, (1U << 27) - 1, 1, 6);
		len = pb_commit(&b, 0, 3U << 30);
		if (sizes[k] == 8)
			put64(b.buf + 16 + len, 31);
		else
			put32(b.buf + 12 + len, 31);

		kb = kbuffer_alloc(sizes[k] == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
				   KBUFFER_ENDIAN_LITTLE);
		REQUIRE(kb);
		REQUIRE(kbuffer_load_subbuffer(kb, b.buf) == 0);
		REQUIRE(init(&p, &b, &err) == 0);
		CHECK_EQ(p.missed, kbuffer_missed_events(kb));
		kd = kbuffer_read_event(kb, &kts);
		while (kd) {
			REQUIRE(strobe_page_next(&p, &r, &err) == 1);
			CHECK(r.ts == kts);
			CHECK(r.data == kd);
			CHECK_EQ(r.size, kbuffer_event_size(kb));
			CHECK_EQ(r.offset, kbuffer_curr_offset(kb));
			n++;
			kd = kbuffer_next_event(kb, &kts);
		}
		CHECK_EQ(n, 6);
		CHECK_EQ(strobe_page_next(&p, &r, &err), 0);
		kbuffer_free(kb);
		pb_free(&b);
	}
}

TESTS(T(test_page_small_events_type_len_1_to_28),
      T(test_page_long_events_type_len_0),
      T(test_page_time_extend_adds_delta),
      T(test_page_time_stamp_is_absolute_keeps_top_bits),
      T(test_page_padding_with_zero_delta_ends_page),
      T(test_page_discarded_event_skipped_delta_kept),
      T(test_page_missed_flag_without_and_with_count),
      T(test_page_missed_count_past_page_end_is_error),
      T(test_page_commit_size_4_data_at_12),
      T(test_page_commit_larger_than_page_is_error),
      T(test_page_bad_parameters_rejected),
      T(test_page_truncated_event_header_is_error),
      T(test_page_event_past_commit_is_error),
      T(test_page_zero_commit_has_no_events),
      T(test_page_commit_high_bits_masked),
      T(test_page_matches_libtraceevent_kbuffer));
