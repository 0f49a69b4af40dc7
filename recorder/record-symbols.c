/* Function names from a module's ELF symbol table (.symtab), for the
 * functions dladdr cannot name: those a program does not export (built
 * without -rdynamic, or static). Each module's function symbols are read
 * once with libelf and kept sorted by address. */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <config.h>

#include "recorder/record-private.h"

#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <unistd.h>
#if HAVE_LIBELF
#include <gelf.h>
#include <libelf.h>
#endif

typedef struct {
  guint64 start, size;
  char *name;
} Symbol;

typedef struct {
  gboolean absolute;   /* an ET_EXEC: symbol values are addresses, not offsets */
  GArray *symbols;     /* Symbol, by start */
} Module;

static GHashTable *modules; /* path -> Module* (NULL: no symbol table) */

static int
by_start (gconstpointer a, gconstpointer b)
{
  const Symbol *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

#if HAVE_LIBELF
static Module *
module_load (const char *path)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  Module *m = NULL;
  Elf *elf = elf_version (EV_CURRENT) != EV_NONE ? elf_begin (fd, ELF_C_READ, NULL) : NULL;
  GElf_Ehdr ehdr;
  if (elf && gelf_getehdr (elf, &ehdr))
    {
      m = g_new0 (Module, 1);
      m->absolute = ehdr.e_type == ET_EXEC;
      m->symbols = g_array_new (FALSE, FALSE, sizeof (Symbol));
      for (Elf_Scn *scn = elf_nextscn (elf, NULL); scn; scn = elf_nextscn (elf, scn))
        {
          GElf_Shdr shdr;
          if (!gelf_getshdr (scn, &shdr) || shdr.sh_type != SHT_SYMTAB || shdr.sh_entsize == 0)
            continue;
          Elf_Data *data = elf_getdata (scn, NULL);
          for (gsize i = 0; data && i < shdr.sh_size / shdr.sh_entsize; i++)
            {
              GElf_Sym sym;
              if (!gelf_getsym (data, (int) i, &sym) || GELF_ST_TYPE (sym.st_info) != STT_FUNC
                  || sym.st_value == 0)
                continue;
              const char *name = elf_strptr (elf, shdr.sh_link, sym.st_name);
              if (name && *name)
                {
                  Symbol s = { sym.st_value, sym.st_size, g_strdup (name) };
                  g_array_append_val (m->symbols, s);
                }
            }
        }
      g_array_sort (m->symbols, by_start);
    }
  if (elf)
    elf_end (elf);
  close (fd);
  return m;
}
#else
static Module *
module_load (const char *path)
{
  return NULL;
}
#endif

/* Where the main program's ELF header is loaded: the first object
 * dl_iterate_phdr reports is the program, its header at the load bias plus
 * the address of its first segment (offset 0). */
static int
first_object (struct dl_phdr_info *info, size_t size, void *data)
{
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_LOAD && info->dlpi_phdr[i].p_offset == 0)
      {
        *(const void **) data = (const char *) info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
        break;
      }
  return 1; /* the program only */
}

static const void *
main_program_base (void)
{
  const void *base = NULL;
  dl_iterate_phdr (first_object, &base);
  return base;
}

char *
ts_rec_symbol_name (const char *module_path, const void *module_base, const void *address)
{
  if (!modules)
    modules = g_hash_table_new (g_str_hash, g_str_equal);
  Module *m;
  if (!g_hash_table_lookup_extended (modules, module_path, NULL, (gpointer *) &m))
    {
      m = module_load (module_path);
      /* The main program may be named relative to a directory since left;
       * another module that cannot be opened (deleted since) has no names:
       * the executable's would be wrong ones. */
      if (!m && module_base == main_program_base ())
        m = module_load ("/proc/self/exe");
      g_hash_table_insert (modules, g_strdup (module_path), m);
    }
  if (!m || m->symbols->len == 0)
    return NULL;
  guint64 key = m->absolute ? (guint64) (guintptr) address
                            : (guint64) ((const char *) address - (const char *) module_base);
  /* The last symbol starting at or before the address. */
  guint lo = 0, hi = m->symbols->len;
  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      if (g_array_index (m->symbols, Symbol, mid).start <= key)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return NULL;
  const Symbol *s = &g_array_index (m->symbols, Symbol, lo - 1);
  return key < s->start + MAX (s->size, 1) ? g_strdup (s->name) : NULL;
}
