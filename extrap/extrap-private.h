/* Inside rank-count extrapolation: the fitted model that model.c builds from
 * the inputs, synth.c writes a trace from and explain.c describes. */
#ifndef TS_EXTRAP_PRIVATE_H
#define TS_EXTRAP_PRIVATE_H

#include "extrap/extrapolate.h"
#include "extrap/pattern.h"
#include "extrap/profile.h"
#include "extrap/scaling.h"
#include "model/spool.h"

/* Byte classes at most: a 3-D grid's 3 faces, 3 edges and corner. */
#define TS_EXTRAP_MAX_CLASSES 7

/* Relative errors of quantities below these count as these: seconds, bytes,
 * spreads (coefficients of variation). */
#define TS_EXTRAP_SECONDS_FLOOR 1e-6
#define TS_EXTRAP_BYTES_FLOOR 1.0
#define TS_EXTRAP_SPREAD_FLOOR 1e-3

/* One quantity measured at each input scale and its model. x is P, or for
 * bytes along a grid dimension possibly the number of ranks across the
 * other dimensions (a face's share of the problem), and then every
 * dimension's points may be pooled; scales where it was not measured are
 * left out. */
typedef struct {
  guint n;
  double x[48], y[48];      /* 16 scales, or 16 scales x 3 dimensions pooled */
  gboolean by_faces;        /* x is the ranks across the other dimensions */
  guint law_from;           /* bytes along a dimension: 1 + the dimension whose law it
                             * takes, shifted through its own point; 0: its own law */
  TsScalingModel model;
  double at_target;         /* the model's value for the output */
  double at_template;       /* measured at the largest input */
  /* Several points at one x (repetitions: traces at one rank count) are
   * averaged by the fit; the widest range among them over their mean, and
   * at which x (0 without repetitions). */
  double repeat_spread, repeat_at;
} TsQuantity;

/* The ranks of one role on a grid with open dimensions (ts_pattern_role:
 * which ends of which dimensions a rank is at): boundary ranks may do
 * other work than interior ones, and their share of the ranks changes
 * with P. */
typedef struct {
  guint role;
  TsQuantity mean;          /* seconds per rank of the role; x is P */
} TsRoleModel;

typedef struct {
  char *name;
  TsQuantity mean, spread;  /* seconds per rank; standard deviation / mean */
  GArray *roles;            /* TsRoleModel; empty unless the largest input has several */
} TsRegionModel;

/* Communicators of collectives, as classes (comms.c): the world; a
 * sub-grid of the process grid through the calling rank (the dimensions in
 * its mask: a row, a column, a plane); blocks of a fixed number of
 * consecutive ranks (a node's ranks); every n-th rank (the nodes'
 * leaders). Self communicators synchronise nobody: their collectives are
 * left out; others cannot be placed at P. */
#define TS_COMM_WORLD_CLASS (-1)
#define TS_COMM_SELF_CLASS (-2)
#define TS_COMM_OTHER_CLASS (-3)
enum { TS_COMM_KIND_SUBGRID, TS_COMM_KIND_BLOCK, TS_COMM_KIND_STRIDE };
#define TS_COMM_CLASS_SUBGRID(mask) ((gint) (mask))
#define TS_COMM_CLASS_BLOCK(size) ((gint) ((TS_COMM_KIND_BLOCK << 24) | (size)))
#define TS_COMM_CLASS_STRIDE(step) ((gint) ((TS_COMM_KIND_STRIDE << 24) | (step)))
#define TS_COMM_CLASS_KIND(klass) ((guint) (klass) >> 24)
#define TS_COMM_CLASS_PARAM(klass) ((guint) (klass) & 0xffffffu)


typedef struct {
  guint8 op;
  gint klass;               /* TS_COMM_WORLD_CLASS or a class >= 0 */
  TsQuantity bytes;         /* bytes sent per call */
} TsCollectiveModel;

