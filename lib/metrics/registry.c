/*
 * registry.c - the Prometheus registry: families, series keyed by label
 * values, groups that expire, the text exposition format 0.0.4.
 *
 * How it is kept: families in an array (their order is the exposition's);
 * each family's series in a list in creation order (so the text of a
 * given history is always the same, which the tests compare byte for
 * byte); every series also in one hash table keyed by (family, label
 * values) for the updates, and groups in a second table keyed by name.
 * Values are raw integers; a family's decimals say where the point goes,
 * so counters add exactly and never go backwards.  Dropping a group walks
 * every series once: it happens when a container has gone for keep_ns,
 * not per event.
 *
 * One mutex guards everything; see metrics.h for who takes it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "metrics-int.h"
#include "util/buf.h"
#include "util/opts.h"

#define MAX_LABELS 8
#define MAX_BOUNDS 64
#define MAX_VALUE_LEN 1024	/* a longer label value is cut there */
#define TOP_FAMILIES 16

struct family {
	char *name, *help;
	enum strobe_metric_type type;
	char *labels[MAX_LABELS];
	int nr_labels;
	int decimals;
	uint64_t *bounds;	/* nr_bounds, ascending */
	int nr_bounds;
	struct series *head, *tail;	/* creation order */
};

struct group {
	struct group *hnext;
	uint64_t hash;
	char *key;
	uint64_t alive_ns;	/* last marked alive */
	int *count;		/* series per family (nr_count of them) */
	int nr_count;
};

struct series {
	struct series *hnext;		/* hash chain */
	struct series *prev, *next;	/* the family's list */
	uint64_t hash;
	int family;
	struct group *group;		/* NULL: lives with the registry */
	char **values;			/* nr_labels, one allocation */
	int64_t value;			/* counter (>= 0) or gauge, raw */
	uint64_t sum;			/* histogram: raw sum */
	uint64_t *buckets;		/* histogram: nr_bounds + 1, not
					 * cumulative */
};

struct strobe_metrics {
	pthread_mutex_t lock;
	struct strobe_metrics_opts opts;
	struct family *fams;
	int nr_fams, cap_fams;
	struct series **stab;		/* series hash, stab_size a power of 2 */
	size_t stab_size;
	int nr_series;
	struct group **gtab;
	size_t gtab_size;
	int nr_groups;
	uint64_t now_ns;		/* latest now given */
	int fam_scrape;
	struct series *dropped;		/* strobe_metrics_dropped_series_total */
	int top_ids[TOP_FAMILIES];
};

void strobe_metrics_lock(struct strobe_metrics *m)
{
	pthread_mutex_lock(&m->lock);
}

void strobe_metrics_unlock(struct strobe_metrics *m)
{
	pthread_mutex_unlock(&m->lock);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n--)
		h = (h ^ *s++) * 0x100000001b3ULL;
	return h;
}

static const char *val(const char *const *values, int i)
{
	return values && values[i] ? values[i] : "";
}

static size_t val_len(const char *v)
{
	return strnlen(v, MAX_VALUE_LEN);
}

static uint64_t series_hash(int family, const char *const *values, int n)
{
	uint64_t h = fnv(0xcbf29ce484222325ULL, &family, sizeof(family));
	int i;

	for (i = 0; i < n; i++)
		h = fnv(h, val(values, i), val_len(val(values, i)) + 1);
	return h;
}

static bool series_is(const struct series *s, uint64_t h, int family,
		      const char *const *values, int n)
{
	int i;

	if (s->hash != h || s->family != family)
		return false;
	for (i = 0; i < n; i++) {
		const char *v = val(values, i);
		size_t l = val_len(v);

		if (strncmp(s->values[i], v, l) || s->values[i][l])
			return false;
	}
	return true;
}

static struct series *series_find(struct strobe_metrics *m, int family,
				  const char *const *values)
{
	int n = m->fams[family].nr_labels;
	uint64_t h = series_hash(family, values, n);
	struct series *s;

	for (s = m->stab[h & (m->stab_size - 1)]; s; s = s->hnext)
		if (series_is(s, h, family, values, n))
			return s;
	return NULL;
}

