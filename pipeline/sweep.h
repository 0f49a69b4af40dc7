/* `tracesim sweep`: many predictions from one trace, one table out
 * (doc/sweeps.md).
 *
 * A sweep file is a key file:
 *   [sweep]
 *   trace = app/traces.otf2          paths relative to the sweep file
 *   extrapolate = a.otf2, b.otf2     instead of trace: each point's trace is
 *                                    extrapolated from these to its value of
 *                                    the parameter ranks (boundaries =
 *                                    periodic | open as extrapolate's option)
 *   hypothesis = solver.hyp.in       a template (${name} filled per point), a
 *                                    ready file, or a list of ready files
 *   platform = cluster.ini.in        the same: a [cluster] key file template
 *                                    (tracesim platform --config), a SimGrid
 *                                    XML file, or a list of XML files
 *   zip = false                      true: pair the parameters' values
 *   labels = region, change          parameters that only name points (their
 *                                    values are columns of the table)
 *   baseline = 0                     the point others are compared with:
 *                                    the table gains saving_s
 *   wait_states = false              points find no wait states (as run
 *                                    --no-wait-states); default true
 *   archive = false                  points write no predicted archive
 *                                    (only with wait_states = false, which
 *                                    are found in it); default true
 *   cpu_time = true                  compute from the trace's CPU time (run
 *                                    --cpu-time), or from the inputs' with
 *                                    extrapolate (extrapolate --cpu-time);
 *                                    false: the wall time; default: as run
 *                                    chooses (TS_CPU_TIME_AUTO; the wall
 *                                    time for extrapolate)
 *   [parameters]
 *   factor = 0.25, 0.5, 1.0          a list, START:STOP:STEP or START:STOP:*F
 *   ranks_per_node = 1, 4            named like a run option: passed to it
 * A list of ready files is a parameter of its own, named hypothesis or
 * platform. Every error names the file and the line. */
#ifndef TS_SWEEP_H
#define TS_SWEEP_H

#include <glib.h>
#include "pipeline/run.h"
#include "extrap/extrapolate.h"

/* The most ranks a sweep extrapolates to. */
#define TS_SWEEP_MAX_RANKS 1000000

G_BEGIN_DECLS

typedef struct TsSweep TsSweep;

TsSweep *ts_sweep_load (const char *path, GError **error);
void ts_sweep_free (TsSweep *sweep);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsSweep, ts_sweep_free)

/* The points' trace; NULL when each point's trace is extrapolated
 * ([sweep] extrapolate = A, B, C: from those traces, to the point's value
 * of the parameter ranks, ts_sweep_point_ranks; boundaries, grid_order,
 * all_to_all and recursive_doubling as `extrapolate --boundaries`,
 * `--grid-order`, `--all-to-all` and `--recursive-doubling`). */
const char *ts_sweep_trace (const TsSweep *sweep);
const char *const *ts_sweep_extrapolation_inputs (const TsSweep *sweep);
TsBoundaries ts_sweep_boundaries (const TsSweep *sweep);
TsGridOrder ts_sweep_grid_order (const TsSweep *sweep);
gboolean ts_sweep_all_to_all (const TsSweep *sweep);
gboolean ts_sweep_recursive_doubling (const TsSweep *sweep);
/* [sweep] cpu_time; TS_CPU_TIME_AUTO where the file does not say. */
TsCpuTime ts_sweep_cpu_time (const TsSweep *sweep);
guint ts_sweep_point_ranks (const TsSweep *sweep, guint point);
/* The point given as baseline, or G_MAXUINT. */
guint ts_sweep_baseline (const TsSweep *sweep);
/* Whether the points find wait states ([sweep] wait_states). */
gboolean ts_sweep_wait_states (const TsSweep *sweep);
guint ts_sweep_n_points (const TsSweep *sweep);
guint ts_sweep_n_parameters (const TsSweep *sweep);
const char *ts_sweep_parameter (const TsSweep *sweep, guint parameter);
const char *ts_sweep_value (const TsSweep *sweep, guint point, guint parameter);

/* The length of a point's name. */
#define TS_SWEEP_NAME_LENGTH 16

/* Point @point's name: its directory OUT/points/NAME/ and its inputs'
 * OUT/inputs/NAME/. The first TS_SWEEP_NAME_LENGTH hex digits of a
 * SHA-256 of its parameters' names and values, sorted by name: a point is
 * its values, so that a sweep grown by a value, or with its parameters in
 * another order, finds its points done where they were. A list's files
 * count as the sweep file writes them (relative to it), not as resolved
 * from the path the sweep file was given by. Caller frees. */
char *ts_sweep_point_name (const TsSweep *sweep, guint point);
/* Point @point's values for a person: "factor=0.5 placement=block" (the
 * parameters in the file's order). Caller frees. */
char *ts_sweep_point_label (const TsSweep *sweep, guint point);

/* The inputs of point @point written into @dir (its hypothesis and platform
 * files, as a separate `tracesim run` would take them; with @dir NULL,
 * nothing is written: a dry run) and its run options in @o (strings it
 * points to belong to @keep, freed by the caller).
 * Fills @key with what identifies the point's inputs (a SHA-256 of the
 * trace, the parameters sorted by name, the templates filled, the files of
 * lists and what the points compute; paths as the sweep file writes them,
 * so that the sweep file given by another path has the same keys): a
 * point whose key is unchanged need
 * not run again. @legacy_key, if not NULL, gets the key the same inputs
 * had when points were named by their index (the parameters in the file's
 * order), to carry such points over. Both are the caller's to free. */
gboolean ts_sweep_point_options (const TsSweep *sweep, guint point, const char *dir,
                                 TsRunOptions *o, GPtrArray *keep, char **key, char **legacy_key,
                                 GError **error);

G_END_DECLS

#endif
