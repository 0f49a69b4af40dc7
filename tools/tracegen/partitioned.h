/* The partitioned Late Sender test of seed 000 (4.1.3), as a trace: two
 * ranks run `reps` rounds of one partitioned message from rank 0 to rank 1
 * (MPI_Psend_init / MPI_Precv_init once, then MPI_Start, one MPI_Pready per
 * send partition in ascending order, MPI_Wait, per round), single-threaded,
 * with exactly one delay of `delay` seconds per round:
 *   NLS  region "nls" on the receiver, between its MPI_Start and MPI_Wait:
 *        every MPI_Pready starts before the wait, no Late Sender;
 *   FLS  region "fls" on the sender, between MPI_Start and the first
 *        MPI_Pready: Late Sender of about `delay` per round;
 *   VLS  region "vls" on the sender before each MPI_Pready: about
 *        send_partitions x `delay` per round.
 * Times follow a fixed model (every MPI call takes no time; a partition of
 * B bytes arrives TS_PART_LATENCY + B / TS_PART_BANDWIDTH after both its
 * MPI_Pready and the receiver's MPI_Start, the numbers of
 * scenarios/platforms/two-hosts.xml), so waiting times derive by hand. */
#ifndef TS_GEN_PARTITIONED_H
#define TS_GEN_PARTITIONED_H

#include <glib.h>

G_BEGIN_DECLS

#define TS_PART_LATENCY 1e-4
#define TS_PART_BANDWIDTH 1e8

typedef enum { TS_PART_NLS, TS_PART_FLS, TS_PART_VLS } TsPartVariant;

typedef struct {
  TsPartVariant variant;
  guint send_partitions, recv_partitions;
  guint reps;
  double delay;              /* seconds of nls / fls / vls */
  guint64 bytes;             /* the whole message */
} TsPartParams;

/* Defaults: FLS, 2 send and 2 receive partitions, 1 round, 0.1 s, 64 bytes. */
void ts_part_params_init (TsPartParams *p);
/* Write the trace to <dir>/<name>.otf2; FALSE and @error on bad parameters
 * or write failure (nothing left at @dir). */
gboolean ts_part_write (const TsPartParams *p, const char *dir, const char *name,
                        GError **error);

G_END_DECLS

#endif