static struct group *group_find(struct strobe_metrics *m, const char *key, uint64_t *hash)
{
	uint64_t h = fnv(0xcbf29ce484222325ULL, key, strlen(key));
	struct group *g;

	*hash = h;
	for (g = m->gtab[h & (m->gtab_size - 1)]; g; g = g->hnext)
		if (g->hash == h && !strcmp(g->key, key))
			return g;
	return NULL;
}

static int grow(void **tab, size_t *size, size_t next_off, size_t hash_off)
{
	size_t n = *size * 2, i;
	void **t = calloc(n, sizeof(*t)), **old = *tab;

	if (!t)
		return -ENOMEM;
	for (i = 0; i < *size; i++) {
		char *e = old[i];

		while (e) {
			char *next = *(char **)(e + next_off);
			uint64_t h = *(uint64_t *)(e + hash_off);

			*(char **)(e + next_off) = t[h & (n - 1)];
			t[h & (n - 1)] = e;
			e = next;
		}
	}
	free(old);
	*tab = t;
	*size = n;
	return 0;
}

static struct group *group_get(struct strobe_metrics *m, const char *key)
{
	uint64_t h;
	struct group *g = group_find(m, key, &h);

	if (g)
		return g;
	if ((size_t)m->nr_groups >= m->gtab_size &&
	    grow((void **)&m->gtab, &m->gtab_size, offsetof(struct group, hnext),
		 offsetof(struct group, hash)) < 0)
		return NULL;
	g = calloc(1, sizeof(*g));
	if (!g || !(g->key = strdup(key))) {
		free(g);
		return NULL;
	}
	g->hash = h;
	g->alive_ns = m->now_ns;
	g->hnext = m->gtab[h & (m->gtab_size - 1)];
	m->gtab[h & (m->gtab_size - 1)] = g;
	m->nr_groups++;
	return g;
}

static void series_free(struct series *s)
{
	if (s) {
		free(s->values);
		free(s->buckets);
		free(s);
	}
}

/* Unlink s from its family's list and the hash, and free it. */
static void series_remove(struct strobe_metrics *m, struct series *s)
{
	struct family *f = &m->fams[s->family];
	struct series **p = &m->stab[s->hash & (m->stab_size - 1)];

	while (*p != s)
		p = &(*p)->hnext;
	*p = s->hnext;
	if (s->prev)
		s->prev->next = s->next;
	else
		f->head = s->next;
	if (s->next)
		s->next->prev = s->prev;
	else
		f->tail = s->prev;
	if (s->group && s->family < s->group->nr_count)
		s->group->count[s->family]--;
	m->nr_series--;
	series_free(s);
}

static int group_count_add(struct group *g, int family, int nr_fams)
{
	if (family >= g->nr_count) {
		int *c = realloc(g->count, nr_fams * sizeof(*c));

		if (!c)
			return -ENOMEM;
		memset(c + g->nr_count, 0, (nr_fams - g->nr_count) * sizeof(*c));
		g->count = c;
		g->nr_count = nr_fams;
	}
	g->count[family]++;
	return 0;
}

