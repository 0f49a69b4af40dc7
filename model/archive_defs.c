/* The definitions of the archives tracesim writes: clock, system tree,
 * locations, regions (MPI collectives with their OTF2 roles), communicators
 * as Score-P defines them, the partitioned parameters and attributes, and
 * the wait-state metrics. Strings are defined on first use. */
#include <config.h>

#define G_LOG_DOMAIN "tracesim-archive"

#include "model/archive-private.h"
#include "model/otf2-chunk.h"
#include "model/trace.h"

#include <gio/gio.h>
#include <string.h>

static OTF2_RegionRole
mpi_region_role (const char *name)
{
  TsCollectiveOp op;
  g_autofree char *lower = g_ascii_strdown (name + strlen ("MPI_"), -1);
  if (!ts_collective_from_name (lower, &op))
    return OTF2_REGION_ROLE_FUNCTION;
  switch (ts_collective_shape (op))
    {
    case TS_COLL_SHAPE_BARRIER: return OTF2_REGION_ROLE_BARRIER;
    case TS_COLL_SHAPE_ONE2N: return OTF2_REGION_ROLE_COLL_ONE2ALL;
    case TS_COLL_SHAPE_N2ONE: return OTF2_REGION_ROLE_COLL_ALL2ONE;
    case TS_COLL_SHAPE_N2N: return OTF2_REGION_ROLE_COLL_ALL2ALL;
    default: return OTF2_REGION_ROLE_COLL_OTHER;
    }
}

/* Global definition writing: strings are defined on first use so that every
 * reference is preceded by its string; the first OTF2 failure is kept. */
typedef struct {
  OTF2_GlobalDefWriter *gdw;
  GHashTable *strings;  /* owned string -> id */
  OTF2_ErrorCode status;
  const char *failed;
} DefCtx;

static void
def_check (DefCtx *c, OTF2_ErrorCode status, const char *what)
{
  if (status != OTF2_SUCCESS && c->status == OTF2_SUCCESS)
    {
      c->status = status;
      c->failed = what;
    }
}

static OTF2_StringRef
def_string (DefCtx *c, const char *s)
{
  gpointer id;
  if (g_hash_table_lookup_extended (c->strings, s, NULL, &id))
    return GPOINTER_TO_UINT (id);
  OTF2_StringRef ref = g_hash_table_size (c->strings);
  def_check (c, OTF2_GlobalDefWriter_WriteString (c->gdw, ref, s), "String definition");
  g_hash_table_insert (c->strings, g_strdup (s), GUINT_TO_POINTER (ref));
  return ref;
}

static void
def_group_of (DefCtx *c, guint32 id, const char *name, OTF2_GroupType type,
              OTF2_Paradigm paradigm, guint n, const guint64 *members)
{
  def_check (c, OTF2_GlobalDefWriter_WriteGroup (c->gdw, id, def_string (c, name), type,
                                                 paradigm, OTF2_GROUP_FLAG_NONE, n, members),
             "Group definition");
}

static void
def_group (DefCtx *c, guint32 id, const char *name, OTF2_GroupType type, GArray *members)
{
  g_autofree guint64 *m = g_new (guint64, members->len);
  for (guint i = 0; i < members->len; i++)
    m[i] = g_array_index (members, guint32, i);
  def_group_of (c, id, name, type, OTF2_PARADIGM_MPI, members->len, m);
}

guint64
ts_archive_def_chunk_size (guint n_ranks, const GPtrArray *comms, const char *dir, GError **error)
{
  /* Group 0 lists the n_ranks locations; each communicator its members. */
  guint64 largest = n_ranks;
  for (guint id = 0; comms && id < comms->len; id++)
    largest = MAX (largest, ((TsCommDef *) g_ptr_array_index (comms, id))->members->len);
  guint64 size = ts_otf2_def_chunk_size (largest);
  g_autofree char *shown = size == 0 ? ts_output_dir_user_path (dir) : NULL;
  if (size == 0)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                 "%s: a communicator of %" G_GUINT64_FORMAT " ranks is more than an OTF2 "
                 "archive can define (OTF2's largest definition chunk, 16 MiB, holds a group "
                 "of at most 4,194,291 ranks)", shown, largest);
  return size;
}

