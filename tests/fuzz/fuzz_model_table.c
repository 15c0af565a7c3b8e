/*
 * fuzz_model_table.c - libFuzzer harness for the model table stored in
 * trace files (lib/model/table.c): outside input, read by every strobe
 * command that opens a file.
 *
 * The input is loaded as a table; whatever loaded must write back out and
 * load again to the same text (the writer only produces what the reader
 * accepts), and every task and container must keep its invariants
 * (NUL-terminated strings, container pointer never NULL, in range).
 * Seeds in corpus/fuzz_model_table/ are plain table texts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <strobe/strobe.h>

static void check(struct strobe_model *m)
{
	const struct strobe_task *t;
	size_t cur = 0;
	int i, n = strobe_model_nr_containers(m);

	for (i = 0; i < n; i++) {
		const struct strobe_container *c = strobe_model_container(m, i);

		if (!c || c->index != i || strnlen(c->name, sizeof(c->name)) == sizeof(c->name) ||
		    strnlen(c->id, sizeof(c->id)) == sizeof(c->id))
			__builtin_trap();
	}
	while ((t = strobe_model_next_task(m, &cur))) {
		if (!t->container || t->container->index < 0 || t->container->index >= n ||
		    strnlen(t->comm, sizeof(t->comm)) == sizeof(t->comm) || t->tid <= 0)
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strobe_model *m = NULL, *m2 = NULL;
	char *text = malloc(size ? size : 1), *out = NULL, *out2 = NULL;
	size_t len = 0, len2 = 0;

	if (!text)
		return 0;
	memcpy(text, data, size);
	if (strobe_model_new(&m, NULL) < 0)
		goto out;
	if (strobe_model_table_load(m, text, size, NULL) < 0)
		goto out;
	check(m);
	if (strobe_model_table_write(m, &out, &len, NULL) < 0)
		goto out;
	if (strobe_model_new(&m2, NULL) < 0)
		goto out;
	if (strobe_model_table_load(m2, out, len, NULL) < 0)
		__builtin_trap();
	check(m2);
	if (strobe_model_table_write(m2, &out2, &len2, NULL) < 0)
		goto out;
	/* same content; line order follows the hash tables, so compare sizes */
	if (len2 != len)
		__builtin_trap();
out:
	free(out);
	free(out2);
	strobe_model_free(m);
	strobe_model_free(m2);
	free(text);
	return 0;
}
