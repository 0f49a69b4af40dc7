#include <config.h>

#include "tools/tracegen/partitioned.h"
#include "model/archive_writer.h"

#include <gio/gio.h>

void
ts_part_params_init (TsPartParams *p)
{
  *p = (TsPartParams) { TS_PART_FLS, 2, 2, 1, 0.1, 64 };
}

typedef struct {
  guint32 main, delay, psend_init, precv_init, start, pready, wait;
} Regions;

/* A zero-length MPI call of rank @r at @t carrying one partitioned event. */
static void
call (TsArchiveWriter *w, guint r, double t, guint32 region, TsPartitionedEvent e, guint64 req,
      guint32 arg, guint64 bytes, guint32 partitions)
{
  ts_archive_writer_enter (w, r, t, region);
  gboolean init = e == TS_P_PSEND_INIT || e == TS_P_PRECV_INIT;
  ts_archive_writer_partitioned (w, r, t, e, req, arg, 0, init ? 7 : 0, bytes, partitions);
  ts_archive_writer_leave (w, r, t, region);
}

static void
delay (TsArchiveWriter *w, guint r, double *t, const Regions *reg, double seconds)
{
  ts_archive_writer_enter (w, r, *t, reg->delay);
  *t += seconds;
  ts_archive_writer_leave (w, r, *t, reg->delay);
}

gboolean
ts_part_write (const TsPartParams *p, const char *dir, const char *name, GError **error)
{
  if (p->send_partitions == 0 || p->recv_partitions == 0 || p->reps == 0 || !(p->delay >= 0)
      || p->bytes < p->send_partitions)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "partitioned: partitions and rounds must be positive, the delay not "
                   "negative, and the message at least one byte per send partition");
      return FALSE;
    }
  TsArchiveWriter *w = ts_archive_writer_new (dir, name, 2, error);
  if (!w)
    return FALSE;
  static const char *const delay_names[] = { "nls", "fls", "vls" };
  Regions reg = {
    .main = ts_archive_writer_define_region (w, "main", TS_REGION_USER),
    .delay = ts_archive_writer_define_region (w, delay_names[p->variant], TS_REGION_USER),
    .psend_init = ts_archive_writer_define_region (w, "MPI_Psend_init", TS_REGION_MPI),
    .precv_init = ts_archive_writer_define_region (w, "MPI_Precv_init", TS_REGION_MPI),
    .start = ts_archive_writer_define_region (w, "MPI_Start", TS_REGION_MPI),
    .pready = ts_archive_writer_define_region (w, "MPI_Pready", TS_REGION_MPI),
    .wait = ts_archive_writer_define_region (w, "MPI_Wait", TS_REGION_MPI),
  };
  const guint64 sreq = 1, rreq = 2;
  guint s = p->send_partitions;
  double ts = 0, tr = 0;     /* the two ranks' clocks */
  ts_archive_writer_enter (w, 0, 0, reg.main);
  ts_archive_writer_enter (w, 1, 0, reg.main);
  call (w, 0, 0, reg.psend_init, TS_P_PSEND_INIT, sreq, 1, p->bytes, s);
  call (w, 1, 0, reg.precv_init, TS_P_PRECV_INIT, rreq, 0, p->bytes, p->recv_partitions);
  for (guint round = 0; round < p->reps; round++)
    {
      double recv_start = tr;
      call (w, 1, tr, reg.start, TS_P_PRECV_REQUEST, rreq, 0, 0, 0);
      call (w, 0, ts, reg.start, TS_P_PSEND_REQUEST, sreq, 0, 0, 0);
      if (p->variant == TS_PART_FLS)
        delay (w, 0, &ts, &reg, p->delay);
      /* Partitions arrive one after the other (they are far smaller than
       * the delays): the last one decides. */
      double arrival = 0;
      for (guint i = 0; i < s; i++)
        {
          if (p->variant == TS_PART_VLS)
            delay (w, 0, &ts, &reg, p->delay);
          call (w, 0, ts, reg.pready, TS_P_PREADY, sreq, i, 0, 0);
          guint64 b = p->bytes / s + (i < p->bytes % s ? 1 : 0);
          arrival = MAX (arrival, MAX (ts, recv_start) + TS_PART_LATENCY
                                  + (double) b / TS_PART_BANDWIDTH);
        }
      if (p->variant == TS_PART_NLS)
        delay (w, 1, &tr, &reg, p->delay);
      /* Both waits end when the last partition has arrived. */
      ts_archive_writer_enter (w, 0, ts, reg.wait);
      ts = MAX (ts, arrival);
      ts_archive_writer_partitioned (w, 0, ts, TS_P_PSEND_COMPLETE, sreq, 0, 0, 0, 0, 0);
      ts_archive_writer_leave (w, 0, ts, reg.wait);
      ts_archive_writer_enter (w, 1, tr, reg.wait);
      tr = MAX (tr, arrival);
      ts_archive_writer_partitioned (w, 1, tr, TS_P_PRECV_COMPLETE, rreq, 0, 0, 0, 0, 0);
      ts_archive_writer_leave (w, 1, tr, reg.wait);
    }
  ts_archive_writer_leave (w, 0, ts, reg.main);
  ts_archive_writer_leave (w, 1, tr, reg.main);
  return ts_archive_writer_close (w, error);
}
