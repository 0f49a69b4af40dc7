/* CSV as RFC 4180 writes it: a field holding a comma, a double quote, CR
 * or LF is quoted, its double quotes doubled; other fields go as they are
 * (so names without those characters read the same as before quoting). */
#ifndef TS_CSV_H
#define TS_CSV_H

#include <glib.h>
#include <json-glib/json-glib.h>
#include "analysis/waitstates.h"
#include "model/trace.h"

G_BEGIN_DECLS

/* Append @field to @csv, quoted where needed. */
void ts_csv_append_field (GString *csv, const char *field);

/* waitstates.csv: the header line. Its first column says which execution
 * a row is of, "original" (as traced) or "predicted": called timeline, not
 * phase, which in hypotheses and advise is a compute burst. */
#define TS_WAIT_STATES_CSV_HEADER "timeline,pattern,region,rank,seconds\n"
/* Append a row (timeline,pattern,region,rank,seconds) per non-zero cell of
 * @w, @timeline first ("original" or "predicted"), regions named as in
 * @trace. */
void ts_csv_append_wait_states (GString *csv, const char *timeline, const TsTrace *trace,
                                const TsWaitStates *w);

/* Append to @rows one object per row ts_csv_append_wait_states() writes,
 * the CSV's columns as its members: timeline, pattern and region strings,
 * rank and seconds numbers (seconds rounded to the ns as in the CSV, so
 * that both hold the same values). */
void ts_csv_wait_states_to_json (JsonArray *rows, const char *timeline, const TsTrace *trace,
                                 const TsWaitStates *w);

G_END_DECLS

#endif
