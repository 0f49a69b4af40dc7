/* Communication patterns: which ranks each rank exchanges point-to-point
 * messages with, recognised as a function of the number of ranks P, so that
 * the partners of a rank at any P can be derived.
 *
 * Recognised: no point-to-point traffic, a Cartesian grid of 1 to 3
 * dimensions (a periodic 1-D grid is a ring) whose dimensions are those
 * MPI_Dims_create chooses for P, in its order (the largest first) or
 * another the same at every P (the largest last: a column-major
 * numbering, NPB LU's halvings), each periodic or not, every rank talking to
 * its face neighbours, or to its diagonal neighbours too (a 9-point stencil
 * in 2-D, 27-point in 3-D: HPCG's, LULESH's); all-to-all; and
 * master/worker (rank 0 with every other, the others with rank 0 only).
 * Anything else is irregular: a code whose partners are data-dependent
 * cannot be extrapolated, and says so.
 *
 * A neighbour is reached through an offset: a step of -1, 0 or +1 along
 * each dimension, numbered in base 3 (digit k, of weight 3^k, is the step
 * along dimension k plus 1), 0 to 3^n_dims - 1, the middle one the rank
 * itself. A face grid uses the offsets that step along one dimension; a
 * stencil with diagonals every one but the middle.
 *
 * Partner sets are given per rank as sorted arrays of world ranks, without
 * the rank itself. Nothing is kept of the arguments. */
#ifndef TS_PATTERN_H
#define TS_PATTERN_H

#include <glib.h>

G_BEGIN_DECLS

#define TS_PATTERN_MAX_DIMS 3
#define TS_PATTERN_MAX_OFFSETS 27   /* 3^TS_PATTERN_MAX_DIMS */

typedef enum {
  TS_PATTERN_NONE,          /* no point-to-point messages */
  TS_PATTERN_CARTESIAN,     /* neighbours on a grid: faces, or every one (diagonal) */
  TS_PATTERN_ALL_TO_ALL,
  TS_PATTERN_MASTER_WORKER,
  TS_PATTERN_BUTTERFLY,     /* recursive doubling in rows, with a transpose partner or not */
  TS_PATTERN_IRREGULAR,
} TsPatternKind;

typedef struct {
  TsPatternKind kind;
  guint n_dims;                             /* CARTESIAN: 1 to 3 */
  guint dims[TS_PATTERN_MAX_DIMS];          /* at the P it was recognised at */
  gboolean periodic[TS_PATTERN_MAX_DIMS];
  /* CARTESIAN: which of MPI_Dims_create's factors for P each dimension
   * takes, an index into the permutations of n_dims (ts_pattern_n_orders):
   * 0, the largest first, as MPI_Cart_create numbers ranks; the reverse
   * (ts_pattern_order_reversed) is a column-major numbering, or NPB LU's
   * grid of halvings. The same at every P. */
  guint order;
  /* CARTESIAN: the ranks talk to their diagonal neighbours too (every
   * offset), not only to their face neighbours. */
  gboolean diagonal;
  /* BUTTERFLY: a grid of dims[0] rows of dims[1] ranks, numbered row by
   * row (rank = row * dims[1] + column), P a power of two; each rank
   * exchanges with the ranks of its row whose column differs from its own
   * in one bit (recursive doubling, a butterfly: column XOR 2^k). Rows:
   * one (@one_row: every rank, recursive doubling over the world), or
   * 2^floor(n/2) of 2^ceil(n/2) ranks at P = 2^n (NPB CG's grid). With
   * @transpose, each rank also exchanges with its transpose partner
   * (ts_pattern_transpose_partner). */
  gboolean one_row;
  gboolean transpose;
} TsPattern;

/* BUTTERFLY slots: slot k < TS_PATTERN_TRANSPOSE_SLOT is the partner
 * whose column differs in bit k; TS_PATTERN_TRANSPOSE_SLOT the transpose
 * partner. (Below TS_PATTERN_MAX_OFFSETS, as a grid's offsets are.) */
#define TS_PATTERN_TRANSPOSE_SLOT (TS_PATTERN_MAX_OFFSETS - 1)

/* MPI_Dims_create(@p, @n_dims): the most balanced factorisation of @p into
 * @n_dims factors, largest first (MPICH's and Open MPI's answer). */
void ts_dims_create (guint p, guint n_dims, guint *dims);

/* How many orders a grid of @n_dims dimensions has (1, 2 or 6), and which
 * of them is the reverse of MPI's: the largest factor last. */
guint ts_pattern_n_orders (guint n_dims);
guint ts_pattern_order_reversed (guint n_dims);

/* The order in which dimension k takes factor @factors[k] (0 the largest),
 * or G_MAXUINT if @factors is no permutation; which factor each dimension
 * takes under @order, into @factors. */
guint ts_pattern_order_of (guint n_dims, const guint8 *factors);
void ts_pattern_order_factors (guint n_dims, guint order, guint8 *factors);

/* Recognise the one pattern of @n_scales traces of the same program, at
 * @p[i] ranks whose partner sets are @partners[i][r] (GArray of guint32
 * world ranks, sorted ascending). The simplest pattern that describes every
 * scale wins: no messages, then grids with fewer dimensions, a periodic
 * dimension before an open one, then all-to-all, then master/worker. A grid
 * comes back with its dimensions at the last scale; among grids, MPI's
 * order of dimensions is tried first, then the others. */
TsPattern ts_pattern_recognise (guint n_scales, const guint *p, GArray *const *const *partners);

