#include <config.h>

#define G_LOG_DOMAIN "ts-extrap"

/* Doubling steps: where a butterfly's rows have more ranks at P than in the
 * largest input, a row's recursive doubling takes more steps, and each
 * loop of the program over the steps must run log2 of the new row length
 * times (NPB CG at 8 ranks, rows of 4: 2 steps; at 32, rows of 8: 3).
 * Found once, before anything is written, in every template rank's
 * actions.
 *
 * A step is a group of messages with the row partner of one bit: from the
 * MPI call that starts it (its first message's ENTER) until every request
 * it posted is complete, its last call left and it received as many
 * messages as it sent, and then the compute up to the next MPI call or
 * user region (CG sums the piece it received there; code after the loop
 * that begins with compute is taken as the last step's, a limit). Steps that touch, their bits 0, 1, ..., L-1 in order
 * (ascending) or L-1, ..., 0 (descending), L the template's bits, are a
 * loop over the steps. The step of bit L-1 is the model of the steps P
 * adds: copied after it when ascending (bits L, L+1, ...), before it when
 * descending (bits ..., L+1, L), as the program's loop would run them. */
#include "extrap/extrap-private.h"

#include "model/spool.h"

#include <gio/gio.h>

/* A group of messages with the row partner of one bit. */
typedef struct {
  guint64 start, end;            /* the template's actions [start, end) */
  guint bit;
  /* Not a step of its own: it ended with requests outstanding or inside
   * its own call, or waited on a request it did not post (all bits posted
   * at once, then one wait). */
  gboolean broken;
} Step;

/* The scan of one template rank. */
typedef struct {
  const TsExtrapModel *m;
  const TsTrace *trace;
  guint t;
  GArray *steps;                 /* Step, in stream order */
  /* The step being read: */
  gboolean open, trailing;
  Step cur;
  GHashTable *outstanding;       /* its requests not yet complete */
  gint balance;                  /* its sends less its receives */
  guint64 last_call_enter;
  /* The first broken step's start (G_MAXUINT64: none). */
  guint64 broken_at;
} Scan;

struct TsDoublingRuns {
  guint n_ranks, n_regions;
  GArray **runs;                 /* [template rank]: TsDoublingRun, by from */
  double **added;                /* [template rank][region, then outside every region]:
                                  * the compute seconds the copies add */
};

static gboolean
is_call (const TsTrace *trace, guint32 region)
{
  return region < ts_trace_n_regions (trace) && ts_trace_region_call (trace, region) != TS_CALL_USER;
}

static void
close_step (Scan *sc, guint64 end)
{
  if (!sc->open)
    return;
  sc->cur.end = end;
  /* Requests outstanding; or cut inside its own call (a call with a row
   * message and another). */
  sc->cur.broken |= g_hash_table_size (sc->outstanding) > 0 || end <= sc->cur.start;
  if (sc->cur.broken && sc->broken_at == G_MAXUINT64)
    sc->broken_at = sc->cur.start;
  g_array_append_val (sc->steps, sc->cur);
  sc->open = FALSE;
}

/* The row bit through which template rank t reaches @a's peer, or -1. */
static gint
row_bit (const Scan *sc, const TsAction *a)
{
  if (!ts_action_is_message (a->kind) || a->peer < 0)
    return -1;
  guint q = ts_trace_comm_world_rank (sc->trace, a->comm, sc->t, (guint) a->peer);
  guint slots[TS_EXTRAP_MAX_SLOTS];
  if (ts_extrap_slots (&sc->m->pattern, sc->t, q, slots) != 1
      || slots[0] == TS_PATTERN_TRANSPOSE_SLOT)
    return -1;
  return (gint) slots[0];
}

