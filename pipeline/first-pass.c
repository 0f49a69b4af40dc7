#include <config.h>

/* The first pass of a trace (definitions, calibration, original wait
 * states), made once per process or kept in a file for many.
 *
 * The file (a sweep's OUT/inputs/first-pass.cache):
 *   "TSFIRST1"                      8 bytes
 *   the spooled actions             (ts_spool_export)
 *   a GVariant a{sv}                key, calibration, wait states
 *   trailer                         "TSFPEND1", u64 variant offset, u64 variant
 *                                   size, CRC-32 of everything before it
 * in the byte order of the machine that wrote it, which the key names. The
 * key says which trace files, as they were (size, modification time), and
 * which tracesim wrote it; anything else is a cache of something else and
 * is computed again. The checksum makes a damaged file one too, never a
 * crash: the spooled actions are replayed as they are read. It is zlib's
 * CRC-32, made for finding accidental damage: 3.5 GB/s here, where GLib's
 * SHA-256 took 0.74 s for a 164 MB cache, 40% of what the cache saved. */
#define G_LOG_DOMAIN "ts-run"

#include "pipeline/run-private.h"
#include "model/action.h"
#include "model/fail.h"
#include "model/fd-io.h"
#include "model/node-load.h"
#include "model/output_dir.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define HEAD_MAGIC "TSFIRST1"
#define TRAILER_MAGIC "TSFPEND1"
#define DIGEST_LEN 4
#define TRAILER_LEN (8 + 8 + 8 + DIGEST_LEN)
/* The variant (everything but the actions) is small: a few arrays per rank
 * and per region. More than this is not a file tracesim wrote. */
#define MAX_VARIANT (1u << 30)

gboolean
ts_run_cpu_time_chosen (const TsTrace *trace)
{
  /* Not with threads: their work is the wall time of their teams' phases
   * (doc/threads.md), which CPU time on the ranks' own would not match. */
  return ts_trace_time_shared (trace) && ts_trace_has_cpu_time (trace)
         && ts_trace_n_threads (trace) == ts_trace_n_ranks (trace);
}

/* Whether @trace names an MPI library that polls while it waits (MPICH
 * and those built on it, by default): what calls_fair_share() measures
 * where the CPU time is recorded, known here only from the name. */
static gboolean
library_polls (const TsTrace *trace)
{
  g_autofree char *name = g_ascii_strdown (ts_trace_mpi_library (trace), -1);
  return strstr (name, "mpich") != NULL;
}

gboolean
ts_run_load_estimate_chosen (const TsTrace *trace)
{
  /* Threads' work is their teams' phases' wall time (as above); a
   * polling library's sharing is in time slices, which the estimate (and
   * the replay) does not model (polled() below); a node whose cores the
   * trace does not give has no load to estimate (estimate_load). */
  return ts_trace_time_shared (trace) && !ts_trace_has_cpu_time (trace)
         && ts_trace_n_threads (trace) == ts_trace_n_ranks (trace) && !library_polls (trace)
         && ts_trace_cores_known (trace);
}

/* TS_COMPUTE_LOAD on @trace: a first pass in wall time gives the clock
 * offsets and each rank's compute, whose spans make the nodes' load
 * (model/node-load.h); later passes take their bursts' CPU time from it. */
