/* ts-check-archive: is an OTF2 archive a valid trace, as Vampir and Scalasca
 * need it? For every location: ENTER and LEAVE balanced and properly nested
 * (each LEAVE closes the innermost open region, nothing open at the end),
 * timestamps never decreasing, and every MPI record (messages, requests,
 * collectives, partitioned events) inside an MPI call. Then otf2-print must
 * read it without a warning.
 *
 * Usage: ts-check-archive ANCHOR.otf2...   Prints each problem (the first
 * TS_MAX_REPORTS per archive) and exits 1 if there is any, 2 if an archive
 * cannot be read. The test suite runs it on every predicted archive it
 * writes (tests/tool-run.c). */
#include <config.h>

#include <glib.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <string.h>

#define TS_MAX_REPORTS 20

typedef struct {
  OTF2_LocationRef location;
  GArray *open;              /* OTF2_RegionRef */
  OTF2_TimeStamp last;
  guint64 events;
} Location;

typedef struct {
  const char *path;
  GHashTable *strings;       /* string ref -> name */
  GHashTable *mpi_regions;   /* region ref + 1 -> name, for MPI regions */
  GHashTable *names;         /* region ref + 1 -> name, for every region */
  GHashTable *locations;     /* location ref -> Location */
  GArray *defined;           /* OTF2_LocationRef of every Location definition */
  guint problems;
} Check;

static void G_GNUC_PRINTF (2, 3)
problem (Check *c, const char *fmt, ...)
{
  if (c->problems++ >= TS_MAX_REPORTS)
    return;
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  fprintf (stderr, "%s: %s\n", c->path, msg);
}

static const char *
region_name (Check *c, OTF2_RegionRef r)
{
  const char *n = g_hash_table_lookup (c->names, GUINT_TO_POINTER (r + 1));
  return n ? n : "?";
}

