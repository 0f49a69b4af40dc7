/* User regions: ts_region_begin / ts_region_end (recorder/tracesim-record.h)
 * and the hooks GCC and Clang call in code built with -finstrument-functions
 * (__cyg_profile_func_enter / _exit; names from dladdr, else from the
 * module's ELF symbol table (record-symbols.c), so -rdynamic is not needed
 * unless the program is stripped; TS_RECORD_EXCLUDE lists names not to
 * record, comma-separated, by name or by symbol as linked; C++ names are
 * demangled). Paradigm USER, role
 * FUNCTION.
 *
 * The same naming names the caller of every MPI call (ts_rec_caller_region:
 * the function holding the wrapper's return address), which the ENTER of
 * the call carries as its "caller" attribute: tracesim names the compute
 * before a call by it (a phase, doc/hypotheses.md).
 *
 * Each rank numbers the names it meets in its own order (ids from
 * TS_R_N_MPI on); MPI_Finalize unifies them on rank 0 and every rank writes
 * an OTF2 mapping table from its ids to the global ones, which OTF2's
 * reader applies. Only the thread that called MPI_Init records. */
#define _GNU_SOURCE /* dladdr */
#include <config.h>

#include "recorder/record-private.h"
#include "recorder/tracesim-record.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#define NOT_RECORDED G_MAXUINT32
/* Deeper -finstrument-functions nesting is not recorded. */
#define SHADOW_DEPTH 512

/* Recorded regions still open, innermost last: closed at MPI_Finalize. */
static GArray *open_regions;
static GHashTable *function_ids;  /* function address -> region id + 1, or NOT_RECORDED + 1 */
static GHashTable *caller_ids;    /* return address -> region id + 1 */
static GHashTable *excluded;      /* names from TS_RECORD_EXCLUDE */
/* Per thread: what each -finstrument-functions enter recorded, so that its
 * exit leaves only what was entered (functions entered before MPI_Init). */
static __thread guint32 shadow[SHADOW_DEPTH];
static __thread int shadow_depth;

/* The names are the rank's, whatever thread of it records (a team's
 * threads: record-omp.c). */
static GMutex names_lock;

static guint32
region_of_name (const char *name)
{
  g_mutex_lock (&names_lock);
  gpointer v = g_hash_table_lookup (ts_rec.user_region_ids, name);
  guint32 id;
  if (v)
    id = GPOINTER_TO_UINT (v) - 1;
  else
    {
      id = TS_R_N_MPI + ts_rec.user_region_names->len;
      char *copy = g_strdup (name);
      g_ptr_array_add (ts_rec.user_region_names, copy);
      g_hash_table_insert (ts_rec.user_region_ids, copy, GUINT_TO_POINTER (id + 1));
    }
  g_mutex_unlock (&names_lock);
  return id;
}

guint32
ts_rec_user_region (const char *name)
{
  return region_of_name (name);
}

/* An id already made, or -1. */
static gint64
region_known (const char *name)
{
  g_mutex_lock (&names_lock);
  gpointer v = g_hash_table_lookup (ts_rec.user_region_ids, name);
  g_mutex_unlock (&names_lock);
  return v ? (gint64) GPOINTER_TO_UINT (v) - 1 : -1;
}

static void
region_opened (guint32 id)
{
  if (!open_regions)
    open_regions = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_array_append_val (open_regions, id);
  ts_rec_enter (id);
}

static void
region_closed (guint32 id)
{
  for (guint i = open_regions ? open_regions->len : 0; i > 0; i--)
    if (g_array_index (open_regions, guint32, i - 1) == id)
      {
        g_array_remove_index (open_regions, i - 1);
        ts_rec_leave (id);
        return;
      }
  /* Not open (ts_region_end without begin): nothing to close. */
}

void
ts_rec_user_close_open_regions (void)
{
  while (open_regions && open_regions->len > 0)
    {
      guint32 id = g_array_index (open_regions, guint32, open_regions->len - 1);
      g_array_set_size (open_regions, open_regions->len - 1);
      ts_rec_leave (id);
    }
}

void
ts_region_begin (const char *name)
{
  if (!name)
    return;
  if (ts_rec_recording ())
    region_opened (region_of_name (name));
  else if (ts_rec.on)
    ts_rec_omp_enter (region_of_name (name));
}

void
ts_region_end (const char *name)
{
  if (!name)
    return;
  gint64 id = region_known (name);
  if (id < 0)
    return;
  if (ts_rec_recording ())
    region_closed ((guint32) id);
  else if (ts_rec.on)
    ts_rec_omp_leave ((guint32) id);
}