/* A row message: the step it belongs to, or a new one. */
static void
row_message (Scan *sc, const TsAction *a, guint bit)
{
  if (!sc->open || sc->cur.bit != bit)
    {
      close_step (sc, sc->last_call_enter);
      sc->cur = (Step) { .start = sc->last_call_enter, .bit = bit };
      sc->open = TRUE;
      sc->trailing = FALSE;
      sc->balance = 0;
      g_hash_table_remove_all (sc->outstanding);
    }
  gboolean receive = a->kind == TS_ACTION_RECV || a->kind == TS_ACTION_IRECV;
  sc->balance += receive ? -1 : 1;
  if (a->kind == TS_ACTION_ISEND || a->kind == TS_ACTION_IRECV)
    g_hash_table_add (sc->outstanding, g_memdup2 (&a->req, sizeof a->req));
}

/* A step is done when its requests are complete, its last call left and
 * it received as many messages as it sent (a blocking MPI_Send's step
 * goes on to its MPI_Recv); then compute up to the next MPI call or user
 * region is its own (CG sums the piece it received there). */
static void
scan_action (Scan *sc, const TsAction *a, guint64 i)
{
  if (sc->open && sc->trailing)
    {
      if (a->kind == TS_ACTION_COMPUTE)
        return;
      close_step (sc, i);
    }
  if (a->kind == TS_ACTION_ENTER && is_call (sc->trace, a->region))
    sc->last_call_enter = i;
  gint bit = row_bit (sc, a);
  if (bit >= 0)
    row_message (sc, a, (guint) bit);
  else if (sc->open && (a->kind == TS_ACTION_WAIT || a->kind == TS_ACTION_TEST))
    sc->cur.broken |= !g_hash_table_remove (sc->outstanding, &a->req)
                      && a->kind == TS_ACTION_WAIT;
  else if (sc->open && (ts_action_is_message (a->kind) || a->kind == TS_ACTION_COLLECTIVE
                        || a->kind == TS_ACTION_ICOLLECTIVE || a->kind == TS_ACTION_PINIT))
    close_step (sc, sc->last_call_enter);  /* a transpose, a collective: the step ends */
  if (a->kind == TS_ACTION_LEAVE && is_call (sc->trace, a->region))
    sc->trailing = sc->open && g_hash_table_size (sc->outstanding) == 0 && sc->balance == 0;
}

/* Steps @steps[g..] that make one loop over bits 0..@bits-1 (ascending) or
 * @bits-1..0, each touching the one before: its run into @run. */
static gboolean
loop_at (const GArray *steps, guint g, guint bits, gboolean ascending, TsDoublingRun *run)
{
  if (g + bits > steps->len)
    return FALSE;
  for (guint k = 0; k < bits; k++)
    {
      const Step *s = &g_array_index (steps, Step, g + k);
      if (s->broken || s->bit != (ascending ? k : bits - 1 - k))
        return FALSE;
      if (k > 0 && g_array_index (steps, Step, g + k - 1).end != s->start)
        return FALSE;
    }
  const Step *model = &g_array_index (steps, Step, ascending ? g + bits - 1 : g);
  *run = (TsDoublingRun) { model->start, model->end, ascending };
  return TRUE;
}

/* Template rank @t's loops over its steps into @runs, or FALSE and @error
 * naming the first step that is in none. */
static gboolean
find_rank (const TsExtrapModel *m, const TsSpool *actions, guint t, GArray *runs,
           GError **error)
{
  Scan sc = { .m = m, .trace = TS_EXTRAP_TEMPLATE (m)->trace, .t = t,
              .broken_at = G_MAXUINT64 };
  sc.steps = g_array_new (FALSE, FALSE, sizeof (Step));
  sc.outstanding = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr (TsSpoolReader) rd = ts_spool_reader_new (actions, t);
  const TsAction *a;
  GError *local = NULL;
  guint64 i = 0;
  for (; (a = ts_spool_reader_next (rd, &local)); i++)
    scan_action (&sc, a, i);
  close_step (&sc, i);
  g_hash_table_unref (sc.outstanding);
  guint bits = (guint) g_bit_nth_msf (m->pattern.dims[1], -1);
  gboolean ok = local == NULL;
  for (guint g = 0; ok && g < sc.steps->len;)
    {
      TsDoublingRun run;
      if (loop_at (sc.steps, g, bits, TRUE, &run) || loop_at (sc.steps, g, bits, FALSE, &run))
        {
          g_array_append_val (runs, run);
          g += bits;
          continue;
        }
      const Step *s = &g_array_index (sc.steps, Step, g);
      g_autofree char *why
        = sc.broken_at == G_MAXUINT64
            ? g_strdup ("")
            : g_strdup_printf ("; the step from action %" G_GUINT64_FORMAT " ended with "
                               "requests of its own outstanding, or waited on another's",
                               sc.broken_at);
      ok = ts_extrap_refuse (error, "template rank %u (of %u): its messages to the row partner "
                             "of bit %u from action %" G_GUINT64_FORMAT " are in no loop over "
                             "the %u doubling steps (bits 0 to %u in order, one after the "
                             "other, each complete before the next%s), so the steps the rows "
                             "of %u ranks need cannot be added", t,
                             TS_EXTRAP_TEMPLATE (m)->n_ranks, s->bit, s->start, bits, bits - 1,
                             why, m->at_target.dims[1]);
    }
  g_array_unref (sc.steps);
  if (local)
    g_propagate_error (error, local);
  return ok;
}

