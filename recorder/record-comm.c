/* Communicators: an id per communicator, the same on all its members, and
 * its members as MPI_COMM_WORLD ranks, so that rank 0 can write one OTF2
 * Group (COMM_GROUP, members = world ranks) and Comm definition for each.
 *
 * The id is agreed when the communicator is created: its members take the
 * maximum of their creation counters plus one (a small PMPI_Allreduce on the
 * new communicator) as c, and set their counters to c; with m its lowest
 * world rank, the ref is 2 + (c - 1) x size + m (0 is the world, 1 is
 * MPI_COMM_SELF). Two communicators with the same m both contain rank m,
 * whose counter grows with every creation it takes part in, so their c
 * differ: refs are unique without a central counter. Handles of the same
 * communicator on different ranks get the same ref, and a handle reused
 * after MPI_Comm_free gets a new one.
 *
 * Intercommunicators and communicators from calls not wrapped here
 * (MPI_Intercomm_merge, MPI_Comm_idup, ...) are unknown: calls on them are
 * recorded as regions without messages (doc/recorder.md). */
#include <config.h>

#include "recorder/record-private.h"

static gboolean
tracking (void)
{
  /* Not ts_rec_recording(): the id agreement is collective, so a rank whose
   * writing failed must still take part while the archive is open. On
   * MPI_Init's thread only: the agreement's own calls would interleave
   * with another thread's. A communicator another thread makes stays
   * unknown (its calls are regions without messages), counted for
   * MPI_Finalize to say. */
  if (!ts_rec.open || ts_rec_depth != 0)
    return FALSE;
  if (ts_rec_own_thread ())
    return TRUE;
  __atomic_add_fetch (&ts_rec.other_calls, 1, __ATOMIC_RELAXED);
  return FALSE;
}

static void
comm_def_free (gpointer p)
{
  TsRecComm *c = p;
  g_array_unref (c->members);
  g_free (c);
}

static TsRecComm *
comm_add (MPI_Comm handle, guint32 ref, gboolean self, GArray *members)
{
  TsRecComm *c = g_new0 (TsRecComm, 1);
  c->ref = ref;
  c->self = self;
  c->members = members;
  guint64 *key = g_new (guint64, 1);
  *key = ts_rec_handle_key (&handle, sizeof handle);
  g_mutex_lock (&ts_rec.comms_lock);
  g_ptr_array_add (ts_rec.comm_defs, c);
  g_hash_table_replace (ts_rec.comms, key, c);
  g_mutex_unlock (&ts_rec.comms_lock);
  return c;
}

void
ts_rec_comm_init (void)
{
  ts_rec.comms = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  ts_rec.comm_defs = g_ptr_array_new_with_free_func (comm_def_free);
  GArray *world = g_array_sized_new (FALSE, FALSE, sizeof (guint64), ts_rec.size);
  for (guint64 r = 0; r < (guint64) ts_rec.size; r++)
    g_array_append_val (world, r);
  comm_add (MPI_COMM_WORLD, TS_REC_COMM_WORLD, FALSE, world);
  GArray *self = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 me = ts_rec.rank;
  g_array_append_val (self, me);
  comm_add (MPI_COMM_SELF, TS_REC_COMM_SELF, TRUE, self);
}

void
ts_rec_comm_free_all (void)
{
  g_clear_pointer (&ts_rec.comms, g_hash_table_unref);
  g_clear_pointer (&ts_rec.comm_defs, g_ptr_array_unref);
}

guint32
ts_rec_comm_ref (MPI_Comm comm)
{
  if (comm == MPI_COMM_WORLD)
    return TS_REC_COMM_WORLD;
  guint64 key = ts_rec_handle_key (&comm, sizeof comm);
  g_mutex_lock (&ts_rec.comms_lock);
  TsRecComm *c = ts_rec.comms ? g_hash_table_lookup (ts_rec.comms, &key) : NULL;
  guint32 ref = c ? c->ref : TS_REC_COMM_UNKNOWN;
  g_mutex_unlock (&ts_rec.comms_lock);
  return ref;
}

