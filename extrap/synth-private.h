/* The writer of the extrapolated trace, shared by synth.c (one output
 * rank's actions from its template rank's) and synth-repeat.c (the loops
 * that grow with P: over an all-to-all's partners, over a butterfly's
 * doubling steps). Nothing outside extrap/synth*.c includes this. */
#ifndef TS_SYNTH_PRIVATE_H
#define TS_SYNTH_PRIVATE_H

#include "extrap/extrap-private.h"

#include "model/archive_writer.h"

/* The template rank whose column differs from a rank's in its highest
 * bit: a reader of its model steps, run by run (synth-repeat.c). */
typedef struct {
  TsSpoolReader *rd;
  const GArray *runs;
  guint64 next;                  /* the index of the next action rd gives */
} TsSynthTwin;

/* What a request of the output was posted as: its completion is written
 * from this. */
typedef struct {
  gboolean receive, dropped;
  guint32 peer;
  gint32 tag;
  guint64 bytes;
  gboolean collective;     /* a non-blocking collective: */
  TsAction operation;      /* its op, output comm, root, bytes, as at P */
} Posted;

typedef struct {
  const TsExtrapModel *m;
  const TsTrace *trace;          /* the largest input's */
  TsArchiveWriter *w;
  const TsRegionModel **region_model;   /* [template region] or NULL */
  GHashTable *class_comms;       /* (class, first member) -> output communicator + 1 */
  double bytes_factor[TS_EXTRAP_MAX_CLASSES];
  double *collective_factor;     /* [collective model] */
  /* Along a periodic dimension of two ranks, the slots the template's sends
   * to the one neighbour took: (sender, receiver, tag) -> GByteArray of
   * slots, in send order (see multi_way_slot). */
  GHashTable *send_slots;
  /* The tag of the template's sends through each slot (mirror.c). */
  gint32 send_tag[TS_PATTERN_MAX_OFFSETS];
  /* The first output rank whose mirrored interior would receive in a
   * blocking call (-1: none), which is refused (mirror). */
  gint blocking_twin;
  TsPartnerLoops *loops;         /* all-to-all and master/worker: loops over partners */
  TsDoublingRuns *doubling;      /* butterflies with longer rows at P: loops over steps */
  GHashTable *flows;             /* the output's messages per flow (balance.c) */
} Synth;

/* One output rank being written. */
typedef struct {
  guint r, t;
  double clock, call_enter;
  GHashTable *sent, *received;   /* sends to a peer; receives by (peer, tag) so far */
  GHashTable *posted;            /* request -> Posted */
  GHashTable *partitioned;       /* partitioned request -> Posted, for as long as it lives */
  double *compute_factor;        /* [template region], and last outside every region */
  guint32 outside;               /* the index of that last one */
  gboolean collective_open;
  TsAction collective;           /* its op, output comm, root, bytes */
  /* Loops over partners (loops.c): this rank's partners at P, the
   * template's requests posted in a repeated loop -> GArray of the output's
   * (guint64), and the next fresh request id. */
  GArray *partners;
  GHashTable *expanded;
  guint64 next_req;
  /* Open dimensions along which this rank is inside and its template rank
   * an end: its exchanges there are mirrored (mirror.c). */
  guint mirror;
  /* Writing a doubling step P adds (synth-repeat.c): the slot of its
   * messages, the row bit its copy is for; else G_MAXUINT. */
  guint forced_slot;
  /* Butterflies with longer rows at P: the template rank's loops over its
   * steps, the next, and its twin's (synth-repeat.c). */
  const GArray *runs;
  guint next_run;
  TsSynthTwin twin;
  GArray *twin_held;
} RankState;

/* Requests of repeated loops are numbered from here, apart from the
 * template's own. */
#define FRESH_REQUESTS (G_GUINT64_CONSTANT (1) << 62)

/* Whether @region is an MPI call. */
gboolean ts_synth_is_mpi_call (const TsTrace *trace, guint32 region);
/* One template action, written for output rank @rs. */
void ts_synth_write_action (Synth *s, RankState *rs, const TsAction *a);
/* @bytes of a message between output ranks rs->r and @q, as at P. */
guint64 ts_synth_message_bytes (Synth *s, RankState *rs, guint64 bytes, guint q,
                                gboolean receive);
/* Write message @a to output @peer (-1: left out) with @bytes, under
 * request @req. */
void ts_synth_post (Synth *s, RankState *rs, const TsAction *a, gint peer, guint64 bytes,
                    guint64 req);

/* synth-repeat.c: a template loop over an all-to-all's partners (@held: its
 * actions) written as one over rank rs->r's partners at P. */
void ts_synth_repeat_loop (Synth *s, RankState *rs, const TsPartnerLoop *loop,
                           const GArray *held);
/* Writing output rank @rs from its template rank's actions: @a, its
 * @i-th, taken (TRUE) where it is in a model step, which is held (@held)
 * where the copies come first and written as it comes where they follow;
 * the copies written at its end. FALSE: @a is for the caller. @error set
 * where the twin's spool cannot be read. */
void ts_synth_doubling_begin (Synth *s, const TsSpool *actions, RankState *rs);
gboolean ts_synth_doubling_take (Synth *s, RankState *rs, const TsAction *a, guint64 i,
                                 GArray *held, GError **error);
void ts_synth_doubling_end (RankState *rs);
/* Template rank @t's compute factors (@factor, per region) lowered so that
 * the compute of its steps and of the copies P adds together make what
 * the region's model predicts. */
void ts_synth_leave_room (Synth *s, guint t, double *factor);

#endif