typedef struct {
  guint n_inputs;                  /* at most 16 */
  TsScaleProfile **inputs;         /* ascending rank counts; owned */
  guint p[16];
  guint target;
  TsPattern pattern;               /* at the largest input */
  TsPattern at_target;
  /* Other orders of the grid's dimensions that the inputs fit too, each
   * with another shape at P: the first that fits was taken (MPI's before
   * the others), and the explanation says so. */
  TsPattern order_unsettled[5];
  guint n_order_unsettled;
  /* A grid of more dimensions that fits the inputs too, with another shape
   * at P (kind NONE if not): the fewest were taken, and a warning says so. */
  TsPattern dims_unsettled;
  /* Recursive doubling fits the inputs too, with other partners at P
   * (another kind: no such reading). */
  TsPattern doubling_unsettled;
  /* How the pattern was told from another that fits the inputs' partners
   * too (an all-to-all and a stencil with diagonals), or NULL; owned. */
  char *reading;
  /* What limits the models as a whole (few scales, a far target, an order
   * of the grid taken where the inputs fit two), one sentence each (char*,
   * owned): model.txt's and model.json's warnings. */
  GPtrArray *warnings;
  GPtrArray *regions;              /* TsRegionModel, by name */
  TsQuantity bytes[TS_EXTRAP_MAX_CLASSES];   /* per message of each class (ts_extrap_bytes_class) */
  double messages_per_neighbour;   /* the same at every scale; all-to-all and
                                    * master/worker: from rank 0 */
  /* Grids: messages per slot by the dimensions it steps along (faces,
   * then 2 and 3 steps), each the same at every scale; [0] is
   * messages_per_neighbour. */
  double messages_per_slot[TS_PATTERN_MAX_DIMS];
  double messages_from_others;     /* all-to-all, master/worker: from the other ranks (-1: none) */
  GArray *collectives;             /* TsCollectiveModel */
  gint *comm_class;                /* [communicator of the largest input]: a class */
  GPtrArray *per_partner;          /* names of regions entered once per partner (P - 1 times) */
  guint first_compute;             /* the first input the compute fits use (compute.c) */
  double serial_cv_error;          /* with the inputs left out, all compute's cross-validated error */
  /* Strong or weak scaling (compute.c): the user's, and what the compute
   * of the inputs the fits use shows (UNKNOWN: neither), with the numbers
   * that show it (owned). */
  TsScaling scaling_given, scaling_seen;
  char *scaling_evidence;
} TsExtrapModel;

/* Classes of messages whose bytes are modelled apart (m->bytes[k]): on a
 * grid, the faces along each dimension (classes 0 to n_dims - 1) and, with
 * diagonal neighbours, the edges and corners: the dimensions an offset
 * steps along (ts_extrap_grid_class); every pair of an all-to-all; from the
 * master and to the master. The class of a message from @sender to
 * @receiver off grids; the number of classes; a name for class @k (in
 * @buffer or static). */
guint ts_extrap_bytes_class (const TsExtrapModel *m, guint sender, guint receiver);
guint ts_extrap_n_bytes_classes (const TsExtrapModel *m);
guint ts_extrap_n_bytes_classes_of (const TsPattern *pattern);
const char *ts_extrap_bytes_class_name (const TsExtrapModel *m, guint k, char *buffer,
                                        gsize size);

/* A root's bytes in collective @a of template rank @t are its share with
 * every member (Score-P's and the recorder's MPI_Bcast root sends count x
 * the communicator's size; an MPI_Reduce root receives as much): @out's
 * follow the communicator's @size at P (of class @klass, through output
 * rank @r); where @r is not the root at P, written from the root (ranks
 * stretched), they are a member's: none. Nothing for a template rank that
 * is not the root. */
void ts_extrap_scale_root (const TsExtrapModel *m, const TsTrace *trace, const TsAction *a,
                           guint t, gint klass, guint r, guint size, TsAction *out);

/* comms.c: the class of a communicator of @n members (world ranks in
 * communicator order; NULL: unknown) at @p ranks under the pattern @at;
 * the members at P, in communicator order, of the communicator of class
 * @klass (>= 0) through output rank @r, into @out (guint32); a name:
 * "MPI_COMM_WORLD", "grid lines along dimension 2", "blocks of 4
 * consecutive ranks", "every 4-th rank" (in @buffer or static). */
