/* Setting a GError and returning FALSE in one statement, for the parsers
 * whose every refusal is "set the error, give up". */
#ifndef TS_FAIL_H
#define TS_FAIL_H

#include <glib.h>

G_BEGIN_DECLS

/* Set @error (@domain, @code, a printf-style message) and return FALSE. */
gboolean ts_fail (GError **error, GQuark domain, gint code, const char *format, ...)
  G_GNUC_PRINTF (4, 5);

G_END_DECLS

#endif
