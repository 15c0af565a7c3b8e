/*
 * elf.c - one ELF file's function symbols, load segments, build id and
 * debug link, read with libelf (Debian's elfutils), and the sorted symbol
 * table the lookups search.
 *
 * The file is outside input (a container's binary, a fuzzer's bytes):
 * every section, note and symbol is bounds-checked by libelf's getters
 * (gelf_getsym, gelf_getnote, elf_strptr return NULL or 0 on bad data),
 * and a name is copied only up to its NUL within its string table.  Only
 * function symbols (STT_FUNC, STT_GNU_IFUNC) with a defined section are
 * kept; .symtab when there is one (a stripped file has only .dynsym,
 * which the caller may complete from a debug file).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>
#include <libelf.h>

#include "symbols-int.h"

int sym_table_add(struct sym_table *t, uint64_t start, uint64_t size, const char *name,
		  size_t name_len)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct sym_entry *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	if (t->names_len + name_len + 1 > t->names_cap) {
		size_t cap = t->names_cap ? t->names_cap : 4096;
		char *p;

		while (cap < t->names_len + name_len + 1)
			cap *= 2;
		if (cap > UINT32_MAX || !(p = realloc(t->names, cap)))
			return -ENOMEM;
		t->names = p;
		t->names_cap = cap;
	}
	memcpy(t->names + t->names_len, name, name_len);
	t->names[t->names_len + name_len] = '\0';
	t->v[t->n].start = start;
	t->v[t->n].size = size;
	t->v[t->n].name = (uint32_t)t->names_len;
	t->n++;
	t->names_len += name_len + 1;
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct sym_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* a symbol with a size before one without; then the larger */
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

void sym_table_sort(struct sym_table *t)
{
	if (t->n > 1)
		qsort(t->v, t->n, sizeof(*t->v), entry_cmp);
}

const char *sym_table_find(const struct sym_table *t, uint64_t addr, uint64_t *start)
{
	size_t lo = 0, hi = t->n, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	i = lo - 1;
	/* the first of the symbols sharing that start (the sized one) */
	while (i > 0 && t->v[i - 1].start == t->v[i].start)
		i--;
	if (t->v[i].size && addr - t->v[i].start >= t->v[i].size)
		return NULL;
	if (start)
		*start = t->v[i].start;
	return t->names + t->v[i].name;
}

void sym_table_release(struct sym_table *t)
{
	free(t->v);
	free(t->names);
	memset(t, 0, sizeof(*t));
}

bool sym_elf_vaddr(const struct sym_elf *e, uint64_t off, uint64_t *vaddr)
{
	int i;

	for (i = 0; i < e->nloads; i++)
		if (off >= e->loads[i].off && off - e->loads[i].off < e->loads[i].filesz) {
			*vaddr = off - e->loads[i].off + e->loads[i].vaddr;
			return true;
		}
	return false;
}

static int elf_init(void)
{
	static int done;

	if (!done) {
		if (elf_version(EV_CURRENT) == EV_NONE)
			return -ENOTSUP;
		done = 1;
	}
	return 0;
}

static Elf *elf_open(int fd, const void *image, size_t n)
{
	if (elf_init() < 0)
		return NULL;
	if (fd >= 0)
		return elf_begin(fd, ELF_C_READ_MMAP, NULL);
	return elf_memory((char *)image, n);
}

/* The function symbols of symbol table section scn into t. */
static int read_symbols(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct sym_table *t)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, n;

	if (!d || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int type, r;

		if (!gelf_getsym(d, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    !sym.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		r = sym_table_add(t, sym.st_value, sym.st_size, name, strnlen(name, 1024));
		if (r < 0)
			return r;
	}
	return 0;
}

/* The build id from note section data d. */
static void read_build_id(Elf_Data *d, struct sym_elf *e)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((const char *)d->d_buf + name_off, "GNU", 4) && nh.n_descsz &&
		    nh.n_descsz <= sizeof(e->build_id)) {
			memcpy(e->build_id, (const char *)d->d_buf + desc_off, nh.n_descsz);
			e->build_id_len = nh.n_descsz;
			return;
		}
	}
}

