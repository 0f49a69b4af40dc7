#include <config.h>

#define G_LOG_DOMAIN "tracesim-stencil"

#include "tools/tracegen/stencil.h"

#include "model/archive_writer.h"
#include "model/otf2-chunk.h"

#include <gio/gio.h>
#include <math.h>

/* As many as an OTF2 archive can define (model/otf2-chunk.h). */
#define TS_STENCIL_MAX_RANKS TS_OTF2_MAX_GROUP_MEMBERS

void
ts_stencil_define_regions (TsArchiveWriter *w, TsStencilRegions *reg)
{
  *reg = (TsStencilRegions) {
    .main = ts_archive_writer_define_region (w, "main", TS_REGION_USER),
    .compute = ts_archive_writer_define_region (w, "compute_kernel", TS_REGION_USER),
    .irecv = ts_archive_writer_define_region (w, "MPI_Irecv", TS_REGION_MPI),
    .isend = ts_archive_writer_define_region (w, "MPI_Isend", TS_REGION_MPI),
    .waitall = ts_archive_writer_define_region (w, "MPI_Waitall", TS_REGION_MPI),
    .allreduce = ts_archive_writer_define_region (w, "MPI_Allreduce", TS_REGION_MPI),
  };
}

void
ts_stencil_params_init (TsStencilParams *params)
{
  g_return_if_fail (params != NULL);
  *params = (TsStencilParams) {
    .n_ranks = 4,
    .iterations = 10,
    .compute = 1e-3,
    .imbalance = 1.0,
    .bytes = 4096,
    .allreduce_every = 10,
  };
}

static gboolean
check_params (const TsStencilParams *p, GError **error)
{
  const char *bad = NULL;
  if (p->n_ranks == 0 || p->n_ranks > TS_STENCIL_MAX_RANKS)
    bad = "--ranks must be from 1 to 4194291";
  else if (!isfinite (p->compute) || p->compute < 0)
    bad = "--compute must be a number of seconds >= 0";
  else if (!isfinite (p->imbalance) || p->imbalance < 0)
    bad = "--imbalance must be a factor >= 0";
  if (bad)
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, bad);
  return bad == NULL;
}

double
ts_stencil_allreduce_seconds (guint n)
{
  guint rounds = 0;
  while (rounds < 32 && (1ull << rounds) < n)
    rounds++;
  return 2.0 * rounds * TS_STENCIL_LATENCY;
}

/* Up to the Waitall enter; returns the time of the isend. */
static double
post_halo (TsArchiveWriter *w, const TsStencilRegions *reg, const TsStencilParams *p,
           guint r, guint64 i, double *clock)
{
  guint n = p->n_ranks;
  double t = *clock;
  double c = r == 0 ? p->compute * p->imbalance : p->compute;

  ts_archive_writer_enter (w, r, t, reg->compute);
  t += c;
  ts_archive_writer_leave (w, r, t, reg->compute);

  ts_archive_writer_enter (w, r, t, reg->irecv);
  ts_archive_writer_irecv_request (w, r, t, 2 * i);
  t += TS_STENCIL_OVERHEAD;
  ts_archive_writer_leave (w, r, t, reg->irecv);

  ts_archive_writer_enter (w, r, t, reg->isend);
  double sent = t;
  ts_archive_writer_isend (w, r, t, (r + 1) % n, 0, 0, p->bytes, 2 * i + 1);
  t += TS_STENCIL_OVERHEAD;
  ts_archive_writer_leave (w, r, t, reg->isend);

  ts_archive_writer_enter (w, r, t, reg->waitall);
  *clock = t;
  return sent;
}

gboolean
ts_stencil_write (const TsStencilParams *p, const char *dir, const char *name, GError **error)
{
  g_return_val_if_fail (p != NULL && dir != NULL && name != NULL, FALSE);
  if (!check_params (p, error))
    return FALSE;

  TsArchiveWriter *w = ts_archive_writer_new (dir, name, p->n_ranks, error);
  if (!w)
    return FALSE;
  TsStencilRegions reg;
  ts_stencil_define_regions (w, &reg);

  guint n = p->n_ranks;
  double message = TS_STENCIL_LATENCY + (double) p->bytes / TS_STENCIL_BANDWIDTH;
  double tree = ts_stencil_allreduce_seconds (n);
  /* Per-rank clocks only: each iteration needs the neighbours' isend times
   * and, for the allreduce, the latest arrival, never older history. */
  g_autofree double *clock = g_new0 (double, n);
  g_autofree double *sent = g_new0 (double, n);

  for (guint r = 0; r < n; r++)
    ts_archive_writer_enter (w, r, 0.0, reg.main);

  for (guint64 i = 0; i < p->iterations; i++)
    {
      for (guint r = 0; r < n; r++)
        sent[r] = post_halo (w, &reg, p, r, i, &clock[r]);

      for (guint r = 0; r < n; r++)
        {
          guint left = (r + n - 1) % n;
          double end = MAX (clock[r] + TS_STENCIL_OVERHEAD, sent[left] + message);
          ts_archive_writer_irecv (w, r, end, left, 0, 0, p->bytes, 2 * i);
          ts_archive_writer_isend_complete (w, r, end, 2 * i + 1);
          ts_archive_writer_leave (w, r, end, reg.waitall);
          clock[r] = end;
        }

      if (p->allreduce_every == 0 || (i + 1) % p->allreduce_every != 0)
        continue;
      double last = 0;
      for (guint r = 0; r < n; r++)
        last = MAX (last, clock[r]);
      for (guint r = 0; r < n; r++)
        {
          ts_archive_writer_enter (w, r, clock[r], reg.allreduce);
          ts_archive_writer_collective_begin (w, r, clock[r]);
          ts_archive_writer_collective_end (w, r, last + tree, TS_COLL_ALLREDUCE, 0, TS_NO_RANK,
                                            TS_STENCIL_ALLREDUCE_BYTES,
                                            TS_STENCIL_ALLREDUCE_BYTES);
          ts_archive_writer_leave (w, r, last + tree, reg.allreduce);
          clock[r] = last + tree;
        }
    }

  for (guint r = 0; r < n; r++)
    ts_archive_writer_leave (w, r, clock[r], reg.main);
  return ts_archive_writer_close (w, error);
}