static gboolean
estimate_load (TsTrace *trace, GError **error)
{
  if (ts_trace_n_nodes (trace) == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "%s: the trace names no node its ranks ran on, so their load cannot be "
                   "estimated", ts_trace_path (trace));
      return FALSE;
    }
  if (ts_trace_n_threads (trace) > ts_trace_n_ranks (trace))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "%s: the trace has threads besides its ranks, whose load is not estimated "
                   "(their work is their teams' phases, doc/threads.md)", ts_trace_path (trace));
      return FALSE;
    }
  guint n = ts_trace_n_ranks (trace), nodes = ts_trace_n_nodes (trace);
  g_autofree guint32 *cores = g_new (guint32, nodes);
  for (guint i = 0; i < nodes; i++)
    if (!(cores[i] = ts_trace_node_cores (trace, i)))
      {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     "%s: the trace does not say how many cores node %s had, so the load of its "
                     "ranks cannot be estimated", ts_trace_path (trace), ts_trace_node_name (trace, i));
        return FALSE;
      }
  g_autoptr (TsCalibration) wall = ts_calibration_compute (trace, error);
  g_autoptr (TsActionStream) stream = wall ? ts_calibration_stream_open (wall, trace, error) : NULL;
  if (!stream)
    return FALSE;
  g_autofree guint *rank_node = g_new (guint, n);
  g_autofree double *offset = g_new (double, n);
  for (guint r = 0; r < n; r++)
    {
      rank_node[r] = ts_trace_rank_node (trace, r);
      offset[r] = ts_calibration_clock_offset (wall, r);
    }
  TsNodeLoad *load = ts_node_load_new (n, nodes, rank_node, cores, offset);
  GError *failed = NULL;
  TsAction a;
  /* Ranks waiting in MPI calls are taken to leave their core (weight 0):
   * with a weight for them, bench/apps at 4 ranks on 2 cores drifted
   * 8-38% from its identity, and no recording without CPU time says how
   * much a wait polled (doc/architecture.md). */
  for (guint r = 0; r < n && !failed; r++)
    while (ts_action_stream_next (stream, r, &a, &failed))
      if (a.kind == TS_ACTION_COMPUTE)
        ts_node_load_busy (load, r, a.time, a.time + a.seconds, 1);
  if (failed)
    {
      g_propagate_error (error, failed);
      ts_node_load_free (load);
      return FALSE;
    }
  ts_node_load_finish (load);
  ts_trace_set_node_load (trace, load);
  return TRUE;
}

/* Open @path and set its compute clock as @cpu_time says: into *@on
 * whether compute is CPU time, into *@estimated whether it is estimated
 * from the load; NULL and @error if either fails. */
static TsTrace *
open_with_clock (const char *path, TsCpuTime cpu_time, gboolean *on, gboolean *estimated,
                 GError **error)
{
  TsTrace *trace = ts_trace_open (path, error);
  if (!trace)
    return NULL;
  *estimated = cpu_time == TS_CPU_TIME_LOAD
               || (cpu_time == TS_CPU_TIME_AUTO && ts_run_load_estimate_chosen (trace));
  *on = *estimated || (cpu_time == TS_CPU_TIME_AUTO ? ts_run_cpu_time_chosen (trace)
                                                    : cpu_time == TS_CPU_TIME_ON);
  if (*estimated ? !estimate_load (trace, error)
                 : *on && !ts_trace_set_compute_clock (trace, TS_COMPUTE_CPU, error))
    g_clear_pointer (&trace, ts_trace_free);
  return trace;
}

/* How much of their fair share of their nodes' cores @trace's MPI calls
 * took (CPU over wall time, over min(1, cores / ranks of the node)), as the
 * CPU time of the first pass @p gives them; NAN where it gives none. A
 * library that polls while it waits (MPICH's default) takes all of it:
 * 0.99-1.0 on the NPB, HPCG and LULESH recordings of MPICH at 4 to 64
 * ranks on 2 cores; Open MPI yields when it knows the node is
 * oversubscribed: 0.3-0.5 on bench/apps at 4 ranks on 2 cores. */
static double
calls_fair_share (const TsTrace *trace, const TsCalibration *p)
{
  guint n = ts_trace_n_ranks (trace), nodes = ts_trace_n_nodes (trace);
  if (nodes == 0)
    return NAN;
  g_autofree guint *ranks = g_new0 (guint, nodes);
  for (guint r = 0; r < n; r++)
    ranks[ts_trace_rank_node (trace, r)]++;
  double cpu = 0, fair = 0;
  for (guint r = 0; r < n; r++)
    {
      guint node = ts_trace_rank_node (trace, r);
      double wall = 0, c = ts_calibration_calls_cpu (p, r, &wall);
      guint cores = ts_trace_node_cores (trace, node);
      cpu += c;
      fair += wall * (cores && cores < ranks[node] ? (double) cores / ranks[node] : 1.0);
    }
  return fair > 0 ? cpu / fair : NAN;
}

