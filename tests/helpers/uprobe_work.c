/*
 * uprobe_work.c - the workload of tests/kernel/89-uprobe.sh: a static
 * program (it runs alone in a busybox container) that calls work()
 * exactly N times and, at each call while its USDT semaphore is set,
 * passes a USDT probe uprobe_work:tick whose note it writes itself (the
 * .note.stapsdt format of SystemTap's sys/sdt.h, in inline assembly, so
 * no systemtap-sdt-dev is needed).  The kernel sets the semaphore while
 * a uprobe with that ref_ctr_offset is enabled.
 *
 *   uprobe_work N [GOFILE]   wait until GOFILE exists (if given), then
 *                            work(0..N-1); print "calls=N usdt=M" (M:
 *                            calls that found the semaphore set)
 *
 * work(i) returns 3*i + 1, so a return probe's $retval is known; the
 * probe's arguments are i (-4@%eXX: a 32-bit register) and N (8@OFF(%rsp):
 * memory on the stack).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* the semaphore: in .probes, named as sys/sdt.h names them */
__attribute__((used, section(".probes"))) volatile unsigned short uprobe_work_tick_semaphore;

#if defined(__x86_64__)
#define USDT_TICK(a1, a2)							\
	__asm__ __volatile__(							\
		"990: nop\n"							\
		".pushsection .note.stapsdt,\"?\",\"note\"\n"			\
		".balign 4\n"							\
		".4byte 992f-991f, 994f-993f, 3\n"				\
		"991: .asciz \"stapsdt\"\n"					\
		"992: .balign 4\n"						\
		"993: .8byte 990b\n"						\
		".8byte _.stapsdt.base\n"					\
		".8byte uprobe_work_tick_semaphore\n"				\
		".asciz \"uprobe_work\"\n"					\
		".asciz \"tick\"\n"						\
		".asciz \"-4@%0 8@%1\"\n"					\
		"994: .balign 4\n"						\
		".popsection\n"							\
		".ifndef _.stapsdt.base\n"					\
		".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n" \
		".weak _.stapsdt.base\n"					\
		".hidden _.stapsdt.base\n"					\
		"_.stapsdt.base: .space 1\n"					\
		".size _.stapsdt.base, 1\n"					\
		".popsection\n"							\
		".endif\n"							\
		: : "r"(a1), "m"(a2))
#else
#define USDT_TICK(a1, a2) do { (void)(a1); (void)(a2); } while (0)
#endif

__attribute__((noinline)) long work(long i)
{
	__asm__ __volatile__("" ::: "memory");
	return 3 * i + 1;
}

int main(int argc, char **argv)
{
	long n, i, sum = 0, fired = 0;
	volatile long total;

	if (argc < 2 || (n = atol(argv[1])) < 0) {
		fprintf(stderr, "usage: uprobe_work N [GOFILE]\n");
		return 2;
	}
	total = n;
	if (argc > 2)
		while (access(argv[2], F_OK) != 0)
			usleep(10000);
	for (i = 0; i < n; i++) {
		int k = (int)i;

		sum += work(i);
		if (uprobe_work_tick_semaphore) {
			fired++;
			USDT_TICK(k, total);
		}
	}
	printf("calls=%ld usdt=%ld\n", n, fired);
	return sum == -1;
}
