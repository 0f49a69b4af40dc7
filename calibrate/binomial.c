#include <config.h>

#include "calibrate/binomial.h"

#include <string.h>

static guint
lowest_bit (guint v)
{
  return v & (~v + 1);
}

static guint
highest_bit (guint v)
{
  guint m = 1;
  while (m <= v / 2)
    m <<= 1;
  return m;
}

guint
ts_binomial_parent (TsBinomialTree tree, guint vr)
{
  g_return_val_if_fail (vr > 0, 0);
  return vr - (tree == TS_BINOMIAL_MPICH ? lowest_bit (vr) : highest_bit (vr));
}

guint
ts_binomial_children (TsBinomialTree tree, guint vr, guint n,
                      guint children[TS_BINOMIAL_MAX_CHILDREN])
{
  guint count = 0;
  if (tree == TS_BINOMIAL_MPICH)
    {
      /* Below the lowest set bit, largest step (largest subtree) first;
       * the root may use every bit. */
      guint top = 1;
      while (top < n && top <= G_MAXUINT / 2)
        top <<= 1;
      guint limit = vr ? lowest_bit (vr) : top;
      for (guint m = limit >> 1; m > 0; m >>= 1)
        if (vr + m < n)
          children[count++] = vr + m;
    }
  else
    {
      /* Above the highest set bit, smallest step (largest subtree) first. */
      for (guint m = vr ? highest_bit (vr) << 1 : 1; m > 0 && m < n && vr + m < n; m <<= 1)
        children[count++] = vr + m;
    }
  return count;
}

static const char *const names[TS_BINOMIAL_N_TREES] = { "mpich", "openmpi" };

const char *
ts_binomial_tree_name (TsBinomialTree tree)
{
  g_return_val_if_fail (tree < TS_BINOMIAL_N_TREES, "?");
  return names[tree];
}

gboolean
ts_binomial_tree_parse (const char *name, TsBinomialTree *tree)
{
  for (guint t = 0; t < TS_BINOMIAL_N_TREES; t++)
    if (g_strcmp0 (name, names[t]) == 0)
      {
        *tree = (TsBinomialTree) t;
        return TRUE;
      }
  return FALSE;
}

gboolean
ts_binomial_tree_of_library (const char *mpi_library, TsBinomialTree *tree)
{
  /* Prefixes of MPI_Get_library_version's first line, as each library
   * begins it; Open MPI's descendants (Spectrum MPI) begin as Open MPI. */
  static const struct { const char *prefix; TsBinomialTree tree; } known[] = {
    { "Open MPI", TS_BINOMIAL_OPENMPI },     { "MPICH", TS_BINOMIAL_MPICH },
    { "Intel(R) MPI", TS_BINOMIAL_MPICH },   { "MVAPICH", TS_BINOMIAL_MPICH },
    { "CRAY MPICH", TS_BINOMIAL_MPICH },
  };
  g_return_val_if_fail (tree != NULL, FALSE);
  for (guint i = 0; mpi_library && i < G_N_ELEMENTS (known); i++)
    if (g_ascii_strncasecmp (mpi_library, known[i].prefix, strlen (known[i].prefix)) == 0)
      {
        *tree = known[i].tree;
        return TRUE;
      }
  return FALSE;
}