/* @comm was just created, collectively over its members: agree on its ref. */
static void
comm_created (MPI_Comm comm)
{
  int inter = 0;
  if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter (comm, &inter) != MPI_SUCCESS || inter)
    return;
  guint32 mine = ts_rec.comm_counter, c = 0;
  PMPI_Allreduce (&mine, &c, 1, MPI_UINT32_T, MPI_MAX, comm);
  ts_rec.comm_counter = ++c;

  int n = 0;
  PMPI_Comm_size (comm, &n);
  MPI_Group group, world;
  PMPI_Comm_group (comm, &group);
  PMPI_Comm_group (MPI_COMM_WORLD, &world);
  g_autofree int *local = g_new (int, n);
  g_autofree int *global = g_new (int, n);
  for (int i = 0; i < n; i++)
    local[i] = i;
  PMPI_Group_translate_ranks (group, n, local, world, global);
  PMPI_Group_free (&group);
  PMPI_Group_free (&world);
  GArray *members = g_array_sized_new (FALSE, FALSE, sizeof (guint64), n);
  guint64 lowest = G_MAXUINT64;
  for (int i = 0; i < n; i++)
    {
      guint64 w = (guint64) global[i];
      g_array_append_val (members, w);
      lowest = MIN (lowest, w);
    }
  guint64 ref = 2 + (guint64) (c - 1) * (guint64) ts_rec.size + lowest;
  if (ref >= OTF2_UNDEFINED_COMM)
    {
      /* More than 2^32 / size communicators: the rest stay unknown. */
      g_array_unref (members);
      return;
    }
  comm_add (comm, (guint32) ref, FALSE, members);
}

/* The creating calls: a region, then the id agreement on the new one. */
#define TS_REC_COMM_CREATE(region, newcomm, call) \
  do { \
    if (!tracking ()) \
      return call; \
    gboolean rec = ts_rec_recording_call (); \
    if (rec) \
      ts_rec_enter (region); \
    int rc = call; \
    ts_rec_depth++; \
    if (rc == MPI_SUCCESS) \
      comm_created (*(newcomm)); \
    ts_rec_depth--; \
    if (rec) \
      ts_rec_leave (region); \
    return rc; \
  } while (0)

int
MPI_Comm_dup (MPI_Comm comm, MPI_Comm *newcomm)
{
  TS_REC_NOTE_CALLER ();
  TS_REC_COMM_CREATE (TS_R_COMM_DUP, newcomm, PMPI_Comm_dup (comm, newcomm));
}

int
MPI_Comm_dup_with_info (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
  TS_REC_NOTE_CALLER ();
  TS_REC_COMM_CREATE (TS_R_COMM_DUP_WITH_INFO, newcomm,
                      PMPI_Comm_dup_with_info (comm, info, newcomm));
}

int
MPI_Comm_split (MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
  TS_REC_NOTE_CALLER ();
  TS_REC_COMM_CREATE (TS_R_COMM_SPLIT, newcomm, PMPI_Comm_split (comm, color, key, newcomm));
}

int
MPI_Comm_split_type (MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm)
{
  TS_REC_NOTE_CALLER ();
  TS_REC_COMM_CREATE (TS_R_COMM_SPLIT_TYPE, newcomm,
                      PMPI_Comm_split_type (comm, type, key, info, newcomm));
}

int
MPI_Comm_create (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
  TS_REC_NOTE_CALLER ();
  TS_REC_COMM_CREATE (TS_R_COMM_CREATE, newcomm, PMPI_Comm_create (comm, group, newcomm));
}

int
MPI_Comm_create_group (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
  TS_REC_NOTE_CALLER ();
  TS_REC_COMM_CREATE (TS_R_COMM_CREATE_GROUP, newcomm,
                      PMPI_Comm_create_group (comm, group, tag, newcomm));
}

int
MPI_Cart_create (MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                 MPI_Comm *newcomm)
{
  TS_REC_NOTE_CALLER ();
  TS_REC_COMM_CREATE (TS_R_CART_CREATE, newcomm,
                      PMPI_Cart_create (comm, ndims, dims, periods, reorder, newcomm));
}

int
MPI_Cart_sub (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
  TS_REC_NOTE_CALLER ();
  TS_REC_COMM_CREATE (TS_R_CART_SUB, newcomm, PMPI_Cart_sub (comm, remain_dims, newcomm));
}

int
MPI_Graph_create (MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder,
                  MPI_Comm *newcomm)
{
  TS_REC_NOTE_CALLER ();
  TS_REC_COMM_CREATE (TS_R_GRAPH_CREATE, newcomm,
                      PMPI_Graph_create (comm, nnodes, index, edges, reorder, newcomm));
}

