#include <config.h>

#include "sim/cluster.h"
#include "sim/units.h"
#include "model/fail.h"
#include "model/format.h"

#include <string.h>

G_DEFINE_QUARK (tracesim-cluster-error-quark, ts_cluster_error)

/* Nominal end-to-end figures: a ping-pong's half round trip and the link
 * rate. doc/platforms.md cites each source. */
const TsNetworkPreset ts_cluster_presets[] = {
  { "ib-hdr", 200e9 / 8, 0.6e-6, "InfiniBand HDR (200 Gb/s, 0.6 us: NVIDIA ConnectX-6 datasheet)" },
  { "ib-ndr", 400e9 / 8, 0.6e-6, "InfiniBand NDR (400 Gb/s, 0.6 us: NVIDIA ConnectX-7 datasheet)" },
  { "100gbe", 100e9 / 8, 1.5e-6, "100 Gb Ethernet with RoCE (100 Gb/s, 1.5 us)" },
  { "200gbe", 200e9 / 8, 1.3e-6, "200 Gb Ethernet with RoCE (200 Gb/s, 1.3 us)" },
  { "slingshot", 200e9 / 8, 1.8e-6, "HPE Slingshot-11 (200 Gb/s, 1.8 us: De Sensi et al., SC20)" },
  { "omni-path", 100e9 / 8, 1.0e-6, "Intel Omni-Path 100 (100 Gb/s, 1.0 us: Birrittella et al., HOTI 2015)" },
  { NULL, 0, 0, NULL },
};

static const char *const topology_words[] = { "flat", "fat-tree", "torus", "dragonfly" };
static const char *const topology_simgrid[] = { "FLAT", "FAT_TREE", "TORUS", "DRAGONFLY" };

void
ts_cluster_init (TsCluster *c)
{
  *c = (TsCluster) { .nodes = 0, .cores = 1, .speed = 1e9, .topology = TS_TOPOLOGY_FLAT,
                     .bandwidth = 10e9, .latency = 1e-6, .intra_bandwidth = 20e9,
                     .intra_latency = 0.3e-6 };
}

void
ts_cluster_clear (TsCluster *c)
{
  g_clear_pointer (&c->topology_parameters, g_free);
  g_clear_pointer (&c->network_name, g_free);
  g_clear_pointer (&c->bw_factors, g_free);
  g_clear_pointer (&c->lat_factors, g_free);
}

#define invalid(error, ...) ts_fail (error, TS_CLUSTER_ERROR, TS_CLUSTER_ERROR_INVALID, __VA_ARGS__)

/* "SIZE:FACTOR;..." with whole sizes and positive finite factors. */
static gboolean
set_factors (char **into, const char *key, const char *text, GError **error)
{
  if (!ts_unit_piecewise_ok (text))
    return invalid (error, "%s '%s': give SIZE:FACTOR pairs separated by ';' (bytes from "
                    "which the factor applies, a factor above 0), e.g. 65472:0.94;0:0.81",
                    key, text);
  g_free (*into);
  *into = g_strdup (text);
  return TRUE;
}

/* A positive count of at most 1,000,000 ("8"), or 0 if @text is not one. */
static guint
parse_count (const char *text)
{
  guint64 n = 0;
  if (!g_ascii_string_to_unsigned (text, 10, 1, 1000000, &n, NULL))
    return 0;
  return (guint) n;
}

/* @text split at @sep into counts; NULL unless there are @min..@max of them. */
static GArray *
parse_counts (const char *text, const char *sep, guint min, guint max)
{
  g_auto (GStrv) parts = g_strsplit (text, sep, -1);
  guint n = g_strv_length (parts);
  if (n < min || n > max)
    return NULL;
  GArray *counts = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < n; i++)
    {
      guint v = parse_count (g_strstrip (parts[i]));
      if (!v)
        {
          g_array_unref (counts);
          return NULL;
        }
      g_array_append_val (counts, v);
    }
  return counts;
}

