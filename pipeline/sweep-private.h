/* What pipeline/sweep.c (loading a sweep file) and pipeline/sweep-point.c
 * (a point's inputs, options and key) share: the sweep's fields, and a
 * few helpers. Not for use outside pipeline/sweep*.c. */
#ifndef TS_SWEEP_PRIVATE_H
#define TS_SWEEP_PRIVATE_H

#include "pipeline/sweep.h"

typedef enum { INPUT_NONE, INPUT_FILE, INPUT_TEMPLATE, INPUT_LIST } InputKind;

/* The hypothesis or the platform of the points. */
typedef struct {
  InputKind kind;
  char *path;     /* FILE, TEMPLATE: resolved */
  char *text;     /* FILE, TEMPLATE: its content */
} Input;

struct TsSweep {
  char *path, *dir, *trace;
  /* [sweep] extrapolate: the traces each value of the ranks parameter is
   * extrapolated from (then trace is NULL), and --boundaries. */
  char **inputs;
  TsBoundaries boundaries;
  TsGridOrder grid_order;  /* [sweep] grid_order: `extrapolate --grid-order` */
  gboolean all_to_all;  /* [sweep] all_to_all: `extrapolate --all-to-all` */
  gboolean recursive_doubling;  /* [sweep] recursive_doubling: `--recursive-doubling` */
  Input hypothesis, platform;
  gboolean zip;
  char **labels;      /* parameters that only name points; NULL-terminated */
  guint baseline;     /* the point others are compared with; G_MAXUINT: none */
  /* What each point computes besides its runtime ([sweep] wait_states,
   * archive): a sweep that wants numbers only skips both. */
  gboolean wait_states, archive;
  /* [sweep] cpu_time: compute from the trace's CPU time (run --cpu-time),
   * or the inputs' (extrapolate --cpu-time); AUTO where the file is silent. */
  TsCpuTime cpu_time;
  GPtrArray *names;   /* char*: parameters in the file's order, lists of files included */
  GPtrArray *values;  /* GStrv per parameter */
  guint n_points;
  /* A resolved path -> the path as the file writes it: what names and keys
   * hold, so that they do not depend on how the sweep file was named. */
  GHashTable *as_written;
};

/* @path (resolved) as the sweep file writes it, for names and keys. */
const char *ts_sweep_as_written (const TsSweep *s, const char *path);
/* Whether parameter @name is a `run` option ('-' may stand for '_'), and
 * setting it in @o from @value. */
gboolean ts_sweep_is_run_option (const char *name);
gboolean ts_sweep_set_option (TsRunOptions *o, const char *name, const char *value,
                              GError **error);
/* Parameter @i's value at @point as names and keys hold it. */
const char *ts_sweep_key_value (const TsSweep *s, guint point, guint i);

#endif