gint ts_extrap_comm_class (const TsPattern *at, guint p, guint n, const guint32 *members);
void ts_extrap_class_members (const TsExtrapModel *m, gint klass, guint r, GArray *out);
const char *ts_extrap_class_name (gint klass, char *buffer, gsize size);
/* FALSE and @error (a refusal) unless every rank of the largest input calls
 * each operation it runs on a block or stride class's communicators, as
 * often as the others (m->comm_class set). */
gboolean ts_extrap_check_coverage (const TsExtrapModel *m, GError **error);
/* The bytes per call of each collective operation on each communicator
 * class, fitted in P (m->collectives), and the template's communicators'
 * classes (m->comm_class), checked by ts_extrap_check_coverage. */
gboolean ts_extrap_fit_collectives (TsExtrapModel *m, GError **error);

/* The largest input: what the output is written from. */
#define TS_EXTRAP_TEMPLATE(m) ((m)->inputs[(m)->n_inputs - 1])

/* model.c: how many rank counts the inputs from @first on have (several
 * traces at one count are repetitions). */
guint ts_extrap_n_scales (const TsExtrapModel *m, guint first);

/* warnings.c: m->warnings, once the model is fitted. */
void ts_extrap_collect_warnings (TsExtrapModel *m);

/* model.c: check and fit; takes @inputs (sorted here). */
TsExtrapModel *ts_extrap_model_build (TsScaleProfile **inputs, guint n,
                                      const TsExtrapolateOptions *o, GError **error);
void ts_extrap_model_free (TsExtrapModel *model);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsExtrapModel, ts_extrap_model_free)
/* Shared by the fits: add a point to @q; fit its points (several at one x
 * averaged); the names in every input's table (visits or compute, at
 * @offset in a profile) that @keep (may be NULL) keeps, owned by the
 * profiles. */
void ts_extrap_add_point (TsQuantity *q, double x, double y);
gboolean ts_extrap_fit_quantity (TsQuantity *q, double floor, double target, GError **error);
/* Where @q's model is evaluated for the output: P, or for bytes along grid
 * dimension @k in ranks across the other dimensions, those at P. */
double ts_extrap_target_x (const TsExtrapModel *m, const TsQuantity *q, guint k);
/* For a quantity in P: at_template, its value measured at the largest input
 * (0 if not measured there), and at_target, its model's at P (never
 * negative). */
void ts_extrap_finish_quantity (const TsExtrapModel *m, TsQuantity *q);
GHashTable *ts_extrap_input_names (const TsExtrapModel *m, gsize offset,
                                   gboolean (*keep) (const TsScaleProfile *, const char *));

/* compute.c: the compute models of every region (m->regions), and the
 * scaling the inputs show (m->scaling_seen, m->scaling_evidence). */
gboolean ts_extrap_fit_compute (TsExtrapModel *m, GError **error);
void ts_extrap_region_model_free (gpointer region);

/* model.c: "cannot extrapolate: " and the reason, in @error (domain
 * G_IO_ERROR, INVALID_DATA); FALSE. */
