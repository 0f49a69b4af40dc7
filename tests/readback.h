/* Test helper: read an OTF2 archive back with OTF2's own reader, independently
 * of tracesim's reader, so that writer tests check what any OTF2 tool sees.
 * Definitions are kept with their names resolved; events in global time order. */
#ifndef TS_TESTS_READBACK_H
#define TS_TESTS_READBACK_H

#include <glib.h>
#include <otf2/otf2.h>

typedef enum {
  RB_ENTER, RB_LEAVE, RB_SEND, RB_RECV, RB_ISEND, RB_ISEND_COMPLETE, RB_IRECV_REQUEST,
  RB_IRECV, RB_REQUEST_TEST, RB_COLL_BEGIN, RB_COLL_END, RB_METRIC,
  RB_PARAMETER, /* ParameterUnsignedInt: a = parameter, e = value, c = MPI_PARTITION (id 5) */
  RB_OTHER  /* BufferFlush */
} RbKind;

typedef struct {
  RbKind kind;
  guint64 location;
  guint64 time;        /* ticks */
  /* ENTER/LEAVE: a = region. SEND/RECV/ISEND/IRECV: a = peer, b = comm,
   * c = tag, d = bytes, e = request. Completions and tests: e = request.
   * COLL_END: a = OTF2 op, b = comm, c = root, d = sent, e = received.
   * METRIC: a = metric, value. */
  guint64 a, b, c, d, e;
  double value;
} RbEvent;

typedef struct {
  char *name;
  OTF2_RegionRole role;
  OTF2_Paradigm paradigm;
} RbRegion;

typedef struct {
  char *name;
  OTF2_GroupType type;
  GArray *members;     /* guint64 */
} RbGroup;

typedef struct {
  char *name;
  guint32 group;
  guint32 parent;
} RbComm;

typedef struct {
  char *name;
  OTF2_LocationType type;
  guint64 n_events;
  guint32 group;
} RbLocation;

typedef struct {
  char *name;
  char *unit;
  OTF2_MetricMode mode;
  OTF2_Type value_type;
} RbMetric;

typedef struct {
  guint64 resolution, offset, length;
  GPtrArray *regions, *groups, *comms, *locations, *metrics; /* by id */
  GArray *events;      /* RbEvent */
} RbArchive;

/* Read <dir>/<name>.otf2; NULL if OTF2 cannot read it. Free with rb_archive_free. */
RbArchive *rb_archive_load (const char *dir, const char *name);
void rb_archive_free (RbArchive *a);

/* A private temporary directory per test: @base is removed with everything
 * in it by teardown; @dir is base/<leaf>, not created. */
typedef struct {
  char *base;
  char *dir;
} RbFixture;
/* CMocka setup/teardown bodies: *state becomes an RbFixture. @tmpl is a
 * g_dir_make_tmp() template such as "ts-script-XXXXXX". */
int rb_fixture_setup (void **state, const char *tmpl, const char *leaf);
int rb_fixture_teardown (void **state);
/* The @nth (from 0) event of @kind on @location, or NULL. */
const RbEvent *rb_archive_find (const RbArchive *a, guint64 location, RbKind kind, guint nth);
/* Number of events of @kind on @location (G_MAXUINT64: any location). */
guint rb_archive_count (const RbArchive *a, guint64 location, RbKind kind);
/* Members of group @id as a comma-separated string ("1,0"), for assertions. */
char *rb_group_members (const RbArchive *a, guint32 id);

#endif
