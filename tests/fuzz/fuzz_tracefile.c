/*
 * fuzz_tracefile.c - libFuzzer harness for the trace.dat reader.
 *
 * Each input is put in a memfd (so the reader opens it like a real file),
 * opened, and every page of every CPU of every buffer is read.  Opening
 * must fail cleanly or succeed; reading must terminate.  The seed corpus
 * (corpus/fuzz_tracefile/) holds a v6 file from strobe's writer and its
 * trace-cmd conversions to v7 (zstd and uncompressed).
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <strobe/strobe.h>

/* libtraceevent leaks on malformed formats: not ours, keep LSan quiet. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libtraceevent.so\n";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strobe_error err;
	struct strobe_tracefile *tf;
	char path[64];
	int fd, b, cpu;

	if (size > (4 << 20))
		return 0;
	fd = memfd_create("fuzz_tracefile", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (strobe_tracefile_open(path, &tf, &err) == 0) {
		for (b = 0; b < strobe_tracefile_nr_buffers(tf); b++) {
			struct strobe_tf_buffer_info bi;

			strobe_tracefile_buffer(tf, b, &bi);
			strobe_tracefile_cpu_overrun(tf, b, 0);
			for (cpu = 0; cpu < bi.nr_cpus; cpu++) {
				struct strobe_tf_cpu *c;
				const uint8_t *page;
				volatile uint8_t sink = 0;

				if (strobe_tf_cpu_open(tf, b, cpu, &c, &err))
					continue;
				while (strobe_tf_cpu_next_page(c, &page, &err) == 1)
					sink ^= page[strobe_tracefile_page_size(tf) - 1];
				strobe_tf_cpu_close(c);
			}
		}
		strobe_tracefile_info(tf, "command");
		strobe_tracefile_close(tf);
	}
	close(fd);
	return 0;
}
