#include <config.h>

#include "sim/platform-check.h"
#include "sim/replay.h"
#include "sim/units.h"

#include <math.h>
#include <stdio.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <xbt/dynar.h>
#include <string.h>

/* What an attribute holds, by element and attribute name. */
typedef struct {
  const char *element, *attribute;
  TsUnitKind kind;
} Checked;

static const Checked checked[] = {
  { "host", "speed", TS_UNIT_SPEED },           { "cluster", "speed", TS_UNIT_SPEED },
  { "peer", "speed", TS_UNIT_SPEED },           { "link", "bandwidth", TS_UNIT_BANDWIDTH },
  { "link", "latency", TS_UNIT_LATENCY },       { "backbone", "bandwidth", TS_UNIT_BANDWIDTH },
  { "backbone", "latency", TS_UNIT_LATENCY },   { "cluster", "bw", TS_UNIT_BANDWIDTH },
  { "cluster", "lat", TS_UNIT_LATENCY },        { "cluster", "bb_bw", TS_UNIT_BANDWIDTH },
  { "cluster", "bb_lat", TS_UNIT_LATENCY },     { "cluster", "loopback_bw", TS_UNIT_BANDWIDTH },
  { "cluster", "loopback_lat", TS_UNIT_LATENCY }, { "cluster", "limiter_link", TS_UNIT_BANDWIDTH },
  { "peer", "bw_in", TS_UNIT_BANDWIDTH },       { "peer", "bw_out", TS_UNIT_BANDWIDTH },
  { "peer", "lat", TS_UNIT_LATENCY },
};

typedef struct {
  const char *text;
  guint depth;
  int line, column;          /* where the last element seen begins */
  const char *cursor, *line_start;
} Scan;

/* GMarkup's position is where its parser is (past the start tag, sometimes
 * past the next one); a message points at the '<' that opens the element.
 * Elements come in document order: the next "<name" after the previous. */
static void
locate (Scan *scan, const char *what)
{
  gsize n = strlen (what);
  const char *at = scan->cursor;
  while ((at = strstr (at, what)) != NULL && (g_ascii_isalnum (at[n]) || at[n] == '_' || at[n] == '-'))
    at += n;
  if (!at)
    return;
  for (const char *c = scan->cursor; c < at; c++)
    if (*c == '\n')
      {
        scan->line++;
        scan->line_start = c + 1;
      }
  scan->column = 1 + g_utf8_strlen (scan->line_start, at - scan->line_start);
  scan->cursor = at;
}

static void
on_start (GMarkupParseContext *context, const char *element, const char **names,
          const char **values, gpointer data, GError **error)
{
  Scan *scan = data;
  g_autofree char *tag = g_strconcat ("<", element, NULL);
  locate (scan, tag);
  if (scan->depth++ == 0 && strcmp (element, "platform") != 0)
    {
      g_set_error (error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT,
                   "the root element is <%.40s>, not <platform>", element);
      return;
    }
  if (strcmp (element, "include") == 0)
    {
      g_set_error (error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT,
                   "<include> is not supported: put the included file's content here");
      return;
    }
  for (guint a = 0; names[a]; a++)
    for (guint c = 0; c < G_N_ELEMENTS (checked); c++)
      {
        if (strcmp (checked[c].element, element) != 0 || strcmp (checked[c].attribute, names[a]) != 0)
          continue;
        /* A host's speed may list one speed per power state. */
        g_auto (GStrv) parts = g_strsplit (values[a], ",", -1);
        for (guint p = 0; parts[p]; p++)
          {
            g_autofree char *why = ts_unit_parse (checked[c].kind, g_strstrip (parts[p]), NULL);
            if (why)
              {
                g_set_error (error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT,
                             "<%s %s=\"%.40s\">: %s", element, names[a], values[a], why);
                return;
              }
          }
      }
}

static void
on_end (GMarkupParseContext *context, const char *element, gpointer data, GError **error)
{
  ((Scan *) data)->depth--;
}

static void
on_passthrough (GMarkupParseContext *context, const char *text, gsize len, gpointer data,
                GError **error)
{
  /* <!DOCTYPE platform [ <!ENTITY ...> ]>: entities SimGrid's parser does not
   * expand the way a reader of the file would. */
  if (len > 9 && strncmp (text, "<!DOCTYPE", 9) == 0 && memchr (text, '[', len))
    {
      locate (data, "<!DOCTYPE");
      g_set_error (error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT,
                 "a DOCTYPE with its own declarations ([...]) is not supported");
    }
}