/* Whether @trace's compute between two MPI calls is, on average, shorter
 * than a time slice of Linux's scheduler on its nodes (CFS gives a
 * runnable task at least 0.75 ms x (1 + log2 min(cores, 8)): its
 * sysctl_sched_min_granularity, scaled as sched_init_granularity does). */
static gboolean
finer_than_a_slice (const TsTrace *trace, const TsCalibration *p)
{
  guint cores = 1;
  for (guint i = 0; i < ts_trace_n_nodes (trace); i++)
    cores = MAX (cores, ts_trace_node_cores (trace, i));
  /* The wall time outside MPI calls (compute, stretched by the sharing),
   * over the calls. */
  double compute = 0, calls = 0;
  for (guint r = 0; r < ts_trace_n_ranks (trace); r++)
    {
      const TsDecodeStats *st = ts_calibration_rank_stats (p, r);
      if (st->last_time <= st->first_time)
        continue;
      compute += st->last_time - st->first_time;
      for (guint k = 0; k < 3; k++)
        {
          calls += (double) st->calls[k];
          compute -= st->call_seconds[k];
        }
    }
  double slice = 0.75e-3 * (1 + floor (log2 (MIN (cores, 8))));
  g_debug ("compute between MPI calls: %g s over %g calls, a slice %g s", compute, calls, slice);
  return calls > 0 && compute / calls < slice;
}

/* Whether a first pass run chose the CPU time for by itself finds the
 * MPI calls polling (calls_fair_share) between bursts shorter than a time
 * slice: then the recording's time went to waiting for slices (a rank
 * whose message came runs once the scheduler gives it its turn, after
 * the running ones' slices), which SimGrid's fluid sharing of a core does
 * not model; the MPICH recordings of NPB, HPCG and LULESH on 2 cores
 * replayed -37% to -99.6% short or +61% to +531% long in CPU time
 * (doc/architecture.md, "Polling on shared cores"), so run takes the
 * wall time instead, and says why. With
 * bursts longer than slices the sharing is fluid enough, polling or not
 * (tests/test-shared-cores.sh). */
static gboolean
polled (const TsRunShared *s, TsCpuTime asked)
{
  return asked == TS_CPU_TIME_AUTO && s->cpu_time && !s->cpu_estimated
         && s->calls_fair_share >= TS_RUN_POLLED_SHARE
         && finer_than_a_slice (s->trace, s->calibration);
}

TsRunShared *
ts_run_shared_new (const char *trace, gboolean wait_states, TsCpuTime cpu_time, GError **error)
{
  TsRunShared *s = g_new0 (TsRunShared, 1);
  if (!(s->trace = open_with_clock (trace, cpu_time, &s->cpu_time, &s->cpu_estimated, error))
      || !(s->calibration = ts_calibration_compute (s->trace, error)))
    {
      ts_run_shared_free (s);
      return NULL;
    }
  s->calls_fair_share = s->cpu_time && !s->cpu_estimated ? calls_fair_share (s->trace, s->calibration) : NAN;
  if (polled (s, cpu_time))
    {
      double share = s->calls_fair_share;
      ts_run_shared_free (s);
      s = ts_run_shared_new (trace, wait_states, TS_CPU_TIME_OFF, error);
      if (s)
        s->calls_fair_share = share;
      return s;
    }
  if (wait_states && !(s->original_waits = ts_wait_states_analyse (s->trace, s->calibration, error)))
    {
      ts_run_shared_free (s);
      return NULL;
    }
  return s;
}

void
ts_run_shared_free (TsRunShared *s)
{
  if (!s)
    return;
  g_clear_pointer (&s->original_waits, ts_wait_states_free);
  g_clear_pointer (&s->calibration, ts_calibration_free);
  g_clear_pointer (&s->trace, ts_trace_free);
  g_free (s);
}

const TsTrace *
ts_run_shared_trace (const TsRunShared *s)
{
  return s->trace;
}

