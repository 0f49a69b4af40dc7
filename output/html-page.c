#include <config.h>

/* What every page of the report shares: its head and style, its figures'
 * frames, the zoom script, and reading the outputs' JSON leniently. */
#include "output/html-report-private.h"
#include "output/figures.h"
#include "model/output_dir.h"

#include <math.h>
#include <string.h>

double
ts_page_member_double (JsonObject *o, const char *member)
{
  JsonNode *n = o ? json_object_get_member (o, member) : NULL;
  GType type = n && JSON_NODE_HOLDS_VALUE (n) ? json_node_get_value_type (n) : G_TYPE_INVALID;
  return type == G_TYPE_DOUBLE || type == G_TYPE_INT64 ? json_node_get_double (n) : NAN;
}

JsonObject *
ts_page_object (JsonObject *o, const char *member)
{
  JsonNode *n = o ? json_object_get_member (o, member) : NULL;
  return n && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

JsonArray *
ts_page_array (JsonObject *o, const char *member)
{
  JsonNode *n = o ? json_object_get_member (o, member) : NULL;
  return n && JSON_NODE_HOLDS_ARRAY (n) ? json_node_get_array (n) : NULL;
}

const char *
ts_page_string (JsonObject *o, const char *member)
{
  JsonNode *n = o ? json_object_get_member (o, member) : NULL;
  return n && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING
           ? json_node_get_string (n) : NULL;
}

JsonObject *
ts_page_element (JsonArray *a, guint i)
{
  JsonNode *n = a && i < json_array_get_length (a) ? json_array_get_element (a, i) : NULL;
  return n && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
}

void
ts_page_open (GString *s, const char *title)
{
  g_string_append (s, "<!DOCTYPE html>\n<!-- " TS_WRITTEN_MARK " report: one file, nothing to "
                      "fetch -->\n<html><head><meta charset=\"utf-8\"><title>");
  ts_figure_append_text (s, title);
  g_string_append (s, "</title><style>\n"
                      "body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1100px}\n"
                      "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}\n"
                      "table{border-collapse:collapse;font-size:.85em}td,th{border:1px solid #ccc;"
                      "padding:2px 6px;text-align:right}th{background:#f0f0f0}\n"
                      ".legend span{display:inline-block;margin:2px 10px 2px 0;font-size:.8em}\n"
                      ".legend svg{vertical-align:middle;margin-right:3px}\n"
                      ".note{color:#8a4b00}.figures{display:flex;flex-wrap:wrap;gap:16px}figure{margin:0}\n"
                      ".story{font-size:1.15em;background:#f4f4f4;padding:.5em .8em;border-left:4px solid #dd2222}\n"
                      ".story-key{font-size:.8em;color:#555;margin-top:-.6em}\n"
                      ".rules pre{background:#fafafa;border:1px solid #ddd;padding:.4em .8em;margin:.3em 0;"
                      "font-size:.85em;white-space:pre-wrap}\n"
                      "svg.timelines{cursor:crosshair;user-select:none}\n"
                      "</style></head><body>\n");
  ts_figure_wait_defs (s);
}

void
ts_page_close (GString *s)
{
  g_string_append (s, "</body></html>\n");
}

/* A figure of the page: its SVG, and its PNG twin report-NAME.png
 * (ts_html_report_figures). */
void
ts_page_figure_open (GString *s, const char *name)
{
  g_string_append_printf (s, "<figure id=\"fig-%s\">", name);
}

void
ts_page_figure_close (GString *s)
{
  g_string_append (s, "</figure>\n");
}


char *
ts_page_input_path (const char *dir, const char *named)
{
  if (g_path_is_absolute (named) || g_file_test (named, G_FILE_TEST_IS_REGULAR))
    return g_strdup (named);
  /* "out/" is "out": its parent is the directory above. */
  g_autofree char *bare = g_strdup (dir);
  for (gsize n = strlen (bare); n > 1 && bare[n - 1] == '/'; n--)
    bare[n - 1] = '\0';
  g_autofree char *parent = g_path_get_dirname (bare);
  return g_build_filename (parent, named, NULL);
}

/* Drag across the timelines: their plots' viewBox narrows to the columns
 * dragged over, and the axis is drawn again for that window (times as
 * model/format.h prints them); double-click: the whole span again. The
 * columns stay those of the whole run, stretched: `tracesim report --from
 * --to` draws a window at full resolution. */
void
ts_page_zoom_script (GString *s)
{
  g_string_append (s,
    "<script>\n(function () {\n"
    "var f = document.querySelector('svg.timelines'); if (!f) return;\n"
    "var L = +f.dataset.left, W = +f.dataset.width, F = +f.dataset.from, S = +f.dataset.span;\n"
    "var NS = 'http://www.w3.org/2000/svg', v = [0, W], down = null;\n"
    /* As ts_format_seconds (model/format.c): whole seconds from 1000 s,
     * "0 s" below half a ns. */
    "function fmt(t) { var u = ['ns', 'us', 'ms', 's'], i = 3, a = Math.abs(t);\n"
    "  if (a < 0.5e-9) return '0 s'; if (a < 1e-9) return (t < 0 ? '-' : '') + '1 ns';\n"
    "  if (a >= 999.5) return Math.round(t) + ' s';\n"
    "  while (a < 1 && i > 0) { a *= 1000; i--; }\n"
    "  var d = +a.toPrecision(3); if (d >= 1000 && i < 3) { d = +(a / 1000).toPrecision(3); i++; }\n"
    "  return (t < 0 ? '-' : '') + d + ' ' + u[i]; }\n"
    "function axis() { var g = f.querySelector('g.axis'), y = +g.dataset.y;\n"
    "  var t0 = F + v[0] / W * S, span = (v[1] - v[0]) / W * S, raw = span / 8;\n"
    "  var p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;\n"
    "  var step = (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p, h = '<line x1=\"' + L + '\" y1=\"' + y\n"
    "    + '\" x2=\"' + (L + W) + '\" y2=\"' + y + '\" stroke=\"#444\"/>';\n"
    "  for (var k = Math.ceil(t0 / step - 1e-9); k * step <= (t0 + span) * (1 + 1e-9); k++) {\n"
    "    var x = (L + (k * step - t0) / span * W).toFixed(1);\n"
    "    h += '<line x1=\"' + x + '\" y1=\"' + y + '\" x2=\"' + x + '\" y2=\"' + (y + 4) + '\" stroke=\"#444\"/>'\n"
    "      + '<text x=\"' + x + '\" y=\"' + (y + 16) + '\" text-anchor=\"middle\">' + fmt(k * step) + '</text>'; }\n"
    "  g.innerHTML = h;\n"
    "  f.querySelectorAll('svg.plot').forEach(function (p) { var b = p.viewBox.baseVal;\n"
    "    p.setAttribute('viewBox', (L + v[0]) + ' ' + b.y + ' ' + (v[1] - v[0]) + ' ' + b.height); });\n"
    "  var w = document.getElementById('window'); if (w) w.textContent = fmt(t0) + ' to ' + fmt(t0 + span); }\n"
    "function col(e) { var r = f.getBoundingClientRect();\n"
    "  var c = (e.clientX - r.left) * f.width.baseVal.value / r.width - L;\n"
    "  return v[0] + Math.min(Math.max(c, 0), W) / W * (v[1] - v[0]); }\n"
    "f.addEventListener('mousedown', function (e) { down = col(e); e.preventDefault(); });\n"
    "f.addEventListener('mouseup', function (e) { if (down === null) return; var c = col(e);\n"
    "  if (Math.abs(c - down) * W / (v[1] - v[0]) > 3) { v = [Math.min(c, down), Math.max(c, down)]; axis(); }\n"
    "  down = null; });\n"
    "f.addEventListener('dblclick', function () { v = [0, W]; axis(); });\n"
    "var z = location.hash.match(/^#zoom=([0-9.]+),([0-9.]+)$/);\n"
    "if (z && +z[2] > +z[1]) { v = [Math.max(0, (+z[1] - F) / S * W), Math.min(W, (+z[2] - F) / S * W)]; axis(); }\n"
    "})();\n</script>\n");
}
