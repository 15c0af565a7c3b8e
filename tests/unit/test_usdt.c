/*
 * test_usdt.c - the pure parts of user-space probes: an ELF image built
 * here byte by byte (one PT_LOAD, a .symtab with one function, a
 * .note.stapsdt with a good note whose file was "moved" after linking
 * (.stapsdt.base), a note without NUL-terminated strings, a note with
 * no semaphore and no arguments), read by strobe_elf_probes_read; the
 * USDT argument specs to fetch-args (strobe_usdt_args) and the user's
 * arguments with arg1..argN (strobe_probe_args).
 */
#include <elf.h>
#include <errno.h>

#include <strobe/strobe.h>
#include <strobe/probe.h>
#include <strobe/symbols.h>

#include "test.h"

#define BASE 0x400000ull

struct img {
	unsigned char b[0x800];
	size_t notes;		/* bytes of notes written */
};

static void put_note(struct img *im, uint64_t pc, uint64_t base, uint64_t sem,
		     const char *strings, size_t slen)
{
	unsigned char *p = im->b + 0x140 + im->notes;
	Elf64_Nhdr nh = { 8, (Elf64_Word)(24 + slen), 3 };
	size_t desc = (24 + slen + 3) & ~(size_t)3;

	memcpy(p, &nh, sizeof(nh));
	memcpy(p + 12, "stapsdt", 8);
	memcpy(p + 20, &pc, 8);
	memcpy(p + 28, &base, 8);
	memcpy(p + 36, &sem, 8);
	memcpy(p + 44, strings, slen);
	im->notes += 20 + desc;
}

static void shdr(struct img *im, int i, Elf64_Word name, Elf64_Word type, uint64_t addr,
		 uint64_t off, uint64_t size, Elf64_Word link, uint64_t entsize, uint64_t align)
{
	Elf64_Shdr sh = { 0 };

	sh.sh_name = name;
	sh.sh_type = type;
	sh.sh_addr = addr;
	sh.sh_offset = off;
	sh.sh_size = size;
	sh.sh_link = link;
	sh.sh_entsize = entsize;
	sh.sh_addralign = align;
	memcpy(im->b + 0x600 + (size_t)i * sizeof(sh), &sh, sizeof(sh));
}

/* The image: see the head comment.  Returns its size. */
static size_t build(struct img *im)
{
	static const char shstr[] = "\0.text\0.probes\0.stapsdt.base\0.note.stapsdt\0"
				    ".symtab\0.strtab\0.shstrtab";
	Elf64_Ehdr *eh = (Elf64_Ehdr *)im->b;
	Elf64_Phdr ph = { 0 };
	Elf64_Sym sym = { 0 };
	const char good[] = "prov\0tick\0-4@%edi 8@-8(%rbp)";	/* 3 strings */
	const char bad[] = { 'x', '\0', 'y', 'z' };		/* no last NUL */
	const char bare[] = "p2\0n2\0";

	memset(im, 0, sizeof(*im));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = 64;
	eh->e_shoff = 0x600;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(ph);
	eh->e_phnum = 1;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = 8;
	eh->e_shstrndx = 7;
	ph.p_type = PT_LOAD;
	ph.p_offset = 0;
	ph.p_vaddr = ph.p_paddr = BASE;
	ph.p_filesz = ph.p_memsz = 0x400;
	ph.p_flags = PF_R | PF_X;
	memcpy(im->b + 64, &ph, sizeof(ph));
	/* the good note: recorded with a base 0x10 below .stapsdt.base's
	 * address, as if the file moved: its pc moves by 0x10 */
	put_note(im, BASE + 0xf8, BASE + 0x120, BASE + 0x110, good, sizeof(good));
	put_note(im, BASE + 0x100, BASE + 0x130, 0, bad, sizeof(bad));
	put_note(im, BASE + 0x104, BASE + 0x130, 0, bare, sizeof(bare));
	/* .symtab: work at 0x400100, 16 bytes */
	sym.st_name = 1;
	sym.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	sym.st_shndx = 1;
	sym.st_value = BASE + 0x100;
	sym.st_size = 16;
	memcpy(im->b + 0x400 + sizeof(sym), &sym, sizeof(sym));
	memcpy(im->b + 0x440, "\0work", 6);
	memcpy(im->b + 0x460, shstr, sizeof(shstr));
	shdr(im, 1, 1, SHT_PROGBITS, BASE + 0x100, 0x100, 0x10, 0, 0, 16);		/* .text */
	shdr(im, 2, 7, SHT_PROGBITS, BASE + 0x110, 0x110, 2, 0, 0, 2);		/* .probes */
	shdr(im, 3, 15, SHT_PROGBITS, BASE + 0x130, 0x130, 1, 0, 0, 1);	/* .stapsdt.base */
	shdr(im, 4, 29, SHT_NOTE, 0, 0x140, im->notes, 0, 0, 4);		/* .note.stapsdt */
	shdr(im, 5, 43, SHT_SYMTAB, 0, 0x400, 2 * sizeof(sym), 6, sizeof(sym), 8);
	shdr(im, 6, 51, SHT_STRTAB, 0, 0x440, 6, 0, 0, 1);
	shdr(im, 7, 59, SHT_STRTAB, 0, 0x460, sizeof(shstr), 0, 0, 1);
	return 0x600 + 8 * sizeof(Elf64_Shdr);
}

