#include <config.h>

#include "calibrate/binomial.h"

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
