#include <config.h>

#define G_LOG_DOMAIN "ts-extrap"

/* Loops over partners: where a rank's partners grow with P (all-to-all,
 * the master of master/worker), the template's loop over its P_t - 1
 * partners must become a loop over the P - 1 at P. Found once, before
 * anything is written, in every template rank's actions. */
#include "extrap/extrap-private.h"

#include <gio/gio.h>
#include <string.h>

/* A block in the making: one MPI call with one or two point-to-point
 * actions and nothing else that synchronises (no wait, test, collective). */
typedef struct {
  guint64 enter;                 /* index of its ENTER */
  guint32 region;
  guint n_p2p;
  gboolean other;                /* something else inside: not a block */
  guint8 kind[2];
  gint32 tag[2];
  guint32 peer[2];               /* world ranks */
} Call;

/* A run of calls of one shape, separated by compute and balanced user
 * regions only. */
typedef struct {
  guint n;
  guint32 region;
  guint n_p2p;
  guint8 kind[2];
  gint32 tag[2];
  GArray *enter;                 /* guint64: each block's ENTER index */
  GArray *peers[2];              /* guint32: each block's peer per slot */
  guint64 end;                   /* one past the last block's LEAVE */
  GArray *inner;                 /* Token: what lies between its first two calls */
} Run;

/* An action between calls, as far as a loop's shape goes. */
typedef struct {
  guint8 kind;
  guint32 region;
} Token;

#define MAX_BETWEEN 256

struct TsPartnerLoops {
  guint n_ranks;
  GArray **loops;                /* [template rank]: TsPartnerLoop */
  GArray **ordinal;              /* [template rank]: guint, the loop's ordinal */
  GArray *masks;                 /* [ordinal]: guint8[2] of rules consistent on every rank */
  guint unordered, xor_loops;    /* loops no rule describes; loops in XOR order */
  guint master_singles;          /* the master's calls with single workers, outside loops */
  GHashTable *looped;            /* regions entered between the calls of a loop */
  /* A loop's place: its shape and how many of that shape the rank made
   * before, so that the root's loops of its own (a distribution) do not
   * shift the others' places. */
  GHashTable *places;            /* "shape #k" -> ordinal + 1 */
  GHashTable *made;              /* the current rank's: shape -> loops so far */
  guint made_rank;
  gboolean root_alone[2];        /* [root sends]: rank 0 loops so where no other rank does */
};

/* The place of template rank @t's next loop of @run's shape. */
static guint
place_of (TsPartnerLoops *l, guint t, const Run *run)
{
  if (l->made_rank != t)
    {
      g_hash_table_remove_all (l->made);
      l->made_rank = t;
    }
  /* Not the tags: a program may tag by rank. */
  g_autofree char *shape = g_strdup_printf ("%u %u %u %u", run->region, run->n_p2p,
                                            run->kind[0], run->kind[1]);
  guint k = GPOINTER_TO_UINT (g_hash_table_lookup (l->made, shape));
  g_autofree char *key = g_strdup_printf ("%s #%u", shape, k);
  g_hash_table_insert (l->made, g_steal_pointer (&shape), GUINT_TO_POINTER (k + 1));
  guint ordinal = GPOINTER_TO_UINT (g_hash_table_lookup (l->places, key));
  if (ordinal == 0)
    {
      ordinal = g_hash_table_size (l->places) + 1;
      g_hash_table_insert (l->places, g_steal_pointer (&key), GUINT_TO_POINTER (ordinal));
    }
  return ordinal - 1;
}

static gboolean
is_receive (guint8 kind)
{
  return kind == TS_ACTION_RECV || kind == TS_ACTION_IRECV;
}

static gboolean
is_power_of_two (guint p)
{
  return p > 0 && (p & (p - 1)) == 0;
}

/* Whether place @o has a loop on a template rank other than 0. */
static gboolean
shared_place (const TsPartnerLoops *l, guint o)
{
  for (guint t = 1; t < l->n_ranks; t++)
    for (guint i = 0; i < l->ordinal[t]->len; i++)
      if (g_array_index (l->ordinal[t], guint, i) == o)
        return TRUE;
  return FALSE;
}

