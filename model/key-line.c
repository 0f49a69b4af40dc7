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
