/*
 * fuzz_webconfig.c - libFuzzer harness for the metrics endpoint's web
 * configuration parser (lib/metrics/webconfig.c): node exporter's
 * --web.config.file subset, a file the user points strobe at.
 *
 * Input: the file's bytes, copied to a heap block of exactly their size
 * so ASan catches a read past the end.  Checked: on success the strings
 * are NUL-terminated and bounded, cert_file and key_file come together,
 * user names are distinct and plain; on failure a message names a line
 * or the file, and nothing is returned.  The bcrypt check is not run on
 * fuzzed hashes (a cost field of 31 would take hours, as crypt(3) is
 * meant to).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/metrics-int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	struct strobe_webconf *c = (void *)1;
	struct strobe_error err = { 0 };
	int r, i, j;

	if (!text)
		return 0;
	memcpy(text, data, size);
	r = strobe_webconf_parse(text, size, &c, &err);
	if (r < 0) {
		if (c || (r != -EINVAL && r != -ENOMEM) || !strstr(err.msg, "web config"))
			__builtin_trap();
	} else {
		if (!c || r || (!c->cert_file) != (!c->key_file) || c->has_tls != !!c->cert_file ||
		    c->nr_users < 0 || c->nr_users > STROBE_WEBCONF_MAX_USERS)
			__builtin_trap();
		if (c->cert_file && (strlen(c->cert_file) > 4096 || strlen(c->key_file) > 4096))
			__builtin_trap();
		for (i = 0; i < c->nr_users; i++) {
			if (!c->users[i].name[0] || !c->users[i].hash[0] ||
			    strpbrk(c->users[i].name, ": \n\r\t\"'#") || strchr(c->users[i].hash, '\n'))
				__builtin_trap();
			for (j = 0; j < i; j++)
				if (!strcmp(c->users[i].name, c->users[j].name))
					__builtin_trap();
		}
		strobe_webconf_free(c);
	}
	free(text);
	return 0;
}
