/* The values a sweep's parameter takes, and the templates they fill
 * (doc/sweeps.md).
 *
 * A parameter is written as a list ("0.25, 0.5, 1.0"; a value holding a
 * comma in double quotes: ib-hdr, "10GBps,1us"), a range with a step
 * ("16:64:16": 16 32 48 64), or a range with a factor ("1:64:*2": 1 2 4 ...
 * 64); ranges include their end when a step lands on it. Points combine
 * the parameters as a Cartesian product (the first parameter varies
 * slowest), or element by element when zipped. A template holds ${name}
 * where a parameter's value goes. */
#ifndef TS_SWEEP_VALUES_H
#define TS_SWEEP_VALUES_H

#include <glib.h>

G_BEGIN_DECLS

/* At most this many values a parameter, and points a sweep. */
#define TS_SWEEP_MAX_VALUES 10000
#define TS_SWEEP_MAX_POINTS 100000

/* The values of @text, as strings (NULL-terminated; caller frees), or NULL
 * and @error (G_KEY_FILE_ERROR_INVALID_VALUE) saying what is wrong. */
char **ts_sweep_values_parse (const char *text, GError **error);

/* Which value of each parameter point @point takes: @n_values[i] values of
 * parameter i, @n parameters; product or zip. Fills @index (n entries).
 * Returns the number of points when @point is G_MAXUINT (then @index is not
 * touched), 0 when zipped lists differ in length or the product is too
 * large. */
guint ts_sweep_point (const guint *n_values, guint n, gboolean zip, guint point, guint *index);

/* @text with every ${name} replaced by @values[i] where @names[i] is name
 * (both NULL-terminated, the same length). A name not among @names is an
 * error naming @origin and the line of the template (G_KEY_FILE_ERROR_NOT_FOUND);
 * "$$" is a literal '$'. */
char *ts_sweep_fill (const char *text, const char *origin, const char *const *names,
                     const char *const *values, GError **error);

/* The ${name} references of @text not among @names, each once, with the
 * line of its first use ("name:line"); NULL-terminated, empty when all are
 * known. For checking templates before any point runs. */
char **ts_sweep_unknown_references (const char *text, const char *const *names);

G_END_DECLS

#endif
