/* Region names as a person reads them (model/trace.h): C++ names
 * demangled, and the name as the trace wrote it kept beside. */
#include <config.h>

#include "model/trace-private.h"

#include <stdlib.h>
#include <string.h>

/* The C++ runtime's demangler (libstdc++'s, the Itanium C++ ABI's
 * abi::__cxa_demangle, declared extern "C" there), as the recorder uses
 * it (recorder/record-user.c): from C it is declared here, and linked
 * with -lstdc++ (configure.ac). */
extern char *__cxa_demangle (const char *mangled, char *buffer, size_t *length, int *status);

char *
ts_name_demangle (const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);
  /* Itanium ABI names start with _Z; anything else (C, Fortran, MPI, and
   * names a tracer demangled already) is no mangled name, even where the
   * demangler would read it as a type ("i" is "int"). */
  if (!g_str_has_prefix (name, "_Z"))
    return NULL;
  /* The demangler recurses on nested names: a trace is untrusted input
   * (the fuzzers feed it), and no real function's mangled name nears
   * 4 KiB (Score-P's longest LULESH name is under 200 bytes). */
  if (strlen (name) > 4096)
    return NULL;
  int status = 0;
  char *plain = __cxa_demangle (name, NULL, NULL, &status);
  if (status != 0 || !plain)
    {
      free (plain);
      return NULL;
    }
  char *copy = g_strdup (plain);
  free (plain); /* the demangler's, from malloc */
  return copy;
}

const char *
ts_trace_region_canonical_name (const TsTrace *t, guint region)
{
  g_return_val_if_fail (region < t->regions->len, "?");
  const TsRegion *r = t->regions->pdata[region];
  return r->canonical ? r->canonical : r->name;
}