gboolean ts_extrap_refuse (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

/* Messages and bytes per neighbour slot (an offset, pattern.h) of each
 * class at one scale: the traffic to a partner reached through several
 * slots (along periodic dimensions of two ranks) is split between them. */
typedef struct {
  double slots_along[TS_EXTRAP_MAX_CLASSES];
  double messages_along[TS_EXTRAP_MAX_CLASSES], bytes_along[TS_EXTRAP_MAX_CLASSES];
} TsSlotTraffic;
void ts_extrap_slot_traffic (const TsScaleProfile *p, const TsPattern *at, TsSlotTraffic *st);

/* recognise.c: m->pattern and m->at_target from the inputs' partners and
 * the user's options (grid order, boundaries, all-to-all), or a refusal
 * saying why. */
gboolean ts_extrap_recognise (TsExtrapModel *m, const TsExtrapolateOptions *o, GError **error);
/* Whether the inputs send as many messages through every neighbour slot
 * of a kind of @pattern (faces; slots stepping along 2, 3 dimensions) at
 * every scale (@per[kind]: that count, 0 without messages); if not, @why
 * (if not NULL) says where they differ. */
gboolean ts_extrap_counts_agree (const TsExtrapModel *m, const TsPattern *pattern, double *per,
                                 char **why);

/* The grid slots (offsets, pattern.h) through which template rank @t
 * reaches world rank @q: up to TS_EXTRAP_MAX_SLOTS (periodic dimensions of
 * two ranks, where both steps reach one rank). */
#define TS_EXTRAP_MAX_SLOTS 8
guint ts_extrap_slots (const TsPattern *at, guint t, guint q, guint *slots);
/* Every send of the largest input's ranks (@actions spooled from @trace)
 * to a grid neighbour of @at, in each rank's order, handed to @each with
 * its world peer and the slots it may have gone through (@n >= 1). FALSE
 * and @error where the spool cannot be read. */
typedef void (*TsExtrapSendFunc) (gpointer data, guint t, const TsAction *a, guint q,
                                  const guint *slots, guint n);
gboolean ts_extrap_each_template_send (const TsExtrapModel *m, const TsPattern *at,
                                       const TsTrace *trace, const TsSpool *actions,
                                       TsExtrapSendFunc each, gpointer data, GError **error);
/* The byte class of a message through @offset on grid @at; the dimensions
 * class @klass steps along (a bit mask). */
guint ts_extrap_grid_class (const TsPattern *at, guint offset);
guint ts_extrap_class_mask (const TsPattern *at, guint klass);
/* How many dimensions class @klass steps along: 1 (faces) to 3. */
guint ts_extrap_class_steps (const TsPattern *at, guint klass);
/* The rank of the largest input that rank @r of the output is written from. */
guint ts_extrap_template_rank (const TsExtrapModel *m, guint r);
/* The factor template rank @t's compute in @region is scaled by for every
 * output rank written from it. */
double ts_extrap_compute_factor (const TsExtrapModel *m, const TsRegionModel *region, guint t);
const TsRegionModel *ts_extrap_region (const TsExtrapModel *m, const char *name);

/* loops.c: where a rank's partners grow with P (all-to-all, the master of
 * master/worker), its loops over them. A loop is a run of MPI calls of one
 * shape (the same call, with one or two point-to-point actions of the same
 * kinds and tags, e.g. MPI_Isend or MPI_Sendrecv), separated only by
 * compute and balanced user regions, whose peers of each slot are every
 * partner once. The output repeats a loop once per partner at P; its peers
 * follow the rule the template's loop took, the same for every rank at the
 * same place in the program (its ordinal). */
typedef enum {
  TS_LOOP_UP,               /* rank offsets 1, 2, ..., P - 1 */
  TS_LOOP_DOWN,             /* rank offsets -1, -2, ... */
  TS_LOOP_XOR,              /* rank ^ 1, rank ^ 2, ... (P a power of two) */
  TS_LOOP_ASCENDING,        /* the partners in ascending rank order */
  TS_LOOP_DESCENDING,
  TS_LOOP_XOR_DOWN,         /* rank ^ (P - 1), rank ^ (P - 2), ... (FFTW 2's transposes) */
  TS_LOOP_N_RULES
} TsLoopRule;

typedef struct {
  guint64 first, end;       /* its actions: [first, end) of the rank's stream */
  guint32 n_blocks;         /* calls: one per partner */
  guint8 n_slots;           /* point-to-point actions per call: 1 or 2 */
  gboolean receive[2];
  guint8 rule[2];           /* TsLoopRule of each slot */
} TsPartnerLoop;

typedef struct TsPartnerLoops TsPartnerLoops;
TsPartnerLoops *ts_partner_loops_find (const TsExtrapModel *m, const TsSpool *actions,
                                       GError **error);
void ts_partner_loops_free (TsPartnerLoops *l);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsPartnerLoops, ts_partner_loops_free)
/* Whether template rank 0 sends (@root_sends), or receives, in a loop over
 * its partners that no other rank makes (a root's distribution or
 * collection): then a message of another rank with rank 0 outside loops
 * is with the root, which every rank has at P. */
gboolean ts_partner_loops_root_reaches (const TsPartnerLoops *l, gboolean root_sends);
/* Template rank @t's loops, in stream order. */
const GArray *ts_partner_loops_of (const TsPartnerLoops *l, guint t);
/* Step @k's peer of a loop taking @rule, for rank @r of @p whose partners
 * are @partners (guint32, ascending). */
