/* The binomial trees of broadcasts (and scatters) and reductions, in the two
 * shapes MPI libraries build them.
 *
 * Ranks are numbered relative to the root (vr = (rank - root) mod n). Both
 * libraries give vr the children vr + 2^k, but they disagree on which k:
 * MPICH's parent of vr clears its lowest set bit (on 4 ranks, 3 hangs below
 * 2), Open MPI's clears the highest (3 hangs below 1). Which rank waits for
 * which in a reduction or a broadcast follows, and so do the wait states
 * after it. The trace shows which shape its library used
 * (ts_calibration_compute counts the calls each contradicts). */
#ifndef TS_BINOMIAL_H
#define TS_BINOMIAL_H

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  TS_BINOMIAL_MPICH,         /* parent: clear the lowest set bit */
  TS_BINOMIAL_OPENMPI,       /* parent: clear the highest set bit */
  TS_BINOMIAL_N_TREES
} TsBinomialTree;

/* Enough for any communicator: one child per bit of a guint. */
#define TS_BINOMIAL_MAX_CHILDREN 32

/* The parent of @vr (> 0). */
guint ts_binomial_parent (TsBinomialTree tree, guint vr);

/* The children of @vr among @n ranks, the one with the largest subtree
 * first (a broadcast serves them in this order, a reduction in the
 * opposite). Returns how many were written to @children. */
guint ts_binomial_children (TsBinomialTree tree, guint vr, guint n,
                            guint children[TS_BINOMIAL_MAX_CHILDREN]);

/* The tree the MPI library named by @mpi_library (ts_trace_mpi_library():
 * MPI_Get_library_version's first line) builds: Open MPI's for "Open MPI",
 * MPICH's for MPICH and the libraries built on it (Intel MPI, MVAPICH,
 * Cray MPICH). FALSE for "" or a library it does not know. */
gboolean ts_binomial_tree_of_library (const char *mpi_library, TsBinomialTree *tree);

/* "mpich" or "openmpi". */
const char *ts_binomial_tree_name (TsBinomialTree tree);

/* Parse a name of ts_binomial_tree_name(). FALSE if it is none. */
gboolean ts_binomial_tree_parse (const char *name, TsBinomialTree *tree);

G_END_DECLS

#endif