/* ts_partner_loops_root_reaches, found once all ranks' loops have places. */
static gboolean
root_loops_alone (const TsPartnerLoops *l, gboolean root_sends)
{
  const GArray *loops = l->n_ranks > 1 ? l->loops[0] : NULL;
  for (guint i = 0; loops && i < loops->len; i++)
    {
      const TsPartnerLoop *loop = &g_array_index (loops, TsPartnerLoop, i);
      if (shared_place (l, g_array_index (l->ordinal[0], guint, i)))
        continue;  /* every rank loops there (a transpose): no root's own */
      for (guint s = 0; s < loop->n_slots; s++)
        if (loop->receive[s] != root_sends)
          return TRUE;
    }
  return FALSE;
}

guint
ts_partner_loop_peer (TsLoopRule rule, guint r, guint p, const GArray *partners, guint k)
{
  guint n = partners->len;
  switch (rule)
    {
    case TS_LOOP_UP:
      return (r + k + 1) % p;
    case TS_LOOP_DOWN:
      return (r + p - (k + 1) % p) % p;
    case TS_LOOP_XOR:
      return r ^ (k + 1);
    case TS_LOOP_XOR_DOWN:
      return r ^ (n - k);
    case TS_LOOP_DESCENDING:
      return g_array_index (partners, guint32, n - 1 - k);
    default:
      return g_array_index (partners, guint32, k);
    }
}

/* The rules under which @peers (a loop's peers of one slot, in order) is
 * the loop of rank @t at @p with @partners, as a bit mask. */
static guint8
rules_of (const TsPattern *pattern, guint t, guint p, const GArray *partners,
          const guint32 *peers)
{
  guint8 mask = 0;
  for (guint rule = 0; rule < TS_LOOP_N_RULES; rule++)
    {
      if (pattern->kind != TS_PATTERN_ALL_TO_ALL && rule != TS_LOOP_ASCENDING
          && rule != TS_LOOP_DESCENDING)
        continue;
      if ((rule == TS_LOOP_XOR || rule == TS_LOOP_XOR_DOWN) && !is_power_of_two (p))
        continue;
      gboolean fits = TRUE;
      for (guint k = 0; fits && k < partners->len; k++)
        fits = ts_partner_loop_peer (rule, t, p, partners, k) == peers[k];
      if (fits)
        mask |= (guint8) (1u << rule);
    }
  return mask;
}

/* Is @peers a permutation of @partners? */
static gboolean
covers (const GArray *partners, const guint32 *peers)
{
  guint n = partners->len;
  g_autofree guint32 *sorted = g_memdup2 (peers, n * sizeof *peers);
  for (guint i = 1; i < n; i++)
    for (guint j = i; j > 0 && sorted[j - 1] > sorted[j]; j--)
      {
        guint32 x = sorted[j];
        sorted[j] = sorted[j - 1];
        sorted[j - 1] = x;
      }
  return memcmp (sorted, partners->data, n * sizeof *peers) == 0;
}

static guint8 *
ordinal_mask (TsPartnerLoops *l, guint ordinal)
{
  while (l->masks->len <= ordinal)
    {
      guint8 all[2] = { 0xff, 0xff };
      g_array_append_vals (l->masks, all, 1);
    }
  return &g_array_index (l->masks, guint8, 2 * ordinal);
}

static gboolean
same_tokens (const GArray *a, guint n, const GArray *b)
{
  return n == b->len && (n == 0 || memcmp (a->data, b->data, n * sizeof (Token)) == 0);
}

/* A run ends: the whole passes over @t's partners it makes become loops.
 * What follows its last call (@trailing, @n_trailing tokens) belongs to the
 * loop when it has the shape of what lies between its calls (a loop's body
 * is the call and what follows it: the master's MPI_Recv and its gather). */
