#include <config.h>

#include "tests/readback.h"
#include "model/output_dir.h"

#include <string.h>

typedef struct {
  RbArchive *a;
  GPtrArray *strings;  /* by id */
} RbDefs;

static const char *
string_of (RbDefs *d, OTF2_StringRef ref)
{
  return ref < d->strings->len && g_ptr_array_index (d->strings, ref)
    ? g_ptr_array_index (d->strings, ref) : "<undefined>";
}

/* Definitions arrive in id order; place them by id anyway. */
static void
put (GPtrArray *array, guint id, gpointer item)
{
  if (array->len <= id)
    g_ptr_array_set_size (array, id + 1);
  g_ptr_array_index (array, id) = item;
}

static OTF2_CallbackCode
def_string (void *ud, OTF2_StringRef self, const char *string)
{
  put (((RbDefs *) ud)->strings, self, g_strdup (string));
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_clock (void *ud, uint64_t resolution, uint64_t offset, uint64_t length, uint64_t realtime)
{
  RbArchive *a = ((RbDefs *) ud)->a;
  a->resolution = resolution;
  a->offset = offset;
  a->length = length;
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_region (void *ud, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonical,
            OTF2_StringRef description, OTF2_RegionRole role, OTF2_Paradigm paradigm,
            OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin, uint32_t end)
{
  RbDefs *d = ud;
  RbRegion *r = g_new0 (RbRegion, 1);
  r->name = g_strdup (string_of (d, name));
  r->role = role;
  r->paradigm = paradigm;
  put (d->a->regions, self, r);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_group (void *ud, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType type,
           OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
  RbDefs *d = ud;
  RbGroup *g = g_new0 (RbGroup, 1);
  g->name = g_strdup (string_of (d, name));
  g->type = type;
  g->members = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_array_append_vals (g->members, members, n);
  put (d->a->groups, self, g);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_comm (void *ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
          OTF2_CommRef parent, OTF2_CommFlag flags)
{
  RbDefs *d = ud;
  RbComm *c = g_new0 (RbComm, 1);
  c->name = g_strdup (string_of (d, name));
  c->group = group;
  c->parent = parent;
  put (d->a->comms, self, c);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_location (void *ud, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
              uint64_t n_events, OTF2_LocationGroupRef group)
{
  RbDefs *d = ud;
  RbLocation *l = g_new0 (RbLocation, 1);
  l->name = g_strdup (string_of (d, name));
  l->type = type;
  l->n_events = n_events;
  l->group = group;
  put (d->a->locations, self, l);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
def_metric_member (void *ud, OTF2_MetricMemberRef self, OTF2_StringRef name,
                   OTF2_StringRef description, OTF2_MetricType type, OTF2_MetricMode mode,
                   OTF2_Type value_type, OTF2_Base base, int64_t exponent, OTF2_StringRef unit)
{
  RbDefs *d = ud;
  RbMetric *m = g_new0 (RbMetric, 1);
  m->name = g_strdup (string_of (d, name));
  m->unit = g_strdup (string_of (d, unit));
  m->mode = mode;
  m->value_type = value_type;
  put (d->a->metrics, self, m);
  return OTF2_CALLBACK_SUCCESS;
}

static void
add_event (void *ud, RbKind kind, OTF2_LocationRef loc, OTF2_TimeStamp t, guint64 a, guint64 b,
           guint64 c, guint64 d, guint64 e)
{
  RbEvent ev = { kind, loc, t, a, b, c, d, e, 0.0 };
  g_array_append_val (((RbArchive *) ud)->events, ev);
}

static OTF2_CallbackCode
ev_enter (OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al,
          OTF2_RegionRef region)
{
  add_event (ud, RB_ENTER, loc, t, region, 0, 0, 0, 0);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_leave (OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al,
          OTF2_RegionRef region)
{
  add_event (ud, RB_LEAVE, loc, t, region, 0, 0, 0, 0);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_send (OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al,
         uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes)
{
  add_event (ud, RB_SEND, loc, t, peer, comm, tag, bytes, 0);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_recv (OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al,
         uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes)
{
  add_event (ud, RB_RECV, loc, t, peer, comm, tag, bytes, 0);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_isend (OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al,
          uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t req)
{
  add_event (ud, RB_ISEND, loc, t, peer, comm, tag, bytes, req);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_irecv (OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al,
          uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t req)
{
  add_event (ud, RB_IRECV, loc, t, peer, comm, tag, bytes, req);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_isend_complete (OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al,
                   uint64_t req)
{
  add_event (ud, RB_ISEND_COMPLETE, loc, t, 0, 0, 0, 0, req);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_irecv_request (OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al,
                  uint64_t req)
{
  add_event (ud, RB_IRECV_REQUEST, loc, t, 0, 0, 0, 0, req);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_request_test (OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al,
                 uint64_t req)
{
  add_event (ud, RB_REQUEST_TEST, loc, t, 0, 0, 0, 0, req);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_coll_begin (OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al)
{
  add_event (ud, RB_COLL_BEGIN, loc, t, 0, 0, 0, 0, 0);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_coll_end (OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al,
             OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
             uint64_t received)
{
  add_event (ud, RB_COLL_END, loc, t, op, comm, root, sent, received);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_metric (OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al,
           OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types, const OTF2_MetricValue *values)
{
  add_event (ud, RB_METRIC, loc, t, metric, n, 0, 0, 0);
  RbArchive *a = ud;
  if (n >= 1 && types[0] == OTF2_TYPE_DOUBLE)
    g_array_index (a->events, RbEvent, a->events->len - 1).value = values[0].floating_point;
  return OTF2_CALLBACK_SUCCESS;
}

/* ParameterUnsignedInt: a = parameter, e = value; c = the uint32
 * attribute with id 5 when present (tracesim's MPI_PARTITION), else G_MAXUINT64. */
static OTF2_CallbackCode
ev_parameter (OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al,
              OTF2_ParameterRef param, uint64_t value)
{
  uint32_t partition;
  guint64 c = al && OTF2_AttributeList_GetUint32 (al, 5, &partition) == OTF2_SUCCESS
                ? partition : G_MAXUINT64;
  add_event (ud, RB_PARAMETER, loc, t, param, 0, c, 0, value);
  return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode
ev_flush (OTF2_LocationRef loc, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al,
          OTF2_TimeStamp stop)
{
  add_event (ud, RB_OTHER, loc, t, 0, 0, 0, 0, 0);
  return OTF2_CALLBACK_SUCCESS;
}

static gboolean
read_defs (OTF2_Reader *reader, RbArchive *a)
{
  RbDefs d = { a, g_ptr_array_new_with_free_func (g_free) };
  OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader (reader);
  OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New ();
  OTF2_GlobalDefReaderCallbacks_SetStringCallback (cb, def_string);
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback (cb, def_clock);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback (cb, def_region);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback (cb, def_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback (cb, def_comm);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback (cb, def_location);
  OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback (cb, def_metric_member);
  uint64_t n;
  gboolean ok = gdr
    && OTF2_Reader_RegisterGlobalDefCallbacks (reader, gdr, cb, &d) == OTF2_SUCCESS
    && OTF2_Reader_ReadAllGlobalDefinitions (reader, gdr, &n) == OTF2_SUCCESS;
  OTF2_GlobalDefReaderCallbacks_Delete (cb);
  if (gdr)
    OTF2_Reader_CloseGlobalDefReader (reader, gdr);
  g_ptr_array_unref (d.strings);
  return ok;
}

static gboolean
read_events (OTF2_Reader *reader, RbArchive *a)
{
  guint n_readers = 0;
  for (guint l = 0; l < a->locations->len; l++)
    OTF2_Reader_SelectLocation (reader, l);
  if (OTF2_Reader_OpenDefFiles (reader) != OTF2_SUCCESS
      || OTF2_Reader_OpenEvtFiles (reader) != OTF2_SUCCESS)
    return FALSE;
  for (guint l = 0; l < a->locations->len; l++)
    {
      OTF2_DefReader *dr = OTF2_Reader_GetDefReader (reader, l);
      uint64_t n;
      if (dr)
        {
          OTF2_Reader_ReadAllLocalDefinitions (reader, dr, &n);
          OTF2_Reader_CloseDefReader (reader, dr);
        }
      /* OTF2 3.0.2's global reader reads a freed local reader when a location
       * has no event (valgrind: otf2_global_evt_reader_new), so leave those out. */
      if (((RbLocation *) g_ptr_array_index (a->locations, l))->n_events > 0)
        {
          OTF2_Reader_GetEvtReader (reader, l);
          n_readers++;
        }
    }
  OTF2_Reader_CloseDefFiles (reader);
  if (n_readers == 0)
    {
      OTF2_Reader_CloseEvtFiles (reader);
      return TRUE;
    }

  OTF2_GlobalEvtReader *ger = OTF2_Reader_GetGlobalEvtReader (reader);
  OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New ();
  OTF2_GlobalEvtReaderCallbacks_SetEnterCallback (cb, ev_enter);
  OTF2_GlobalEvtReaderCallbacks_SetParameterUnsignedIntCallback (cb, ev_parameter);
  OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback (cb, ev_leave);
  OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback (cb, ev_send);
  OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback (cb, ev_recv);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback (cb, ev_isend);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback (cb, ev_irecv);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback (cb, ev_isend_complete);
  OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback (cb, ev_irecv_request);
  OTF2_GlobalEvtReaderCallbacks_SetMpiRequestTestCallback (cb, ev_request_test);
  OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback (cb, ev_coll_begin);
  OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback (cb, ev_coll_end);
  OTF2_GlobalEvtReaderCallbacks_SetMetricCallback (cb, ev_metric);
  OTF2_GlobalEvtReaderCallbacks_SetBufferFlushCallback (cb, ev_flush);
  uint64_t n;
  gboolean ok = ger
    && OTF2_Reader_RegisterGlobalEvtCallbacks (reader, ger, cb, a) == OTF2_SUCCESS
    && OTF2_Reader_ReadAllGlobalEvents (reader, ger, &n) == OTF2_SUCCESS;
  OTF2_GlobalEvtReaderCallbacks_Delete (cb);
  if (ger)
    OTF2_Reader_CloseGlobalEvtReader (reader, ger);
  OTF2_Reader_CloseEvtFiles (reader);
  return ok;
}

static void
region_free (gpointer p)
{
  RbRegion *r = p;
  if (r)
    g_free (r->name);
  g_free (r);
}

static void
group_free (gpointer p)
{
  RbGroup *g = p;
  if (g)
    {
      g_free (g->name);
      g_array_unref (g->members);
    }
  g_free (g);
}

static void
comm_free (gpointer p)
{
  RbComm *c = p;
  if (c)
    g_free (c->name);
  g_free (c);
}

static void
location_free (gpointer p)
{
  RbLocation *l = p;
  if (l)
    g_free (l->name);
  g_free (l);
}

static void
metric_free (gpointer p)
{
  RbMetric *m = p;
  if (m)
    {
      g_free (m->name);
      g_free (m->unit);
    }
  g_free (m);
}

RbArchive *
rb_archive_load (const char *dir, const char *name)
{
  g_autofree char *anchor = g_strdup_printf ("%s/%s.otf2", dir, name);
  OTF2_Reader *reader = OTF2_Reader_Open (anchor);
  if (!reader)
    return NULL;
  RbArchive *a = g_new0 (RbArchive, 1);
  a->regions = g_ptr_array_new_with_free_func (region_free);
  a->groups = g_ptr_array_new_with_free_func (group_free);
  a->comms = g_ptr_array_new_with_free_func (comm_free);
  a->locations = g_ptr_array_new_with_free_func (location_free);
  a->metrics = g_ptr_array_new_with_free_func (metric_free);
  a->events = g_array_new (FALSE, FALSE, sizeof (RbEvent));
  gboolean ok = OTF2_Reader_SetSerialCollectiveCallbacks (reader) == OTF2_SUCCESS
    && read_defs (reader, a) && read_events (reader, a);
  OTF2_Reader_Close (reader);
  if (!ok)
    {
      rb_archive_free (a);
      return NULL;
    }
  return a;
}

void
rb_archive_free (RbArchive *a)
{
  if (!a)
    return;
  g_ptr_array_unref (a->regions);
  g_ptr_array_unref (a->groups);
  g_ptr_array_unref (a->comms);
  g_ptr_array_unref (a->locations);
  g_ptr_array_unref (a->metrics);
  g_array_unref (a->events);
  g_free (a);
}

const RbEvent *
rb_archive_find (const RbArchive *a, guint64 location, RbKind kind, guint nth)
{
  for (guint i = 0; i < a->events->len; i++)
    {
      const RbEvent *e = &g_array_index (a->events, RbEvent, i);
      if (e->location == location && e->kind == kind && nth-- == 0)
        return e;
    }
  return NULL;
}

guint
rb_archive_count (const RbArchive *a, guint64 location, RbKind kind)
{
  guint n = 0;
  for (guint i = 0; i < a->events->len; i++)
    {
      const RbEvent *e = &g_array_index (a->events, RbEvent, i);
      n += (location == G_MAXUINT64 || e->location == location) && e->kind == kind;
    }
  return n;
}

char *
rb_group_members (const RbArchive *a, guint32 id)
{
  if (id >= a->groups->len || !g_ptr_array_index (a->groups, id))
    return g_strdup ("<no such group>");
  const RbGroup *g = g_ptr_array_index (a->groups, id);
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < g->members->len; i++)
    g_string_append_printf (s, "%s%" G_GUINT64_FORMAT, i ? "," : "",
                            g_array_index (g->members, guint64, i));
  return g_string_free (s, FALSE);
}

int
rb_fixture_setup (void **state, const char *tmpl, const char *leaf)
{
  RbFixture *f = g_new0 (RbFixture, 1);
  f->base = g_dir_make_tmp (tmpl, NULL);
  if (!f->base)
    {
      g_free (f);
      return -1; /* CMocka reports a failed setup */
    }
  f->dir = g_build_filename (f->base, leaf, NULL);
  *state = f;
  return 0;
}

int
rb_fixture_teardown (void **state)
{
  RbFixture *f = *state;
  ts_output_dir_remove_tree (f->base);
  g_free (f->base);
  g_free (f->dir);
  g_free (f);
  return 0;
}