/* The clock, the one paradigm, one machine and a process and a location per rank. */
static void
write_system (TsArchiveWriter *w, const guint64 *n_events, DefCtx *c)
{
  def_check (c, OTF2_GlobalDefWriter_WriteClockProperties (c->gdw, (guint64) TS_TICKS_PER_SECOND,
                                                           0, w->max_tick,
                                                           OTF2_UNDEFINED_TIMESTAMP),
             "ClockProperties definition");
  def_check (c, OTF2_GlobalDefWriter_WriteParadigm (c->gdw, OTF2_PARADIGM_MPI,
                                                    def_string (c, "MPI"),
                                                    OTF2_PARADIGM_CLASS_PROCESS),
             "Paradigm definition");
  def_check (c, OTF2_GlobalDefWriter_WriteSystemTreeNode (c->gdw, 0, def_string (c, "tracesim"),
                                                          def_string (c, "machine"),
                                                          OTF2_UNDEFINED_SYSTEM_TREE_NODE),
             "SystemTreeNode definition");
  /* The ranks' nodes under the machine, each once, in order of first use. */
  g_autoptr (GHashTable) node_of = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint r = 0; w->rank_nodes && r < w->n_ranks; r++)
    {
      const char *host = w->rank_nodes[r] ? w->rank_nodes[r] : "";
      if (g_hash_table_contains (node_of, host))
        continue;
      guint id = g_hash_table_size (node_of) + 1;
      g_hash_table_insert (node_of, (gpointer) host, GUINT_TO_POINTER (id));
      def_check (c, OTF2_GlobalDefWriter_WriteSystemTreeNode (c->gdw, id, def_string (c, host),
                                                              def_string (c, "node"), 0),
                 "SystemTreeNode definition");
      guint cores = w->node_cores ? GPOINTER_TO_UINT (g_hash_table_lookup (w->node_cores, host)) : 0;
      if (cores)
        def_check (c, OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty (
                        c->gdw, id, def_string (c, TS_TRACE_NODE_CORES), OTF2_TYPE_UINT32,
                        (OTF2_AttributeValue) { .uint32 = cores }),
                   "SystemTreeNodeProperty definition");
    }
  for (guint r = 0; r < w->n_ranks; r++)
    {
      g_autofree char *name = g_strdup_printf ("MPI Rank %u", r);
      guint parent = w->rank_nodes ? GPOINTER_TO_UINT (g_hash_table_lookup (
                                       node_of, w->rank_nodes[r] ? w->rank_nodes[r] : ""))
                                   : 0;
      def_check (c, OTF2_GlobalDefWriter_WriteLocationGroup (c->gdw, r, def_string (c, name),
                                                             OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                             parent, OTF2_UNDEFINED_LOCATION_GROUP),
                 "LocationGroup definition");
    }
  for (guint r = 0; r < w->n_ranks; r++)
    {
      g_autofree char *name = g_strdup_printf ("rank %u", r);
      def_check (c, OTF2_GlobalDefWriter_WriteLocation (c->gdw, r, def_string (c, name),
                                                        OTF2_LOCATION_TYPE_CPU_THREAD,
                                                        n_events[r], r),
                 "Location definition");
    }
  for (guint i = w->n_ranks; i < w->n_locations; i++)
    {
      guint r = w->thread_rank[i - w->n_ranks];
      g_autofree char *name = g_strdup_printf ("rank %u thread %u", r,
                                               w->thread_number[i - w->n_ranks]);
      def_check (c, OTF2_GlobalDefWriter_WriteLocation (c->gdw, ts_archive_location_ref (w, i),
                                                        def_string (c, name),
                                                        OTF2_LOCATION_TYPE_CPU_THREAD,
                                                        n_events[i], r),
                 "Location definition");
    }
}

void
ts_archive_writer_set_region_canonical (TsArchiveWriter *w, guint32 region, const char *canonical)
{
  g_return_if_fail (w != NULL && region < w->regions->len && canonical != NULL);
  TsRegionDef *r = g_ptr_array_index (w->regions, region);
  g_free (r->canonical);
  r->canonical = g_strcmp0 (canonical, r->name) != 0 ? g_strdup (canonical) : NULL;
}