static void
close_run (TsPartnerLoops *l, const TsPattern *pattern, guint t, guint p, const GArray *partners,
           Run *run, const GArray *trailing, guint n_trailing)
{
  guint n = partners->len;
  if (run->n >= 2 && run->inner->len > 0 && n_trailing >= run->inner->len
      && same_tokens (trailing, run->inner->len, run->inner))
    run->end += run->inner->len;
  /* The master's calls that address some workers only: which of the
   * workers at P they are cannot be told (ts_partner_loops_find refuses). */
  gboolean master = pattern->kind == TS_PATTERN_MASTER_WORKER && t == 0;
  if (run->n == 0 || n == 0 || run->n % n != 0)
    {
      if (master)
        l->master_singles += run->n;
      run->n = 0;
      return;
    }
  guint chunks = run->n / n;
  guint8 masks[2] = { 0, 0 };
  for (guint c = 0; c < chunks; c++)
    for (guint s = 0; s < run->n_p2p; s++)
      {
        const guint32 *peers = &g_array_index (run->peers[s], guint32, c * n);
        if (!covers (partners, peers))
          {
            if (master)
              l->master_singles += run->n;
            run->n = 0;
            return;
          }
      }
  for (guint i = 0; i < run->inner->len; i++)
    {
      const Token *token = &g_array_index (run->inner, Token, i);
      if (token->kind == TS_ACTION_ENTER)
        g_hash_table_add (l->looped, GUINT_TO_POINTER (token->region));
    }
  for (guint c = 0; c < chunks; c++)
    {
      TsPartnerLoop loop = {
        .first = g_array_index (run->enter, guint64, c * n),
        .end = c + 1 < chunks ? g_array_index (run->enter, guint64, (c + 1) * n) : run->end,
        .n_blocks = n,
      };
      guint ordinal = place_of (l, t, run);
      guint8 *mask = ordinal_mask (l, ordinal);
      for (guint s = 0; s < run->n_p2p; s++)
        {
          masks[s] = rules_of (pattern, t, p, partners,
                               &g_array_index (run->peers[s], guint32, c * n));
          mask[s] &= masks[s];
          loop.receive[s] = is_receive (run->kind[s]);
        }
      loop.n_slots = (guint8) run->n_p2p;
      g_array_append_val (l->loops[t], loop);
      g_array_append_val (l->ordinal[t], ordinal);
    }
  run->n = 0;
}

static gboolean
same_shape (const Run *run, const Call *c)
{
  return run->n > 0 && run->region == c->region && run->n_p2p == c->n_p2p
         && memcmp (run->kind, c->kind, sizeof run->kind) == 0
         && memcmp (run->tag, c->tag, sizeof run->tag) == 0;
}

static void
add_block (Run *run, const Call *c, guint64 end, const GArray *between, guint n_between)
{
  if (run->n == 1)
    {
      g_array_set_size (run->inner, 0);
      g_array_append_vals (run->inner, between->data, n_between);
    }
  if (run->n == 0)
    {
      run->region = c->region;
      run->n_p2p = c->n_p2p;
      memcpy (run->kind, c->kind, sizeof run->kind);
      memcpy (run->tag, c->tag, sizeof run->tag);
      g_array_set_size (run->enter, 0);
      g_array_set_size (run->peers[0], 0);
      g_array_set_size (run->peers[1], 0);
    }
  g_array_append_val (run->enter, c->enter);
  for (guint s = 0; s < c->n_p2p; s++)
    g_array_append_val (run->peers[s], c->peer[s]);
  run->end = end;
  run->n++;
}

/* An action of template rank @t inside call @c. */
static void
call_add (Call *c, const TsTrace *trace, guint t, const TsAction *a)
{
  if (ts_action_is_message (a->kind) && a->peer >= 0 && c->n_p2p < 2)
    {
      guint s = c->n_p2p++;
      c->kind[s] = a->kind;
      c->tag[s] = a->tag;
      c->peer[s] = ts_trace_comm_world_rank (trace, a->comm, t, (guint) a->peer);
    }
  else if (a->kind != TS_ACTION_COMPUTE)
    c->other = TRUE;
}

