/* The MPI calls tracesim knows (model/mpi_calls.def) and how a trace's
 * region names map onto them, whichever binding recorded them. */
#include <config.h>

#include "model/trace-private.h"

#include <string.h>

static const struct {
  const char *name;
  TsCallKind kind;
} mpi_call_table[] = {
#define TS_MPI_CALL(name, kind) { name, TS_CALL_##kind },
#include "model/mpi_calls.def"
};

static const char *call_kind_names[] = {
  "user", "local",
#define TS_CALL_NAME(k) #k,
  TS_CALL_KINDS (TS_CALL_NAME)
#undef TS_CALL_NAME
};

const char *
ts_call_kind_name (TsCallKind kind)
{
  return (guint) kind < TS_CALL_N_KINDS ? call_kind_names[kind] : "?";
}

char *
ts_mpi_name_normalise (const char *name)
{
  if (g_ascii_strncasecmp (name, "mpi_", 4) != 0)
    return g_strdup (name);
  /* Fortran bindings are recorded in lower case with a trailing underscore;
   * MPI's C names capitalise only the first letter after "MPI_". */
  GString *s = g_string_new ("MPI_");
  const char *rest = name + 4;
  gsize len = strlen (rest);
  while (len > 0 && rest[len - 1] == '_')
    len--;
  for (gsize i = 0; i < len; i++)
    g_string_append_c (s, i == 0 ? g_ascii_toupper (rest[i]) : g_ascii_tolower (rest[i]));
  return g_string_free (s, FALSE);
}

TsCallKind
ts_mpi_call_kind (const char *normalised_name)
{
  for (guint i = 0; i < G_N_ELEMENTS (mpi_call_table); i++)
    if (strcmp (mpi_call_table[i].name, normalised_name) == 0)
      return mpi_call_table[i].kind;
  return g_str_has_prefix (normalised_name, "MPI_") ? TS_CALL_LOCAL : TS_CALL_USER;
}

gboolean
ts_mpi_call_completes_one_of (const char *normalised_name)
{
  static const char *const names[] = { "MPI_Waitany", "MPI_Waitsome", "MPI_Testany",
                                       "MPI_Testsome" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (strcmp (names[i], normalised_name) == 0)
      return TRUE;
  return FALSE;
}

gboolean
ts_trace_region_completes_one_of (const TsTrace *t, guint region)
{
  g_return_val_if_fail (region < t->regions->len, FALSE);
  return ((TsRegion *) t->regions->pdata[region])->one_of;
}
