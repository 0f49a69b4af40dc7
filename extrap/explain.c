#include <config.h>

#define G_LOG_DOMAIN "ts-extrap"

#include "extrap/extrap-private.h"

#include <json-glib/json-glib.h>
#include <math.h>

/* A role on a grid (ts_pattern_role): "interior", or which end of which
 * open dimension, e.g. "low end of dimension 1, both ends of dimension 2". */
static char *
role_name (const TsPattern *pattern, guint role)
{
  if (pattern->kind == TS_PATTERN_MASTER_WORKER)
    return g_strdup (role ? "master" : "workers");
  if (role == 0)
    return g_strdup ("interior");
  static const char *const ends[] = { NULL, "low end", "high end", "both ends" };
  guint code[TS_PATTERN_MAX_DIMS];
  for (guint k = pattern->n_dims; k-- > 0; role /= 4)
    code[k] = role % 4;
  GString *s = g_string_new (NULL);
  for (guint k = 0; k < pattern->n_dims; k++)
    if (code[k])
      g_string_append_printf (s, "%s%s of dimension %u", s->len ? ", " : "", ends[code[k]],
                              k + 1);
  return g_string_free (s, FALSE);
}

static void
describe_quantity (GString *out, const TsExtrapModel *m, const TsQuantity *q, guint k,
                   double floor, const char *unit)
{
  g_autofree char *formula = ts_scaling_describe (&q->model);
  double x = ts_extrap_target_x (m, q, k);
  g_autofree char *trust
    = q->law_from ? g_strdup_printf ("dimension %u's law through this dimension's one point "
                                     "(larger there: shifted, smaller: scaled), not "
                                     "cross-validated", q->law_from)
                  : ts_scaling_trust (&q->model, q->x, q->y, q->n, floor, x);
  g_string_append_printf (out, "%s%s -> %.6g%s at %u ranks", formula,
                          !q->by_faces ? ""
                          : m->pattern.kind == TS_PATTERN_BUTTERFLY ? " (P: ranks in a row)"
                                                                     : " (P: ranks across the other dimensions)",
                          q->at_target, unit, m->target);
  g_string_append (out, "\n      measured:");
  for (guint i = 0; i < q->n; i++)
    g_string_append_printf (out, " %.6g at %g", q->y[i], q->x[i]);
  if (!q->by_faces && q->repeat_at > 0)
    g_string_append_printf (out, "\n      repetitions averaged; the widest apart: %.1f%% of "
                            "their mean, at %g ranks", 100 * q->repeat_spread, q->repeat_at);
  g_string_append_printf (out, "\n      %s\n", trust);
}

/* A periodic dimension of 2 ranks in every input, larger at P: its two
 * neighbours were one rank, so how many messages went each way is a split
 * of that rank's, which a program treating such a dimension apart breaks. */
static void
describe_two_rank_dimensions (GString *out, const TsExtrapModel *m)
{
  if (m->pattern.kind != TS_PATTERN_CARTESIAN)
    return;
  for (guint k = 0; k < m->pattern.n_dims; k++)
    if (m->pattern.periodic[k] && m->pattern.dims[k] == 2 && m->at_target.dims[k] > 2)
      g_string_append_printf (out, "  dimension %u has 2 ranks in every input, where both "
                              "neighbours along it are one rank: the messages each way are "
                              "half of those to that rank; a program that sends once where a "
                              "dimension has 2 ranks (LAMMPS's atom migration) sends more at "
                              "%u ranks, with %u along it\n", k + 1, m->target,
                              m->at_target.dims[k]);
}

static const char *
scaling_name (TsScaling s)
{
  return s == TS_SCALING_STRONG ? "strong" : s == TS_SCALING_WEAK ? "weak" : "neither strong nor weak";
}

/* Traces at one rank count are repetitions: each count's compute per rank,
 * trace by trace, and how far apart they are. */