static OTF2_CallbackCode
on_string (void *ud, OTF2_StringRef self, const char *string)
{
  Check *c = ud;
  g_hash_table_replace (c->strings, GUINT_TO_POINTER (self), g_strdup (string));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_region (void *ud, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
           OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
           OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
  Check *c = ud;
  const char *n = g_hash_table_lookup (c->strings, GUINT_TO_POINTER (name));
  n = n ? n : "?";
  g_hash_table_replace (c->names, GUINT_TO_POINTER (self + 1), g_strdup (n));
  if (paradigm == OTF2_PARADIGM_MPI || g_ascii_strncasecmp (n, "mpi_", 4) == 0)
    g_hash_table_replace (c->mpi_regions, GUINT_TO_POINTER (self + 1), g_strdup (n));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_location (void *ud, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
             uint64_t events, OTF2_LocationGroupRef group)
{
  Check *c = ud;
  g_array_append_val (c->defined, self);
  return OTF2_CALLBACK_SUCCESS;
}

static Location *
at (Check *c, OTF2_LocationRef loc, OTF2_TimeStamp t)
{
  Location *l = g_hash_table_lookup (c->locations, &loc);
  if (!l)
    {
      l = g_new0 (Location, 1);
      l->location = loc;
      l->open = g_array_new (FALSE, FALSE, sizeof (OTF2_RegionRef));
      g_hash_table_insert (c->locations, &l->location, l);
    }
  if (t < l->last)
    problem (c, "location %" G_GUINT64_FORMAT ", event %" G_GUINT64_FORMAT
             ": time goes back from %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT,
             (guint64) loc, l->events, (guint64) l->last, (guint64) t);
  l->last = MAX (l->last, t);
  l->events++;
  return l;
}

static OTF2_CallbackCode
on_enter (OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *a,
          OTF2_RegionRef region)
{
  Location *l = at (ud, loc, t);
  g_array_append_val (l->open, region);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_leave (OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *a,
          OTF2_RegionRef region)
{
  Check *c = ud;
  Location *l = at (c, loc, t);
  if (l->open->len == 0)
    problem (c, "location %" G_GUINT64_FORMAT ", event %" G_GUINT64_FORMAT
             ": LEAVE of %s with no region open", (guint64) loc, l->events,
             region_name (c, region));
  else if (g_array_index (l->open, OTF2_RegionRef, l->open->len - 1) != region)
    problem (c, "location %" G_GUINT64_FORMAT ", event %" G_GUINT64_FORMAT
             ": LEAVE of %s while %s is the innermost open region", (guint64) loc, l->events,
             region_name (c, region),
             region_name (c, g_array_index (l->open, OTF2_RegionRef, l->open->len - 1)));
  if (l->open->len > 0)
    g_array_set_size (l->open, l->open->len - 1);
  return OTF2_CALLBACK_SUCCESS;
}

/* An MPI record: its innermost open region must be an MPI call. */
static void
mpi_record (Check *c, OTF2_LocationRef loc, OTF2_TimeStamp t, const char *what)
{
  Location *l = at (c, loc, t);
  OTF2_RegionRef inner = l->open->len ? g_array_index (l->open, OTF2_RegionRef, l->open->len - 1)
                                      : OTF2_UNDEFINED_REGION;
  if (inner == OTF2_UNDEFINED_REGION
      || !g_hash_table_contains (c->mpi_regions, GUINT_TO_POINTER (inner + 1)))
    problem (c, "location %" G_GUINT64_FORMAT ", event %" G_GUINT64_FORMAT
             ": %s outside an MPI call (innermost region: %s)", (guint64) loc, l->events, what,
             inner == OTF2_UNDEFINED_REGION ? "none" : region_name (c, inner));
}

#define MPI_RECORD(name, what, ...)                                                        \
  static OTF2_CallbackCode name (OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud,        \
                                 OTF2_AttributeList *a, __VA_ARGS__)                       \
  {                                                                                        \
    mpi_record (ud, loc, t, what);                                                         \
    return OTF2_CALLBACK_SUCCESS;                                                          \
  }

MPI_RECORD (on_send, "MPI_SEND", uint32_t r, OTF2_CommRef c, uint32_t tag, uint64_t n)
MPI_RECORD (on_recv, "MPI_RECV", uint32_t r, OTF2_CommRef c, uint32_t tag, uint64_t n)
MPI_RECORD (on_isend, "MPI_ISEND", uint32_t r, OTF2_CommRef c, uint32_t tag, uint64_t n,
            uint64_t req)
MPI_RECORD (on_irecv, "MPI_IRECV", uint32_t r, OTF2_CommRef c, uint32_t tag, uint64_t n,
            uint64_t req)
MPI_RECORD (on_isend_complete, "MPI_ISEND_COMPLETE", uint64_t req)
MPI_RECORD (on_irecv_request, "MPI_IRECV_REQUEST", uint64_t req)
MPI_RECORD (on_request_test, "MPI_REQUEST_TEST", uint64_t req)
MPI_RECORD (on_request_cancelled, "MPI_REQUEST_CANCELLED", uint64_t req)
MPI_RECORD (on_coll_end, "MPI_COLLECTIVE_END", OTF2_CollectiveOp op, OTF2_CommRef c,
            uint32_t root, uint64_t sent, uint64_t received)
MPI_RECORD (on_nbc_request, "NON_BLOCKING_COLLECTIVE_REQUEST", uint64_t req)
MPI_RECORD (on_nbc_complete, "NON_BLOCKING_COLLECTIVE_COMPLETE", OTF2_CollectiveOp op,
            OTF2_CommRef c, uint32_t root, uint64_t sent, uint64_t received, uint64_t req)
MPI_RECORD (on_parameter, "PARAMETER_UNSIGNED_INT", OTF2_ParameterRef p, uint64_t v)

static OTF2_CallbackCode
on_coll_begin (OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *a)
{
  mpi_record (ud, loc, t, "MPI_COLLECTIVE_BEGIN");
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
on_metric (OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *a,
           OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
           const OTF2_MetricValue *values)
{
  at (ud, loc, t);
  return OTF2_CALLBACK_SUCCESS;
}

static gboolean
read_definitions (Check *c, OTF2_Reader *reader)
{
  OTF2_GlobalDefReader *defs = OTF2_Reader_GetGlobalDefReader (reader);
  if (!defs)
    return FALSE;
  OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New ();
  OTF2_GlobalDefReaderCallbacks_SetStringCallback (cb, on_string);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback (cb, on_region);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback (cb, on_location);
  OTF2_Reader_RegisterGlobalDefCallbacks (reader, defs, cb, c);
  OTF2_GlobalDefReaderCallbacks_Delete (cb);
  uint64_t n = 0;
  OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalDefinitions (reader, defs, &n);
  OTF2_Reader_CloseGlobalDefReader (reader, defs);
  return rc == OTF2_SUCCESS;
}

static OTF2_GlobalEvtReaderCallbacks *
event_callbacks (void)
{
  OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New ();
  OTF2_GlobalEvtReaderCallbacks_SetEnterCallback (cb, on_enter);
  OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback (cb, on_leave);
  OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback (cb, on_send);
  OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback (cb, on_recv);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback (cb, on_isend);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback (cb, on_irecv);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback (cb, on_isend_complete);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback (cb, on_irecv_request);
  OTF2_GlobalEvtReaderCallbacks_SetMpiRequestTestCallback (cb, on_request_test);
  OTF2_GlobalEvtReaderCallbacks_SetMpiRequestCancelledCallback (cb, on_request_cancelled);
  OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback (cb, on_coll_begin);
  OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback (cb, on_coll_end);
  OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback (cb, on_nbc_request);
  OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback (cb, on_nbc_complete);
  OTF2_GlobalEvtReaderCallbacks_SetParameterUnsignedIntCallback (cb, on_parameter);
  OTF2_GlobalEvtReaderCallbacks_SetMetricCallback (cb, on_metric);
  return cb;
}

/* Every location's events, merged in time order by OTF2's global reader
 * (with each location's local definitions read first: Score-P keeps its
 * id mappings there). */
static gboolean
read_events (Check *c, OTF2_Reader *reader)
{
  for (guint i = 0; i < c->defined->len; i++)
    OTF2_Reader_SelectLocation (reader, g_array_index (c->defined, OTF2_LocationRef, i));
  if (OTF2_Reader_OpenEvtFiles (reader) != OTF2_SUCCESS)
    return FALSE;
  gboolean have_defs = OTF2_Reader_OpenDefFiles (reader) == OTF2_SUCCESS;
  for (guint i = 0; i < c->defined->len; i++)
    {
      OTF2_LocationRef loc = g_array_index (c->defined, OTF2_LocationRef, i);
      OTF2_DefReader *dr = have_defs ? OTF2_Reader_GetDefReader (reader, loc) : NULL;
      if (dr)
        {
          uint64_t n = 0;
          OTF2_Reader_ReadAllLocalDefinitions (reader, dr, &n);
          OTF2_Reader_CloseDefReader (reader, dr);
        }
      if (!OTF2_Reader_GetEvtReader (reader, loc))
        return FALSE;
    }
  if (have_defs)
    OTF2_Reader_CloseDefFiles (reader);
  OTF2_GlobalEvtReader *evt = OTF2_Reader_GetGlobalEvtReader (reader);
  if (!evt)
    return FALSE;
  OTF2_GlobalEvtReaderCallbacks *cb = event_callbacks ();
  OTF2_Reader_RegisterGlobalEvtCallbacks (reader, evt, cb, c);
  OTF2_GlobalEvtReaderCallbacks_Delete (cb);
  uint64_t n = 0;
  OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalEvents (reader, evt, &n);
  OTF2_Reader_CloseGlobalEvtReader (reader, evt);
  OTF2_Reader_CloseEvtFiles (reader);
  return rc == OTF2_SUCCESS;
}

static void
location_free (gpointer p)
{
  Location *l = p;
  g_array_unref (l->open);
  g_free (l);
}

/* otf2-print reads the whole archive; anything it says on stderr (a
 * warning, an error) is a problem. */
static void
check_with_otf2_print (Check *c)
{
  const char *argv[] = { "otf2-print", c->path, NULL };
  g_autofree char *err = NULL;
  int status = 0;
  g_autoptr (GError) error = NULL;
  if (!g_spawn_sync (NULL, (char **) argv, NULL,
                     G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err,
                     &status, &error))
    {
      problem (c, "cannot run otf2-print: %s", error->message);
      return;
    }
  if (!g_spawn_check_wait_status (status, NULL))
    problem (c, "otf2-print fails: %s", err && *err ? err : "(nothing said)");
  else if (err && *err)
    problem (c, "otf2-print says: %s", g_strchomp (err));
}

/* 0: valid; 1: problems found; 2: cannot be read. */
static int
check_archive (const char *path)
{
  Check c = { path };
  c.strings = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  c.names = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  c.mpi_regions = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  c.locations = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, location_free);
  c.defined = g_array_new (FALSE, FALSE, sizeof (OTF2_LocationRef));
  int verdict = 0;
  OTF2_Reader *reader = OTF2_Reader_Open (path);
  if (!reader)
    {
      fprintf (stderr, "%s: cannot open as an OTF2 archive\n", path);
      verdict = 2;
    }
  else
    {
      OTF2_Reader_SetSerialCollectiveCallbacks (reader);
      if (!read_definitions (&c, reader) || !read_events (&c, reader))
        {
          fprintf (stderr, "%s: cannot read its definitions or events\n", path);
          verdict = 2;
        }
      OTF2_Reader_Close (reader);
    }
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init (&it, c.locations);
  while (verdict == 0 && g_hash_table_iter_next (&it, NULL, &value))
    {
      Location *l = value;
      if (l->open->len > 0)
        problem (&c, "location %" G_GUINT64_FORMAT ": %u region(s) still open at the end, "
                 "innermost %s", (guint64) l->location, l->open->len,
                 region_name (&c, g_array_index (l->open, OTF2_RegionRef, l->open->len - 1)));
    }
  if (verdict == 0)
    check_with_otf2_print (&c);
  if (verdict == 0 && c.problems > 0)
    {
      if (c.problems > TS_MAX_REPORTS)
        fprintf (stderr, "%s: ... %u problems in all\n", path, c.problems);
      verdict = 1;
    }
  g_hash_table_unref (c.strings);
  g_hash_table_unref (c.names);
  g_hash_table_unref (c.mpi_regions);
  g_hash_table_unref (c.locations);
  g_array_unref (c.defined);
  return verdict;
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    {
      fprintf (stderr, "usage: ts-check-archive ANCHOR.otf2...\n");
      return 2;
    }
  int worst = 0;
  for (int i = 1; i < argc; i++)
    {
      int verdict = check_archive (argv[i]); /* not inside MAX(): it evaluates twice */
      worst = MAX (worst, verdict);
    }
  return worst;
}