guint ts_partner_loop_peer (TsLoopRule rule, guint r, guint p, const GArray *partners, guint k);
/* What model.txt says of them (nothing without loops). */
void ts_partner_loops_describe (const TsPartnerLoops *l, guint target, GString *out);

/* doubling.c: a butterfly's loops over its doubling steps, where its rows
 * have more ranks at P than in the largest input. Each is told by its
 * model step, the one of the template's highest bit: its actions [from,
 * to) in the template rank's stream; the steps P adds are copies of it,
 * after it (@ascending: bits L, L+1, ...) or before it (bits ..., L+1,
 * L), L the template's number of bits. */
typedef struct {
  guint64 from, to;
  gboolean ascending;
} TsDoublingRun;
typedef struct TsDoublingRuns TsDoublingRuns;
/* Every template rank's loops over its steps (@actions: the template's
 * spooled actions), or NULL and @error naming a rank whose row messages
 * are in none. */
TsDoublingRuns *ts_doubling_runs_find (const TsExtrapModel *m, const TsSpool *actions,
                                       GError **error);
void ts_doubling_runs_free (TsDoublingRuns *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsDoublingRuns, ts_doubling_runs_free)
/* Template rank @t's, by @from. */
const GArray *ts_doubling_runs_of (const TsDoublingRuns *d, guint t);
/* The compute seconds the copies add to template rank @t in @region (the
 * trace's index; its number of regions: outside every region), which the
 * region's factor must leave room for: its model gives the total at P. */
double ts_doubling_runs_added (const TsDoublingRuns *d, guint t, guint region);

/* balance.c: the messages of a trace per flow (source and destination
 * world ranks, communicator, tag; partitioned requests apart), sent minus
 * received. */
GHashTable *ts_extrap_flows_new (void);
/* A send, or a receive (@receive), between ranks @r and @peer counted. */
void ts_extrap_flows_count (GHashTable *flows, gboolean receive, guint r, guint peer,
                            guint32 comm, gint32 tag, gboolean partitioned);
/* Whether the @n template ranks' actions in @actions pair up (*@balanced);
 * FALSE only when the spool cannot be read. */
gboolean ts_extrap_template_balanced (const TsTrace *trace, guint n, const TsSpool *actions,
                                      gboolean *balanced, GError **error);
/* FALSE with @error naming the first flow that does not balance, unless
 * all do or the template's did not (@template_ok FALSE: the input's own). */
gboolean ts_extrap_check_balance (GHashTable *flows, guint target, gboolean template_ok,
                                  GError **error);

/* synth.c: write the output trace at @dir/traces.otf2; @notes (may be NULL)
 * gets what the explanation should add about how it was written. */
gboolean ts_extrap_synthesize (const TsExtrapModel *m, const char *dir, GString *notes,
                               GError **error);

/* mirror.c: interiors along open dimensions of two ranks in the largest
 * input (both ends, no interior) and more at P. The dimensions (a bit
 * mask); those along which output rank @r is inside while its template
 * rank is an end; the twins of @slot that step up where it steps down
 * along the dimensions of @mask, into @out (up to 7), their number; the
 * tag each slot's sends carry in the template (@send_tag[offset], read
 * from @actions when there are such dimensions), and the tag of a twin
 * (@receive: of a receive through it) where the template tags by
 * direction, else @tag. */
guint ts_extrap_mirror_dims (const TsExtrapModel *m);
guint ts_extrap_mirror_mask (const TsExtrapModel *m, guint r);
guint ts_extrap_mirror_slots (guint n_dims, guint slot, guint mask, guint *out);
gboolean ts_extrap_slot_tags (const TsExtrapModel *m, const TsTrace *trace,
                              const TsSpool *actions, gint32 *send_tag, GError **error);
gint32 ts_extrap_mirror_tag (const gint32 *send_tag, guint n_dims, guint twin,
                             gboolean receive, gint32 tag);

/* explain.c: model.txt's text, model.json's. */
void ts_extrap_explain_text (const TsExtrapModel *m, GString *out);
char *ts_extrap_explain_json (const TsExtrapModel *m);

#endif