static struct series *series_new(struct strobe_metrics *m, int family, struct group *g,
				 const char *const *values, int *ret)
{
	struct family *f = &m->fams[family];
	size_t len = f->nr_labels * sizeof(char *);
	struct series *s;
	char *p;
	int i;

	if (m->nr_series >= m->opts.max_series) {
		if (m->dropped && m->dropped->value < INT64_MAX)
			m->dropped->value++;
		*ret = -ENOSPC;
		return NULL;
	}
	*ret = -ENOMEM;
	if ((size_t)m->nr_series >= m->stab_size &&
	    grow((void **)&m->stab, &m->stab_size, offsetof(struct series, hnext),
		 offsetof(struct series, hash)) < 0)
		return NULL;
	for (i = 0; i < f->nr_labels; i++)
		len += val_len(val(values, i)) + 1;
	s = calloc(1, sizeof(*s));
	if (!s || !(s->values = malloc(len ? len : 1)))
		goto fail;
	if (f->type == STROBE_METRIC_HISTOGRAM &&
	    !(s->buckets = calloc(f->nr_bounds + 1, sizeof(*s->buckets))))
		goto fail;
	if (g && group_count_add(g, family, m->nr_fams) < 0)
		goto fail;
	p = (char *)(s->values + f->nr_labels);
	for (i = 0; i < f->nr_labels; i++) {
		size_t l = val_len(val(values, i));

		memcpy(p, val(values, i), l);
		p[l] = '\0';
		s->values[i] = p;
		p += l + 1;
	}
	s->family = family;
	s->group = g;
	s->hash = series_hash(family, values, f->nr_labels);
	s->hnext = m->stab[s->hash & (m->stab_size - 1)];
	m->stab[s->hash & (m->stab_size - 1)] = s;
	s->prev = f->tail;
	if (f->tail)
		f->tail->next = s;
	else
		f->head = s;
	f->tail = s;
	m->nr_series++;
	*ret = 0;
	return s;
fail:
	series_free(s);
	return NULL;
}

int strobe_metrics_add_locked(struct strobe_metrics *m, int family, const char *group,
			      const char *const *values, enum strobe_metric_type type,
			      int64_t value, const uint64_t *counts, uint64_t sum)
{
	struct group *g = NULL;
	struct series *s;
	struct family *f;
	int r, i;

	if (family < 0 || family >= m->nr_fams || m->fams[family].type != type)
		return -EINVAL;
	f = &m->fams[family];
	if (group) {
		g = group_get(m, group);
		if (!g)
			return -ENOMEM;
		if (g->alive_ns < m->now_ns)
			g->alive_ns = m->now_ns;
	}
	s = series_find(m, family, values);
	if (s && s->group != g) {
		/* the same labels under another group: the series moves
		 * (its values go on; Prometheus sees one series) */
		if (s->group && family < s->group->nr_count)
			s->group->count[family]--;
		if (g && group_count_add(g, family, m->nr_fams) < 0) {
			s->group = NULL;
			return -ENOMEM;
		}
		s->group = g;
	}
	if (!s && !(s = series_new(m, family, g, values, &r)))
		return r;
	switch (type) {
	case STROBE_METRIC_COUNTER:
		/* raw counters saturate instead of wrapping below zero */
		s->value = (uint64_t)s->value + (uint64_t)value > (uint64_t)INT64_MAX ?
			   INT64_MAX : s->value + value;
		break;
	case STROBE_METRIC_GAUGE:
		s->value = value;
		break;
	case STROBE_METRIC_HISTOGRAM:
		for (i = 0; i <= f->nr_bounds; i++)
			s->buckets[i] += counts[i];
		s->sum += sum;
		break;
	}
	return 0;
}

static int check_name(const char *s, bool colon)
{
	size_t i;

	if (!s || !*s)
		return -EINVAL;
	for (i = 0; s[i]; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
		      (colon && c == ':') || (i && c >= '0' && c <= '9')))
			return -EINVAL;
	}
	return i > 200 ? -EINVAL : 0;
}

static void family_free(struct family *f)
{
	int i;

	free(f->name);
	free(f->help);
	for (i = 0; i < f->nr_labels; i++)
		free(f->labels[i]);
	free(f->bounds);
}

int strobe_metrics_family_add_locked(struct strobe_metrics *m, const struct strobe_metrics_family_def *d,
			     struct strobe_error *err)
{
	struct family f = { 0 };
	int i, j;