static void
run_clear (Run *run)
{
  g_array_unref (run->inner);
  g_array_unref (run->enter);
  g_array_unref (run->peers[0]);
  g_array_unref (run->peers[1]);
}

/* Template rank @t's loops, read from its spooled actions. */
static gboolean
find_rank (TsPartnerLoops *l, const TsExtrapModel *m, const TsSpool *actions, guint t,
           GError **error)
{
  const TsScaleProfile *tp = TS_EXTRAP_TEMPLATE (m);
  const TsTrace *trace = tp->trace;
  g_autoptr (GArray) partners = g_array_new (FALSE, FALSE, sizeof (guint32));
  ts_pattern_partners (&m->pattern, tp->n_ranks, t, partners);
  Run run = {
    .enter = g_array_new (FALSE, FALSE, sizeof (guint64)),
    .peers = { g_array_new (FALSE, FALSE, sizeof (guint32)),
               g_array_new (FALSE, FALSE, sizeof (guint32)) },
    .inner = g_array_new (FALSE, FALSE, sizeof (Token)),
  };
  Call call = { 0 };
  gboolean in_call = FALSE;
  guint depth = 0;               /* user regions entered since the run's last block */
  /* The actions since the last call, up to the current call's ENTER. */
  g_autoptr (GArray) between = g_array_new (FALSE, FALSE, sizeof (Token));
  guint n_between = 0;
  g_autoptr (TsSpoolReader) rd = ts_spool_reader_new (actions, t);
  const TsAction *a;
  GError *local = NULL;
  for (guint64 i = 0; (a = ts_spool_reader_next (rd, &local)); i++)
    {
      gboolean mpi = (a->kind == TS_ACTION_ENTER || a->kind == TS_ACTION_LEAVE)
                     && a->region < ts_trace_n_regions (trace)
                     && ts_trace_region_call (trace, a->region) != TS_CALL_USER;
      if (!in_call && !(a->kind == TS_ACTION_ENTER && mpi) && between->len < MAX_BETWEEN)
        {
          Token token = { a->kind, a->region };
          g_array_append_val (between, token);
        }
      if (a->kind == TS_ACTION_ENTER && mpi)
        {
          if (in_call)
            call.other = TRUE;   /* nested: not a block */
          else
            {
              call = (Call) { .enter = i, .region = a->region };
              n_between = between->len;
            }
          in_call = TRUE;
        }
      else if (a->kind == TS_ACTION_LEAVE && mpi)
        {
          in_call = FALSE;
          gboolean block = !call.other && call.n_p2p > 0;
          if (call.other && call.n_p2p > 0 && m->pattern.kind == TS_PATTERN_MASTER_WORKER && t == 0)
            l->master_singles++;
          gboolean fits = n_between < MAX_BETWEEN
                          && (run.n != 1 || depth == 0)
                          && (run.n < 2 || same_tokens (between, n_between, run.inner));
          if (block && fits && same_shape (&run, &call))
            add_block (&run, &call, i + 1, between, n_between);
          else
            {
              close_run (l, &m->pattern, t, tp->n_ranks, partners, &run, between, n_between);
              if (block)
                add_block (&run, &call, i + 1, between, n_between);
            }
          depth = 0;
          g_array_set_size (between, 0);
        }
      else if (in_call)
        call_add (&call, trace, t, a);
      else if (a->kind == TS_ACTION_ENTER)
        depth++;
      else if (a->kind == TS_ACTION_LEAVE && depth > 0)
        depth--;
      else if (a->kind != TS_ACTION_COMPUTE)
        close_run (l, &m->pattern, t, tp->n_ranks, partners, &run, between,
                   MAX (between->len, 1u) - 1);
    }
  close_run (l, &m->pattern, t, tp->n_ranks, partners, &run, between, between->len);
  run_clear (&run);
  if (local)
    g_propagate_error (error, local);
  return local == NULL;
}

