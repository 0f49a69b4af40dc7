/* The lines of the key files tracesim's users write (hypothesis files,
 * sweep files): GLib's key-file syntax, whose comments are whole lines,
 * plus a comment at the end of a line, as the docs' examples write them
 * (`scale = 0.5   # 2x faster`). One rule for every such file:
 *
 * - in a `key = value` line, a '#' after blank space (a space or a tab)
 *   starts a comment, except inside double quotes: `a#b` and `"a  #b"`
 *   keep their '#';
 * - a section header ends at the first ']' after which only blank space
 *   or such a comment follows (a name may hold ']' or '#').
 *
 * The functions work on one line, in place; GKeyFile then reads what is
 * left (doc/hypotheses.md, doc/sweeps.md). */
#ifndef TS_KEY_LINE_H
#define TS_KEY_LINE_H

#include <glib.h>

G_BEGIN_DECLS

/* In @line, which starts with '[', the ']' that closes the section name,
 * or NULL when none does (points into @line). */
const char *ts_key_line_header_end (const char *line);

/* Cut @line (one line, no '\n') before its end-of-line comment and strip
 * blank space at both ends, in place: "[a] # x" gives "[a]", "k = v # x"
 * "k = v", "# x" and "  " give "". A header without its ']' is left whole
 * for its parser to refuse. Returns @line (moved past leading blanks). */
char *ts_key_line_strip_comment (char *line);

/* @text without its comments, line for line (every line keeps its
 * number, for GKeyFile's "on line N"). Caller frees. */
char *ts_key_text_uncomment (const char *text);

/* Load @kf from @text (length @len, or -1), its comments gone by the rule
 * above: what GKeyFile alone would read as part of a value. */
gboolean ts_key_file_load_commented (GKeyFile *kf, const char *text, gssize len, GError **error);

G_END_DECLS

#endif