/* How many nodes SimGrid's parameters give, or 0 if malformed. */
static guint64
topology_nodes (TsTopology t, const char *params)
{
  guint64 nodes = 1;
  if (t == TS_TOPOLOGY_TORUS)
    {
      g_autoptr (GArray) dims = parse_counts (params, ",", 1, 6);
      for (guint i = 0; dims && i < dims->len; i++)
        nodes = MIN (nodes * g_array_index (dims, guint, i), G_MAXUINT32);
      return dims ? nodes : 0;
    }
  g_auto (GStrv) levels = g_strsplit (params, ";", -1);
  if (t == TS_TOPOLOGY_FAT_TREE)
    {
      /* levels; children per switch at each level; parents; parallel links */
      guint h = g_strv_length (levels) == 4 ? parse_count (levels[0]) : 0;
      if (!h || h > 8)
        return 0;
      for (guint part = 1; part < 4; part++)
        {
          g_autoptr (GArray) counts = parse_counts (levels[part], ",", h, h);
          if (!counts)
            return 0;
          for (guint i = 0; part == 1 && i < h; i++)
            nodes = MIN (nodes * g_array_index (counts, guint, i), G_MAXUINT32);
        }
      return nodes;
    }
  /* groups,links; chassis,links; routers,links; nodes per router */
  if (g_strv_length (levels) != 4)
    return 0;
  for (guint part = 0; part < 3; part++)
    {
      g_autoptr (GArray) pair = parse_counts (levels[part], ",", 2, 2);
      if (!pair)
        return 0;
      nodes = MIN (nodes * g_array_index (pair, guint, 0), G_MAXUINT32);
    }
  guint per_router = parse_count (g_strstrip (levels[3]));
  return per_router ? MIN (nodes * per_router, G_MAXUINT32) : 0;
}

gboolean
ts_cluster_set_topology (TsCluster *c, const char *text, GError **error)
{
  g_autofree char *word = g_strdup (text);
  char *params = strchr (word, ':');
  if (params)
    *params++ = '\0';
  for (guint t = 0; t < G_N_ELEMENTS (topology_words); t++)
    if (g_ascii_strcasecmp (word, topology_words[t]) == 0)
      {
        if ((t == TS_TOPOLOGY_FLAT) != (params == NULL))
          return invalid (error, t == TS_TOPOLOGY_FLAT
                                   ? "topology 'flat' takes no parameters ('%s')"
                                   : "topology '%s' needs its parameters (e.g. "
                                     "fat-tree:2;8,8;1,8;1,1, torus:4,4,4, "
                                     "dragonfly:2,2;2,1;2,1;2)", text);
        if (params && !topology_nodes (t, params))
          return invalid (error, "topology '%s': malformed parameters '%s' (%s)", word, params,
                          t == TS_TOPOLOGY_FAT_TREE ? "levels;children,...;parents,...;links,..."
                          : t == TS_TOPOLOGY_TORUS  ? "dimensions: 4,4,4"
                                                    : "groups,links;chassis,links;routers,links;nodes");
        c->topology = t;
        g_free (c->topology_parameters);
        c->topology_parameters = g_strdup (params);
        return TRUE;
      }
  return invalid (error, "unknown topology '%s' (flat, fat-tree:..., torus:..., dragonfly:...)",
                  word);
}

/* "BANDWIDTH,LATENCY" with units. */
static gboolean
parse_link (const char *what, const char *text, double *bw, double *lat, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  if (g_strv_length (parts) != 2)
    return invalid (error, "%s '%s': give a bandwidth and a latency, e.g. 200Gbps,1us", what,
                    text);
  g_autofree char *why = ts_unit_parse (TS_UNIT_BANDWIDTH, g_strstrip (parts[0]), bw);
  if (!why)
    why = ts_unit_parse (TS_UNIT_LATENCY, g_strstrip (parts[1]), lat);
  return why ? invalid (error, "%s '%s': %s", what, text, why) : TRUE;
}

gboolean
ts_cluster_set_network (TsCluster *c, const char *text, GError **error)
{
  for (guint i = 0; ts_cluster_presets[i].name; i++)
    if (g_ascii_strcasecmp (text, ts_cluster_presets[i].name) == 0)
      {
        c->bandwidth = ts_cluster_presets[i].bandwidth;
        c->latency = ts_cluster_presets[i].latency;
        c->traced_network = FALSE;
        g_free (c->network_name);
        c->network_name = g_strdup (ts_cluster_presets[i].name);
        return TRUE;
      }
  if (!strchr (text, ','))
    {
      g_autoptr (GString) names = g_string_new (NULL);
      for (guint i = 0; ts_cluster_presets[i].name; i++)
        g_string_append_printf (names, "%s%s", i ? ", " : "", ts_cluster_presets[i].name);
      return invalid (error, "network '%s': neither BANDWIDTH,LATENCY (e.g. 200Gbps,1us) nor a "
                      "preset (%s)", text, names->str);
    }
  g_clear_pointer (&c->network_name, g_free);
  c->traced_network = FALSE;
  return parse_link ("network", text, &c->bandwidth, &c->latency, error);
}