	if (!d || check_name(d->name, true) < 0)
		return strobe_err(err, -EINVAL, "metric name '%s' is not [a-zA-Z_:][a-zA-Z0-9_:]*",
				  d && d->name ? d->name : "(null)");
	if ((unsigned)d->type > STROBE_METRIC_HISTOGRAM || d->nr_labels < 0 ||
	    d->nr_labels > MAX_LABELS || (d->nr_labels && !d->labels) ||
	    d->decimals < 0 || d->decimals > 18)
		return strobe_err(err, -EINVAL, "metric %s: bad type, labels or decimals", d->name);
	for (i = 0; i < d->nr_labels; i++) {
		if (check_name(d->labels[i], false) < 0 || !strcmp(d->labels[i], "le") ||
		    !strncmp(d->labels[i], "__", 2))
			return strobe_err(err, -EINVAL, "metric %s: bad label name '%s'", d->name,
					  d->labels[i] ? d->labels[i] : "(null)");
		for (j = 0; j < i; j++)
			if (!strcmp(d->labels[i], d->labels[j]))
				return strobe_err(err, -EINVAL, "metric %s: label %s twice",
						  d->name, d->labels[i]);
	}
	if (d->type == STROBE_METRIC_HISTOGRAM) {
		if (d->nr_bounds < 1 || d->nr_bounds > MAX_BOUNDS || !d->bounds)
			return strobe_err(err, -EINVAL, "histogram %s: 1 to %d bounds", d->name,
					  MAX_BOUNDS);
		for (i = 1; i < d->nr_bounds; i++)
			if (d->bounds[i] <= d->bounds[i - 1])
				return strobe_err(err, -EINVAL,
						  "histogram %s: bounds not ascending", d->name);
	}
	for (i = 0; i < m->nr_fams; i++)
		if (!strcmp(m->fams[i].name, d->name))
			return strobe_err(err, -EEXIST, "metric %s exists", d->name);
	if (m->nr_fams == m->cap_fams) {
		int n = m->cap_fams ? m->cap_fams * 2 : 16;
		struct family *a = realloc(m->fams, n * sizeof(*a));

		if (!a)
			return strobe_err(err, -ENOMEM, "out of memory");
		m->fams = a;
		m->cap_fams = n;
	}
	f.type = d->type;
	f.decimals = d->decimals;
	f.nr_labels = d->nr_labels;
	f.name = strdup(d->name);
	f.help = strdup(d->help ? d->help : "");
	for (i = 0; i < d->nr_labels; i++)
		if (!(f.labels[i] = strdup(d->labels[i])))
			f.name = (free(f.name), NULL);
	if (d->type == STROBE_METRIC_HISTOGRAM) {
		f.nr_bounds = d->nr_bounds;
		f.bounds = malloc(d->nr_bounds * sizeof(*f.bounds));
		if (f.bounds)
			memcpy(f.bounds, d->bounds, d->nr_bounds * sizeof(*f.bounds));
	}
	if (!f.name || !f.help || (d->type == STROBE_METRIC_HISTOGRAM && !f.bounds)) {
		family_free(&f);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	m->fams[m->nr_fams] = f;
	return m->nr_fams++;
}

int strobe_metrics_family_add(struct strobe_metrics *m, const struct strobe_metrics_family_def *def,
			      struct strobe_error *err)
{
	int r;

