#include <config.h>

#include "model/action.h"

#include <gio/gio.h>
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *name;
  gboolean replays;
} kind_table[] = {
#define TS_ACTION(e, name, replays) { name, replays },
#include "model/actions.def"
};

static const struct {
  const char *name;
  guint8 otf2_op;
  TsCollectiveShape shape;
} collective_table[] = {
#define TS_COLLECTIVE(e, name, otf2op, shape) { name, otf2op, TS_COLL_SHAPE_##shape },
#include "model/collectives.def"
};

const char *
ts_action_kind_name (TsActionKind kind)
{
  return (guint) kind < TS_ACTION_N_KINDS ? kind_table[kind].name : NULL;
}

gboolean
ts_action_kind_from_name (const char *name, TsActionKind *kind)
{
  for (guint i = 0; i < TS_ACTION_N_KINDS; i++)
    if (g_strcmp0 (name, kind_table[i].name) == 0)
      {
        *kind = (TsActionKind) i;
        return TRUE;
      }
  return FALSE;
}

gboolean
ts_action_kind_replays (TsActionKind kind)
{
  return (guint) kind < TS_ACTION_N_KINDS && kind_table[kind].replays;
}

const char *
ts_collective_name (TsCollectiveOp op)
{
  return (guint) op < TS_COLL_N_OPS ? collective_table[op].name : NULL;
}

gboolean
ts_collective_from_name (const char *name, TsCollectiveOp *op)
{
  for (guint i = 0; i < TS_COLL_N_OPS; i++)
    if (g_strcmp0 (name, collective_table[i].name) == 0)
      {
        *op = (TsCollectiveOp) i;
        return TRUE;
      }
  return FALSE;
}

TsCollectiveShape
ts_collective_shape (TsCollectiveOp op)
{
  g_return_val_if_fail ((guint) op < TS_COLL_N_OPS, TS_COLL_SHAPE_N2N);
  return collective_table[op].shape;
}

/* Open MPI and MPICH look at the count before anything else and return from
 * a collective of zero elements at once, without synchronising (HPCC calls
 * MPI_Bcast with a count of zero; its non-roots leave before the root has
 * entered). A member's counts tell about all members only where MPI makes
 * them equal everywhere; a v-variant's zero-count member still takes part
 * in its algorithm. */
gboolean
ts_collective_is_empty (TsCollectiveOp op, guint64 sent, guint64 received)
{
  switch (op)
    {
    case TS_COLL_BCAST:
    case TS_COLL_GATHER:
    case TS_COLL_SCATTER:
    case TS_COLL_ALLGATHER:
    case TS_COLL_ALLTOALL:
    case TS_COLL_ALLREDUCE:
    case TS_COLL_REDUCE:
    case TS_COLL_REDUCE_SCATTER_BLOCK:
    case TS_COLL_SCAN:
    case TS_COLL_EXSCAN:
      return sent == 0 && received == 0;
    default:
      return FALSE;
    }
}

gboolean
ts_collective_from_otf2 (guint8 otf2_op, TsCollectiveOp *op)
{
  for (guint i = 0; i < TS_COLL_N_OPS; i++)
    if (collective_table[i].otf2_op == otf2_op)
      {
        *op = (TsCollectiveOp) i;
        return TRUE;
      }
  return FALSE;
}

guint8
ts_collective_to_otf2 (TsCollectiveOp op)
{
  g_return_val_if_fail ((guint) op < TS_COLL_N_OPS, OTF2_COLLECTIVE_OP_BARRIER);
  return collective_table[op].otf2_op;
}

/* The printed fields, in order. Each knows how to print and parse itself, so
 * that printer and parser share one description. */
typedef enum { FIELD_U8, FIELD_U32, FIELD_I32, FIELD_U64, FIELD_DOUBLE, FIELD_OP,
               FIELD_DIRECTION } FieldType;