static void
describe_repetitions (GString *out, const TsExtrapModel *m)
{
  for (guint i = 0; i < m->n_inputs;)
    {
      guint j = i;
      while (j < m->n_inputs && m->p[j] == m->p[i])
        j++;
      if (j - i > 1)
        {
          double lo = G_MAXDOUBLE, hi = 0, sum = 0;
          g_string_append_printf (out, "  repetitions at %u ranks (averaged): compute per rank",
                                  m->p[i]);
          for (guint k = i; k < j; k++)
            {
              double c = ts_scale_profile_total_compute (m->inputs[k]) / m->p[k];
              g_string_append_printf (out, "%s %.6g s", k > i ? "," : "", c);
              lo = MIN (lo, c);
              hi = MAX (hi, c);
              sum += c;
            }
          g_string_append_printf (out, ", %.1f%% of their mean apart\n",
                                  100 * (hi - lo) / MAX (sum / (j - i), TS_EXTRAP_SECONDS_FLOOR));
        }
      i = j;
    }
}

/* The inputs, the warnings, and the hypotheses the models come from. */
static void
describe_inputs (GString *out, const TsExtrapModel *m)
{
  g_string_append_printf (out, "tracesim extrapolate: %u ranks from traces at", m->target);
  for (guint i = 0; i < m->n_inputs; i++)
    g_string_append_printf (out, "%s %u", i ? "," : "", m->p[i]);
  g_string_append (out, " ranks\ninputs:\n");
  for (guint i = 0; i < m->n_inputs; i++)
    g_string_append_printf (out, "  %5u ranks  %s\n", m->p[i], m->inputs[i]->path);
  describe_repetitions (out, m);
  for (guint i = 0; i < m->warnings->len; i++)
    g_string_append_printf (out, "warning: %s\n", (char *) m->warnings->pdata[i]);
  g_autofree char *space = ts_scaling_search_space ();
  g_string_append_printf (out, "models: %s\n", space);
  g_string_append_printf (out, "scaling: %s%s (%s)\n", scaling_name (m->scaling_seen),
                          m->scaling_given == TS_SCALING_UNKNOWN ? ", recognised"
                          : m->scaling_given == m->scaling_seen  ? ", as given"
                                                                 : ", not as given",
                          m->scaling_evidence);
}

/* Messages per neighbour (per kind of neighbour with diagonals), or per
 * partner of an all-to-all or master/worker. */
static void
describe_messages (GString *out, const TsExtrapModel *m)
{
  if (m->pattern.kind == TS_PATTERN_CARTESIAN && !m->pattern.diagonal)
    g_string_append_printf (out, "  messages to each neighbour: %g at every scale\n",
                            m->messages_per_neighbour);
  else if (m->pattern.kind == TS_PATTERN_CARTESIAN)
    {
      g_string_append_printf (out, "  messages to each neighbour at every scale: %g to a face "
                              "neighbour, %g to one a step along 2 dimensions%s\n",
                              m->messages_per_slot[0], m->messages_per_slot[1],
                              m->pattern.n_dims == 3 ? "" : " (a corner)");
      if (m->pattern.n_dims == 3)
        g_string_append_printf (out, "    and %g to a corner neighbour (a step along all 3)\n",
                                m->messages_per_slot[2]);
    }
  else if (m->pattern.kind == TS_PATTERN_BUTTERFLY)
    {
      g_string_append_printf (out, "  messages at every scale: %g to each row partner (each "
                              "doubling step)", m->messages_per_slot[0]);
      if (m->pattern.transpose)
        g_string_append_printf (out, ", %g to the transpose partner", m->messages_per_slot[1]);
      g_string_append (out, "\n");
    }
  else if (ts_extrap_n_bytes_classes (m) > 0)
    g_string_append_printf (out, "  messages to each partner at every scale: %g from rank 0, "
                            "%g from the others\n", m->messages_per_neighbour,
                            MAX (m->messages_from_others, 0));
}