/* ---- -finstrument-functions ----------------------------------------------- */

static void
load_excluded (void)
{
  excluded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  const char *list = g_getenv ("TS_RECORD_EXCLUDE");
  g_auto (GStrv) names = g_strsplit (list ? list : "", ",", -1);
  for (char **n = names; *n; n++)
    {
      g_strstrip (*n);
      if (**n)
        g_hash_table_add (excluded, g_strdup (*n));
    }
}

/* C++ names as a reader writes them (LAMMPS_NS::Verlet::run(int)), with
 * the C++ runtime's demangler when the program has one loaded: the
 * recorder itself is C and links no C++ library. */
static char *
demangled (const char *name)
{
  typedef char *(*DemangleFn) (const char *, char *, size_t *, int *);
  static DemangleFn demangle;
  static gboolean looked;
  if (!looked)
    {
      looked = TRUE;
      demangle = (DemangleFn) dlsym (RTLD_DEFAULT, "__cxa_demangle");
    }
  int status = -1;
  char *plain = demangle && g_str_has_prefix (name, "_Z") ? demangle (name, NULL, NULL, &status)
                                                           : NULL;
  if (status != 0)
    {
      free (plain);
      return g_strdup (name);
    }
  char *copy = g_strdup (plain);
  free (plain); /* the demangler's, from malloc */
  return copy;
}

/* The name of the function holding @address (its symbol as linked, when it
 * has one, in @symbol_out: a C++ name mangled): its symbol when the module
 * exports it (dladdr checks the symbol's size), else from the module's ELF
 * symbol table, else its module's file name and the offset in it
 * ("app+0x147a"), which is the same on every rank, unlike the address under
 * ASLR. */
static char *
function_name (const void *address, char **symbol_out)
{
  Dl_info info;
  *symbol_out = NULL;
  if (!dladdr (address, &info))
    return g_strdup_printf ("%p", address);
  if (info.dli_sname)
    {
      *symbol_out = g_strdup (info.dli_sname);
      return demangled (info.dli_sname);
    }
  char *symbol = info.dli_fname ? ts_rec_symbol_name (info.dli_fname, info.dli_fbase, address)
                                : NULL;
  if (symbol)
    {
      *symbol_out = symbol;
      return demangled (symbol);
    }
  if (info.dli_fname)
    {
      g_autofree char *module = g_path_get_basename (info.dli_fname);
      return g_strdup_printf ("%s+%#lx", module,
                              (unsigned long) ((const char *) address
                                               - (const char *) info.dli_fbase));
    }
  return g_strdup_printf ("%p", address);
}

static guint32
region_of_function (void *fn)
{
  if (!function_ids)
    {
      function_ids = g_hash_table_new (g_direct_hash, g_direct_equal);
      load_excluded ();
    }
  gpointer v = g_hash_table_lookup (function_ids, fn);
  if (v)
    return GPOINTER_TO_UINT (v) - 1;
  g_autofree char *symbol = NULL;
  g_autofree char *name = function_name (fn, &symbol);
  /* Excluded by either name: a C++ name holding commas only as linked. */
  gboolean out = g_hash_table_contains (excluded, name)
                 || (symbol && g_hash_table_contains (excluded, symbol));
  guint32 id = out ? NOT_RECORDED : region_of_name (name);
  g_hash_table_insert (function_ids, fn, GUINT_TO_POINTER (id + 1));
  return id;
}

guint32
ts_rec_caller_region (const void *return_address)
{
  if (!caller_ids)
    caller_ids = g_hash_table_new (g_direct_hash, g_direct_equal);
  gpointer v = g_hash_table_lookup (caller_ids, return_address);
  if (v)
    return GPOINTER_TO_UINT (v) - 1;
  /* The byte before the return address is in the call instruction, so in
   * the caller even when the call was its last instruction (a call to a
   * noreturn function ends it: the return address is the next function). */
  g_autofree char *symbol = NULL;
  g_autofree char *name = function_name ((const char *) return_address - 1, &symbol);
  guint32 id = region_of_name (name);
  g_hash_table_insert (caller_ids, (gpointer) return_address, GUINT_TO_POINTER (id + 1));
  return id;
}

void __cyg_profile_func_enter (void *fn, void *site) __attribute__ ((no_instrument_function));
void __cyg_profile_func_exit (void *fn, void *site) __attribute__ ((no_instrument_function));

