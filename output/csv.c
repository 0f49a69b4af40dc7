#include <config.h>

#include "output/csv.h"

#include <string.h>

void
ts_csv_append_field (GString *csv, const char *field)
{
  if (!field[strcspn (field, ",\"\r\n")])
    {
      g_string_append (csv, field);
      return;
    }
  g_string_append_c (csv, '"');
  for (const char *c = field; *c; c++)
    {
      if (*c == '"')
        g_string_append_c (csv, '"');
      g_string_append_c (csv, *c);
    }
  g_string_append_c (csv, '"');
}

typedef struct {
  GString *csv;
  const char *timeline;
  const TsTrace *trace;
} CsvRows;

static void
append_row (TsWaitPattern p, guint region, guint rank, double seconds, gpointer data)
{
  CsvRows *c = data;
  char value[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (value, sizeof value, "%.9f", seconds);
  ts_csv_append_field (c->csv, c->timeline);
  g_string_append_printf (c->csv, ",%s,", ts_wait_pattern_name (p));
  ts_csv_append_field (c->csv, ts_trace_region_name (c->trace, region));
  g_string_append_printf (c->csv, ",%u,%s\n", rank, value);
}

void
ts_csv_append_wait_states (GString *csv, const char *timeline, const TsTrace *trace,
                           const TsWaitStates *w)
{
  CsvRows c = { csv, timeline, trace };
  ts_wait_states_foreach (w, append_row, &c);
}

typedef struct {
  JsonArray *rows;
  const char *timeline;
  const TsTrace *trace;
} JsonRows;

static void
append_object (TsWaitPattern p, guint region, guint rank, double seconds, gpointer data)
{
  JsonRows *j = data;
  char value[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (value, sizeof value, "%.9f", seconds);
  JsonObject *o = json_object_new ();
  json_object_set_string_member (o, "timeline", j->timeline);
  json_object_set_string_member (o, "pattern", ts_wait_pattern_name (p));
  json_object_set_string_member (o, "region", ts_trace_region_name (j->trace, region));
  json_object_set_int_member (o, "rank", rank);
  json_object_set_double_member (o, "seconds", g_ascii_strtod (value, NULL));
  json_array_add_object_element (j->rows, o);
}

void
ts_csv_wait_states_to_json (JsonArray *rows, const char *timeline, const TsTrace *trace,
                            const TsWaitStates *w)
{
  JsonRows j = { rows, timeline, trace };
  ts_wait_states_foreach (w, append_object, &j);
}