void
ts_extrap_explain_text (const TsExtrapModel *m, GString *out)
{
  describe_inputs (out, m);
  g_autofree char *pattern = ts_pattern_describe (&m->pattern);
  g_autofree char *target = ts_pattern_describe (&m->at_target);
  g_string_append_printf (out, "point-to-point: %s at %u ranks; %s at %u ranks\n", pattern,
                          TS_EXTRAP_TEMPLATE (m)->n_ranks, target, m->target);
  if (m->reading)
    g_string_append_printf (out, "  %s\n", m->reading);
  describe_messages (out, m);
  describe_two_rank_dimensions (out, m);
  for (guint k = 0; k < ts_extrap_n_bytes_classes (m); k++)
    if (m->bytes[k].n > 0)
      {
        char name[80];
        g_string_append_printf (out, "  bytes per message %s: ",
                                ts_extrap_bytes_class_name (m, k, name, sizeof name));
        describe_quantity (out, m, &m->bytes[k], k, TS_EXTRAP_BYTES_FLOOR, "");
      }
  g_string_append (out, "compute per rank, by region (mean seconds; spread = standard "
                        "deviation / mean over ranks):\n");
  if (m->first_compute > 0)
    {
      gboolean one = m->first_compute == 1;
      g_string_append_printf (out, "  left out of the fits: the input%s at", one ? "" : "s");
      for (guint i = 0; i < m->first_compute; i++)
        g_string_append_printf (out, "%s %u", i ? "," : "", m->p[i]);
      g_string_append_printf (out, " rank%s, which exchange%s no message where the larger ones "
                                   "do (a serial run does none of the work that goes with "
                                   "them), and with which ", one && m->p[0] == 1 ? "" : "s",
                              one ? "s" : "");
      if (isnan (m->serial_cv_error))
        g_string_append (out, "no law fits all compute per rank\n");
      else
        g_string_append_printf (out, "one law fits all compute per rank only within %.1f%% "
                                "(cross-validated SMAPE)\n", 100 * m->serial_cv_error);
    }
  for (guint i = 0; i < m->regions->len; i++)
    {
      const TsRegionModel *g = g_ptr_array_index (m->regions, i);
      g_string_append_printf (out, "  %s: ", g->name);
      describe_quantity (out, m, &g->mean, 0, TS_EXTRAP_SECONDS_FLOOR, " s");
      g_string_append (out, "    spread: ");
      describe_quantity (out, m, &g->spread, 0, TS_EXTRAP_SPREAD_FLOOR, "");
      for (guint k = 0; k < g->roles->len; k++)
        {
          const TsRoleModel *rm = &g_array_index (g->roles, TsRoleModel, k);
          g_autofree char *who = role_name (&m->pattern, rm->role);
          g_string_append_printf (out, m->pattern.kind == TS_PATTERN_MASTER_WORKER
                                         ? "    the %s: " : "    ranks at the %s: ", who);
          describe_quantity (out, m, &rm->mean, 0, TS_EXTRAP_SECONDS_FLOOR, " s");
        }
    }
  if (m->collectives->len > 0)
    g_string_append (out, "collectives (bytes sent per call):\n");
  for (guint i = 0; i < m->collectives->len; i++)
    {
      const TsCollectiveModel *c = &g_array_index (m->collectives, TsCollectiveModel, i);
      char buffer[64];
      g_string_append_printf (out, "  %s on %s: ", ts_collective_name (c->op),
                              ts_extrap_class_name (c->klass, buffer, sizeof buffer));
      describe_quantity (out, m, &c->bytes, 0, TS_EXTRAP_BYTES_FLOOR, "");
    }
  g_string_append_printf (out, "written from: each rank from the rank of the %u-rank input at "
                          "the same place in the pattern (on a grid: the ends of an open "
                          "dimension from its ends, the rest stretched), its compute set to "
                          "the region's mean at P off by its own deviation scaled to the "
                          "spread at P; MPI calls keep the input's durations (the replay "
                          "recomputes their waiting)\n", TS_EXTRAP_TEMPLATE (m)->n_ranks);
}

