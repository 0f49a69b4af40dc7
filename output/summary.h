/* summary.json: a run's result and the inputs that produced it, written
 * with json-glib (so any region name or path is escaped as JSON requires).
 * doc/architecture.md lists the keys. */
#ifndef TS_SUMMARY_H
#define TS_SUMMARY_H

#include <glib.h>
#include <json-glib/json-glib.h>
#include "output/result.h"

G_BEGIN_DECLS

/* The summary as a JSON object. Caller frees with json_node_unref(). */
JsonNode *ts_summary_to_json (const TsRunResult *result);
/* Write it to @path (pretty-printed, replacing the file atomically).
 * Returns FALSE and sets @error naming @path on failure. */
gboolean ts_summary_write (const TsRunResult *result, const char *path, GError **error);

/* Add the run's "matching" object (guessed_receives, taken_as_arrived,
 * revisions, buffered_pairs: what the replay guessed and revised). */
void ts_summary_add_matching (JsonBuilder *b, const TsRunResult *result);
/* Add @v under @name, or null where @v is not finite (JSON has no inf/nan). */
void ts_json_add_double (JsonBuilder *b, const char *name, double v);
/* @root as pretty-printed text (caller frees). */
char *ts_json_to_text (JsonNode *root);
/* Write @root to @path pretty-printed. */
gboolean ts_json_write_file (JsonNode *root, const char *path, GError **error);

G_END_DECLS

#endif
