/* The benchmark workload: a 1-D periodic halo exchange with a periodic
 * allreduce, as Score-P would record it.
 *
 * Each iteration every rank runs the USER region compute_kernel, posts
 * MPI_Irecv from its left neighbour (rank-1+N)%N, MPI_Isend to its right
 * neighbour (rank+1)%N, and completes both in MPI_Waitall (the irecv event with
 * the envelope and the isend_complete are written inside the Waitall region).
 * Every allreduce_every iterations all ranks do an MPI_Allreduce of 8 bytes.
 * The whole run is wrapped in the USER region main.
 *
 * Times follow a fixed model so that expected values can be derived by hand:
 *   every MPI call costs TS_STENCIL_OVERHEAD of CPU time;
 *   a message arrives TS_STENCIL_LATENCY + bytes / TS_STENCIL_BANDWIDTH after
 *   its isend;
 *   Waitall ends at max(enter + overhead, arrival of the left neighbour's message);
 *   Allreduce ends TS_STENCIL_LATENCY * 2 * ceil(log2 N) after the last rank
 *   entered it.
 * Memory is O(ranks) whatever the number of iterations: the events go straight
 * to OTF2's buffers. */
#ifndef TS_STENCIL_H
#define TS_STENCIL_H

#include <glib.h>
#include "model/archive_writer.h"

G_BEGIN_DECLS

#define TS_STENCIL_OVERHEAD 1e-6
#define TS_STENCIL_LATENCY 1e-6
#define TS_STENCIL_BANDWIDTH 1e9
/* The Allreduce's buffer. */
#define TS_STENCIL_ALLREDUCE_BYTES 8

/* The regions a halo-exchange workload enters (main, compute_kernel and
 * its MPI calls), as defined in its archive; tools/tracegen/grid.c writes
 * the same ones. */
typedef struct {
  guint32 main, compute, irecv, isend, waitall, allreduce;
} TsStencilRegions;

void ts_stencil_define_regions (TsArchiveWriter *writer, TsStencilRegions *regions);

typedef struct {
  guint n_ranks;
  guint iterations;
  double compute;          /* seconds of compute_kernel per iteration */
  double imbalance;        /* rank 0 computes imbalance * compute */
  guint64 bytes;           /* size of each halo message */
  guint allreduce_every;   /* iterations between allreduces; 0 = none */
} TsStencilParams;

/* How long an Allreduce of @n_ranks takes after the last rank entered it:
 * 2 ceil(log2 n) TS_STENCIL_LATENCY (recursive doubling, both ways). */
double ts_stencil_allreduce_seconds (guint n_ranks);

/* Fill @params with the defaults: 4 ranks, 10 iterations, 1 ms compute,
 * imbalance 1, 4096 bytes, an allreduce every 10 iterations. */
void ts_stencil_params_init (TsStencilParams *params);

/* Write the workload to <dir>/<name>.otf2. Returns FALSE and sets @error
 * (G_IO_ERROR_INVALID_ARGUMENT for bad parameters, naming the parameter) on
 * failure, leaving nothing at @dir. */
gboolean ts_stencil_write (const TsStencilParams *params, const char *dir, const char *name,
                           GError **error);

G_END_DECLS

#endif
