/* A halo exchange on a Cartesian process grid, for rank-count extrapolation:
 * the same program written at any number of ranks, with costs known by
 * construction.
 *
 * The grid has @n_dims dimensions, MPI_Dims_create's for the number of ranks
 * (ts_dims_create), row-major as MPI_Cart_create numbers it (or, with
 * @largest_last, the factors in the reverse order: a column-major
 * numbering), each dimension periodic or open. Each iteration every rank runs the USER region
 * compute_kernel, posts one MPI_Irecv from each face neighbour (dimension by
 * dimension, the lower neighbour first), then one MPI_Isend to each, and
 * completes them all in one MPI_Waitall; a neighbour that is the rank itself
 * (a periodic dimension of size 1) is skipped, as codes copy such halos in
 * memory. A message travelling up along dimension k has tag 2k + 1, one
 * travelling down 2k. With @diagonal, every rank exchanges with each of its
 * neighbours through every offset (pattern.h: a 9- or 27-point stencil),
 * in the offsets' order, with the offset's number as the tag; a step along
 * a dimension of one rank is skipped. Every allreduce_every iterations all
 * ranks do an 8-byte MPI_Allreduce.
 *
 * Weak scaling: compute_kernel takes @compute seconds per iteration and every
 * halo message along a dimension has @bytes bytes. Strong scaling: a global
 * problem is divided: compute_kernel takes @compute / P, and a message along
 * dimension k carries the face of the local block, @bytes divided by the
 * number of ranks along every other dimension (rounded down). With
 * @diagonal, a message to an edge neighbour (a step along two dimensions of
 * three) has @edge_bytes (strong: the global edge divided by the ranks
 * along the third dimension), one to a corner neighbour (a step along
 * every dimension) @corner_bytes. Rank 0 computes @imbalance times as long
 * as the others.
 *
 * Times follow stencil.h's model: every MPI call costs TS_STENCIL_OVERHEAD,
 * a message arrives TS_STENCIL_LATENCY + bytes / TS_STENCIL_BANDWIDTH after
 * its isend, Waitall ends at max(enter + overhead, the last arrival), an
 * Allreduce ends 2 ceil(log2 P) TS_STENCIL_LATENCY after the last rank
 * entered it. */
#ifndef TS_GRID_H
#define TS_GRID_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint n_ranks;
  guint n_dims;            /* 1 to 3 */
  gboolean open;           /* every dimension open (else every one periodic) */
  gboolean largest_last;   /* the dimensions take MPI_Dims_create's factors largest last
                            * (a column-major numbering), not first */
  gboolean strong;         /* strong scaling (else weak) */
  guint iterations;
  double compute;          /* seconds per iteration: per rank (weak) or in all (strong) */
  double imbalance;
  double boundary;         /* compute factor of ranks at an end of an open dimension */
  guint64 bytes;           /* per message (weak) or a whole face of the global problem */
  gboolean diagonal;       /* diagonal neighbours too: a 9- or 27-point stencil */
  guint64 edge_bytes;      /* diagonal: per edge message (weak) or a whole global edge */
  guint64 corner_bytes;    /* diagonal: per corner message */
  guint allreduce_every;   /* 0: none */
} TsGridParams;

/* 4 ranks, 2 periodic dimensions, weak, 10 iterations, 1 ms, balanced,
 * no boundary factor (1), 4096 bytes, faces only (diagonal: 256-byte
 * edges, 16-byte corners), an allreduce every 10 iterations. */
void ts_grid_params_init (TsGridParams *params);

/* Bytes of a message along dimension @k under @params at @dims; of one
 * stepping along the dimensions in @mask (a face: one bit; an edge, a
 * corner). */
guint64 ts_grid_message_bytes (const TsGridParams *params, const guint *dims, guint k);
guint64 ts_grid_offset_bytes (const TsGridParams *params, const guint *dims, guint mask);

/* Write the workload to <dir>/<name>.otf2 (nothing is left at @dir on
 * failure). */
gboolean ts_grid_write (const TsGridParams *params, const char *dir, const char *name,
                        GError **error);

G_END_DECLS

#endif