int
MPI_Dist_graph_create (MPI_Comm comm, int n, const int sources[], const int degrees[],
                       const int destinations[], const int weights[], MPI_Info info,
                       int reorder, MPI_Comm *newcomm)
{
  TS_REC_NOTE_CALLER ();
  TS_REC_COMM_CREATE (TS_R_DIST_GRAPH_CREATE, newcomm,
                      PMPI_Dist_graph_create (comm, n, sources, degrees, destinations, weights,
                                              info, reorder, newcomm));
}

int
MPI_Dist_graph_create_adjacent (MPI_Comm comm, int indegree, const int sources[],
                                const int sourceweights[], int outdegree,
                                const int destinations[], const int destweights[],
                                MPI_Info info, int reorder, MPI_Comm *newcomm)
{
  TS_REC_NOTE_CALLER ();
  TS_REC_COMM_CREATE (TS_R_DIST_GRAPH_CREATE_ADJACENT, newcomm,
                      PMPI_Dist_graph_create_adjacent (comm, indegree, sources, sourceweights,
                                                       outdegree, destinations, destweights,
                                                       info, reorder, newcomm));
}

int
MPI_Comm_free (MPI_Comm *comm)
{
  TS_REC_NOTE_CALLER ();
  if (!tracking ())
    return PMPI_Comm_free (comm);
  gboolean rec = ts_rec_recording_call ();
  if (rec)
    ts_rec_enter (TS_R_COMM_FREE);
  /* The definition stays (the trace refers to it); the handle may be reused. */
  guint64 key = ts_rec_handle_key (comm, sizeof *comm);
  g_mutex_lock (&ts_rec.comms_lock);
  g_hash_table_remove (ts_rec.comms, &key);
  g_mutex_unlock (&ts_rec.comms_lock);
  int rc = PMPI_Comm_free (comm);
  if (rec)
    ts_rec_leave (TS_R_COMM_FREE);
  return rc;
}

/* ---- definitions at MPI_Finalize ------------------------------------------- */

static gint
compare_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

/* Every rank's communicators, gathered on rank 0 (returned, with their
 * @total length): records of ref, n, n world ranks. Each communicator is
 * sent by its lowest member only: no duplicates. */
static guint64 *
gather_comms (int *total)
{
  GArray *mine = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint i = 0; i < ts_rec.comm_defs->len; i++)
    {
      TsRecComm *c = ts_rec.comm_defs->pdata[i];
      if (c->ref < 2)
        continue;
      gboolean lowest = TRUE;
      for (guint m = 0; m < c->members->len && lowest; m++)
        lowest = g_array_index (c->members, guint64, m) >= (guint64) ts_rec.rank;
      if (!lowest)
        continue;
      guint64 head[2] = { c->ref, c->members->len };
      g_array_append_vals (mine, head, 2);
      g_array_append_vals (mine, c->members->data, c->members->len);
    }
  int n = (int) mine->len;
  g_autofree int *counts = ts_rec.rank == 0 ? g_new0 (int, ts_rec.size) : NULL;
  g_autofree int *displs = ts_rec.rank == 0 ? g_new0 (int, ts_rec.size) : NULL;
  PMPI_Gather (&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  *total = 0;
  for (int r = 0; ts_rec.rank == 0 && r < ts_rec.size; r++)
    {
      displs[r] = *total;
      *total += counts[r];
    }
  guint64 *all = g_new0 (guint64, MAX (*total, 1));
  PMPI_Gatherv (mine->data, n, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, 0,
                MPI_COMM_WORLD);
  g_array_unref (mine);
  return all;
}

/* This rank's mapping from its sparse refs to the dense ones (2 + index in
 * the sorted @refs), in its local definitions. */