static const struct {
  const char *key;
  FieldType type;
  gsize offset;
} field_table[] = {
  { "op",         FIELD_OP,     G_STRUCT_OFFSET (TsAction, op) },
  { "direction",  FIELD_DIRECTION, G_STRUCT_OFFSET (TsAction, direction) },
  { "region",     FIELD_U32,    G_STRUCT_OFFSET (TsAction, region) },
  { "peer",       FIELD_I32,    G_STRUCT_OFFSET (TsAction, peer) },
  { "partition",  FIELD_I32,    G_STRUCT_OFFSET (TsAction, partition) },
  { "caller",     FIELD_U32,    G_STRUCT_OFFSET (TsAction, caller) },
  { "comm",       FIELD_U32,    G_STRUCT_OFFSET (TsAction, comm) },
  { "tag",        FIELD_I32,    G_STRUCT_OFFSET (TsAction, tag) },
  { "call",       FIELD_U32,    G_STRUCT_OFFSET (TsAction, call) },
  { "bytes",      FIELD_U64,    G_STRUCT_OFFSET (TsAction, bytes) },
  { "bytes_recv", FIELD_U64,    G_STRUCT_OFFSET (TsAction, bytes_recv) },
  { "partitions", FIELD_U64,    G_STRUCT_OFFSET (TsAction, partitions) },
  { "req",        FIELD_U64,    G_STRUCT_OFFSET (TsAction, req) },
  { "end",        FIELD_DOUBLE, G_STRUCT_OFFSET (TsAction, end) },
  { "flags",      FIELD_U8,     G_STRUCT_OFFSET (TsAction, flags) },
  { "size_class", FIELD_U8,     G_STRUCT_OFFSET (TsAction, size_class) },
  { "time",       FIELD_DOUBLE, G_STRUCT_OFFSET (TsAction, time) },
  { "seconds",    FIELD_DOUBLE, G_STRUCT_OFFSET (TsAction, seconds) },
};

/* Whether field @key means something for @kind: the fields that share
 * storage (TsAction's unions) each belong to their own kinds. */
static gboolean
field_applies (const char *key, guint8 kind)
{
  gboolean collective = kind == TS_ACTION_COLLECTIVE || kind == TS_ACTION_ICOLLECTIVE;
  gboolean pinit = kind == TS_ACTION_PINIT;
  gboolean partition = kind == TS_ACTION_PREADY || kind == TS_ACTION_PARRIVED
                       || kind == TS_ACTION_PTESTED;
  if (strcmp (key, "op") == 0)
    return collective;
  if (strcmp (key, "direction") == 0 || strcmp (key, "partitions") == 0)
    return pinit;
  if (strcmp (key, "bytes_recv") == 0)
    return !pinit;
  if (strcmp (key, "partition") == 0)
    return partition;
  if (strcmp (key, "req") == 0)
    return kind != TS_ACTION_COLLECTIVE;
  if (strcmp (key, "end") == 0)
    return kind == TS_ACTION_COLLECTIVE;
  if (strcmp (key, "caller") == 0)
    return kind == TS_ACTION_COMPUTE;
  if (strcmp (key, "peer") == 0)
    return !partition && kind != TS_ACTION_COMPUTE;
  return TRUE;
}

void
ts_action_print (const TsAction *action, GString *out)
{
  const char *base = (const char *) action;

  g_string_append (out, ts_action_kind_name (action->kind));
  for (guint i = 0; i < G_N_ELEMENTS (field_table); i++)
    {
      const char *p = base + field_table[i].offset;
      if (!field_applies (field_table[i].key, action->kind))
        continue;
      switch (field_table[i].type)
        {
        case FIELD_OP:
          g_string_append_printf (out, " op=%s", ts_collective_name (action->op));
          break;
        case FIELD_DIRECTION:
          g_string_append_printf (out, " direction=%s",
                                  action->direction == TS_PARTITIONED_SEND ? "send" : "recv");
          break;
        case FIELD_U8:
        case FIELD_U32:
          {
            guint32 v = field_table[i].type == FIELD_U8 ? *(const guint8 *) p
                                                         : *(const guint32 *) p;
            if (v != 0)
              g_string_append_printf (out, " %s=%" G_GUINT32_FORMAT, field_table[i].key, v);
          }
          break;
        case FIELD_I32:
          {
            gint32 v = *(const gint32 *) p;
            if (v != 0)
              g_string_append_printf (out, " %s=%" G_GINT32_FORMAT, field_table[i].key, v);
          }
          break;
        case FIELD_U64:
          {
            guint64 v = *(const guint64 *) p;
            if (v != 0)
              g_string_append_printf (out, " %s=%" G_GUINT64_FORMAT, field_table[i].key, v);
          }
          break;
        case FIELD_DOUBLE:
          {
            double v = *(const double *) p;
            if (v != 0.0)
              {
                char buf[G_ASCII_DTOSTR_BUF_SIZE];
                g_string_append_printf (out, " %s=%s", field_table[i].key,
                                        g_ascii_dtostr (buf, sizeof buf, v));
              }
          }
          break;
        }
    }
}

