/* Recursive doubling in rows, and a transpose (extrap/butterfly.h). NPB
 * CG's communication is the example: on nprows x npcols ranks (npcols =
 * nprows or 2 nprows), each row sums its vector by recursive doubling
 * (reduce_exch_proc: column XOR npcols/2, ..., XOR 1) and each rank then
 * swaps its piece with exch_proc, its transpose partner. */
#include <config.h>

#define G_LOG_DOMAIN "ts-extrap"

#include "extrap/butterfly.h"


void
ts_butterfly_dims (gboolean one_row, guint p, guint *dims)
{
  guint n = 0;
  while (n < 31 && (2u << n) <= p)
    n++;
  if (one_row)
    {
      dims[0] = 1;
      dims[1] = 1u << n;
      return;
    }
  dims[0] = 1u << (n / 2);
  dims[1] = 1u << (n - n / 2);
}

guint
ts_pattern_transpose_partner (const TsPattern *at, guint r)
{
  g_return_val_if_fail (at != NULL && at->kind == TS_PATTERN_BUTTERFLY, r);
  guint rows = at->dims[0], cols = at->dims[1];
  if (rows == 0 || cols < rows || cols % rows != 0)
    return r;
  guint b = cols / rows, row = r / cols, col = r % cols;
  return ((col / b) * rows + row) * b + col % b;
}

void
ts_butterfly_partners (const TsPattern *at, guint r, GArray *out)
{
  guint cols = at->dims[1], row = r / cols, col = r % cols;
  for (guint bit = 1; bit < cols; bit <<= 1)
    {
      guint32 q = row * cols + (col ^ bit);
      g_array_append_val (out, q);
    }
  /* In another row, or @r itself: never a row partner. */
  guint32 t = at->transpose ? ts_pattern_transpose_partner (at, r) : r;
  if (t != r)
    g_array_append_val (out, t);
}

gboolean
ts_butterfly_slot_used (const TsPattern *at, guint slot)
{
  if (slot == TS_PATTERN_TRANSPOSE_SLOT)
    return at->transpose;
  return slot < 31 && (1u << slot) < at->dims[1];
}

gint
ts_butterfly_slot_neighbour (const TsPattern *at, guint r, guint slot)
{
  if (!ts_butterfly_slot_used (at, slot))
    return -1;
  if (slot == TS_PATTERN_TRANSPOSE_SLOT)
    return (gint) ts_pattern_transpose_partner (at, r);
  guint cols = at->dims[1];
  return (gint) ((r / cols) * cols + ((r % cols) ^ (1u << slot)));
}

char *
ts_butterfly_describe (const TsPattern *t)
{
  if (t->one_row)
    return g_strdup_printf ("recursive doubling over %u ranks (rank XOR 2^k)", t->dims[1]);
  return g_strdup_printf ("2-D grid %ux%u, each row by recursive doubling (column XOR 2^k)%s",
                          t->dims[0], t->dims[1],
                          t->transpose ? ", and a transpose partner (NPB CG's)" : "");
}
