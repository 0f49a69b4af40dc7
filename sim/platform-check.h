/* A user's SimGrid platform file, checked before SimGrid sees it: SimGrid
 * aborts, or simulates nonsense, on values it accepts (bandwidth 0, a
 * negative latency, a unitless number), and reports XML errors without a
 * column. This check reads the file with GMarkup and says what is wrong with
 * file, line and column. What only the loaded platform tells (routes between
 * hosts) is checked by ts_platform_check_loaded(), in a child process. */
#ifndef TS_PLATFORM_CHECK_H
#define TS_PLATFORM_CHECK_H

#include <glib.h>

G_BEGIN_DECLS

/* Well-formed XML with a <platform> root, no DTD internal subset, no
 * <include>; every speed, bandwidth and latency attribute a finite number
 * with a unit, speeds and bandwidths positive, latencies not negative. */
gboolean ts_platform_check_file (const char *path, GError **error);

/* The platform file's own settings (<config><prop id=... value=.../>) as
 * "ID:VALUE" items, NULL-terminated (caller frees with g_strfreev); none when
 * the file cannot be read. tracesim passes them to SimGrid after its own
 * defaults, so that a platform asking for SMPI's network model and factors
 * gets them. */
char **ts_platform_config_items (const char *path);

/* After SimGrid loaded the platform: every host's speed and every link's
 * bandwidth and latency usable, and a route between every two hosts (all
 * pairs up to 64 hosts; beyond, from the first host to every other and
 * back). On a missing route SimGrid itself aborts, naming the two hosts.
 * Returns a message (caller frees) or NULL. */
char *ts_platform_check_loaded (void);
/* Written on stderr before each route is looked up, followed by "'A' to
 * host 'B'". */
#define TS_PLATFORM_ROUTE_MARK "[tracesim: route] from host "

G_END_DECLS

#endif