static void
write_comm_mapping (OTF2_DefWriter *local, GArray *refs)
{
  OTF2_IdMap *map = OTF2_IdMap_Create (OTF2_ID_MAP_SPARSE, MAX (ts_rec.comm_defs->len, 1));
  gboolean mapped = FALSE;
  for (guint i = 0; i < ts_rec.comm_defs->len; i++)
    {
      guint64 ref = ((TsRecComm *) ts_rec.comm_defs->pdata[i])->ref;
      guint index;
      if (ref >= 2 && g_array_binary_search (refs, &ref, compare_u64, &index)
          && ref != 2 + index)
        {
          OTF2_IdMap_AddIdPair (map, ref, 2 + index);
          mapped = TRUE;
        }
    }
  if (mapped && local)
    OTF2_DefWriter_WriteMappingTable (local, OTF2_MAPPING_COMM, map);
  OTF2_IdMap_Free (map);
}

/* MPI_COMM_WORLD and MPI_COMM_SELF. Group refs: comm ref + 1 (group 0 is
 * the world's locations). */
static void
write_predefined_comms (OTF2_GlobalDefWriter *g, guint32 *s)
{
  g_autofree guint64 *world = g_new (guint64, ts_rec.size);
  for (int r = 0; r < ts_rec.size; r++)
    world[r] = r;
  OTF2_GlobalDefWriter_WriteString (g, *s, "MPI_COMM_WORLD");
  OTF2_GlobalDefWriter_WriteGroup (g, 0, *s, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                   OTF2_GROUP_FLAG_NONE, ts_rec.size, world);
  OTF2_GlobalDefWriter_WriteGroup (g, TS_REC_COMM_WORLD + 1, *s, OTF2_GROUP_TYPE_COMM_GROUP,
                                   OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, ts_rec.size, world);
  OTF2_GlobalDefWriter_WriteComm (g, TS_REC_COMM_WORLD, *s, TS_REC_COMM_WORLD + 1,
                                  OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  (*s)++;
  OTF2_GlobalDefWriter_WriteString (g, *s, "MPI_COMM_SELF");
  OTF2_GlobalDefWriter_WriteGroup (g, TS_REC_COMM_SELF + 1, *s, OTF2_GROUP_TYPE_COMM_SELF,
                                   OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, NULL);
  OTF2_GlobalDefWriter_WriteComm (g, TS_REC_COMM_SELF, *s, TS_REC_COMM_SELF + 1,
                                  OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  (*s)++;
}

/* The refs events carry are sparse (2 + (c - 1) x size + m); the
 * definitions use dense ones (2, 3, ... in ref order), which OTF2 tools
 * expect, and each rank maps its refs to them with an OTF2 mapping table
 * (OTF2_MAPPING_COMM) that OTF2's reader applies. */
void
ts_rec_comm_write_definitions (OTF2_GlobalDefWriter *g, guint32 *s, OTF2_DefWriter *local)
{
  int total = 0;
  g_autofree guint64 *all = gather_comms (&total);

  /* Rank 0: every ref, sorted; to everybody, for the mapping. */
  g_autoptr (GArray) refs = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (int i = 0; i + 1 < total; i += 2 + (int) all[i + 1])
    g_array_append_val (refs, all[i]);
  g_array_sort (refs, compare_u64);
  int n_refs = (int) refs->len;
  PMPI_Bcast (&n_refs, 1, MPI_INT, 0, MPI_COMM_WORLD);
  g_array_set_size (refs, n_refs);
  PMPI_Bcast (refs->data, n_refs, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  write_comm_mapping (local, refs);
  if (!g)
    return;

  write_predefined_comms (g, s);
  /* In dense order: the records are indexed by their ref first. */
  g_autoptr (GHashTable) at = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, NULL);
  for (int i = 0; i + 1 < total; i += 2 + (int) all[i + 1])
    g_hash_table_insert (at, &all[i], GINT_TO_POINTER (i + 1));
  for (guint k = 0; k < refs->len; k++)
    {
      int i = GPOINTER_TO_INT (g_hash_table_lookup (at, &g_array_index (refs, guint64, k))) - 1;
      guint32 id = 2 + k;
      char name[32];
      g_snprintf (name, sizeof name, "comm %u", id);
      OTF2_GlobalDefWriter_WriteString (g, *s, name);
      OTF2_GlobalDefWriter_WriteGroup (g, id + 1, *s, OTF2_GROUP_TYPE_COMM_GROUP,
                                       OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                       (guint32) all[i + 1], &all[i + 2]);
      OTF2_GlobalDefWriter_WriteComm (g, id, *s, id + 1, OTF2_UNDEFINED_COMM,
                                      OTF2_COMM_FLAG_NONE);
      (*s)++;
    }
}