const TsCalibration *
ts_run_shared_calibration (const TsRunShared *s)
{
  return s->calibration;
}

/* ---- the key ------------------------------------------------------------- */

static gint
by_name (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

static void
key_add_file (GString *key, const char *path)
{
  struct stat st;
  if (stat (path, &st) != 0)
    return;
  if (S_ISDIR (st.st_mode))
    {
      g_autoptr (GDir) d = g_dir_open (path, 0, NULL);
      g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      const char *name;
      while (d && (name = g_dir_read_name (d)) != NULL)
        g_ptr_array_add (names, g_build_filename (path, name, NULL));
      g_ptr_array_sort (names, by_name);
      for (guint i = 0; i < names->len; i++)
        key_add_file (key, g_ptr_array_index (names, i));
      return;
    }
  g_string_append_printf (key, "%s %jd %jd.%09ld\n", path, (intmax_t) st.st_size,
                          (intmax_t) st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

char *
ts_run_trace_state (const char *trace)
{
  g_autofree char *real = realpath (trace, NULL);
  const char *anchor = real ? real : trace;
  GString *key = g_string_new (NULL);
  g_string_append_printf (key, "tracesim %s, first pass 3, %s endian, action %zu bytes\n",
                          PACKAGE_VERSION, G_BYTE_ORDER == G_LITTLE_ENDIAN ? "little" : "big",
                          sizeof (TsAction));
  key_add_file (key, anchor);
  if (g_str_has_suffix (anchor, ".otf2"))
    {
      g_autofree char *base = g_strndup (anchor, strlen (anchor) - strlen (".otf2"));
      g_autofree char *defs = g_strconcat (base, ".def", NULL);
      key_add_file (key, defs);
      key_add_file (key, base);
    }
  return g_string_free (key, FALSE);
}

static char *
cache_key (const char *trace, gboolean wait_states, TsCpuTime asked)
{
  g_autofree char *state = ts_run_trace_state (trace);
  /* The clock asked for, not the one chosen: the same request on the same
   * trace chooses alike, and a request left to choose is answered from
   * the cache without the passes that chose (the choice is in it). */
  const char *clock = asked == TS_CPU_TIME_ON     ? "cpu time\n"
                      : asked == TS_CPU_TIME_LOAD ? "cpu time from the load\n"
                      : asked == TS_CPU_TIME_AUTO ? "clock chosen\n"
                                                  : "";
  return g_strconcat (state, wait_states ? "wait states\n" : "no wait states\n", clock, NULL);
}

/* ---- writing --------------------------------------------------------------- */

/* The CRC-32 of the first @len bytes of @fd into @digest. */
static gboolean
digest_file (int fd, guint64 len, guint8 digest[DIGEST_LEN])
{
  g_autofree guint8 *buffer = g_malloc (1 << 20);
  uLong crc = crc32_z (0, Z_NULL, 0);
  guint64 done = 0;
  while (done < len)
    {
      gsize n = (gsize) MIN (len - done, (guint64) (1 << 20));
      if (!ts_fd_read_all (fd, (gint64) done, buffer, n))
        return FALSE;
      crc = crc32_z (crc, buffer, (z_size_t) n);
      done += n;
    }
  guint32 value = GUINT32_TO_LE ((guint32) crc);
  memcpy (digest, &value, DIGEST_LEN);
  return TRUE;
}

static gboolean
write_cache_fd (const TsRunShared *s, const char *key, int fd, GError **error)
{
  guint64 offset = 8;
  GVariant *calibration = ts_calibration_save (s->calibration, fd, &offset, error);
  if (!calibration)
    return FALSE;
  GVariantDict d;
  g_variant_dict_init (&d, NULL);
  g_variant_dict_insert (&d, "key", "s", key);
  g_variant_dict_insert_value (&d, "calibration", calibration);
  g_variant_dict_insert (&d, "clock", "(bbd)", s->cpu_time, s->cpu_estimated, s->calls_fair_share);
  if (s->original_waits)
    g_variant_dict_insert_value (&d, "waits", ts_wait_states_save (s->original_waits));
  g_autoptr (GVariant) all = g_variant_ref_sink (g_variant_dict_end (&d));
  gsize size = g_variant_get_size (all);
  g_autofree guint8 *data = g_malloc (MAX (size, 1));
  g_variant_store (all, data);
  guint8 trailer[TRAILER_LEN];
  guint64 where[2] = { offset, size };
  memcpy (trailer, TRAILER_MAGIC, 8);
  memcpy (trailer + 8, where, sizeof where);
  if (!ts_fd_write_all (fd, 0, HEAD_MAGIC, 8) || !ts_fd_write_all (fd, (gint64) offset, data, size)
      || !digest_file (fd, offset + size, trailer + 24)
      || !ts_fd_write_all (fd, (gint64) (offset + size), trailer, sizeof trailer))
    {
      int saved = errno;
      return ts_fail (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s", g_strerror (saved));
    }
  return TRUE;
}

/* Write @s to @cache under a temporary name beside it, renamed into place:
 * a reader sees the old file or the whole new one. */
static gboolean
write_cache (const TsRunShared *s, const char *key, const char *cache, GError **error)
{
  g_autofree char *tmp = g_strconcat (cache, ".tmp-XXXXXX", NULL);
  int fd = ts_output_dir_guarded_temp (tmp, O_RDWR);
  if (fd < 0)
    return ts_fail (error, G_IO_ERROR, g_io_error_from_errno (errno), "%s: %s", cache,
                    g_strerror (errno));
  g_autoptr (GError) local = NULL;
  gboolean ok = write_cache_fd (s, key, fd, &local);
  if (close (fd) != 0 && ok)
    ok = ts_fail (&local, G_IO_ERROR, g_io_error_from_errno (errno), "%s", g_strerror (errno));
  if (!ts_output_dir_finish_temp (tmp, cache, ok) && ok)
    ok = ts_fail (&local, G_IO_ERROR, g_io_error_from_errno (errno), "%s", g_strerror (errno));
  if (!ok)
    g_set_error (error, G_IO_ERROR, local->code, "%s: cannot write: %s", cache, local->message);
  return ok;
}

/* ---- reading ------------------------------------------------------------- */

/* The variant of @fd (of @size bytes) if its trailer holds, it is saved
 * under @key, and its checksum holds (checked last: a stale cache is told
 * without reading its actions), with the offset where it starts (the end
 * of the spooled actions). */
static GVariant *
read_variant (int fd, guint64 size, const char *key, guint64 *variant_offset, const char **why)
{
  guint8 trailer[TRAILER_LEN], head[8], digest[DIGEST_LEN];
  guint64 where[2];
  *why = "the cache there was not a whole first-pass file";
  if (size < 8 + TRAILER_LEN || !ts_fd_read_all (fd, 0, head, 8)
      || !ts_fd_read_all (fd, (gint64) (size - TRAILER_LEN), trailer, TRAILER_LEN)
      || memcmp (head, HEAD_MAGIC, 8) != 0 || memcmp (trailer, TRAILER_MAGIC, 8) != 0)
    return NULL;
  memcpy (where, trailer + 8, sizeof where);
  if (where[0] < 8 || where[1] > MAX_VARIANT || where[0] > size - TRAILER_LEN
      || where[1] != size - TRAILER_LEN - where[0])
    return NULL;
  guint8 *data = g_malloc (MAX (where[1], 1));
  if (!ts_fd_read_all (fd, (gint64) where[0], data, where[1]))
    {
      g_free (data);
      return NULL;
    }
  g_autoptr (GBytes) bytes = g_bytes_new_take (data, where[1]);
  g_autoptr (GVariant) all
    = g_variant_ref_sink (g_variant_new_from_bytes (G_VARIANT_TYPE_VARDICT, bytes, FALSE));
  const char *saved_key = NULL;
  if (!g_variant_lookup (all, "key", "&s", &saved_key) || !g_str_equal (saved_key, key))
    {
      *why = "the cache there was of another trace, of this one before it changed, or of "
             "another version";
      return NULL;
    }
  *why = "the cache there was damaged: its checksum differs";
  if (!digest_file (fd, where[0] + where[1], digest) || memcmp (digest, trailer + 24, DIGEST_LEN) != 0)
    return NULL;
  *variant_offset = where[0];
  return g_steal_pointer (&all);
}

/* @s's trace given the clock its cached first pass was made with. The
 * load's estimate is needed only where the actions are decoded again
 * (not spooled): elsewhere they come from the cache already estimated. */
static gboolean
set_clock (TsRunShared *s)
{
  if (s->cpu_estimated)
    return ts_calibration_spool (s->calibration) || estimate_load (s->trace, NULL);
  return !s->cpu_time || ts_trace_set_compute_clock (s->trace, TS_COMPUTE_CPU, NULL);
}

/* The first pass @cache holds for @trace (opened) under @key, or NULL with
 * *@why saying why not (absent, another trace or version, damaged). */
static TsRunShared *
read_cache (TsTrace *trace, const char *key, const char *cache, gboolean wait_states,
            const char **why)
{
  int fd = open (cache, O_RDONLY | O_CLOEXEC);
  struct stat st;
  *why = "no cache yet";
  if (fd < 0 || fstat (fd, &st) != 0)
    {
      if (fd >= 0)
        close (fd);
      return NULL;
    }
  guint64 spool_end = 0;
  g_autoptr (GVariant) all = read_variant (fd, (guint64) st.st_size, key, &spool_end, why);
  TsRunShared *s = NULL;
  if (all)
    {
      *why = "the cache there did not fit the trace";
      g_autoptr (GVariant) calibration = g_variant_lookup_value (all, "calibration",
                                                                 G_VARIANT_TYPE_VARDICT);
      g_autoptr (GVariant) waits = wait_states ? g_variant_lookup_value (all, "waits", NULL) : NULL;
      s = g_new0 (TsRunShared, 1);
      s->trace = trace;
      if (!calibration || (wait_states && !waits)
          || !g_variant_lookup (all, "clock", "(bbd)", &s->cpu_time, &s->cpu_estimated,
                                &s->calls_fair_share)
          || !(s->calibration = ts_calibration_load (trace, calibration, fd, spool_end, NULL))
          || !set_clock (s)
          || (waits && !(s->original_waits = ts_wait_states_load (trace, waits, NULL))))
        {
          s->trace = NULL;
          g_clear_pointer (&s, ts_run_shared_free);
        }
    }
  close (fd);
  return s;
}

/* ---- both ---------------------------------------------------------------- */

TsRunShared *
ts_run_shared_cached (const char *trace, gboolean wait_states, TsCpuTime cpu_choice,
                      const char *cache, gboolean *loaded, char **note, GError **error)
{
  *loaded = FALSE;
  /* Tasks of one Slurm array start together: one makes the first pass,
   * the others wait for it and read it. */
  g_autofree char *lock_path = g_strconcat (cache, ".lock", NULL);
  int lock = open (lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  while (lock >= 0 && flock (lock, LOCK_EX) != 0 && errno == EINTR)
    ;
  g_autofree char *key = cache_key (trace, wait_states, cpu_choice);
  const char *why = NULL;
  /* Opened in wall time: the cache says which clock its pass took. */
  TsTrace *opened = ts_trace_open (trace, error);
  TsRunShared *s = opened ? read_cache (opened, key, cache, wait_states, &why) : NULL;
  if (s)
    {
      *loaded = TRUE;
      *note = g_strdup_printf ("first pass read from %s", cache);
    }
  else if (opened)
    {
      ts_trace_free (opened);
      s = ts_run_shared_new (trace, wait_states, cpu_choice, error);
      g_autoptr (GError) unwritten = NULL;
      if (s && !write_cache (s, key, cache, &unwritten))
        *note = g_strdup_printf ("first pass computed; it could not be kept (%s), so each "
                                 "point of another process computes it again",
                                 unwritten->message);
      else if (s)
        *note = g_strdup_printf ("first pass computed (%s) and kept in %s", why, cache);
    }
  if (lock >= 0)
    close (lock);
  return s;
}
