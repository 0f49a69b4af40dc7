#include <config.h>

#define G_LOG_DOMAIN "ts-trace"

#include "model/trace-private.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

G_DEFINE_QUARK (ts-trace-error-quark, ts_trace_error)

/* ---- reading the global definitions ----------------------------------- */

typedef struct {
  OTF2_GroupType type;
  OTF2_Paradigm paradigm;
  GArray *members; /* guint64 */
} RawGroup;

typedef struct {
  OTF2_StringRef name;
  OTF2_GroupRef group;
} RawComm;

typedef struct {
  OTF2_StringRef name;
  OTF2_Paradigm paradigm;
  OTF2_RegionRole role;
} RawRegion;

typedef struct {
  TsTrace *trace;
  GHashTable *strings;        /* ref + 1 -> char* */
  GHashTable *locations;      /* ref -> TsRawLocation* */
  GHashTable *location_groups;/* ref -> OTF2_LocationGroupType+1 */
  GHashTable *group_parents;  /* ref + 1 -> OTF2_SystemTreeNodeRef + 1 */
  GHashTable *tree_nodes;     /* ref + 1 -> TsRawTreeNode* */
  GHashTable *comm_groups;    /* ref -> RawGroup* (COMM_GROUP / COMM_SELF) */
  RawGroup *world_locations;  /* the MPI COMM_LOCATIONS group */
  GArray *comm_defs;          /* RawComm, with parallel comm_refs */
  GArray *comm_refs;          /* OTF2_CommRef */
  GArray *region_defs;        /* RawRegion */
  GArray *region_refs;        /* OTF2_RegionRef */
  GArray *named_refs;         /* RawNamed: parameters and attributes */
  TsRawMetrics *metrics;
} DefState;

TsRawMetrics *
ts_def_state_metrics (void *def_state)
{
  return ((DefState *) def_state)->metrics;
}

GHashTable *
ts_def_state_tree_nodes (void *def_state, GHashTable **strings)
{
  *strings = ((DefState *) def_state)->strings;
  return ((DefState *) def_state)->tree_nodes;
}

/* A parameter or attribute definition, named once the strings are read. */
typedef struct {
  gboolean attribute;
  guint32 self;
  OTF2_StringRef name;
  OTF2_Type type;             /* attributes */
} RawNamed;

static void
raw_group_free (gpointer p)
{
  RawGroup *g = p;
  g_array_unref (g->members);
  g_free (g);
}

