/* Rank-count extrapolation: from traces of one program at a few rank counts,
 * the trace of the same program at another (doc/extrapolation.md).
 *
 * The inputs are profiled (profile.h), checked to be the same program at
 * every scale (the same regions and collectives, entered as often), their
 * point-to-point partners recognised as one pattern in P (pattern.h), and
 * every quantity that changes with P fitted (scaling.h): compute per region,
 * its spread over ranks, bytes per message along each grid dimension, bytes
 * per collective. The trace at P ranks is then written one rank at a time,
 * each from the rank of the largest input that has the same place in the
 * pattern, with its peers, sizes and compute replaced by the models' values
 * at P.
 *
 * What cannot be extrapolated is refused with the evidence: inputs that do
 * not align, partners that follow no pattern, structures this version does not
 * carry (grid dimensions no input shows, sub-communicators that are not grid
 * rows or columns).
 *
 * Error contract: FALSE and @error set (G_IO_ERROR_INVALID_DATA for a
 * refusal, whose message says why and what was seen; the reader's errors for
 * unreadable traces). Nothing is written at the output then. */
#ifndef TS_EXTRAPOLATE_H
#define TS_EXTRAPOLATE_H

#include <glib.h>
#include "model/trace.h"

G_BEGIN_DECLS

/* Whether the grid wraps around where the inputs cannot tell (no input has
 * more than two ranks along a dimension). */
typedef enum {
  TS_BOUNDARIES_UNKNOWN,    /* settle it from the message counts, or refuse */
  TS_BOUNDARIES_PERIODIC,
  TS_BOUNDARIES_OPEN,
} TsBoundaries;

/* "periodic" or "open" into @b; FALSE for anything else. */
gboolean ts_boundaries_parse (const char *text, TsBoundaries *b);

/* How a grid's dimensions take MPI_Dims_create's factors where the inputs
 * cannot tell (their grids are square, or too small): as MPI_Cart_create
 * numbers ranks (the largest first), the reverse (a column-major
 * numbering, NPB LU's halvings), or any order named factor by factor
 * ("middle,largest,smallest": NPB MG's 2x4x2 at 16 ranks). */
typedef enum {
  TS_GRID_ORDER_UNKNOWN,    /* from the inputs; MPI's where they fit both, said */
  TS_GRID_ORDER_LARGEST_FIRST,
  TS_GRID_ORDER_LARGEST_LAST,
  /* Named: TS_GRID_ORDER_NAMED + a code of the factors each dimension
   * takes (ts_grid_order_factors reads it). */
  TS_GRID_ORDER_NAMED = 16,
} TsGridOrder;

/* "largest-first", "largest-last", or 2 or 3 of "largest", "middle" (3
 * only) and "smallest", comma-separated, each once, into @g; FALSE for
 * anything else. */
gboolean ts_grid_order_parse (const char *text, TsGridOrder *g);
/* What ts_grid_order_parse reads back as @g (NULL for UNKNOWN; owned by
 * the caller). */
char *ts_grid_order_name (TsGridOrder g);
/* The order in which each of the @n_dims dimensions takes factor
 * @factors[k] (0 the largest): largest-first, largest-last, or named. */
TsGridOrder ts_grid_order_of_factors (guint n_dims, const guint8 *factors);
/* Which factor of MPI_Dims_create's (0 the largest) each of the @n_dims
 * dimensions takes under @g (not UNKNOWN), into @factors; FALSE where @g
 * names another number of dimensions. */
gboolean ts_grid_order_factors (TsGridOrder g, guint n_dims, guint8 *factors);

/* How the inputs' problem grows with P: strong scaling keeps the whole
 * problem (the compute summed over ranks stays), weak scaling each rank's
 * share (the compute per rank stays). Stated in model.txt: given by the
 * user and checked against the inputs, or recognised from them. */
typedef enum {
  TS_SCALING_UNKNOWN,       /* given: recognise it; recognised: neither */
  TS_SCALING_STRONG,
  TS_SCALING_WEAK,
} TsScaling;

/* "strong" or "weak" into @s; FALSE for anything else. */
gboolean ts_scaling_kind_parse (const char *text, TsScaling *s);

typedef struct {
  guint ranks;              /* P, the rank count to predict */
  const char *output_dir;   /* gets traces.otf2, model.txt, model.json */
  TsBoundaries boundaries;
  TsGridOrder grid_order;
  TsScaling scaling;        /* what the user says; a warning where the inputs disagree */
  /* Every rank exchanges with every other at any P (a transpose). Needed
   * where the largest input has so few ranks that a grid whose ranks also
   * talk to their diagonal neighbours (a 9- or 27-point stencil) would
   * reach every rank too: without it such inputs are refused. */
  gboolean all_to_all;
  /* The partners are recursive doubling (rank XOR 2^k, over every rank or
   * in the rows of a grid) where a grid describes the inputs too: up to 8
   * ranks, recursive doubling over every rank is a periodic grid of 2s. */
  gboolean recursive_doubling;
  gboolean cpu_time;        /* the inputs' compute is their CPU time (ts_trace_set_compute_clock) */
  /* If not NULL, gets the warnings of a successful extrapolation (char*,
   * as model.txt has them, each a sentence; the array's free function
   * frees them): too few input scales, a target far beyond them, a grid
   * order the inputs could not settle, a scaling the inputs do not show. */
  GPtrArray *warnings;
} TsExtrapolateOptions;

/* Extrapolate the @n_traces traces at @traces (anchor files, any order, each
 * at a different rank count) to @o->ranks ranks. @explanation, if not NULL,
 * gets the text of model.txt (the models and how far to trust them). */
gboolean ts_extrapolate (const char *const *traces, guint n_traces,
                         const TsExtrapolateOptions *o, GString *explanation, GError **error);

/* An extrapolated trace against a real one at the same rank count (a
 * held-out scale): how many ranks have the same partners and send each as
 * many messages, and the totals over all ranks of messages and bytes sent
 * and of compute seconds (outside MPI), predicted [0] and real [1]; the
 * collective operations either calls (by operation, on any communicator), how many of them with as many calls and bytes in both,
 * and their calls and bytes in all. */
typedef struct {
  guint ranks;
  guint same_partners, same_messages;
  guint64 messages[2], bytes[2];
  double compute[2];
  guint collective_ops, same_collectives;
  guint64 collective_calls[2], collective_bytes[2];
} TsExtrapComparison;

/* Compare the traces at @predicted and @real (anchor files; @real's
 * compute as @real_clock takes it). FALSE and @error when one cannot be
 * read or their rank counts differ. */
gboolean ts_extrap_compare (const char *predicted, const char *real, TsComputeClock real_clock,
                            TsExtrapComparison *c, GError **error);

G_END_DECLS

#endif