static void
add_quantity (JsonBuilder *b, const char *member, const TsExtrapModel *m, const TsQuantity *q,
              guint k, double floor)
{
  json_builder_set_member_name (b, member);
  json_builder_begin_object (b);
  g_autofree char *formula = ts_scaling_describe (&q->model);
  json_builder_set_member_name (b, "model");
  json_builder_add_string_value (b, formula);
  json_builder_set_member_name (b, "variable");
  json_builder_add_string_value (b, !q->by_faces ? "P"
                                    : m->pattern.kind == TS_PATTERN_BUTTERFLY
                                      ? "ranks in a row"
                                      : "ranks across the other dimensions");
  if (q->law_from)
    {
      json_builder_set_member_name (b, "law_of_dimension");
      json_builder_add_int_value (b, q->law_from);
    }
  const double values[] = { q->model.c0, q->model.c1, q->model.exponent,
                            q->model.log_exponent, q->model.cv_error, q->model.fit_error,
                            q->at_target };
  const char *names[] = { "c0", "c1", "exponent", "log_exponent", "cv_error", "fit_error",
                          "at_target" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      json_builder_set_member_name (b, names[i]);
      if (isnan (values[i]))
        json_builder_add_null_value (b);
      else
        json_builder_add_double_value (b, values[i]);
    }
  g_autofree char *trust = ts_scaling_trust (&q->model, q->x, q->y, q->n, floor,
                                             ts_extrap_target_x (m, q, k));
  json_builder_set_member_name (b, "trust");
  json_builder_add_string_value (b, trust);
  json_builder_set_member_name (b, "repetition_spread");
  if (!q->by_faces && q->repeat_at > 0)
    json_builder_add_double_value (b, q->repeat_spread);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "measured");
  json_builder_begin_array (b);
  for (guint i = 0; i < q->n; i++)
    {
      json_builder_begin_array (b);
      json_builder_add_double_value (b, q->x[i]);
      json_builder_add_double_value (b, q->y[i]);
      json_builder_end_array (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

static void
add_pattern (JsonBuilder *b, const char *member, const TsPattern *t)
{
  g_autofree char *what = ts_pattern_describe (t);
  json_builder_set_member_name (b, member);
  json_builder_add_string_value (b, what);
}

/* Each region's models: its mean, its spread, each role's mean. */
static void
add_regions (JsonBuilder *b, const TsExtrapModel *m)
{
  json_builder_set_member_name (b, "regions");
  json_builder_begin_object (b);
  for (guint i = 0; i < m->regions->len; i++)
    {
      const TsRegionModel *g = g_ptr_array_index (m->regions, i);
      json_builder_set_member_name (b, g->name);
      json_builder_begin_object (b);
      add_quantity (b, "mean_seconds", m, &g->mean, 0, TS_EXTRAP_SECONDS_FLOOR);
      add_quantity (b, "spread", m, &g->spread, 0, TS_EXTRAP_SPREAD_FLOOR);
      json_builder_set_member_name (b, "roles");
      json_builder_begin_object (b);
      for (guint k = 0; k < g->roles->len; k++)
        {
          const TsRoleModel *rm = &g_array_index (g->roles, TsRoleModel, k);
          g_autofree char *who = role_name (&m->pattern, rm->role);
          add_quantity (b, who, m, &rm->mean, 0, TS_EXTRAP_SECONDS_FLOOR);
        }
      json_builder_end_object (b);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
}

/* The pattern, how it was read, at P, and the other readings the inputs
 * fit too. */
static void
add_patterns (JsonBuilder *b, const TsExtrapModel *m)
{
  add_pattern (b, "pattern", &m->pattern);
  if (m->reading)
    {
      json_builder_set_member_name (b, "reading");
      json_builder_add_string_value (b, m->reading);
    }
  add_pattern (b, "pattern_at_target", &m->at_target);
  if (m->dims_unsettled.kind == TS_PATTERN_CARTESIAN)
    {
      /* The inputs fit a grid of more dimensions too. */
      TsPattern theirs = ts_pattern_at (&m->dims_unsettled, m->target);
      add_pattern (b, "pattern_at_target_other_dims", &theirs);
    }
  if (m->doubling_unsettled.kind == TS_PATTERN_BUTTERFLY)
    {
      TsPattern theirs = ts_pattern_at (&m->doubling_unsettled, m->target);
      add_pattern (b, "pattern_at_target_other_reading", &theirs);
    }
  if (m->n_order_unsettled > 0)
    {
      /* The inputs fit these other orders of the dimensions too. */
      TsPattern theirs = ts_pattern_at (&m->order_unsettled[0], m->target);
      add_pattern (b, "pattern_at_target_other_order", &theirs);
      json_builder_set_member_name (b, "pattern_at_target_other_orders");
      json_builder_begin_array (b);
      for (guint i = 0; i < m->n_order_unsettled; i++)
        {
          TsPattern at = ts_pattern_at (&m->order_unsettled[i], m->target);
          g_autofree char *what = ts_pattern_describe (&at);
          json_builder_add_string_value (b, what);
        }
      json_builder_end_array (b);
    }
}

/* "scaling": what the inputs show (null: neither), what was given (null:
 * nothing), and the numbers. */
static void
add_scaling (JsonBuilder *b, const TsExtrapModel *m)
{
  json_builder_set_member_name (b, "scaling");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "recognised");
  if (m->scaling_seen == TS_SCALING_UNKNOWN)
    json_builder_add_null_value (b);
  else
    json_builder_add_string_value (b, scaling_name (m->scaling_seen));
  json_builder_set_member_name (b, "given");
  if (m->scaling_given == TS_SCALING_UNKNOWN)
    json_builder_add_null_value (b);
  else
    json_builder_add_string_value (b, scaling_name (m->scaling_given));
  json_builder_set_member_name (b, "evidence");
  json_builder_add_string_value (b, m->scaling_evidence);
  json_builder_end_object (b);
}

char *
ts_extrap_explain_json (const TsExtrapModel *m)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "ranks");
  json_builder_add_int_value (b, m->target);
  json_builder_set_member_name (b, "inputs");
  json_builder_begin_array (b);
  for (guint i = 0; i < m->n_inputs; i++)
    {
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "ranks");
      json_builder_add_int_value (b, m->p[i]);
      json_builder_set_member_name (b, "trace");
      json_builder_add_string_value (b, m->inputs[i]->path);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  g_autofree char *space = ts_scaling_search_space ();
  json_builder_set_member_name (b, "search_space");
  json_builder_add_string_value (b, space);
  add_scaling (b, m);
  json_builder_set_member_name (b, "warnings");
  json_builder_begin_array (b);
  for (guint i = 0; i < m->warnings->len; i++)
    json_builder_add_string_value (b, m->warnings->pdata[i]);
  json_builder_end_array (b);
  add_patterns (b, m);
  json_builder_set_member_name (b, "messages_per_neighbour");
  json_builder_add_double_value (b, m->messages_per_neighbour);
  if (m->pattern.kind == TS_PATTERN_BUTTERFLY && m->pattern.transpose)
    {
      json_builder_set_member_name (b, "messages_per_transpose");
      json_builder_add_double_value (b, m->messages_per_slot[1]);
    }
  else if (m->pattern.kind != TS_PATTERN_CARTESIAN && ts_extrap_n_bytes_classes (m) > 0)
    {
      json_builder_set_member_name (b, "messages_from_others");
      json_builder_add_double_value (b, MAX (m->messages_from_others, 0));
    }
  json_builder_set_member_name (b, "bytes_per_message");
  json_builder_begin_object (b);
  for (guint k = 0; k < ts_extrap_n_bytes_classes (m); k++)
    if (m->bytes[k].n > 0)
      {
        char name[80];
        add_quantity (b, ts_extrap_bytes_class_name (m, k, name, sizeof name), m,
                      &m->bytes[k], k, TS_EXTRAP_BYTES_FLOOR);
      }
  json_builder_end_object (b);
  add_regions (b, m);
  json_builder_set_member_name (b, "collectives");
  json_builder_begin_array (b);
  for (guint i = 0; i < m->collectives->len; i++)
    {
      const TsCollectiveModel *c = &g_array_index (m->collectives, TsCollectiveModel, i);
      char buffer[64];
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "operation");
      json_builder_add_string_value (b, ts_collective_name (c->op));
      json_builder_set_member_name (b, "communicator");
      json_builder_add_string_value (b, ts_extrap_class_name (c->klass, buffer, sizeof buffer));
      add_quantity (b, "bytes_per_call", m, &c->bytes, 0, TS_EXTRAP_BYTES_FLOOR);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  return json_generator_to_data (gen, NULL);
}