static void test_usdt_notes_and_functions(void)
{
	struct strobe_error err = { 0, "" };
	struct strobe_elf_probes *p = NULL;
	struct img im;
	size_t n = build(&im);

	REQUIRE(strobe_elf_probes_read(-1, im.b, n, &p, &err) == 0);
	CHECK_EQ(p->has_symtab, 1);
	REQUIRE(p->nr_funcs == 1);
	CHECK_STR(p->funcs[0].name, "work");
	CHECK_EQ(p->funcs[0].addr, BASE + 0x100);
	CHECK_EQ(p->funcs[0].offset, 0x100);
	CHECK_EQ(p->funcs[0].size, 16);
	/* the note without its NULs is skipped */
	REQUIRE(p->nr_usdt == 2);
	CHECK_STR(p->usdt[0].provider, "prov");
	CHECK_STR(p->usdt[0].name, "tick");
	CHECK_STR(p->usdt[0].args, "-4@%edi 8@-8(%rbp)");
	CHECK_EQ(p->usdt[0].addr, BASE + 0x108);		/* moved by .stapsdt.base */
	CHECK_EQ(p->usdt[0].offset, 0x108);
	CHECK_EQ(p->usdt[0].semaphore, BASE + 0x110);
	CHECK_EQ(p->usdt[0].semaphore_offset, 0x110);
	CHECK_STR(p->usdt[1].provider, "p2");
	CHECK_STR(p->usdt[1].args, "");
	CHECK_EQ(p->usdt[1].semaphore, 0);
	CHECK_EQ(p->usdt[1].semaphore_offset, 0);
	CHECK_EQ(p->usdt[1].offset, 0x104);	/* base as recorded: not moved */
	strobe_elf_probes_free(p);
}

static void test_usdt_refuses_garbage(void)
{
	struct strobe_error err = { 0, "" };
	struct strobe_elf_probes *p = (void *)1;
	static const unsigned char junk[64] = "\x7f" "ELF nonsense";
	struct img im;
	size_t n = build(&im), cut;

	CHECK_EQ(strobe_elf_probes_read(-1, junk, sizeof(junk), &p, &err), -EINVAL);
	CHECK(p == NULL);
	CHECK_STR(err.msg, "not an ELF file");
	CHECK_EQ(strobe_elf_probes_read(-1, NULL, 0, &p, &err), -EINVAL);
	/* every truncation reads or fails cleanly (sanitizers watch) */
	for (cut = 1; cut < n; cut += 7) {
		p = NULL;
		if (strobe_elf_probes_read(-1, im.b, cut, &p, NULL) == 0)
			strobe_elf_probes_free(p);
	}
	strobe_elf_probes_free(NULL);
}

static void test_usdt_args_translated(void)
{
	static const struct { const char *spec; const char *want; int n; unsigned skipped; } t[] = {
		{ "-4@%edi 8@-8(%rbp)", "arg1=%di:s32 arg2=-8(%bp):u64", 2, 0 },
		{ "8@%rax 1@%r8b 2@%r15w -8@%r11d", "arg1=%ax:u64 arg2=%r8:u8 arg3=%r15:u16 "
		  "arg4=%r11:s64", 4, 0 },
		{ "4@$5 -4@$-1 8@(%rsp) 8@16(%rsp)", "arg1=\\5:u32 arg2=\\-1:s32 arg3=+0(%sp):u64 "
		  "arg4=+16(%sp):u64", 4, 0 },
		/* a symbol relative to rip, an indexed operand, nonsense */
		{ "8@foo(%rip) -4@%esi 8@(%rax,%rbx,8) 3@%eax x", "arg2=%si:s32", 1, 0x1d },
		{ "4@%ah", "", 0, 1 },
		{ "", "", 0, 0 },
	};
	char out[256];
	unsigned skipped;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		CHECK_EQ(strobe_usdt_args(t[i].spec, out, sizeof(out), &skipped), t[i].n);
		CHECK_STR(out, t[i].want);
		CHECK_EQ(skipped, t[i].skipped);
	}
	CHECK_EQ(strobe_usdt_args("8@%rax 8@%rbx", out, 12, NULL), -ENAMETOOLONG);
}

static void test_probe_args(void)
{
	static const struct { const char *in; const char *want; } ok[] = {
		{ "arg1", "arg1=%di" },
		{ "arg2:u32 len=arg3:s64", "arg2=%si:u32 len=%dx:s64" },
		{ "s=+0(arg2):string $retval", "s=+0(%si):string retval=$retval" },
		{ "%di +8(%sp):u64", "di=%di arg2=+8(%sp):u64" },
		{ "arg6 $arg1 $comm", "arg6=%r9 arg1=$arg1 comm=$comm" },
		/* a name given twice by default: the later one is renamed */
		{ "arg1 arg1", "arg1=%di arg1_2=%di" },
		{ "x=arg1 arg1", "x=%di arg1=%di" },
		{ "", "" },
	};
	struct strobe_error err = { 0, "" };
	char out[256];
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		CHECK_EQ(strobe_probe_args(ok[i].in, out, sizeof(out), &err), 0);
		CHECK_STR(out, ok[i].want);
	}
	CHECK_EQ(strobe_probe_args("di arg1", out, sizeof(out), &err), 0);
	CHECK_EQ(strobe_probe_args("arg7", out, sizeof(out), &err), -EINVAL);
	CHECK(strstr(err.msg, "arg7") != NULL);
	CHECK_EQ(strobe_probe_args("a=%di a=%si", out, sizeof(out), &err), -EINVAL);
	CHECK_STR(err.msg, "two arguments named 'a'");
	CHECK_EQ(strobe_probe_args("9x=%di", out, sizeof(out), &err), -EINVAL);
	CHECK_EQ(strobe_probe_args("arg1 arg2 arg3", out, 10, &err), -ENAMETOOLONG);
}

TESTS(T(test_usdt_notes_and_functions), T(test_usdt_refuses_garbage),
      T(test_usdt_args_translated), T(test_probe_args));