gboolean
ts_cluster_set_intra_node (TsCluster *c, const char *text, GError **error)
{
  return parse_link ("intra-node link", text, &c->intra_bandwidth, &c->intra_latency, error);
}

/* Each key of [cluster], read with the setter for its option. */
static gboolean
load_key (TsCluster *c, const char *key, const char *value, GError **error)
{
  if (strcmp (key, "topology") == 0)
    return ts_cluster_set_topology (c, value, error);
  if (strcmp (key, "network") == 0)
    return ts_cluster_set_network (c, value, error);
  if (strcmp (key, "intra-node") == 0)
    return ts_cluster_set_intra_node (c, value, error);
  if (strcmp (key, "bw-factors") == 0)
    return set_factors (&c->bw_factors, key, value, error);
  if (strcmp (key, "lat-factors") == 0)
    return set_factors (&c->lat_factors, key, value, error);
  if (strcmp (key, "speed") == 0)
    {
      /* A bare number is flop/s, as run's --trace-speed and SimGrid's own
       * command line take it: speed has no other unit it could mean
       * (bandwidths keep theirs: bits or bytes). */
      char *end;
      g_ascii_strtod (value, &end);
      g_autofree char *flops = end != value && *end == '\0' ? g_strconcat (value, "f", NULL)
                                                            : g_strdup (value);
      g_autofree char *why = ts_unit_parse (TS_UNIT_SPEED, flops, &c->speed);
      return why ? invalid (error, "speed '%s': %s", value, why) : TRUE;
    }
  if (strcmp (key, "nodes") == 0 || strcmp (key, "cores") == 0)
    {
      guint n = parse_count (value);
      if (!n)
        return invalid (error, "%s '%s': give a whole number from 1 to 1000000", key, value);
      *(strcmp (key, "nodes") == 0 ? &c->nodes : &c->cores) = n;
      return TRUE;
    }
  return invalid (error, "unknown key '%s' (nodes, cores, speed, topology, network, intra-node, "
                  "bw-factors, lat-factors)", key);
}

gboolean
ts_cluster_load_key_file (TsCluster *c, GKeyFile *file, const char *origin, GError **error)
{
  if (!g_key_file_has_group (file, "cluster"))
    return invalid (error, "%s: no [cluster] group", origin);
  g_auto (GStrv) keys = g_key_file_get_keys (file, "cluster", NULL, NULL);
  for (guint i = 0; keys && keys[i]; i++)
    {
      g_autofree char *value = g_key_file_get_string (file, "cluster", keys[i], NULL);
      g_autoptr (GError) local = NULL;
      if (!load_key (c, keys[i], value ? g_strstrip (value) : "", &local))
        return invalid (error, "%s: [cluster] %s", origin, local->message);
    }
  return TRUE;
}

gboolean
ts_cluster_check (TsCluster *c, GError **error)
{
  if (c->topology == TS_TOPOLOGY_FLAT)
    {
      if (!c->nodes)
        return invalid (error, "a flat cluster needs its number of nodes (--nodes)");
      return TRUE;
    }
  guint64 implied = topology_nodes (c->topology, c->topology_parameters);
  if (implied > 1000000)
    return invalid (error, "topology %s:%s has %" G_GUINT64_FORMAT " nodes; at most 1000000",
                    topology_words[c->topology], c->topology_parameters, implied);
  if (c->nodes && c->nodes != implied)
    return invalid (error, "topology %s:%s has %" G_GUINT64_FORMAT " nodes, not %u (--nodes)",
                    topology_words[c->topology], c->topology_parameters, implied, c->nodes);
  c->nodes = (guint) implied;
  return TRUE;
}

