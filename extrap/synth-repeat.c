#include <config.h>

#define G_LOG_DOMAIN "ts-extrap"

/* The loops of the template that run more times at P (synth-private.h). */
#include "extrap/synth-private.h"

/* A template loop over its n partners (@held, its actions), written as a
 * loop over this rank's partners at P: step k repeats the template's call
 * k n / n' (so that a loop half as long at P takes every other call),
 * its peers those @loop's rules give, its requests fresh ones that the
 * template's waits complete, and the compute between the calls spread
 * over the steps (the region's total is what the compute model predicts). */
void
ts_synth_repeat_loop (Synth *s, RankState *rs, const TsPartnerLoop *loop, const GArray *held)
{
  const TsExtrapModel *m = s->m;
  g_autoptr (GArray) starts = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < held->len; i++)
    {
      const TsAction *a = &g_array_index (held, TsAction, i);
      if (a->kind == TS_ACTION_ENTER && ts_synth_is_mpi_call (s->trace, a->region))
        g_array_append_val (starts, i);
    }
  g_assert (starts->len == loop->n_blocks);
  guint n = loop->n_blocks, steps = rs->partners->len;
  double spread = steps > 0 ? (double) n / steps : 0;
  for (guint k = 0; k < steps; k++)
    {
      guint j = (guint) ((guint64) k * n / steps);
      guint from = g_array_index (starts, guint, j);
      guint to = j + 1 < n ? g_array_index (starts, guint, j + 1) : held->len;
      guint slot = 0;
      for (guint i = from; i < to; i++)
        {
          TsAction a = g_array_index (held, TsAction, i);
          if (a.kind == TS_ACTION_COMPUTE && !ts_synth_is_mpi_call (s->trace, a.region))
            a.seconds *= spread;
          if (!ts_action_is_message (a.kind) || a.peer < 0)
            {
              ts_synth_write_action (s, rs, &a);
              continue;
            }
          guint q = ts_partner_loop_peer (loop->rule[MIN (slot, 1u)], rs->r, m->target,
                                          rs->partners, k);
          slot++;
          guint64 bytes = ts_synth_message_bytes (s, rs, a.bytes, q,
                                         a.kind == TS_ACTION_RECV || a.kind == TS_ACTION_IRECV);
          guint64 req = a.req;
          if (a.kind == TS_ACTION_ISEND || a.kind == TS_ACTION_IRECV)
            {
              req = rs->next_req++;
              GArray *fresh = g_hash_table_lookup (rs->expanded, &a.req);
              if (!fresh)
                {
                  fresh = g_array_new (FALSE, FALSE, sizeof (guint64));
                  g_hash_table_insert (rs->expanded, g_memdup2 (&a.req, sizeof a.req), fresh);
                }
              g_array_append_val (fresh, req);
            }
          ts_synth_post (s, rs, &a, (gint) q, bytes, req);
        }
    }
}


/* A copy of a doubling step (@held, its actions) for row bit @bit: its
 * messages go to the partner of that bit, its requests are fresh ones
 * that its own waits complete, its compute is the model step's. */
static void
write_step_copy (Synth *s, RankState *rs, const GArray *held, guint bit)
{
  g_autoptr (GHashTable) fresh = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                        g_free);
  for (guint i = 0; i < held->len; i++)
    {
      TsAction a = g_array_index (held, TsAction, i);
      if (a.kind == TS_ACTION_ISEND || a.kind == TS_ACTION_IRECV)
        {
          guint64 req = rs->next_req++;
          g_hash_table_insert (fresh, g_memdup2 (&a.req, sizeof a.req),
                               g_memdup2 (&req, sizeof req));
          a.req = req;
        }
      else if (a.kind == TS_ACTION_WAIT || a.kind == TS_ACTION_TEST)
        {
          const guint64 *req = g_hash_table_lookup (fresh, &a.req);
          if (req)
            a.req = *req;
        }
      rs->forced_slot = ts_action_is_message (a.kind) ? bit : G_MAXUINT;
      ts_synth_write_action (s, rs, &a);
    }
  rs->forced_slot = G_MAXUINT;
}