void
__cyg_profile_func_enter (void *fn, void *site)
{
  guint32 id = ts_rec_recording () ? region_of_function (fn) : NOT_RECORDED;
  if (shadow_depth < SHADOW_DEPTH)
    shadow[shadow_depth] = id;
  shadow_depth++;
  if (id != NOT_RECORDED)
    region_opened (id);
}

void
__cyg_profile_func_exit (void *fn, void *site)
{
  if (shadow_depth == 0)
    return;
  shadow_depth--;
  if (shadow_depth < SHADOW_DEPTH && shadow[shadow_depth] != NOT_RECORDED && ts_rec_recording ())
    region_closed (shadow[shadow_depth]);
}

/* ---- definitions at MPI_Finalize ------------------------------------------- */

void
ts_rec_user_write_definitions (OTF2_GlobalDefWriter *g, guint32 *s, OTF2_DefWriter *const *locals,
                               guint n_locals)
{
  /* Every rank's names, NUL-separated, to rank 0. */
  GPtrArray *names = ts_rec.user_region_names;
  GByteArray *mine = g_byte_array_new ();
  for (guint i = 0; i < names->len; i++)
    g_byte_array_append (mine, names->pdata[i], strlen (names->pdata[i]) + 1);
  int len = (int) mine->len;
  g_autofree int *lens = ts_rec.rank == 0 ? g_new0 (int, ts_rec.size) : NULL;
  g_autofree int *displs = ts_rec.rank == 0 ? g_new0 (int, ts_rec.size) : NULL;
  PMPI_Gather (&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int total = 0;
  for (int r = 0; ts_rec.rank == 0 && r < ts_rec.size; r++)
    {
      displs[r] = total;
      total += lens[r];
    }
  g_autofree char *all = g_malloc (MAX (total, 1));
  PMPI_Gatherv (mine->data, len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
  g_byte_array_unref (mine);

  /* Rank 0: the union, in order of first appearance, back to everybody. */
  GByteArray *unified = g_byte_array_new ();
  if (ts_rec.rank == 0)
    {
      g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
      for (int i = 0; i < total; i += (int) strlen (all + i) + 1)
        if (g_hash_table_add (seen, all + i))
          g_byte_array_append (unified, (guint8 *) all + i, strlen (all + i) + 1);
    }
  int ulen = (int) unified->len;
  PMPI_Bcast (&ulen, 1, MPI_INT, 0, MPI_COMM_WORLD);
  g_byte_array_set_size (unified, ulen);
  PMPI_Bcast (unified->data, ulen, MPI_CHAR, 0, MPI_COMM_WORLD);

  g_autoptr (GHashTable) global = g_hash_table_new (g_str_hash, g_str_equal);
  guint32 next = TS_R_N_MPI;
  for (int i = 0; i < ulen; i += (int) strlen ((char *) unified->data + i) + 1)
    {
      const char *name = (char *) unified->data + i;
      g_hash_table_insert (global, (gpointer) name, GUINT_TO_POINTER (next));
      if (g)
        {
          OTF2_GlobalDefWriter_WriteString (g, *s, name);
          OTF2_GlobalDefWriter_WriteRegion (g, next, *s, *s, 0, OTF2_REGION_ROLE_FUNCTION,
                                            OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 0, 0);
          (*s)++;
        }
      next++;
    }
  /* This rank's ids to the global ones (none needed if they agree). */
  guint n = TS_R_N_MPI + names->len;
  g_autofree guint64 *map = g_new (guint64, n);
  for (guint i = 0; i < n; i++)
    map[i] = i < TS_R_N_MPI ? i
                            : GPOINTER_TO_UINT (g_hash_table_lookup (global,
                                                                     names->pdata[i - TS_R_N_MPI]));
  OTF2_IdMap *idmap = OTF2_IdMap_CreateFromUint64Array (n, map, true);
  for (guint i = 0; idmap && i < n_locals; i++)
    if (locals[i])
      OTF2_DefWriter_WriteMappingTable (locals[i], OTF2_MAPPING_REGION, idmap);
  if (idmap)
    OTF2_IdMap_Free (idmap);
  g_byte_array_unref (unified);
}

void
ts_rec_user_free (void)
{
  g_clear_pointer (&ts_rec.user_region_ids, g_hash_table_unref);
  g_clear_pointer (&ts_rec.user_region_names, g_ptr_array_unref);
  g_clear_pointer (&function_ids, g_hash_table_unref);
  g_clear_pointer (&caller_ids, g_hash_table_unref);
  g_clear_pointer (&excluded, g_hash_table_unref);
  g_clear_pointer (&open_regions, g_array_unref);
}