	strobe_metrics_lock(m);
	r = strobe_metrics_family_add_locked(m, def, err);
	strobe_metrics_unlock(m);
	return r;
}

int strobe_metrics_new(const struct strobe_metrics_opts *opts, struct strobe_metrics **out,
		       struct strobe_error *err)
{
	static const char *const version_label[] = { "version" };
	static const char *const version[] = { STROBE_VERSION };
	struct strobe_metrics *m;
	static const char *const none[1];
	int build, dropped, i;

	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return strobe_err(err, -ENOMEM, "out of memory");
	strobe_opts_copy(&m->opts, sizeof(m->opts), opts);
	if (!m->opts.keep_ns)
		m->opts.keep_ns = 300ULL * 1000000000ULL;
	if (m->opts.max_series <= 0)
		m->opts.max_series = 10000;
	if (m->opts.syscall_labels <= 0)
		m->opts.syscall_labels = 20;
	for (i = 0; i < TOP_FAMILIES; i++)
		m->top_ids[i] = -1;
	pthread_mutex_init(&m->lock, NULL);
	m->stab_size = 256;
	m->gtab_size = 64;
	m->stab = calloc(m->stab_size, sizeof(*m->stab));
	m->gtab = calloc(m->gtab_size, sizeof(*m->gtab));
	if (!m->stab || !m->gtab) {
		strobe_metrics_free(m);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	build = strobe_metrics_family_add_locked(m, &(struct strobe_metrics_family_def){
		"strobe_build_info", "strobe's version (the value is always 1)",
		STROBE_METRIC_GAUGE, version_label, 1, 0, NULL, 0 }, err);
	dropped = strobe_metrics_family_add_locked(m, &(struct strobe_metrics_family_def){
		"strobe_metrics_dropped_series_total",
		"Series not created because the registry held its most series",
		STROBE_METRIC_COUNTER, NULL, 0, 0, NULL, 0 }, err);
	m->fam_scrape = strobe_metrics_family_add_locked(m, &(struct strobe_metrics_family_def){
		"strobe_scrape_duration_seconds",
		"How long the previous scrape of this endpoint took to serve",
		STROBE_METRIC_GAUGE, NULL, 0, 9, NULL, 0 }, err);
	if (build < 0 || dropped < 0 || m->fam_scrape < 0 ||
	    strobe_metrics_add_locked(m, build, NULL, version, STROBE_METRIC_GAUGE, 1, NULL, 0) < 0 ||
	    strobe_metrics_add_locked(m, dropped, NULL, none, STROBE_METRIC_COUNTER, 0,
				      NULL, 0) < 0) {
		strobe_metrics_free(m);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	m->dropped = series_find(m, dropped, none);
	*out = m;
	return 0;
}

void strobe_metrics_free(struct strobe_metrics *m)
{
	size_t i;
	int f;

	if (!m)
		return;
	for (f = 0; f < m->nr_fams; f++) {
		struct series *s = m->fams[f].head, *next;

		for (; s; s = next) {
			next = s->next;
			series_free(s);
		}
		family_free(&m->fams[f]);
	}
	for (i = 0; m->gtab && i < m->gtab_size; i++) {
		struct group *g = m->gtab[i], *next;

		for (; g; g = next) {
			next = g->hnext;
			free(g->key);
			free(g->count);
			free(g);
		}
	}
	free(m->fams);
	free(m->stab);
	free(m->gtab);
	pthread_mutex_destroy(&m->lock);
	free(m);
}

int strobe_metrics_counter_add(struct strobe_metrics *m, int family, const char *group,
			       const char *const *values, uint64_t delta)
{
	int r;

	strobe_metrics_lock(m);
	r = strobe_metrics_add_locked(m, family, group, values, STROBE_METRIC_COUNTER,
				      delta > INT64_MAX ? INT64_MAX : (int64_t)delta, NULL, 0);
	strobe_metrics_unlock(m);
	return r;
}

int strobe_metrics_gauge_set(struct strobe_metrics *m, int family, const char *group,
			     const char *const *values, int64_t value)
{
	int r;

	strobe_metrics_lock(m);
	r = strobe_metrics_add_locked(m, family, group, values, STROBE_METRIC_GAUGE, value, NULL, 0);
	strobe_metrics_unlock(m);
	return r;
}

int strobe_metrics_histogram_add(struct strobe_metrics *m, int family, const char *group,
				 const char *const *values, const uint64_t *counts, uint64_t sum)
{
	int r = -EINVAL;

	strobe_metrics_lock(m);
	if (counts)
		r = strobe_metrics_add_locked(m, family, group, values, STROBE_METRIC_HISTOGRAM,
					      0, counts, sum);
	strobe_metrics_unlock(m);
	return r;
}

int strobe_metrics_alive_locked(struct strobe_metrics *m, const char *group, uint64_t now_ns)
{
	struct group *g;

	if (now_ns > m->now_ns)
		m->now_ns = now_ns;
	g = group_get(m, group);
	if (!g)
		return -ENOMEM;
	if (g->alive_ns < now_ns)
		g->alive_ns = now_ns;
	return 0;
}

int strobe_metrics_group_alive(struct strobe_metrics *m, const char *group, uint64_t now_ns)
{
	int r;

	if (!group)
		return -EINVAL;
	strobe_metrics_lock(m);
	r = strobe_metrics_alive_locked(m, group, now_ns);
	strobe_metrics_unlock(m);
	return r;
}

int strobe_metrics_expire_locked(struct strobe_metrics *m, uint64_t now_ns)
{
	size_t i;
	int dropped = 0, f;

	if (now_ns > m->now_ns)
		m->now_ns = now_ns;
	for (i = 0; i < m->gtab_size; i++) {
		struct group **p = &m->gtab[i];

		while (*p) {
			struct group *g = *p;

			if (now_ns < m->opts.keep_ns || g->alive_ns >= now_ns - m->opts.keep_ns) {
				p = &g->hnext;
				continue;
			}
			for (f = 0; f < m->nr_fams; f++) {
				struct series *s = m->fams[f].head, *next;

				for (; s; s = next) {
					next = s->next;
					if (s->group == g)
						series_remove(m, s);
				}
			}
			*p = g->hnext;
			free(g->key);
			free(g->count);
			free(g);
			m->nr_groups--;
			dropped++;
		}
	}
	return dropped;
}

int strobe_metrics_expire(struct strobe_metrics *m, uint64_t now_ns)
{
	int r;

	strobe_metrics_lock(m);
	r = strobe_metrics_expire_locked(m, now_ns);
	strobe_metrics_unlock(m);
	return r;
}

int strobe_metrics_series(struct strobe_metrics *m)
{
	int r;

	strobe_metrics_lock(m);
	r = m->nr_series;
	strobe_metrics_unlock(m);
	return r;
}

bool strobe_metrics_has_locked(struct strobe_metrics *m, int family, const char *group,
			       const char *const *values)
{
	struct series *s;

	if (family < 0 || family >= m->nr_fams)
		return false;
	s = series_find(m, family, values);
	return s != NULL;
}

int strobe_metrics_group_count_locked(struct strobe_metrics *m, int family, const char *group)
{
	uint64_t h;
	struct group *g = group_find(m, group, &h);

	return g && family >= 0 && family < g->nr_count ? g->count[family] : 0;
}

int *strobe_metrics_top_ids(struct strobe_metrics *m, int *nr)
{
	*nr = TOP_FAMILIES;
	return m->top_ids;
}

int strobe_metrics_syscall_labels(const struct strobe_metrics *m)
{
	return m->opts.syscall_labels;
}

void strobe_metrics_scraped(struct strobe_metrics *m, uint64_t ns)
{
	strobe_metrics_lock(m);
	strobe_metrics_add_locked(m, m->fam_scrape, NULL, NULL, STROBE_METRIC_GAUGE,
				  ns > INT64_MAX ? INT64_MAX : (int64_t)ns, NULL, 0);
	strobe_metrics_unlock(m);
}

/* raw / 10^decimals, exactly, without trailing zeros: 1500000 with 9
 * decimals is "0.0015". */
static void put_value(struct strobe_buf *b, int64_t raw, int decimals)
{
	uint64_t v = raw < 0 ? -(uint64_t)raw : (uint64_t)raw, p = 1;
	char frac[24];
	int i, n;

	if (raw < 0)
		strobe_buf_putc(b, '-');
	for (i = 0; i < decimals; i++)
		p *= 10;
	strobe_buf_printf(b, "%" PRIu64, v / p);
	if (!decimals || !(v % p))
		return;
	n = snprintf(frac, sizeof(frac), "%0*" PRIu64, decimals, v % p);
	while (n > 0 && frac[n - 1] == '0')
		frac[--n] = '\0';
	strobe_buf_printf(b, ".%s", frac);
}

/* Length of the valid UTF-8 sequence at s (1..4), 0 when it is not one. */
static int utf8_len(const unsigned char *s)
{
	int n, i;
	unsigned c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* no overlong forms, surrogates or code points past U+10FFFF */
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) ||
	    (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

/* Escape \, newline and (in label values) "; a byte that is not valid
 * UTF-8 becomes U+FFFD, since Prometheus refuses a whole scrape over
 * one (a process or container name is any bytes). */
static void put_escaped(struct strobe_buf *b, const char *s, bool quote)
{
	for (; *s; s++) {
		int n = utf8_len((const unsigned char *)s);

		if (n == 0) {
			strobe_buf_puts(b, "\xef\xbf\xbd");
		} else if (n > 1) {
			strobe_buf_write(b, s, n);
			s += n - 1;
		} else if (*s == '\\')
			strobe_buf_puts(b, "\\\\");
		else if (*s == '\n')
			strobe_buf_puts(b, "\\n");
		else if (*s == '"' && quote)
			strobe_buf_puts(b, "\\\"");
		else
			strobe_buf_putc(b, *s);
	}
}

/* name{labels[,le="bound"]} */
static void put_series(struct strobe_buf *b, const struct family *f, const char *suffix,
		       const struct series *s, const char *le, const uint64_t *bound)
{
	int i;

	strobe_buf_printf(b, "%s%s", f->name, suffix);
	if (!f->nr_labels && !le && !bound)
		goto value;
	strobe_buf_putc(b, '{');
	for (i = 0; i < f->nr_labels; i++) {
		strobe_buf_printf(b, "%s%s=\"", i ? "," : "", f->labels[i]);
		put_escaped(b, s->values[i], true);
		strobe_buf_putc(b, '"');
	}
	if (le || bound) {
		strobe_buf_printf(b, "%sle=\"", f->nr_labels ? "," : "");
		if (le)
			strobe_buf_puts(b, le);
		else
			put_value(b, (int64_t)*bound, f->decimals);
		strobe_buf_putc(b, '"');
	}
	strobe_buf_putc(b, '}');
value:
	strobe_buf_putc(b, ' ');
}

static const char *const type_names[] = { "counter", "gauge", "histogram" };

int strobe_metrics_write(struct strobe_metrics *m, struct strobe_buf *b)
{
	int f, i;

	strobe_metrics_lock(m);
	for (f = 0; f < m->nr_fams; f++) {
		const struct family *fa = &m->fams[f];
		const struct series *s;

		strobe_buf_printf(b, "# HELP %s ", fa->name);
		put_escaped(b, fa->help, false);
		strobe_buf_printf(b, "\n# TYPE %s %s\n", fa->name, type_names[fa->type]);
		for (s = fa->head; s; s = s->next) {
			uint64_t cum = 0;

			if (fa->type != STROBE_METRIC_HISTOGRAM) {
				put_series(b, fa, "", s, NULL, NULL);
				put_value(b, s->value, fa->decimals);
				strobe_buf_putc(b, '\n');
				continue;
			}
			for (i = 0; i < fa->nr_bounds; i++) {
				cum += s->buckets[i];
				put_series(b, fa, "_bucket", s, NULL, &fa->bounds[i]);
				strobe_buf_printf(b, "%" PRIu64 "\n", cum);
			}
			cum += s->buckets[fa->nr_bounds];
			put_series(b, fa, "_bucket", s, "+Inf", NULL);
			strobe_buf_printf(b, "%" PRIu64 "\n", cum);
			put_series(b, fa, "_sum", s, NULL, NULL);
			put_value(b, s->sum > INT64_MAX ? INT64_MAX : (int64_t)s->sum, fa->decimals);
			strobe_buf_putc(b, '\n');
			put_series(b, fa, "_count", s, NULL, NULL);
			strobe_buf_printf(b, "%" PRIu64 "\n", cum);
		}
	}
	strobe_metrics_unlock(m);
	return strobe_buf_failed(b) ? -ENOMEM : 0;
}