static OTF2_CallbackCode
on_string (void *ud, OTF2_StringRef self, const char *string)
{
  DefState *st = ud;
  g_hash_table_insert (st->strings, GUINT_TO_POINTER (self + 1), g_strdup (string));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_clock (void *ud, uint64_t resolution, uint64_t offset, uint64_t length, uint64_t realtime)
{
  DefState *st = ud;
  st->trace->timer_resolution = resolution;
  st->trace->global_offset = offset;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_location_group (void *ud, OTF2_LocationGroupRef self, OTF2_StringRef name,
                   OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                   OTF2_LocationGroupRef creator)
{
  DefState *st = ud;
  g_hash_table_insert (st->location_groups, GUINT_TO_POINTER (self + 1),
                       GUINT_TO_POINTER ((guint) type + 1));
  if (parent != OTF2_UNDEFINED_SYSTEM_TREE_NODE)
    g_hash_table_insert (st->group_parents, GUINT_TO_POINTER (self + 1),
                         GUINT_TO_POINTER (parent + 1));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_location (void *ud, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
             uint64_t n_events, OTF2_LocationGroupRef group)
{
  DefState *st = ud;
  TsRawLocation *loc = g_new (TsRawLocation, 1);
  loc->group = group;
  loc->type = type;
  loc->n_events = n_events;
  g_hash_table_insert (st->locations, g_memdup2 (&self, sizeof self), loc);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_group (void *ud, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
          OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
  DefState *st = ud;
  RawGroup *g = g_new (RawGroup, 1);
  g->type = type;
  g->paradigm = paradigm;
  g->members = g_array_sized_new (FALSE, FALSE, sizeof (guint64), n);
  g_array_append_vals (g->members, members, n);

  /* EZTrace defines group 0 twice, once per type: keep both, by type.
   * Only MPI's COMM_LOCATIONS group lists the ranks (Score-P's OpenMP one
   * lists every thread); a writer that says no paradigm means MPI's. */
  if (type == OTF2_GROUP_TYPE_COMM_LOCATIONS)
    {
      if ((paradigm == OTF2_PARADIGM_MPI || paradigm == OTF2_PARADIGM_UNKNOWN)
          && (st->world_locations == NULL || paradigm == OTF2_PARADIGM_MPI))
        {
          g_clear_pointer (&st->world_locations, raw_group_free);
          st->world_locations = g;
        }
      else
        raw_group_free (g);
    }
  else if (type == OTF2_GROUP_TYPE_COMM_GROUP || type == OTF2_GROUP_TYPE_COMM_SELF)
    g_hash_table_replace (st->comm_groups, GUINT_TO_POINTER (self + 1), g);
  else
    raw_group_free (g);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_comm (void *ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
         OTF2_CommRef parent, OTF2_CommFlag flags)
{
  DefState *st = ud;
  RawComm c = { name, group };
  g_array_append_val (st->comm_defs, c);
  g_array_append_val (st->comm_refs, self);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_parameter (void *ud, OTF2_ParameterRef self, OTF2_StringRef name, OTF2_ParameterType type)
{
  DefState *st = ud;
  RawNamed n = { FALSE, self, name, OTF2_TYPE_NONE };
  g_array_append_val (st->named_refs, n);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_attribute (void *ud, OTF2_AttributeRef self, OTF2_StringRef name, OTF2_StringRef description,
              OTF2_Type type)
{
  DefState *st = ud;
  RawNamed n = { TRUE, self, name, type };
  g_array_append_val (st->named_refs, n);
  return OTF2_CALLBACK_SUCCESS;
}

/* The partitioned-communication encoding (doc/event-model.md): which
 * parameters are its events and which attributes carry its fields. */
static const char *lookup_string (DefState *st, OTF2_StringRef ref);

static void
resolve_partitioned (DefState *st)
{
  TsTrace *t = st->trace;
  for (guint a = 0; a < TS_PA_N_ATTRIBUTES; a++)
    t->partitioned_attribute[a] = OTF2_UNDEFINED_ATTRIBUTE;
  t->caller_attribute = OTF2_UNDEFINED_ATTRIBUTE;
  for (guint i = 0; i < st->named_refs->len; i++)
    {
      RawNamed *n = &g_array_index (st->named_refs, RawNamed, i);
      const char *name = lookup_string (st, n->name);
      TsPartitionedEvent e;
      TsPartitionedAttribute a;
      if (!n->attribute && ts_partitioned_event_from_name (name, &e))
        g_hash_table_insert (t->partitioned_of_param, GUINT_TO_POINTER (n->self + 1),
                             GUINT_TO_POINTER (e + 1));
      else if (n->attribute && ts_partitioned_attribute_from_name (name, &a))
        t->partitioned_attribute[a] = n->self;
      else if (n->attribute && n->type == OTF2_TYPE_REGION && g_strcmp0 (name, TS_CALLER_ATTRIBUTE) == 0)
        t->caller_attribute = n->self;
    }
}

static OTF2_CallbackCode
on_region (void *ud, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
           OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
           OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
  DefState *st = ud;
  RawRegion r = { name, paradigm, role };
  g_array_append_val (st->region_defs, r);
  g_array_append_val (st->region_refs, self);
  return OTF2_CALLBACK_SUCCESS;
}

static const char *
lookup_string (DefState *st, OTF2_StringRef ref)
{
  const char *s = g_hash_table_lookup (st->strings, GUINT_TO_POINTER (ref + 1));
  return s ? s : "";
}

/* Ranks and their threads (trace-locations.c), then their nodes. */
static gboolean
resolve_ranks (DefState *st, GError **error)
{
  TsTrace *t = st->trace;
  g_autofree OTF2_LocationGroupRef *groups
    = ts_trace_resolve_locations (t, st->locations,
                                  st->world_locations ? st->world_locations->members : NULL,
                                  error);
  if (!groups)
    return FALSE;
  ts_trace_resolve_nodes (t, st->strings, st->tree_nodes, st->group_parents, groups);
  return TRUE;
}

static void
comm_free (gpointer p)
{
  TsComm *c = p;
  g_free (c->name);
  if (c->members)
    g_array_unref (c->members);
  if (c->local_of)
    g_hash_table_unref (c->local_of);
  g_free (c);
}

/* All ranks, in order. */
static gboolean
comm_is_world (const TsTrace *t, const TsComm *c)
{
  if (c->members->len != t->n_ranks)
    return FALSE;
  for (guint m = 0; m < c->members->len; m++)
    if (g_array_index (c->members, guint32, m) != m)
      return FALSE;
  return TRUE;
}

/* The members of communicator @c as world ranks, from its group @g: a
 * COMM_LOCATIONS group lists locations, a COMM_GROUP world ranks. A
 * communicator other than the world maps its members back to local ranks. */
static gboolean
fill_members (TsTrace *t, TsComm *c, const RawGroup *g, GHashTable *rank_of_location,
              GError **error)
{
  c->members = g_array_sized_new (FALSE, FALSE, sizeof (guint32), g->members->len);
  for (guint m = 0; m < g->members->len; m++)
    {
      guint64 v = g_array_index (g->members, guint64, m);
      guint32 rank;
      if (g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS)
        rank = GPOINTER_TO_UINT (g_hash_table_lookup (rank_of_location, &v)) - 1;
      else
        rank = (guint32) v; /* COMM_GROUP members index the world ranks */
      if (rank >= t->n_ranks)
        {
          g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_DEFINITIONS,
                       "%s: communicator %s has member %" G_GUINT64_FORMAT
                       ", but the trace has %u ranks", t->path, c->name, v, t->n_ranks);
          return FALSE;
        }
      g_array_append_val (c->members, rank);
    }
  if (!comm_is_world (t, c))
    {
      c->local_of = g_hash_table_new (g_direct_hash, g_direct_equal);
      for (guint m = 0; m < c->members->len; m++)
        g_hash_table_insert (c->local_of,
                             GUINT_TO_POINTER (g_array_index (c->members, guint32, m)),
                             GUINT_TO_POINTER (m + 1));
    }
  return TRUE;
}

/* Traces without an MPI world communicator still have one implicitly. */
static void
add_implicit_world (TsTrace *t)
{
  TsComm *c = g_new0 (TsComm, 1);
  c->name = g_strdup ("MPI_COMM_WORLD");
  c->members = g_array_sized_new (FALSE, FALSE, sizeof (guint32), t->n_ranks);
  for (guint32 r = 0; r < t->n_ranks; r++)
    g_array_append_val (c->members, r);
  t->world_comm = t->comms->len;
  g_ptr_array_add (t->comms, c);
}

/* Why a group of @paradigm lists no MPI ranks (a thread team's, a GPU's),
 * or NULL for MPI's (or a writer that says none). Free with g_free. */
static char *
other_paradigm (OTF2_Paradigm paradigm)
{
  switch (paradigm)
    {
    case OTF2_PARADIGM_MPI:
    case OTF2_PARADIGM_UNKNOWN:
    case OTF2_PARADIGM_USER:
    case OTF2_PARADIGM_NONE:
    case OTF2_PARADIGM_COMPILER:
    case OTF2_PARADIGM_MEASUREMENT_SYSTEM:
      return NULL;
    case OTF2_PARADIGM_OPENMP:
      return g_strdup ("an OpenMP thread team, not MPI ranks");
    case OTF2_PARADIGM_PTHREAD:
      return g_strdup ("POSIX threads, not MPI ranks");
    default:
      return g_strdup_printf ("paradigm %u, not MPI", (guint) paradigm);
    }
}

static gboolean
resolve_comms (DefState *st, GError **error)
{
  TsTrace *t = st->trace;
  g_autoptr (GHashTable) rank_of_location
    = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  for (guint r = 0; r < t->n_ranks; r++)
    g_hash_table_insert (rank_of_location,
                         g_memdup2 (&g_array_index (t->rank_location, OTF2_LocationRef, r),
                                    sizeof (OTF2_LocationRef)),
                         GUINT_TO_POINTER (r + 1));

  t->world_comm = G_MAXUINT;
  for (guint i = 0; i < st->comm_defs->len; i++)
    {
      RawComm *rc = &g_array_index (st->comm_defs, RawComm, i);
      OTF2_CommRef ref = g_array_index (st->comm_refs, OTF2_CommRef, i);
      if (g_hash_table_contains (t->comm_of_ref, GUINT_TO_POINTER (ref + 1)))
        continue; /* duplicate definition: the first one wins */
      RawGroup *g = g_hash_table_lookup (st->comm_groups, GUINT_TO_POINTER (rc->group + 1));
      TsComm *c = g_new0 (TsComm, 1);
      c->name = g_strdup (lookup_string (st, rc->name));
      if (g == NULL && rc->group == (OTF2_GroupRef) 0 && st->world_locations)
        g = st->world_locations; /* some writers point the world comm at the locations */
      /* Not an error until an MPI event uses it: EZTrace names an OpenMP
       * team's communicator without defining its group, Score-P's teams'
       * groups list threads, not ranks. */
      char *foreign = g == NULL ? g_strdup_printf ("its group %u is not defined", (guint) rc->group)
                                : other_paradigm (g->paradigm);
      if (foreign)
        {
          g_hash_table_insert (t->foreign_comms, GUINT_TO_POINTER (ref + 1),
                               g_strdup_printf ("communicator %u (%s): %s", (guint) ref, c->name,
                                                foreign));
          g_free (foreign);
          comm_free (c);
          continue;
        }
      if (g->type == OTF2_GROUP_TYPE_COMM_SELF)
        c->self = TRUE;
      else if (!fill_members (t, c, g, rank_of_location, error))
        {
          comm_free (c);
          return FALSE;
        }
      else if (!c->local_of && (t->world_comm == G_MAXUINT
                                || strcmp (c->name, "MPI_COMM_WORLD") == 0))
        t->world_comm = t->comms->len;
      g_ptr_array_add (t->comms, c);
      g_hash_table_insert (t->comm_of_ref, GUINT_TO_POINTER (ref + 1),
                           GUINT_TO_POINTER (t->comms->len));
    }
  if (t->world_comm == G_MAXUINT)
    add_implicit_world (t);
  return TRUE;
}

static void
resolve_regions (DefState *st)
{
  TsTrace *t = st->trace;
  for (guint i = 0; i < st->region_defs->len; i++)
    {
      RawRegion *rr = &g_array_index (st->region_defs, RawRegion, i);
      OTF2_RegionRef ref = g_array_index (st->region_refs, OTF2_RegionRef, i);
      /* The one place region names are read: demangled here, every
       * consumer (hypotheses, pages, info, advise) sees the same name. */
      const char *written = lookup_string (st, rr->name);
      g_autofree char *plain = ts_name_demangle (written);
      g_autofree char *name = ts_mpi_name_normalise (plain ? plain : written);
      guint index = GPOINTER_TO_UINT (g_hash_table_lookup (t->region_by_name, name));
      if (index == 0)
        {
          TsRegion *region = g_new (TsRegion, 1);
          region->name = g_strdup (name);
          region->canonical = g_strcmp0 (name, written) != 0 ? g_strdup (written) : NULL;
          region->call = ts_mpi_call_kind (name);
          region->one_of = ts_mpi_call_completes_one_of (name);
          region->team_barrier = ts_region_is_team_barrier (name, rr->role, rr->paradigm);
          region->team_task = ts_region_is_team_task (name);
          if (region->call == TS_CALL_USER && rr->paradigm == OTF2_PARADIGM_MPI)
            region->call = TS_CALL_LOCAL;
          g_ptr_array_add (t->regions, region);
          index = t->regions->len;
          g_hash_table_insert (t->region_by_name, region->name, GUINT_TO_POINTER (index));
        }
      g_hash_table_insert (t->region_of_ref, GUINT_TO_POINTER (ref + 1), GUINT_TO_POINTER (index));
    }
}

static OTF2_ErrorCode
otf2_error_silencer (void *ud, const char *file, uint64_t line, const char *function,
                     OTF2_ErrorCode code, const char *fmt, va_list va)
{
  return code;
}

void
ts_otf2_quiet (void)
{
  OTF2_Error_RegisterCallback (otf2_error_silencer, NULL);
}

void
ts_trace_set_otf2_error (const TsTrace *trace, OTF2_ErrorCode code, const char *what,
                         GError **error)
{
  g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_OPEN, "%s: %s: %s (%s)",
               trace->path, what, OTF2_Error_GetDescription (code), OTF2_Error_GetName (code));
}

static void
region_free (gpointer p)
{
  TsRegion *r = p;
  g_free (r->name);
  g_free (r->canonical);
  g_free (r);
}

static TsTrace *
trace_new (const char *anchor_path)
{
  TsTrace *t = g_new0 (TsTrace, 1);
  t->path = g_strdup (anchor_path);
  t->creator = g_strdup ("");
  t->mpi_library = g_strdup ("");
  t->mpi_thread_level = g_strdup ("");
  t->timer_resolution = 1000000000;
  t->regions = g_ptr_array_new_with_free_func (region_free);
  t->region_by_name = g_hash_table_new (g_str_hash, g_str_equal);
  t->region_of_ref = g_hash_table_new (g_direct_hash, g_direct_equal);
  t->partitioned_of_param = g_hash_table_new (g_direct_hash, g_direct_equal);
  t->node_names = g_ptr_array_new_with_free_func (g_free);
  t->comms = g_ptr_array_new_with_free_func (comm_free);
  t->comm_of_ref = g_hash_table_new (g_direct_hash, g_direct_equal);
  t->foreign_comms = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  return t;
}

static void
def_state_init (DefState *st, TsTrace *t)
{
  *st = (DefState) { .trace = t };
  st->strings = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  st->locations = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  st->location_groups = g_hash_table_new (g_direct_hash, g_direct_equal);
  st->group_parents = g_hash_table_new (g_direct_hash, g_direct_equal);
  st->tree_nodes = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  st->comm_groups = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, raw_group_free);
  st->comm_defs = g_array_new (FALSE, FALSE, sizeof (RawComm));
  st->comm_refs = g_array_new (FALSE, FALSE, sizeof (OTF2_CommRef));
  st->region_defs = g_array_new (FALSE, FALSE, sizeof (RawRegion));
  st->region_refs = g_array_new (FALSE, FALSE, sizeof (OTF2_RegionRef));
  st->named_refs = g_array_new (FALSE, FALSE, sizeof (RawNamed));
  st->metrics = ts_raw_metrics_new ();
}

static void
def_state_clear (DefState *st)
{
  g_hash_table_unref (st->strings);
  g_hash_table_unref (st->locations);
  g_hash_table_unref (st->location_groups);
  g_hash_table_unref (st->group_parents);
  g_hash_table_unref (st->tree_nodes);
  g_hash_table_unref (st->comm_groups);
  g_clear_pointer (&st->world_locations, raw_group_free);
  g_array_unref (st->comm_defs);
  g_array_unref (st->comm_refs);
  g_array_unref (st->region_defs);
  g_array_unref (st->region_refs);
  g_array_unref (st->named_refs);
  ts_raw_metrics_free (st->metrics);
}

/* Every global definition into @st, as recorded; resolved afterwards. */
static gboolean
read_global_defs (OTF2_Reader *reader, DefState *st, GError **error)
{
  const char *path = st->trace->path;
  OTF2_GlobalDefReader *defs = OTF2_Reader_GetGlobalDefReader (reader);
  if (!defs)
    {
      g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_OPEN,
                   "%s: cannot read the global definitions (missing or corrupt .def file)",
                   path);
      return FALSE;
    }
  OTF2_GlobalDefReaderCallbacks *cbs = OTF2_GlobalDefReaderCallbacks_New ();
  OTF2_GlobalDefReaderCallbacks_SetStringCallback (cbs, on_string);
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback (cbs, on_clock);
  OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback (cbs, on_location_group);
  ts_raw_nodes_register (cbs);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback (cbs, on_location);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback (cbs, on_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback (cbs, on_comm);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback (cbs, on_region);
  OTF2_GlobalDefReaderCallbacks_SetParameterCallback (cbs, on_parameter);
  OTF2_GlobalDefReaderCallbacks_SetAttributeCallback (cbs, on_attribute);
  ts_raw_metrics_register (cbs);
  OTF2_Reader_RegisterGlobalDefCallbacks (reader, defs, cbs, st);
  OTF2_GlobalDefReaderCallbacks_Delete (cbs);
  uint64_t n_read = 0;
  OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalDefinitions (reader, defs, &n_read);
  OTF2_Reader_CloseGlobalDefReader (reader, defs);
  if (rc != OTF2_SUCCESS)
    {
      ts_trace_set_otf2_error (st->trace, rc, "reading the global definitions", error);
      return FALSE;
    }
  if (st->trace->timer_resolution == 0)
    {
      g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_DEFINITIONS,
                   "%s: the clock resolution is 0 ticks per second", path);
      return FALSE;
    }
  return TRUE;
}

static TsTrace *open_trace (const char *anchor_path, gboolean events, GError **error);

TsTrace *
ts_trace_open (const char *anchor_path, GError **error)
{
  return open_trace (anchor_path, TRUE, error);
}

TsTrace *
ts_trace_open_definitions (const char *anchor_path, GError **error)
{
  return open_trace (anchor_path, FALSE, error);
}

/* Replace *@field with @value, a string OTF2's reader allocated (NULL:
 * kept), which is freed. */
static void
take_otf2_string (char **field, char *value)
{
  if (!value)
    return;
  g_free (*field);
  *field = g_strdup (value);
  free (value);
}

static TsTrace *
open_trace (const char *anchor_path, gboolean events, GError **error)
{
  g_return_val_if_fail (anchor_path != NULL, NULL);

  ts_otf2_quiet ();
  if (g_file_test (anchor_path, G_FILE_TEST_IS_DIR))
    {
      g_autofree char *hint = ts_trace_directory_hint (anchor_path);
      g_set_error_literal (error, TS_TRACE_ERROR, TS_TRACE_ERROR_OPEN, hint);
      return NULL;
    }
  if (!g_file_test (anchor_path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_OPEN,
                   "%s: no such trace (expected the anchor file of an OTF2 archive, "
                   "e.g. traces.otf2)", anchor_path);
      return NULL;
    }

  if (!ts_trace_probe_anchor (anchor_path, error))
    return NULL;
  OTF2_Reader *reader = OTF2_Reader_Open (anchor_path);
  if (!reader)
    {
      g_set_error (error, TS_TRACE_ERROR, TS_TRACE_ERROR_OPEN,
                   "%s: cannot open as an OTF2 archive (corrupt or truncated anchor file?)",
                   anchor_path);
      return NULL;
    }
  TsTrace *t = trace_new (anchor_path);
  OTF2_Reader_SetSerialCollectiveCallbacks (reader);
  char *creator = NULL, *library = NULL, *level = NULL;
  if (OTF2_Reader_GetCreator (reader, &creator) == OTF2_SUCCESS)
    take_otf2_string (&t->creator, creator);
  if (OTF2_Reader_GetProperty (reader, TS_MPI_LIBRARY_PROPERTY, &library) == OTF2_SUCCESS)
    take_otf2_string (&t->mpi_library, library);
  if (OTF2_Reader_GetProperty (reader, TS_MPI_THREAD_LEVEL_PROPERTY, &level) == OTF2_SUCCESS)
    take_otf2_string (&t->mpi_thread_level, level);
  char *prediction = NULL;
  if (OTF2_Reader_GetProperty (reader, TS_PREDICTION_PROPERTY, &prediction) == OTF2_SUCCESS)
    {
      t->prediction = g_strcmp0 (prediction, "true") == 0;
      free (prediction);
    }

  DefState st;
  def_state_init (&st, t);
  gboolean ok = read_global_defs (reader, &st, error) && resolve_ranks (&st, error)
                && (!events || ts_trace_check_event_files (t, reader, error));
  if (ok)
    {
      resolve_regions (&st);
      resolve_partitioned (&st);
      ts_raw_metrics_resolve (st.metrics, t, st.strings);
      ok = resolve_comms (&st, error);
    }
  OTF2_Reader_Close (reader);
  def_state_clear (&st);
  /* Which other threads call MPI decides the streams (ts_trace_n_streams):
   * read once, here, beside the ranks' definitions. */
  if (ok && events && ts_trace_n_threads (t) > t->n_ranks)
    ok = (t->thread_scan = ts_thread_scan (t, error)) != NULL;
  if (!ok)
    g_clear_pointer (&t, ts_trace_free);
  return t;
}

void
ts_trace_free (TsTrace *t)
{
  if (!t)
    return;
  g_free (t->path);
  g_free (t->creator);
  g_free (t->mpi_library);
  g_free (t->mpi_thread_level);
  if (t->rank_location)
    g_array_unref (t->rank_location);
  if (t->thread_location)
    g_array_unref (t->thread_location);
  ts_thread_scan_free (t->thread_scan);
  g_free (t->rank_thread_start);
  g_hash_table_unref (t->foreign_comms);
  g_ptr_array_unref (t->node_names);
  g_free (t->rank_node);
  g_free (t->node_cores);
  ts_node_load_free (t->node_load);
  g_ptr_array_unref (t->regions);
  g_hash_table_unref (t->region_by_name);
  g_hash_table_unref (t->region_of_ref);
  g_ptr_array_unref (t->comms);
  g_hash_table_unref (t->comm_of_ref);
  g_hash_table_unref (t->partitioned_of_param);
  g_free (t);
}

const char *ts_trace_path (const TsTrace *t) { return t->path; }
guint ts_trace_n_ranks (const TsTrace *t) { return t->n_ranks; }
guint64 ts_trace_timer_resolution (const TsTrace *t) { return t->timer_resolution; }
const char *ts_trace_creator (const TsTrace *t) { return t->creator; }
const char *ts_trace_mpi_library (const TsTrace *t) { return t->mpi_library; }
const char *ts_trace_mpi_thread_level (const TsTrace *t) { return t->mpi_thread_level; }
gboolean ts_trace_is_prediction (const TsTrace *t) { return t->prediction; }

gboolean
ts_trace_collective_bytes_total (const TsTrace *t)
{
  return strstr (t->creator, "Score-P") != NULL || strstr (t->creator, "tracesim-record") != NULL;
}
guint ts_trace_n_regions (const TsTrace *t) { return t->regions->len; }
guint ts_trace_n_comms (const TsTrace *t) { return t->comms->len; }
guint ts_trace_world_comm (const TsTrace *t) { return t->world_comm; }

const char *
ts_trace_region_name (const TsTrace *t, guint region)
{
  g_return_val_if_fail (region < t->regions->len, "?");
  return ((TsRegion *) t->regions->pdata[region])->name;
}

TsCallKind
ts_trace_region_call (const TsTrace *t, guint region)
{
  g_return_val_if_fail (region < t->regions->len, TS_CALL_USER);
  return ((TsRegion *) t->regions->pdata[region])->call;
}

gint
ts_trace_region_by_name (const TsTrace *t, const char *name)
{
  return (gint) GPOINTER_TO_UINT (g_hash_table_lookup (t->region_by_name, name)) - 1;
}

gint
ts_trace_region_of_ref (const TsTrace *t, OTF2_RegionRef ref)
{
  return (gint) GPOINTER_TO_UINT (g_hash_table_lookup (t->region_of_ref,
                                                       GUINT_TO_POINTER (ref + 1))) - 1;
}

gint
ts_trace_comm_of_ref (const TsTrace *t, OTF2_CommRef ref)
{
  return (gint) GPOINTER_TO_UINT (g_hash_table_lookup (t->comm_of_ref,
                                                       GUINT_TO_POINTER (ref + 1))) - 1;
}

const char *
ts_trace_comm_name (const TsTrace *t, guint comm)
{
  g_return_val_if_fail (comm < t->comms->len, "?");
  return ((TsComm *) t->comms->pdata[comm])->name;
}

guint
ts_trace_comm_size (const TsTrace *t, guint comm)
{
  g_return_val_if_fail (comm < t->comms->len, 0);
  TsComm *c = t->comms->pdata[comm];
  return c->self ? 1 : c->members->len;
}

const guint32 *
ts_trace_comm_members (const TsTrace *t, guint comm)
{
  g_return_val_if_fail (comm < t->comms->len, NULL);
  TsComm *c = t->comms->pdata[comm];
  return c->self ? NULL : (const guint32 *) c->members->data;
}

guint
ts_trace_comm_world_rank (const TsTrace *t, guint comm, guint self, guint local)
{
  g_return_val_if_fail (comm < t->comms->len, self);
  TsComm *c = t->comms->pdata[comm];
  if (c->self)
    return self;
  g_return_val_if_fail (local < c->members->len, self);
  return g_array_index (c->members, guint32, local);
}

gint
ts_trace_comm_local_rank (const TsTrace *t, guint comm, guint world)
{
  g_return_val_if_fail (comm < t->comms->len, -1);
  TsComm *c = t->comms->pdata[comm];
  if (c->self)
    return 0;
  if (!c->local_of)
    return world < c->members->len ? (gint) world : -1;
  return (gint) GPOINTER_TO_UINT (g_hash_table_lookup (c->local_of, GUINT_TO_POINTER (world))) - 1;
}