/* The doubling steps P adds to loop @run, copies of its model step
 * (@held, its actions), written in the loop's order; where the output
 * rank's bit for a copy differs from its template rank's highest bit, the
 * copy is of @twins (the same step of the template rank that differs in
 * that bit): a step whose order follows the rank's bit (the rank whose
 * bit is 0 sends first) stays a pair. */
static void
add_steps (Synth *s, RankState *rs, const TsDoublingRun *run, const GArray *held,
           const GArray *twins)
{
  guint have = (guint) g_bit_nth_msf (s->m->pattern.dims[1], -1);
  guint want = (guint) g_bit_nth_msf (s->m->at_target.dims[1], -1);
  guint col = rs->r % s->m->at_target.dims[1], own = rs->t % s->m->pattern.dims[1];
  guint top = (own >> (have - 1)) & 1;
  for (guint n = 0; n < want - have; n++)
    {
      guint bit = run->ascending ? have + n : want - 1 - n;
      gboolean mine = ((col >> bit) & 1) == top || twins->len == 0;
      write_step_copy (s, rs, mine ? held : twins, bit);
    }
  if (!run->ascending)
    for (guint i = 0; i < held->len; i++)
      ts_synth_write_action (s, rs, &g_array_index (held, TsAction, i));
}

void
ts_synth_doubling_begin (Synth *s, const TsSpool *actions, RankState *rs)
{
  guint t2 = rs->t ^ (s->m->pattern.dims[1] / 2);  /* the column's highest bit */
  rs->runs = ts_doubling_runs_of (s->doubling, rs->t);
  rs->next_run = 0;
  rs->twin = (TsSynthTwin) { ts_spool_reader_new (actions, t2),
                             ts_doubling_runs_of (s->doubling, t2), 0 };
  rs->twin_held = g_array_new (FALSE, FALSE, sizeof (TsAction));
}

void
ts_synth_doubling_end (RankState *rs)
{
  g_clear_pointer (&rs->twin.rd, ts_spool_reader_free);
  g_clear_pointer (&rs->twin_held, g_array_unref);
}

/* The twin's run @k's model step into @out (emptied first; nothing where
 * it has no run @k). */
static gboolean
twin_step (TsSynthTwin *twin, guint k, GArray *out, GError **error)
{
  g_array_set_size (out, 0);
  if (k >= twin->runs->len)
    return TRUE;
  const TsDoublingRun *run = &g_array_index (twin->runs, TsDoublingRun, k);
  GError *local = NULL;
  const TsAction *a;
  while (twin->next < run->to && (a = ts_spool_reader_next (twin->rd, &local)))
    if (twin->next++ >= run->from)
      g_array_append_vals (out, a, 1);
  if (local)
    g_propagate_error (error, local);
  return local == NULL;
}

gboolean
ts_synth_doubling_take (Synth *s, RankState *rs, const TsAction *a, guint64 i, GArray *held,
                        GError **error)
{
  const TsDoublingRun *run = rs->next_run < rs->runs->len
                               ? &g_array_index (rs->runs, TsDoublingRun, rs->next_run) : NULL;
  if (!run || i < run->from)
    return FALSE;
  g_array_append_vals (held, a, 1);
  if (run->ascending)
    ts_synth_write_action (s, rs, a);
  if (i + 1 == run->to)
    {
      if (twin_step (&rs->twin, rs->next_run, rs->twin_held, error))
        add_steps (s, rs, run, held, rs->twin_held);
      g_array_set_size (held, 0);
      rs->next_run++;
    }
  return TRUE;
}

void
ts_synth_leave_room (Synth *s, guint t, double *factor)
{
  const TsScaleProfile *tp = TS_EXTRAP_TEMPLATE (s->m);
  guint n_regions = ts_trace_n_regions (s->trace);
  for (guint g = 0; g <= n_regions; g++)
    {
      double added = ts_doubling_runs_added (s->doubling, t, g);
      if (!(added > 0) || !s->region_model[g])
        continue;
      const double *x = g_hash_table_lookup (tp->compute, s->region_model[g]->name);
      if (x && x[t] > 0)
        factor[g] *= x[t] / (x[t] + added);
    }
}
