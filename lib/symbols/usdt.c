/*
 * usdt.c - where a uprobe can go in an ELF file: its defined functions
 * with their file offsets, and its USDT probes from the .note.stapsdt
 * notes (SystemTap's SDT format, which DTrace-style probes in
 * PostgreSQL, Python, the JVM, libc and others use).
 *
 * A uprobe is placed by file offset, so both lists carry one: an
 * address becomes an offset through the PT_LOAD segment that holds it
 * (sym_elf_read's loads).  A stapsdt note's descriptor is three
 * addresses (the probe, the link-time address of .stapsdt.base, the
 * semaphore; 4 or 8 bytes each in the file's byte order) and three
 * NUL-terminated strings (provider, name, argument spec); when the file
 * was moved after linking, the probe address moves by the difference
 * between .stapsdt.base's address and the recorded one (libbpf and
 * systemtap do the same).
 *
 * The file is outside input: libelf bounds-checks sections and note
 * headers, and every descriptor byte read here is checked against the
 * descriptor's size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>
#include <libelf.h>

#include <strobe/symbols.h>

#include "symbols-int.h"

static bool file_offset(const struct sym_elf *e, uint64_t addr, uint64_t *off)
{
	int i;

	for (i = 0; i < e->nloads; i++)
		if (addr >= e->loads[i].vaddr && addr - e->loads[i].vaddr < e->loads[i].filesz) {
			*off = addr - e->loads[i].vaddr + e->loads[i].off;
			return true;
		}
	return false;
}

static uint64_t get_addr(const unsigned char *p, size_t asz, bool msb)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < asz; i++)
		v |= (uint64_t)p[msb ? i : asz - 1 - i] << (8 * (asz - 1 - i));
	return v;
}

static int add_note(struct strobe_elf_probes *p, const unsigned char *desc, size_t len,
		    size_t asz, bool msb, bool have_base, uint64_t base_addr,
		    const struct sym_elf *e)
{
	struct strobe_usdt_note *nv, *u;
	const char *s[3];
	size_t off = 3 * asz, i, l;
	uint64_t pc, base, sem;

	if (len < off + 3)
		return 0;
	for (i = 0; i < 3; i++) {
		l = strnlen((const char *)desc + off, len - off);
		if (l == len - off)
			return 0;	/* no NUL: not a note that holds together */
		s[i] = (const char *)desc + off;
		off += l + 1;
	}
	if (!*s[0] || !*s[1])
		return 0;
	pc = get_addr(desc, asz, msb);
	base = get_addr(desc + asz, asz, msb);
	sem = get_addr(desc + 2 * asz, asz, msb);
	if (have_base && base)
		pc += base_addr - base;
	nv = realloc(p->usdt, (p->nr_usdt + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	p->usdt = nv;
	u = &nv[p->nr_usdt];
	memset(u, 0, sizeof(*u));
	u->addr = pc;
	u->semaphore = sem;
	if (!file_offset(e, pc, &u->offset))
		return 0;	/* nowhere in the file: cannot be probed */
	if (sem && !file_offset(e, sem, &u->semaphore_offset))
		u->semaphore_offset = 0;
	u->provider = strdup(s[0]);
	u->name = strdup(s[1]);
	u->args = strdup(s[2]);
	if (!u->provider || !u->name || !u->args) {
		free(u->provider);
		free(u->name);
		free(u->args);
		return -ENOMEM;
	}
	p->nr_usdt++;
	return 0;
}

static int read_notes(Elf *elf, const struct sym_elf *e, struct strobe_elf_probes *p)
{
	Elf_Scn *scn = NULL, *notes = NULL;
	uint64_t base_addr = 0;
	bool have_base = false, msb;
	size_t shstrndx, asz, off = 0, name_off, desc_off;
	GElf_Ehdr eh;
	GElf_Nhdr nh;
	Elf_Data *d;
	int r;

	if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return 0;
	asz = eh.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
	msb = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, ".note.stapsdt") && sh.sh_type == SHT_NOTE && !notes)
			notes = scn;
		else if (!strcmp(name, ".stapsdt.base")) {
			base_addr = sh.sh_addr;
			have_base = true;
		}
	}
	if (!notes)
		return 0;
	d = elf_getdata(notes, NULL);
	if (!d || !d->d_buf || d->d_type != ELF_T_NHDR)
		return 0;
	while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != 3 || nh.n_namesz != 8 ||
		    memcmp((const char *)d->d_buf + name_off, "stapsdt", 8))
			continue;
		r = add_note(p, (const unsigned char *)d->d_buf + desc_off, nh.n_descsz, asz, msb,
			     have_base, base_addr, e);
		if (r < 0)
			return r;
	}
	return 0;
}

static int add_funcs(struct strobe_elf_probes *p, const struct sym_elf *e)
{
	size_t i;

	p->funcs = calloc(e->t.n ? e->t.n : 1, sizeof(*p->funcs));
	if (!p->funcs)
		return -ENOMEM;
	for (i = 0; i < e->t.n; i++) {
		const struct sym_entry *s = &e->t.v[i];
		struct strobe_elf_func *f = &p->funcs[p->nr_funcs];
		const char *name = e->t.names + s->name;

		/* the same function under the same name twice (.symtab has
		 * each once; a table merged from two would not) */
		if (p->nr_funcs && f[-1].addr == s->start && !strcmp(f[-1].name, name))
			continue;
		if (!file_offset(e, s->start, &f->offset))
			continue;
		f->name = strdup(name);
		if (!f->name)
			return -ENOMEM;
		f->addr = s->start;
		f->size = s->size;
		p->nr_funcs++;
	}
	return 0;
}

int strobe_elf_probes_read(int fd, const void *image, size_t n, struct strobe_elf_probes **out,
			   struct strobe_error *err)
{
	struct strobe_elf_probes *p;
	struct sym_elf e;
	Elf *elf;
	int r;

	*out = NULL;
	if (fd < 0 && (!image || !n))
		return strobe_err(err, -EINVAL, "not an ELF file");
	r = sym_elf_read(fd, image, n, &e);
	if (r == -ENOMEM)
		return strobe_err(err, r, "out of memory");
	if (r < 0)
		return strobe_err(err, -EINVAL, "not an ELF file");
	p = calloc(1, sizeof(*p));
	if (!p) {
		sym_elf_release(&e);
		return strobe_err(err, -ENOMEM, "out of memory");
	}
	p->has_symtab = e.has_symtab;
	r = add_funcs(p, &e);
	if (r == 0) {
		elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) :
			elf_memory((char *)image, n);
		if (elf) {
			r = read_notes(elf, &e, p);
			elf_end(elf);
		}
	}
	sym_elf_release(&e);
	if (r < 0) {
		strobe_elf_probes_free(p);
		return strobe_err(err, r, "out of memory");
	}
	*out = p;
	return 0;
}

void strobe_elf_probes_free(struct strobe_elf_probes *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nr_funcs; i++)
		free(p->funcs[i].name);
	for (i = 0; i < p->nr_usdt; i++) {
		free(p->usdt[i].provider);
		free(p->usdt[i].name);
		free(p->usdt[i].args);
	}
	free(p->funcs);
	free(p->usdt);
	free(p);
}
