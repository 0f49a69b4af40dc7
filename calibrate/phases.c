#include <config.h>

#include "calibrate/phases.h"

struct TsPhaseTable {
  GHashTable *by_key;   /* TsPhase* (its call and caller are the key) -> itself */
  GHashTable *seen;     /* phases the current rank has: TsPhase* set */
  gboolean new_burst;   /* an MPI call was entered since the last phased burst */
};

static guint
phase_hash (gconstpointer p)
{
  const TsPhase *f = p;
  return f->call * 2654435761u ^ f->caller;
}

static gboolean
phase_equal (gconstpointer a, gconstpointer b)
{
  const TsPhase *x = a, *y = b;
  return x->call == y->call && x->caller == y->caller;
}

TsPhaseTable *
ts_phase_table_new (void)
{
  TsPhaseTable *t = g_new0 (TsPhaseTable, 1);
  t->by_key = g_hash_table_new_full (phase_hash, phase_equal, g_free, NULL);
  t->seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  t->new_burst = TRUE;
  return t;
}

void
ts_phase_table_free (TsPhaseTable *t)
{
  if (!t)
    return;
  g_hash_table_unref (t->by_key);
  g_hash_table_unref (t->seen);
  g_free (t);
}

void
ts_phase_table_begin_rank (TsPhaseTable *t)
{
  g_hash_table_remove_all (t->seen);
  t->new_burst = TRUE;
}

static TsPhase *
lookup (TsPhaseTable *t, guint32 call, guint32 caller)
{
  TsPhase key = { call, caller, 0, 0, 0 };
  TsPhase *f = g_hash_table_lookup (t->by_key, &key);
  if (!f)
    {
      f = g_memdup2 (&key, sizeof key);
      g_hash_table_add (t->by_key, f);
    }
  return f;
}

void
ts_phase_table_end_burst (TsPhaseTable *t)
{
  t->new_burst = TRUE;
}

void
ts_phase_table_add (TsPhaseTable *t, const TsAction *a)
{
  guint32 call, caller;
  if (!ts_action_phase (a, &call, &caller))
    return;
  TsPhase *f = lookup (t, call, caller);
  f->compute += a->seconds;
  if (t->new_burst)
    f->bursts++;
  t->new_burst = FALSE;
  if (g_hash_table_add (t->seen, f))
    f->ranks++;
}

void
ts_phase_table_merge (TsPhaseTable *into, const TsPhaseTable *from)
{
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, from->by_key);
  while (g_hash_table_iter_next (&it, &k, NULL))
    {
      const TsPhase *src = k;
      TsPhase *f = lookup (into, src->call, src->caller);
      f->compute += src->compute;
      f->bursts += src->bursts;
      f->ranks += src->ranks;
    }
}

static gint
by_compute (gconstpointer a, gconstpointer b)
{
  const TsPhase *x = a, *y = b;
  if (x->compute != y->compute)
    return x->compute > y->compute ? -1 : 1;
  if (x->call != y->call)
    return x->call < y->call ? -1 : 1;
  return x->caller < y->caller ? -1 : x->caller > y->caller;
}

GArray *
ts_phase_table_sorted (const TsPhaseTable *t)
{
  GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (TsPhase),
                                   g_hash_table_size (t->by_key));
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, t->by_key);
  while (g_hash_table_iter_next (&it, &k, NULL))
    g_array_append_vals (out, k, 1);
  g_array_sort (out, by_compute);
  return out;
}
