#include <config.h>

#include "model/partitioned.h"

#include <otf2/otf2.h>
#include <string.h>

static const char *const event_names[] = {
#define TS_P_NAME(e, name) name,
  TS_PARTITIONED_EVENTS (TS_P_NAME)
#undef TS_P_NAME
};

static const char *const attribute_names[] = {
#define TS_PA_NAME(e, name, type) name,
  TS_PARTITIONED_ATTRIBUTES (TS_PA_NAME)
#undef TS_PA_NAME
};

static const OTF2_Type attribute_types[] = {
#define TS_PA_TYPE(e, name, type) OTF2_TYPE_##type,
  TS_PARTITIONED_ATTRIBUTES (TS_PA_TYPE)
#undef TS_PA_TYPE
};

guint8
ts_partitioned_attribute_type (TsPartitionedAttribute a)
{
  return a < TS_PA_N_ATTRIBUTES ? attribute_types[a] : OTF2_TYPE_NONE;
}

const char *
ts_partitioned_event_name (TsPartitionedEvent e)
{
  return e < TS_P_N_EVENTS ? event_names[e] : NULL;
}

/* Index of @name in @names[0..n), or -1. */
static gint
index_of (const char *name, const char *const *names, guint n)
{
  for (guint i = 0; i < n; i++)
    if (strcmp (name, names[i]) == 0)
      return (gint) i;
  return -1;
}

gboolean
ts_partitioned_event_from_name (const char *name, TsPartitionedEvent *e)
{
  gint i = index_of (name, event_names, TS_P_N_EVENTS);
  if (i >= 0)
    *e = i;
  return i >= 0;
}

const char *
ts_partitioned_attribute_name (TsPartitionedAttribute a)
{
  return a < TS_PA_N_ATTRIBUTES ? attribute_names[a] : NULL;
}

gboolean
ts_partitioned_attribute_from_name (const char *name, TsPartitionedAttribute *a)
{
  gint i = index_of (name, attribute_names, TS_PA_N_ATTRIBUTES);
  if (i >= 0)
    *a = i;
  return i >= 0;
}

/* floor(a * b / c) and ceil(a * b / c) in integers (no rounding surprises). */
static guint
range_first (guint x, guint from, guint to)
{
  return (guint) (((guint64) to * x) / from);
}

static guint
range_last (guint x, guint from, guint to)
{
  return (guint) (((guint64) to * (x + 1) + from - 1) / from) - 1;
}

guint
ts_partitioned_j (guint i, guint s, guint r, guint *last)
{
  *last = range_last (i, s, r);
  return range_first (i, s, r);
}

guint
ts_partitioned_i (guint j, guint s, guint r, guint *last)
{
  *last = range_last (j, r, s);
  return range_first (j, r, s);
}
