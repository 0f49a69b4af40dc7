#include <config.h>

#include "model/key-line.h"

#include <string.h>

const char *
ts_key_line_header_end (const char *s)
{
  g_return_val_if_fail (s != NULL, NULL);
  for (const char *c = strchr (s, ']'); c; c = strchr (c + 1, ']'))
    {
      const char *rest = c + 1;
      while (g_ascii_isspace (*rest))
        rest++;
      if (*rest == '\0' || *rest == '#')
        return c;
    }
  return NULL;
}

char *
ts_key_line_strip_comment (char *line)
{
  g_return_val_if_fail (line != NULL, NULL);
  char *s = g_strstrip (line);
  if (*s == '#')
    *s = '\0';
  else if (*s == '[')
    {
      const char *close = ts_key_line_header_end (s);
      if (close)
        s[close - s + 1] = '\0';
    }
  else
    {
      /* Quotes protect a '#' (a parameter's value may hold one); a '#'
       * glued to a word is the word's (a#b). */
      gboolean quoted = FALSE;
      for (char *c = s; *c; c++)
        if (*c == '"')
          quoted = !quoted;
        else if (*c == '#' && !quoted && c > s && g_ascii_isspace (c[-1]))
          {
            *c = '\0';
            break;
          }
    }
  return g_strchomp (s);
}

char *
ts_key_text_uncomment (const char *text)
{
  g_return_val_if_fail (text != NULL, NULL);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  GString *out = g_string_sized_new (strlen (text) + 1);
  for (guint i = 0; lines[i]; i++)
    g_string_append_printf (out, "%s%s", i ? "\n" : "", ts_key_line_strip_comment (lines[i]));
  return g_string_free (out, FALSE);
}

gboolean
ts_key_file_load_commented (GKeyFile *kf, const char *text, gssize len, GError **error)
{
  g_autofree char *whole = g_strndup (text, len < 0 ? strlen (text) : (gsize) len);
  g_autofree char *bare = ts_key_text_uncomment (whole);
  return g_key_file_load_from_data (kf, bare, -1, G_KEY_FILE_NONE, error);
}