static void
write_regions (TsArchiveWriter *w, DefCtx *c)
{
  OTF2_StringRef empty = def_string (c, "");
  for (guint id = 0; id < w->regions->len; id++)
    {
      TsRegionDef *r = g_ptr_array_index (w->regions, id);
      gboolean mpi = r->kind == TS_REGION_MPI;
      gboolean barrier = r->kind == TS_REGION_TEAM_BARRIER;
      OTF2_RegionRole role = mpi && g_str_has_prefix (r->name, "MPI_")
        ? mpi_region_role (r->name) : barrier ? OTF2_REGION_ROLE_BARRIER : OTF2_REGION_ROLE_FUNCTION;
      OTF2_StringRef name = def_string (c, r->name);
      OTF2_StringRef canonical = r->canonical ? def_string (c, r->canonical) : name;
      def_check (c, OTF2_GlobalDefWriter_WriteRegion (c->gdw, id, name, canonical, empty, role,
                                                      mpi ? OTF2_PARADIGM_MPI
                                                      : barrier ? OTF2_PARADIGM_OPENMP
                                                      : OTF2_PARADIGM_USER,
                                                      OTF2_REGION_FLAG_NONE, empty, 0, 0),
                 "Region definition");
    }
}

/* The ranks' thread teams, as Score-P writes OpenMP's: a group of the
 * locations of every rank with threads, and per such rank a team (a
 * communicator of OpenMP's) whose group lists its threads' places in it. */
static void
write_teams (TsArchiveWriter *w, DefCtx *c)
{
  guint32 locations_group = w->comms->len + 1;
  g_autoptr (GArray) locs = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint r = 0; r < w->n_ranks; r++)
    for (guint k = 0; w->rank_threads[r] > 1 && k < w->rank_threads[r]; k++)
      {
        guint64 ref = ts_archive_location_ref (w, ts_archive_writer_thread (w, r, k));
        g_array_append_val (locs, ref);
      }
  def_check (c, OTF2_GlobalDefWriter_WriteParadigm (c->gdw, OTF2_PARADIGM_OPENMP,
                                                    def_string (c, "OpenMP"),
                                                    OTF2_PARADIGM_CLASS_THREAD_FORK_JOIN),
             "Paradigm definition");
  def_group_of (c, locations_group, "OpenMP locations", OTF2_GROUP_TYPE_COMM_LOCATIONS,
                OTF2_PARADIGM_OPENMP, locs->len, (const guint64 *) locs->data);
  guint first = 0, team = 0;
  for (guint r = 0; r < w->n_ranks; r++)
    {
      guint n = w->rank_threads[r];
      if (n < 2)
        continue;
      g_autofree guint64 *members = g_new (guint64, n);
      for (guint k = 0; k < n; k++)
        members[k] = first + k;
      first += n;
      g_autofree char *name = g_strdup_printf ("Thread team of rank %u", r);
      guint32 group = locations_group + 1 + team;
      def_group_of (c, group, name, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP, n,
                    members);
      def_check (c, OTF2_GlobalDefWriter_WriteComm (c->gdw, ts_archive_team_comm (w, r),
                                                    def_string (c, name), group,
                                                    OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE),
                 "Comm definition");
      team++;
    }
}

/* As Score-P does: group 0 lists the locations in rank order, and each
 * communicator's COMM_GROUP lists world ranks, i.e. indexes into group 0. */
static void
write_comms (TsArchiveWriter *w, DefCtx *c)
{
  TsCommDef *world = g_ptr_array_index (w->comms, 0);
  def_group (c, 0, "MPI locations", OTF2_GROUP_TYPE_COMM_LOCATIONS, world->members);
  for (guint id = 0; id < w->comms->len; id++)
    {
      TsCommDef *comm = g_ptr_array_index (w->comms, id);
      def_group (c, id + 1, comm->name, OTF2_GROUP_TYPE_COMM_GROUP, comm->members);
    }
  for (guint id = 0; id < w->comms->len; id++)
    {
      TsCommDef *comm = g_ptr_array_index (w->comms, id);
      def_check (c, OTF2_GlobalDefWriter_WriteComm (c->gdw, id, def_string (c, comm->name), id + 1,
                                                    id == 0 ? OTF2_UNDEFINED_COMM : 0,
                                                    OTF2_COMM_FLAG_NONE),
                 "Comm definition");
    }
  if (w->rank_threads)
    write_teams (w, c);
}