/* The compute the copies of @runs add to template rank @t, per region
 * (as synth.c indexes its factors), into @added. */
static gboolean
count_added (const TsExtrapModel *m, const TsSpool *actions, guint t, const GArray *runs,
             double *added, guint n_regions, GError **error)
{
  const TsTrace *trace = TS_EXTRAP_TEMPLATE (m)->trace;
  guint copies = (guint) g_bit_nth_msf (m->at_target.dims[1], -1)
                 - (guint) g_bit_nth_msf (m->pattern.dims[1], -1);
  g_autoptr (TsSpoolReader) rd = ts_spool_reader_new (actions, t);
  const TsAction *a;
  GError *local = NULL;
  guint next = 0;
  for (guint64 i = 0; next < runs->len && (a = ts_spool_reader_next (rd, &local)); i++)
    {
      const TsDoublingRun *run = &g_array_index (runs, TsDoublingRun, next);
      if (i + 1 == run->to)
        next++;
      if (i >= run->from && a->kind == TS_ACTION_COMPUTE && !is_call (trace, a->region))
        added[MIN (a->region, n_regions)] += a->seconds * copies;
    }
  if (local)
    g_propagate_error (error, local);
  return local == NULL;
}

TsDoublingRuns *
ts_doubling_runs_find (const TsExtrapModel *m, const TsSpool *actions, GError **error)
{
  TsDoublingRuns *d = g_new0 (TsDoublingRuns, 1);
  d->n_ranks = TS_EXTRAP_TEMPLATE (m)->n_ranks;
  d->n_regions = ts_trace_n_regions (TS_EXTRAP_TEMPLATE (m)->trace);
  d->runs = g_new0 (GArray *, d->n_ranks);
  d->added = g_new0 (double *, d->n_ranks);
  for (guint t = 0; t < d->n_ranks; t++)
    {
      d->runs[t] = g_array_new (FALSE, FALSE, sizeof (TsDoublingRun));
      d->added[t] = g_new0 (double, d->n_regions + 1);
      if (!find_rank (m, actions, t, d->runs[t], error)
          || !count_added (m, actions, t, d->runs[t], d->added[t], d->n_regions, error))
        {
          ts_doubling_runs_free (d);
          return NULL;
        }
    }
  return d;
}

const GArray *
ts_doubling_runs_of (const TsDoublingRuns *d, guint t)
{
  g_return_val_if_fail (d != NULL && t < d->n_ranks, NULL);
  return d->runs[t];
}

double
ts_doubling_runs_added (const TsDoublingRuns *d, guint t, guint region)
{
  g_return_val_if_fail (d != NULL && t < d->n_ranks && region <= d->n_regions, 0);
  return d->added[t][region];
}

void
ts_doubling_runs_free (TsDoublingRuns *d)
{
  if (!d)
    return;
  for (guint t = 0; t < d->n_ranks; t++)
    {
      if (d->runs[t])
        g_array_unref (d->runs[t]);
      g_free (d->added[t]);
    }
  g_free (d->runs);
  g_free (d->added);
  g_free (d);
}