/* The rule of a slot: the first of its preference order that every rank's
 * loop at this place fits; a receive prefers the way opposite to a send's,
 * so that an ambiguous template (two ranks) stays a shift. None fits (an
 * order the data decided, such as MPI_ANY_SOURCE): the first, counted. */
static guint8
choose_rule (TsPartnerLoops *l, guint8 mask, gboolean receive)
{
  static const guint8 send_order[] = { TS_LOOP_UP, TS_LOOP_DOWN, TS_LOOP_XOR, TS_LOOP_XOR_DOWN,
                                       TS_LOOP_ASCENDING, TS_LOOP_DESCENDING };
  static const guint8 recv_order[] = { TS_LOOP_DOWN, TS_LOOP_UP, TS_LOOP_XOR, TS_LOOP_XOR_DOWN,
                                       TS_LOOP_ASCENDING, TS_LOOP_DESCENDING };
  const guint8 *order = receive ? recv_order : send_order;
  for (guint i = 0; i < G_N_ELEMENTS (send_order); i++)
    if (mask & (1u << order[i]))
      return order[i];
  l->unordered++;
  return 0xff;
}

/* A region the inputs enter once per partner aligned only because a loop
 * over the partners enters it: refused if no loop found does, since the
 * output would keep the largest input's count. */
static gboolean
check_per_partner (const TsPartnerLoops *l, const TsExtrapModel *m, GError **error)
{
  const TsTrace *trace = TS_EXTRAP_TEMPLATE (m)->trace;
  for (guint i = 0; i < m->per_partner->len; i++)
    {
      const char *name = g_ptr_array_index (m->per_partner, i);
      gint region = ts_trace_region_by_name (trace, name);
      if (region >= 0 && g_hash_table_contains (l->looped, GINT_TO_POINTER (region)))
        continue;
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "cannot extrapolate: %s is entered once per partner at every scale, but in "
                   "no loop over the partners tracesim recognises (calls of one shape, each "
                   "to one partner, with %s between them): the output would keep the largest "
                   "input's count", name, name);
      return FALSE;
    }
  return TRUE;
}

/* Each place's rule, the same on every rank, set on every loop. */
static void
choose_rules (TsPartnerLoops *l, const TsExtrapModel *m)
{
  guint n = l->n_ranks;
  /* Each place's rule, the same on every rank. */
  GArray *chosen = g_array_new (FALSE, FALSE, 2);
  for (guint o = 0; o < l->masks->len; o++)
    {
      const guint8 *mask = &g_array_index (l->masks, guint8, 2 * o);
      guint8 rule[2] = { 0xff, 0xff };
      gboolean receive[2] = { FALSE, FALSE };
      for (guint t = 0; t < n; t++)
        for (guint i = 0; i < l->loops[t]->len; i++)
          if (g_array_index (l->ordinal[t], guint, i) == o)
            {
              const TsPartnerLoop *loop = &g_array_index (l->loops[t], TsPartnerLoop, i);
              for (guint s = 0; s < loop->n_slots; s++)
                {
                  rule[s] = choose_rule (l, mask[s], loop->receive[s]);
                  receive[s] = loop->receive[s];
                }
              t = n;
              break;
            }
      /* An order P lacks (XOR at no power of two) or no rule: a send takes
       * its partners up and a receive down, so that step k of one rank
       * meets step k of its partner (a Sendrecv loop stays a shift). */
      for (guint s = 0; s < 2; s++)
        {
          gboolean lacking = (rule[s] == TS_LOOP_XOR || rule[s] == TS_LOOP_XOR_DOWN)
                             && !is_power_of_two (m->target);
          l->xor_loops += lacking;
          if (lacking || rule[s] == 0xff)
            rule[s] = receive[s] ? TS_LOOP_DOWN : TS_LOOP_UP;
        }
      g_array_append_vals (chosen, rule, 1);
    }
  for (guint t = 0; t < n; t++)
    for (guint i = 0; i < l->loops[t]->len; i++)
      {
        TsPartnerLoop *loop = &g_array_index (l->loops[t], TsPartnerLoop, i);
        guint o = g_array_index (l->ordinal[t], guint, i);
        memcpy (loop->rule, &g_array_index (chosen, guint8, 2 * o), 2);
        if (m->pattern.kind != TS_PATTERN_ALL_TO_ALL)
          for (guint s = 0; s < 2; s++)
            if (loop->rule[s] != TS_LOOP_DESCENDING)
              loop->rule[s] = TS_LOOP_ASCENDING;
      }
  g_array_unref (chosen);
}

