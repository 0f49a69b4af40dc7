#include <config.h>

#include "model/fail.h"

gboolean
ts_fail (GError **error, GQuark domain, gint code, const char *format, ...)
{
  va_list args;
  va_start (args, format);
  g_autofree char *message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error_literal (error, domain, code, message);
  return FALSE;
}