gboolean
ts_platform_check_file (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents (path, &text, &len, error))
    return FALSE;
  Scan scan = { text, 0, 1, 0, text, text };
  GMarkupParser parser = { on_start, on_end, NULL, on_passthrough, NULL };
  GMarkupParseContext *context = g_markup_parse_context_new (&parser, 0, &scan, NULL);
  GError *local = NULL;
  gboolean ok = g_markup_parse_context_parse (context, text, len, &local)
                && g_markup_parse_context_end_parse (context, &local);
  if (ok && scan.depth == 0 && len == 0)
    ok = FALSE;
  if (!ok)
    {
      int line = scan.line, column = scan.column;
      if (!column || !local || local->domain != G_MARKUP_ERROR
          || local->code != G_MARKUP_ERROR_INVALID_CONTENT)
        g_markup_parse_context_get_position (context, &line, &column);
      /* GMarkup's own messages begin with the position, given here already. */
      const char *why = local ? local->message : "the file is empty, not a SimGrid platform";
      if (g_str_has_prefix (why, "Error on line") && strstr (why, ": "))
        why = strstr (why, ": ") + 2;
      g_set_error (error, TS_REPLAY_ERROR, TS_REPLAY_ERROR_PLATFORM, "%s:%d:%d: %s", path, line,
                   column, why);
      g_clear_error (&local);
    }
  g_markup_parse_context_free (context);
  return ok;
}

char *
ts_platform_check_loaded (void)
{
  size_t n = sg_host_count ();
  sg_host_t *hosts = sg_host_list ();
  char *why = NULL;
  for (size_t i = 0; i < n && !why; i++)
    {
      double speed = sg_host_get_speed (hosts[i]);
      if (!(speed > 0) || !isfinite (speed))
        why = g_strdup_printf ("host '%s' has speed %g flop/s", sg_host_get_name (hosts[i]), speed);
    }
  size_t n_links = sg_link_count ();
  sg_link_t *links = sg_link_list ();
  for (size_t i = 0; i < n_links && !why; i++)
    {
      double bw = sg_link_get_bandwidth (links[i]), lat = sg_link_get_latency (links[i]);
      if (!(bw > 0) || !isfinite (bw) || !(lat >= 0) || !isfinite (lat))
        why = g_strdup_printf ("link '%s' has bandwidth %g B/s and latency %g s",
                               sg_link_get_name (links[i]), bw, lat);
    }
  free (links);
  /* An empty route between two hosts: SimGrid aborts at the first message
   * between them, mid-replay. */
  xbt_dynar_t route = xbt_dynar_new (sizeof (sg_link_t), NULL);
  for (size_t i = 0; i < n && !why; i++)
    for (size_t j = 0; j < n && !why; j++)
      if (i != j && (n <= 64 || i == 0 || j == 0))
        {
          xbt_dynar_reset (route);
          /* SimGrid may crash looking for a route that is not there: the
           * parent then reads the last pair said here. */
          fprintf (stderr, "%s'%s' to host '%s'\n", TS_PLATFORM_ROUTE_MARK,
                   sg_host_get_name (hosts[i]), sg_host_get_name (hosts[j]));
          fflush (stderr);
          sg_host_get_route (hosts[i], hosts[j], route);
          if (xbt_dynar_is_empty (route))
            why = g_strdup_printf ("no route from host '%s' to host '%s'",
                                   sg_host_get_name (hosts[i]), sg_host_get_name (hosts[j]));
        }
  xbt_dynar_free (&route);
  free (hosts);
  return why;
}

typedef struct {
  gboolean in_config;
  GPtrArray *items;
} ConfigScan;

static void
on_config_start (GMarkupParseContext *context, const char *element, const char **names,
                 const char **values, gpointer data, GError **error)
{
  ConfigScan *scan = data;
  if (strcmp (element, "config") == 0)
    scan->in_config = TRUE;
  else if (scan->in_config && strcmp (element, "prop") == 0)
    {
      const char *id = NULL, *value = NULL;
      for (guint i = 0; names[i]; i++)
        if (strcmp (names[i], "id") == 0)
          id = values[i];
        else if (strcmp (names[i], "value") == 0)
          value = values[i];
      if (id && value)
        g_ptr_array_add (scan->items, g_strdup_printf ("%s:%s", id, value));
    }
}

static void
on_config_end (GMarkupParseContext *context, const char *element, gpointer data, GError **error)
{
  if (strcmp (element, "config") == 0)
    ((ConfigScan *) data)->in_config = FALSE;
}

char **
ts_platform_config_items (const char *path)
{
  ConfigScan scan = { FALSE, g_ptr_array_new () };
  g_autofree char *text = NULL;
  gsize len = 0;
  if (g_file_get_contents (path, &text, &len, NULL))
    {
      GMarkupParser parser = { on_config_start, on_config_end };
      GMarkupParseContext *context = g_markup_parse_context_new (&parser, 0, &scan, NULL);
      g_markup_parse_context_parse (context, text, len, NULL);
      g_markup_parse_context_free (context);
    }
  g_ptr_array_add (scan.items, NULL);
  return (char **) g_ptr_array_free (scan.items, FALSE);
}