/* The simplest grid of @n_dims dimensions in order @order, with its
 * diagonal neighbours or not (@diagonal), that describes every scale (as
 * ts_pattern_recognise), or an IRREGULAR pattern. */
TsPattern ts_pattern_recognise_grid (guint n_scales, const guint *p,
                                     GArray *const *const *partners, guint n_dims, guint order,
                                     gboolean diagonal);

/* The simplest grid with diagonal neighbours (a 9- or 27-point stencil)
 * that describes every scale, or an IRREGULAR pattern. Not tried by
 * ts_pattern_recognise where all-to-all describes the scales too (at most
 * 3 ranks along each dimension, where a stencil reaches every rank): the
 * caller tells the two apart (by the sizes of the messages). */
TsPattern ts_pattern_recognise_stencil (guint n_scales, const guint *p,
                                        GArray *const *const *partners);

/* Whether a grid of @found's dimensions in another order describes every
 * scale too, with another shape at @target ranks: the inputs cannot tell
 * the two orders apart, and they differ at @target. @other gets it (at the
 * last scale). */
gboolean ts_pattern_other_order (guint n_scales, const guint *p, GArray *const *const *partners,
                                 const TsPattern *found, guint target, TsPattern *other);
/* Every such other order, one per shape at @target, into @others (room for
 * 5: a 3-D grid's other orders); their number. */
guint ts_pattern_other_orders (guint n_scales, const guint *p, GArray *const *const *partners,
                               const TsPattern *found, guint target, TsPattern *others);

/* The same pattern at @p ranks (a grid takes MPI_Dims_create's factors
 * for @p, in its order). */
TsPattern ts_pattern_at (const TsPattern *pattern, guint p);

/* Grids (CARTESIAN @at, as ts_pattern_at gave it): rank @r's coordinates,
 * in MPI_Cart_create's row-major order (the last dimension varies fastest);
 * the rank at @coords; and @r's neighbour one step in direction @dir (-1 or
 * +1) along dimension @k, or -1 past the end of an open dimension (on a
 * dimension of size 1 or 2 the neighbour may be @r itself, or the same rank
 * both ways). */
void ts_pattern_coords (const TsPattern *at, guint r, guint *coords);
guint ts_pattern_rank_at (const TsPattern *at, const guint *coords);
gint ts_pattern_neighbour (const TsPattern *at, guint r, guint k, int dir);

/* Offsets (see above): the one a step @dir (-1 or +1) along dimension @k
 * of @n_dims;
 * how many there are for @n_dims (3^n_dims); whether @at's ranks talk
 * through @offset (not the middle; a face's, or any with diagonals); the
 * dimensions it steps along (a bit mask); the opposite step; and rank
 * @r's neighbour through it, or -1 past the end of an open dimension or
 * along a dimension of one rank (on a periodic dimension of 2, both steps
 * reach the same rank). */
guint ts_pattern_face_offset (guint n_dims, guint k, int dir);
guint ts_pattern_n_offsets (guint n_dims);
gboolean ts_pattern_offset_used (const TsPattern *at, guint offset);
guint ts_pattern_offset_mask (guint n_dims, guint offset);
guint ts_pattern_offset_opposite (guint n_dims, guint offset);
/* The step of @offset along dimension @k (-1, 0, +1); @offset with that
 * step set to @step. */
int ts_pattern_offset_step (guint offset, guint k);
guint ts_pattern_offset_with_step (guint offset, guint k, int step);
gint ts_pattern_offset_neighbour (const TsPattern *at, guint r, guint offset);

/* Rank @r's partners under @at, the pattern as ts_pattern_at gave it for
 * @p ranks (so that a grid's dimensions are found once per P, not once per
 * rank), sorted, without @r itself, appended to @out (guint32). */
void ts_pattern_partners (const TsPattern *at, guint p, guint r, GArray *out);

/* Rank @r's role under @at (as ts_pattern_at gave it for @p): ranks with the same role have partners in
 * the same relative places (on a grid: for each open dimension, whether the
 * rank is at its low end, its high end, both or neither; the master and
 * the workers). Roles are small integers: 0 for a rank at no end of an
 * open dimension (every rank of a periodic grid), and for the workers. */
guint ts_pattern_role (const TsPattern *at, guint p, guint r);

/* BUTTERFLY (@at as ts_pattern_at gave it): rank @r's transpose partner,
 * maybe @r itself. On R rows of C = b R columns, column c = s_c b + s,
 * the rank (s_c R + row) b + s: the R x R grid of blocks of b columns
 * transposed, the place in the block kept (NPB CG's exch_proc; b = 1 on a
 * square grid). */
guint ts_pattern_transpose_partner (const TsPattern *at, guint r);

/* Recognise a BUTTERFLY that describes every scale (simplest first: one
 * row, rows of a grid, with a transpose partner), or an IRREGULAR
 * pattern; every scale must be a power of two. */
TsPattern ts_pattern_recognise_butterfly (guint n_scales, const guint *p,
                                          GArray *const *const *partners);

/* A readable name: "2-D grid 4x3 (periodic x open)", "2-D grid 2x4 (open x
 * open, largest dimension last)", "3-D grid 2x2x2 (open x open x open,
 * 27-point: diagonal neighbours too)", "ring", "all-to-all" (owned by the
 * caller). */
char *ts_pattern_describe (const TsPattern *pattern);

/* Whether a grid with diagonal neighbours (@at, as ts_pattern_at gave it)
 * reaches every rank, as all-to-all does: at most 3 ranks along each
 * dimension, periodic or 2 at most. */
gboolean ts_pattern_stencil_reaches_all (const TsPattern *at);

G_END_DECLS

#endif