char *
ts_cluster_describe (const TsCluster *c)
{
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "%u nodes of %u core%s at %g Gflop/s, %" G_GUINT64_FORMAT
                          " cores in all\n", c->nodes, c->cores, c->cores == 1 ? "" : "s",
                          c->speed / 1e9, (guint64) c->nodes * c->cores);
  if (c->topology == TS_TOPOLOGY_FLAT)
    g_string_append (s, "topology: flat (every node's link on one switch)\n");
  else
    g_string_append_printf (s, "topology: %s %s (SimGrid %s)\n", topology_words[c->topology],
                            c->topology_parameters, topology_simgrid[c->topology]);
  /* Rates and times as every command prints them (model/format.h); the
   * XML below keeps SimGrid's syntax. */
  g_autofree char *bw = ts_format_rate (c->bandwidth);
  g_autofree char *lat = ts_format_seconds (c->latency);
  g_autofree char *link_lat = ts_format_seconds (c->latency / 2);
  g_autofree char *intra_bw = ts_format_rate (c->intra_bandwidth);
  g_autofree char *intra_lat = ts_format_seconds (c->intra_latency);
  g_string_append_printf (s, "network: %s and %s end to end between nodes on one switch "
                          "(each link %s)%s%s\n", bw, lat, link_lat,
                          c->traced_network ? ", as the trace shows it"
                          : c->network_name ? ", preset " : "",
                          !c->traced_network && c->network_name ? c->network_name : "");
  g_string_append_printf (s, "within a node: %s and %s%s\n", intra_bw, intra_lat,
                          c->traced_network ? ", as the trace shows it" : "");
  if (c->bw_factors || c->lat_factors)
    g_string_append_printf (s, "SMPI network model, factors by message size: bandwidth %s, "
                            "latency %s\n", c->bw_factors ? c->bw_factors : "0:1",
                            c->lat_factors ? c->lat_factors : "0:1");
  return g_string_free (s, FALSE);
}

char *
ts_cluster_to_xml (const TsCluster *c)
{
  g_autofree char *speed = ts_unit_format (TS_UNIT_SPEED, c->speed);
  /* Two links between nodes on one switch: each has half the latency. */
  g_autofree char *bw = ts_unit_format (TS_UNIT_BANDWIDTH, c->bandwidth);
  g_autofree char *lat = ts_unit_format (TS_UNIT_LATENCY, c->latency / 2);
  g_autofree char *loop_bw = ts_unit_format (TS_UNIT_BANDWIDTH, c->intra_bandwidth);
  g_autofree char *loop_lat = ts_unit_format (TS_UNIT_LATENCY, c->intra_latency);
  g_autofree char *words = ts_cluster_describe (c);
  /* SimGrid's own settings; tracesim passes them on (sim/engine.c). */
  g_autofree char *config = c->bw_factors || c->lat_factors
    ? g_strdup_printf ("  <config>\n"
                       "    <prop id=\"network/model\" value=\"SMPI\"/>\n"
                       "    <prop id=\"smpi/bw-factor\" value=\"%s\"/>\n"
                       "    <prop id=\"smpi/lat-factor\" value=\"%s\"/>\n"
                       "  </config>\n", c->bw_factors ? c->bw_factors : "0:1",
                       c->lat_factors ? c->lat_factors : "0:1")
    : g_strdup ("");
  g_autofree char *topology = c->topology == TS_TOPOLOGY_FLAT
    ? g_strdup ("")
    : g_strdup_printf ("\n           topology=\"%s\" topo_parameters=\"%s\"",
                       topology_simgrid[c->topology], c->topology_parameters);
  return g_strdup_printf (
    "<?xml version='1.0'?>\n"
    "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<!-- " TS_CLUSTER_XML_MARK "\n%s-->\n"
    "<platform version=\"4.1\">\n"
    "%s"
    "  <cluster id=\"cluster\" prefix=\"node-\" suffix=\"\" radical=\"0-%u\"\n"
    "           speed=\"%s\" core=\"%u\" bw=\"%s\" lat=\"%s\" sharing_policy=\"SPLITDUPLEX\"\n"
    "           loopback_bw=\"%s\" loopback_lat=\"%s\"%s>\n"
    "%s"
    "  </cluster>\n"
    "</platform>\n",
    words, config, c->nodes - 1, speed, c->cores, bw, lat, loop_bw, loop_lat, topology,
    c->traced_network ? "    <prop id=\"" TS_CLUSTER_TRACED_NETWORK "\" value=\"yes\"/>\n" : "");
}

/* ---- describing a platform file ------------------------------------------- */

typedef struct {
  GString *out;
  guint hosts, links, zones, clusters;
  guint64 cores;
} Describe;