/* The partitioned events' parameters and attributes (model/partitioned.h) and
 * the metrics. */
static void
write_parameters_and_metrics (TsArchiveWriter *w, gboolean partitioned, DefCtx *c)
{
  OTF2_StringRef empty = def_string (c, "");
  for (guint e = 0; partitioned && e < TS_P_N_EVENTS; e++)
    def_check (c, OTF2_GlobalDefWriter_WriteParameter (c->gdw, e,
                                                       def_string (c, ts_partitioned_event_name (e)),
                                                       OTF2_PARAMETER_TYPE_UINT64),
               "Parameter definition");
  for (guint a = 0; partitioned && a < TS_PA_N_ATTRIBUTES; a++)
    def_check (c, OTF2_GlobalDefWriter_WriteAttribute (c->gdw, a,
                                                       def_string (c, ts_partitioned_attribute_name (a)),
                                                       empty, ts_partitioned_attribute_type (a)),
               "Attribute definition");
  for (guint id = 0; id < w->metrics->len; id++)
    {
      TsMetricDef *m = g_ptr_array_index (w->metrics, id);
      def_check (c, OTF2_GlobalDefWriter_WriteMetricMember (c->gdw, id, def_string (c, m->name),
                                                            empty, OTF2_METRIC_TYPE_USER,
                                                            OTF2_METRIC_ACCUMULATED_START,
                                                            OTF2_TYPE_DOUBLE, OTF2_BASE_DECIMAL,
                                                            0, def_string (c, m->unit)),
                 "MetricMember definition");
    }
  for (guint id = 0; id < w->metrics->len; id++)
    {
      OTF2_MetricMemberRef member = id;
      def_check (c, OTF2_GlobalDefWriter_WriteMetricClass (c->gdw, id, 1, &member,
                                                           OTF2_METRIC_ASYNCHRONOUS,
                                                           OTF2_RECORDER_KIND_CPU),
                 "MetricClass definition");
    }
}

/* The empty local definition files readers expect, one per location. */
static gboolean
write_local_definitions (TsArchiveWriter *w, OTF2_Archive *archive, const char *dir,
                         GError **error)
{
  if (ts_archive_otf2_failed (OTF2_Archive_OpenDefFiles (archive), error, dir,
                              "OTF2_Archive_OpenDefFiles"))
    return FALSE;
  for (guint r = 0; r < w->n_locations; r++)
    {
      OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter (archive, ts_archive_location_ref (w, r));
      if (!dw)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                       "%s: cannot create the definition writer of location %u", dir, r);
          return FALSE;
        }
      if (ts_archive_otf2_failed (OTF2_Archive_CloseDefWriter (archive, dw), error, dir,
                       "OTF2_Archive_CloseDefWriter"))
        return FALSE;
    }
  if (ts_archive_otf2_failed (OTF2_Archive_CloseDefFiles (archive), error, dir,
                   "OTF2_Archive_CloseDefFiles"))
    return FALSE;
  return TRUE;
}

gboolean
ts_archive_write_definitions (TsArchiveWriter *w, OTF2_Archive *archive, const char *dir,
                              const guint64 *n_events, gboolean with_events, GError **error)
{
  if (with_events && !write_local_definitions (w, archive, dir, error))
    return FALSE;
  DefCtx c = { .gdw = OTF2_Archive_GetGlobalDefWriter (archive), .status = OTF2_SUCCESS };
  if (!c.gdw)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "%s: cannot create the global definition writer", dir);
      return FALSE;
    }
  c.strings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  write_system (w, n_events, &c);
  write_regions (w, &c);
  write_comms (w, &c);
  write_parameters_and_metrics (w, w->uses_partitioned || !with_events, &c);
  g_hash_table_unref (c.strings);
  return !ts_archive_otf2_failed (c.status, error, dir, c.failed);
}