static gboolean
parse_field (TsAction *action, const char *key, const char *value, GError **error)
{
  char *base = (char *) action;

  for (guint i = 0; i < G_N_ELEMENTS (field_table); i++)
    {
      if (strcmp (key, field_table[i].key) != 0)
        continue;
      char *p = base + field_table[i].offset;
      char *end = NULL;
      if (!field_applies (key, action->kind))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "'%s' means nothing for a %s action", key,
                       ts_action_kind_name (action->kind));
          return FALSE;
        }
      switch (field_table[i].type)
        {
        case FIELD_DIRECTION:
          if (strcmp (value, "send") != 0 && strcmp (value, "recv") != 0)
            break;
          action->direction = strcmp (value, "send") == 0 ? TS_PARTITIONED_SEND
                                                           : TS_PARTITIONED_RECV;
          return TRUE;
        case FIELD_OP:
          {
            TsCollectiveOp op;
            if (!ts_collective_from_name (value, &op))
              break;
            action->op = op;
            return TRUE;
          }
        case FIELD_U8:
        case FIELD_U32:
          {
            guint64 max = field_table[i].type == FIELD_U8 ? G_MAXUINT8 : G_MAXUINT32;
            guint64 v = g_ascii_strtoull (value, &end, 10);
            if (*value == '\0' || *value == '-' || *end != '\0' || v > max)
              break;
            if (field_table[i].type == FIELD_U8)
              *(guint8 *) p = (guint8) v;
            else
              *(guint32 *) p = (guint32) v;
            return TRUE;
          }
        case FIELD_I32:
          {
            gint64 v = g_ascii_strtoll (value, &end, 10);
            if (*value == '\0' || *end != '\0' || v < G_MININT32 || v > G_MAXINT32)
              break;
            *(gint32 *) p = (gint32) v;
            return TRUE;
          }
        case FIELD_U64:
          {
            guint64 v = g_ascii_strtoull (value, &end, 10);
            if (*value == '\0' || *end != '\0' || *value == '-')
              break;
            *(guint64 *) p = v;
            return TRUE;
          }
        case FIELD_DOUBLE:
          {
            double v = g_ascii_strtod (value, &end);
            if (*value == '\0' || *end != '\0')
              break;
            *(double *) p = v;
            return TRUE;
          }
        }
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "bad value '%s' for '%s'", value, key);
      return FALSE;
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "unknown field '%s'", key);
  return FALSE;
}

gboolean
ts_action_parse (const char *line, TsAction *action, GError **error)
{
  g_auto (GStrv) words = g_strsplit_set (line, " \t\n", -1);
  guint n = 0;

  memset (action, 0, sizeof *action);
  for (guint i = 0; words[i]; i++)
    {
      if (*words[i] == '\0')
        continue;
      if (n++ == 0)
        {
          TsActionKind kind;
          if (!ts_action_kind_from_name (words[i], &kind))
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           "unknown action '%s'", words[i]);
              return FALSE;
            }
          action->kind = kind;
          continue;
        }
      char *eq = strchr (words[i], '=');
      if (!eq)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "expected key=value, got '%s'", words[i]);
          return FALSE;
        }
      *eq = '\0';
      if (!parse_field (action, words[i], eq + 1, error))
        return FALSE;
    }
  if (n == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "empty action");
      return FALSE;
    }
  return TRUE;
}

guint64
ts_collective_block (TsCollectiveOp op, gboolean totals, guint n, guint me, gboolean root,
                     guint64 sent, guint64 received)
{
  guint64 most = MAX (sent, received);
  n = MAX (n, 1);
  if (!totals)
    switch (op)
      {
      case TS_COLL_SCATTER:
      case TS_COLL_SCATTERV:
        return most / n ? most / n : most;
      case TS_COLL_GATHER:
      case TS_COLL_GATHERV:
        return root ? most / n : most;
      case TS_COLL_ALLGATHER:
      case TS_COLL_ALLGATHERV:
        return sent ? sent : most / n;
      case TS_COLL_ALLTOALL:
      case TS_COLL_ALLTOALLV:
      case TS_COLL_ALLTOALLW:
        return most / n;
      default:
        return most;
      }
  switch (op)
    {
    case TS_COLL_BARRIER:
      return 0;
    case TS_COLL_BCAST:
    case TS_COLL_SCATTER:
    case TS_COLL_SCATTERV:
      /* Everybody receives one block; an in-place root receives none. */
      return received ? received : sent / n;
    case TS_COLL_REDUCE:
    case TS_COLL_GATHER:
    case TS_COLL_GATHERV:
      return sent ? sent : received / n;
    case TS_COLL_SCAN:
    case TS_COLL_EXSCAN:
      /* Rank me receives the blocks of ranks 0..me (its own included). */
      return received ? received / (me + 1) : sent / MAX (n - me, 1);
    default:
      return most / n;
    }
}