/* Nodes of a radical "0-63" or "0-3,8,10-11". */
static guint64
radical_count (const char *radical)
{
  guint64 n = 0;
  g_auto (GStrv) parts = g_strsplit (radical, ",", -1);
  for (guint i = 0; parts[i]; i++)
    {
      guint64 a = 0, b = 0;
      g_auto (GStrv) ends = g_strsplit (parts[i], "-", 2);
      if (!g_ascii_string_to_unsigned (g_strstrip (ends[0]), 10, 0, G_MAXUINT32, &a, NULL))
        return 0;
      b = a;
      if (ends[1] && !g_ascii_string_to_unsigned (g_strstrip (ends[1]), 10, a, G_MAXUINT32, &b, NULL))
        return 0;
      n += b - a + 1;
    }
  return n;
}

static const char *
attribute (const char **names, const char **values, const char *name)
{
  for (guint i = 0; names[i]; i++)
    if (strcmp (names[i], name) == 0)
      return values[i];
  return NULL;
}

/* A <cluster> as a TsCluster, described with the generator's own words. */
static void
describe_cluster (Describe *d, const char **names, const char **values)
{
  TsCluster c;
  ts_cluster_init (&c);
  const char *v;
  c.nodes = (guint) radical_count ((v = attribute (names, values, "radical")) ? v : "");
  if ((v = attribute (names, values, "core")))
    c.cores = parse_count (v);
  double half_latency = 0;
  struct { const char *name; TsUnitKind kind; double *into; } values_of[] = {
    { "speed", TS_UNIT_SPEED, &c.speed }, { "bw", TS_UNIT_BANDWIDTH, &c.bandwidth },
    { "lat", TS_UNIT_LATENCY, &half_latency }, { "loopback_bw", TS_UNIT_BANDWIDTH, &c.intra_bandwidth },
    { "loopback_lat", TS_UNIT_LATENCY, &c.intra_latency },
  };
  for (guint i = 0; i < G_N_ELEMENTS (values_of); i++)
    if ((v = attribute (names, values, values_of[i].name)))
      g_free (ts_unit_parse (values_of[i].kind, v, values_of[i].into));
  c.latency = 2 * half_latency;
  const char *topology = attribute (names, values, "topology");
  for (guint t = 0; topology && t < G_N_ELEMENTS (topology_simgrid); t++)
    if (strcmp (topology, topology_simgrid[t]) == 0)
      c.topology = t;
  c.topology_parameters = g_strdup (attribute (names, values, "topo_parameters"));
  g_autofree char *words = ts_cluster_describe (&c);
  g_string_append_printf (d->out, "cluster '%s': %s", (v = attribute (names, values, "id")) ? v : "",
                          words);
  d->clusters++;
  d->hosts += c.nodes;
  d->cores += (guint64) c.nodes * MAX (c.cores, 1);
  ts_cluster_clear (&c);
}

static void
on_describe_start (GMarkupParseContext *context, const char *element, const char **names,
                   const char **values, gpointer data, GError **error)
{
  Describe *d = data;
  if (strcmp (element, "cluster") == 0)
    describe_cluster (d, names, values);
  else if (strcmp (element, "host") == 0)
    {
      const char *core = attribute (names, values, "core");
      d->hosts++;
      d->cores += core && parse_count (core) ? parse_count (core) : 1;
    }
  else if (strcmp (element, "link") == 0 || strcmp (element, "backbone") == 0)
    d->links++;
  else if (strcmp (element, "zone") == 0 || strcmp (element, "AS") == 0)
    d->zones++;
}

char *
ts_cluster_describe_file (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents (path, &text, &len, error))
    return NULL;
  Describe d = { g_string_new (NULL) };
  GMarkupParser parser = { on_describe_start };
  GMarkupParseContext *context = g_markup_parse_context_new (&parser, 0, &d, NULL);
  gboolean ok = g_markup_parse_context_parse (context, text, len, error)
                && g_markup_parse_context_end_parse (context, error);
  g_markup_parse_context_free (context);
  if (!ok)
    {
      g_string_free (d.out, TRUE);
      return NULL;
    }
  g_string_append_printf (d.out, "in all: %u hosts, %" G_GUINT64_FORMAT " cores", d.hosts, d.cores);
  if (d.links || d.zones)
    g_string_append_printf (d.out, ", %u links and %u zones written out", d.links, d.zones);
  g_string_append (d.out, "\n");
  return g_string_free (d.out, FALSE);
}
