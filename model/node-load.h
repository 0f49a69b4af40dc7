/* The load of the nodes a time-shared recording ran on, and the CPU time
 * it left each compute burst (TS_COMPUTE_LOAD, doc/architecture.md,
 * "Shared cores from wall time alone").
 *
 * A trace that says its node had fewer cores than ranks but has no CPU
 * time records compute stretched by the sharing. Linux shares a node's C
 * cores fairly among the k threads that want one, so a rank in compute at
 * t ran at min(1, C / k(t)) of a core, k(t) being the ranks of its node in
 * compute at t (the decoder's compute bursts: between calls, and the calls
 * that replay as compute, MPI_Init or a local call, which are CPU work
 * too). A burst's CPU time is that share's integral over its wall time.
 * Ranks waiting inside MPI calls are taken not to want a core (a library
 * that yields or blocks when it waits: Open MPI's default when
 * oversubscribed); a spinning library (MPICH's default) makes every rank
 * want one all the time, i.e. min(1, C / R), which the caller gives by
 * marking whole lives busy.
 *
 * Times: busy spans are given aligned (clock offsets applied, as the
 * action streams give them); a burst is asked for in the trace's raw time
 * of its rank, which the load aligns with the offsets it was made with. */
#ifndef TS_NODE_LOAD_H
#define TS_NODE_LOAD_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct TsNodeLoad TsNodeLoad;

/* A load over @n_nodes nodes of @cores each (> 0), rank r on node
 * @rank_node[r] with clock offset @clock_offset[r] (both copied). */
TsNodeLoad *ts_node_load_new (guint n_ranks, guint n_nodes, const guint *rank_node,
                              const guint32 *cores, const double *clock_offset);
void ts_node_load_free (TsNodeLoad *load);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsNodeLoad, ts_node_load_free)

/* @rank wanted @weight of a core over [@start, @end) (aligned seconds; 1
 * in compute, less in a wait that polls now and then); before
 * ts_node_load_finish only. */
void ts_node_load_busy (TsNodeLoad *load, guint rank, double start, double end, double weight);
/* Build the shares; after this the load is read-only. */
void ts_node_load_finish (TsNodeLoad *load);

/* The CPU seconds a burst of @rank over [@raw_start, @raw_end] (its raw
 * times) had: the integral of its node's share of a core. */
double ts_node_load_cpu (const TsNodeLoad *load, guint rank, double raw_start, double raw_end);
/* Over every busy span of @node: the CPU seconds they had and their wall
 * seconds (for info: the node's mean share is their ratio). */
void ts_node_load_totals (const TsNodeLoad *load, guint node, double *cpu, double *wall);

G_END_DECLS

#endif