TsPartnerLoops *
ts_partner_loops_find (const TsExtrapModel *m, const TsSpool *actions, GError **error)
{
  guint n = TS_EXTRAP_TEMPLATE (m)->n_ranks;
  TsPartnerLoops *l = g_new0 (TsPartnerLoops, 1);
  l->n_ranks = n;
  l->loops = g_new0 (GArray *, n);
  l->ordinal = g_new0 (GArray *, n);
  l->masks = g_array_new (FALSE, FALSE, 2);
  l->looped = g_hash_table_new (NULL, NULL);
  l->places = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  l->made = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  l->made_rank = G_MAXUINT;
  for (guint t = 0; t < n; t++)
    {
      l->loops[t] = g_array_new (FALSE, FALSE, sizeof (TsPartnerLoop));
      l->ordinal[t] = g_array_new (FALSE, FALSE, sizeof (guint));
    }
  gboolean grows = m->pattern.kind == TS_PATTERN_ALL_TO_ALL
                   || m->pattern.kind == TS_PATTERN_MASTER_WORKER;
  for (guint t = 0; grows && t < n; t++)
    if (!find_rank (l, m, actions, t, error))
      {
        ts_partner_loops_free (l);
        return NULL;
      }
  if (!check_per_partner (l, m, error))
    {
      ts_partner_loops_free (l);
      return NULL;
    }
  if (l->master_singles > 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "cannot extrapolate: the master makes %u MPI calls that exchange with some "
                   "of its workers only, outside loops over all of them: which of the %u "
                   "workers at %u ranks those are cannot be derived", l->master_singles,
                   m->target - 1, m->target);
      ts_partner_loops_free (l);
      return NULL;
    }
  choose_rules (l, m);
  for (guint sends = 0; sends < 2; sends++)
    l->root_alone[sends] = root_loops_alone (l, sends);
  return l;
}

gboolean
ts_partner_loops_root_reaches (const TsPartnerLoops *l, gboolean root_sends)
{
  return l->root_alone[root_sends != FALSE];
}

void
ts_partner_loops_free (TsPartnerLoops *l)
{
  if (!l)
    return;
  for (guint t = 0; t < l->n_ranks; t++)
    {
      g_array_unref (l->loops[t]);
      g_array_unref (l->ordinal[t]);
    }
  g_free (l->loops);
  g_free (l->ordinal);
  g_array_unref (l->masks);
  g_hash_table_unref (l->looped);
  g_hash_table_unref (l->places);
  g_hash_table_unref (l->made);
  g_free (l);
}

const GArray *
ts_partner_loops_of (const TsPartnerLoops *l, guint t)
{
  return l->loops[t];
}

void
ts_partner_loops_describe (const TsPartnerLoops *l, guint target, GString *out)
{
  guint loops = 0;
  for (guint t = 0; t < l->n_ranks; t++)
    loops += l->loops[t]->len;
  if (loops == 0)
    return;
  g_string_append_printf (out, "loops over partners: %u in the largest input's ranks, "
                          "each repeated once per partner at %u ranks\n", loops, target);
  if (l->unordered > 0)
    g_string_append_printf (out, "  %u of their places take their partners in an order no "
                            "rule describes (the data's, as with MPI_ANY_SOURCE): written "
                            "in rank offset order, sends up and receives down (all-to-all), "
                            "or ascending (a master)\n", l->unordered);
  if (l->xor_loops > 0)
    g_string_append_printf (out, "  %u places take their partners in XOR order, which "
                            "%u ranks (no power of two) do not have: written in rank "
                            "offset order, sends up and receives down\n", l->xor_loops, target);
}