static int read_elf(Elf *elf, struct sym_elf *e, bool symbols_only)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr symtab_sh, dynsym_sh;
	GElf_Ehdr eh;
	size_t shstrndx, nph, i;
	int r;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		return -EINVAL;
	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		shstrndx = 0;
	if (!symbols_only && elf_getphdrnum(elf, &nph) == 0) {
		for (i = 0; i < nph && e->nloads < SYM_MAX_LOADS; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph))
				break;
			if (ph.p_type == PT_LOAD && ph.p_filesz) {
				e->loads[e->nloads].vaddr = ph.p_vaddr;
				e->loads[e->nloads].off = ph.p_offset;
				e->loads[e->nloads].filesz = ph.p_filesz;
				e->nloads++;
			}
		}
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB && !symtab) {
			symtab = scn;
			symtab_sh = sh;
		} else if (sh.sh_type == SHT_DYNSYM && !dynsym) {
			dynsym = scn;
			dynsym_sh = sh;
		}
		if (symbols_only)
			continue;
		if (sh.sh_type == SHT_NOTE && !e->build_id_len) {
			Elf_Data *d = elf_getdata(scn, NULL);

			if (d && d->d_buf && d->d_type == ELF_T_NHDR)
				read_build_id(d, e);
		}
		name = shstrndx ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (name && !strcmp(name, ".gnu_debuglink") && sh.sh_type != SHT_NOBITS) {
			Elf_Data *d = elf_getdata(scn, NULL);

			if (d && d->d_buf && d->d_size > 4) {
				size_t len = strnlen(d->d_buf, d->d_size - 4);

				if (len < sizeof(e->debuglink) && len < d->d_size - 4 &&
				    !memchr(d->d_buf, '/', len)) {
					memcpy(e->debuglink, d->d_buf, len);
					e->debuglink[len] = '\0';
				}
			}
		}
	}
	if (symtab && symtab_sh.sh_type != SHT_NOBITS) {
		r = read_symbols(elf, symtab, &symtab_sh, &e->t);
		if (r < 0)
			return r;
		if (e->t.n)
			e->has_symtab = true;
	}
	if (!e->has_symtab && dynsym) {
		r = read_symbols(elf, dynsym, &dynsym_sh, &e->t);
		if (r < 0)
			return r;
	}
	sym_table_sort(&e->t);
	return 0;
}

int sym_elf_read(int fd, const void *image, size_t n, struct sym_elf *e)
{
	Elf *elf;
	int r;

	memset(e, 0, sizeof(*e));
	elf = elf_open(fd, image, n);
	if (!elf)
		return -EINVAL;
	r = read_elf(elf, e, false);
	elf_end(elf);
	if (r < 0)
		sym_elf_release(e);
	return r;
}

void sym_elf_release(struct sym_elf *e)
{
	sym_table_release(&e->t);
}

int strobe_symbols_elf_probe(const void *image, size_t n, uint64_t vaddr, char *name,
			     size_t size, uint8_t *build_id, size_t *build_id_len)
{
	struct sym_elf e;
	const char *s;
	int r;

	if (name && size)
		name[0] = '\0';
	if (!image || !n)
		return -EINVAL;
	r = sym_elf_read(-1, image, n, &e);
	if (r < 0)
		return r;
	s = sym_table_find(&e.t, vaddr, NULL);
	if (s && name && size) {
		strncpy(name, s, size - 1);
		name[size - 1] = '\0';
	}
	if (build_id && e.build_id_len)
		memcpy(build_id, e.build_id, e.build_id_len);
	if (build_id_len)
		*build_id_len = e.build_id_len;
	r = (int)(e.t.n > INT32_MAX ? INT32_MAX : e.t.n);
	sym_elf_release(&e);
	return r;
}
