/* kernel_elf.cu - the kernels of a cubin (an ELF64 file, as nvcc -cubin
 * writes it): the names of its function symbols that are not local (device
 * functions that were not inlined are local; kernels are global, and marked
 * as entries in st_other), read from .symtab and its string table. For
 * kernel_nvcc.cu, which has no name expressions to ask for lowered names.
 * Must not load the cubin (no CUDA call) nor trust any offset it reads
 * without checking it against the file's size. */
#include "kernel_int.cuh"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The section table of an ELF64 cubin of len bytes, or NULL with why in err
 * (not ELF64, or a table that does not fit). */
static const Elf64_Shdr *section_table(const char *data, size_t len, char *err, size_t errlen)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)data;
    if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64) {
        snprintf(err, errlen, "the cubin is not an ELF64 file");
        return NULL;
    }
    if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > len ||
        (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > len - eh->e_shoff) {
        snprintf(err, errlen, "the cubin's section table is cut short");
        return NULL;
    }
    return (const Elf64_Shdr *)(data + eh->e_shoff);
}

/* Section s as a symbol table: its symbols and their string table. 1, 0 when
 * s is no symbol table, -1 with err when either is cut short. */
static int symbol_table(const char *data, size_t len, const Elf64_Ehdr *eh, const Elf64_Shdr *sh,
                        int s, const Elf64_Sym **sym, size_t *nsym, const char **strtab,
                        size_t *strsize, char *err, size_t errlen)
{
    if (sh[s].sh_type != SHT_SYMTAB)
        return 0;
    if (sh[s].sh_link >= eh->e_shnum || sh[s].sh_offset > len ||
        sh[s].sh_size > len - sh[s].sh_offset || sh[s].sh_entsize != sizeof(Elf64_Sym)) {
        snprintf(err, errlen, "the cubin's symbol table is cut short");
        return -1;
    }
    const Elf64_Shdr *str = &sh[sh[s].sh_link];
    if (str->sh_offset > len || str->sh_size > len - str->sh_offset) {
        snprintf(err, errlen, "the cubin's string table is cut short");
        return -1;
    }
    *strtab = data + str->sh_offset;
    *strsize = str->sh_size;
    *sym = (const Elf64_Sym *)(data + sh[s].sh_offset);
    *nsym = sh[s].sh_size / sizeof **sym;
    return 1;
}

void gk_elf_free(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

int gk_elf_kernels(const char *data, size_t len, char ***names_out, int *n_out, char *err,
                   size_t errlen)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)data;
    *names_out = NULL;
    *n_out = 0;
    const Elf64_Shdr *sh = section_table(data, len, err, errlen);
    if (!sh)
        return -1;
    char **names = NULL;
    int n = 0, cap = 0;
    for (int s = 0; s < eh->e_shnum; s++) {
        const Elf64_Sym *sym;
        const char *strtab;
        size_t nsym, strsize;
        int t = symbol_table(data, len, eh, sh, s, &sym, &nsym, &strtab, &strsize, err, errlen);
        if (t < 0) {
            gk_elf_free(names, n);
            return -1;
        }
        if (t == 0)
            continue;
        for (size_t i = 0; i < nsym; i++) {
            if (ELF64_ST_TYPE(sym[i].st_info) != STT_FUNC ||
                ELF64_ST_BIND(sym[i].st_info) == STB_LOCAL || sym[i].st_name >= strsize)
                continue;
            const char *name = strtab + sym[i].st_name;
            size_t nl = strnlen(name, strsize - sym[i].st_name);
            if (nl == 0 || nl == strsize - sym[i].st_name)
                continue;   /* empty, or not terminated inside the table */
            if (n == cap) {
                int ncap = cap ? 2 * cap : 16;
                char **nn = (char **)realloc(names, (size_t)ncap * sizeof *nn);
                if (!nn) {
                    snprintf(err, errlen, "out of memory");
                    gk_elf_free(names, n);
                    return -1;
                }
                names = nn;
                cap = ncap;
            }
            if (!(names[n] = strdup(name))) {
                snprintf(err, errlen, "out of memory");
                gk_elf_free(names, n);
                return -1;
            }
            n++;
        }
    }
    *names_out = names;
    *n_out = n;
    return 0;
}

/* ---- variables -------------------------------------------------------------------- */

void gk_elf_vars_free(struct gk_elf_var *v)
{
    free(v);
}

/* The section named shndx's name, "" when out of range or unnamed. */
static const char *section_name(const char *data, size_t len, const Elf64_Ehdr *eh,
                                const Elf64_Shdr *sh, unsigned shndx)
{
    if (shndx == SHN_UNDEF || shndx >= eh->e_shnum || eh->e_shstrndx >= eh->e_shnum)
        return "";
    const Elf64_Shdr *st = &sh[eh->e_shstrndx];
    if (st->sh_offset > len || st->sh_size > len - st->sh_offset || sh[shndx].sh_name >= st->sh_size)
        return "";
    const char *name = data + st->sh_offset + sh[shndx].sh_name;
    size_t room = st->sh_size - sh[shndx].sh_name;
    return strnlen(name, room) < room ? name : "";
}

int gk_elf_vars(const char *data, size_t len, struct gk_elf_var **out, int *n_out, char *err,
                size_t errlen)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)data;
    *out = NULL;
    *n_out = 0;
    const Elf64_Shdr *sh = section_table(data, len, err, errlen);
    if (!sh)
        return -1;
    struct gk_elf_var *v = NULL;
    int n = 0, cap = 0;
    for (int s = 0; s < eh->e_shnum; s++) {
        const Elf64_Sym *sym;
        const char *strtab;
        size_t nsym, strsize;
        int t = symbol_table(data, len, eh, sh, s, &sym, &nsym, &strtab, &strsize, err, errlen);
        if (t < 0) {
            free(v);
            return -1;
        }
        if (t == 0)
            continue;
        for (size_t i = 0; i < nsym; i++) {
            if (ELF64_ST_TYPE(sym[i].st_info) != STT_OBJECT || sym[i].st_name >= strsize)
                continue;
            const char *name = strtab + sym[i].st_name;
            size_t nl = strnlen(name, strsize - sym[i].st_name);
            if (nl == 0 || nl >= sizeof v->name || name[0] == '.' || name[0] == '$' ||
                strncmp(name, "__nv", 4) == 0)
                continue;   /* empty, too long, or the toolchain's own */
            const char *sec = section_name(data, len, eh, sh, sym[i].st_shndx);
            int is_const = strncmp(sec, ".nv.constant", 12) == 0 && strcmp(sec, ".nv.constant0") != 0 &&
                           strncmp(sec, ".nv.constant0.", 14) != 0;
            if (!is_const && strncmp(sec, ".nv.global", 10) != 0)
                continue;   /* not a __constant__ or __device__ variable */
            if (n == cap) {
                int ncap = cap ? 2 * cap : 16;
                struct gk_elf_var *nv = (struct gk_elf_var *)realloc(v, (size_t)ncap * sizeof *nv);
                if (!nv) {
                    snprintf(err, errlen, "out of memory");
                    free(v);
                    return -1;
                }
                v = nv;
                cap = ncap;
            }
            memcpy(v[n].name, name, nl + 1);
            v[n].size = (size_t)sym[i].st_size;
            v[n].constant = is_const;
            n++;
        }
    }
    *out = v;
    *n_out = n;
    return 0;
}
