/* One hypothesis rule and the kinds of rules (private to hypotheses/).
 *
 * A kind is one ops struct: the key that names it in a [region:...] section,
 * how to parse its value, how to rewrite a compute burst, and, for kinds that
 * work per occurrence, how the selected ranks' durations of one occurrence
 * give the duration every rank should take. Adding a kind is adding a struct
 * to rules.c and its name to ts_rule_kinds. */
#ifndef TS_HYPOTHESES_RULE_H
#define TS_HYPOTHESES_RULE_H

#include <glib.h>
#include "model/spool.h"

typedef struct TsRule TsRule;

typedef struct {
  const char *key;
  /* TRUE: the new duration depends on each occurrence's duration (prepared). */
  gboolean per_occurrence;
  /* Parse the key's value into @rule; the message needs no location. */
  gboolean (*parse) (TsRule *rule, const char *value, GError **error);
  /* New duration of a compute burst of @seconds, inside an occurrence whose
   * selected compute lasted @occurrence in all and should last @target. */
  double (*apply) (const TsRule *rule, double seconds, double occurrence, double target);
  /* per_occurrence kinds: the duration every selected rank takes for one
   * occurrence, from the @n selected ranks' durations (n >= 1, sortable). */
  double (*target) (const TsRule *rule, double *durations, guint n);
  /* Free what parse allocated in rule->data (may be NULL). */
  void (*free) (TsRule *rule);
} TsRuleKind;

/* An inclusive range of ranks or occurrences; last G_MAXUINT64: open. */
typedef struct {
  guint64 first, last;
} TsRange;

struct TsRule {
  const TsRuleKind *kind;
  char *origin;             /* file, for messages */
  guint line;               /* its section header */
  char *pattern;            /* the section's region (or phase) pattern */
  gboolean phase;           /* a [phase:...] section: selects phases, not regions */
  gboolean regex;           /* match = regex (whole name) instead of glob */
  gboolean exact;           /* a "quoted" name: that name exactly, no glob */
  gboolean inclusive;       /* also the compute of everything it calls */
  /* Per-occurrence kinds: each team phase of a rank (a parallel region's
   * stretch between barriers) is an occurrence, and the rank's threads, not
   * its ranks, share the target (across = threads; always for `threads`). */
  gboolean across_threads;
  GArray *ranks;            /* TsRange; NULL: every rank */
  GArray *occurrences;      /* TsRange, 1-based visits; NULL: every visit */
  double value;             /* scale: factor; set: seconds */
  gpointer data;            /* kind-specific */
  gpointer code;            /* match = regex: the compiled expression */

  /* After bind. */
  gboolean *matches;        /* per trace region (all FALSE for a phase rule) */
  gboolean *phase_matches;  /* phase rules: per phase of the calibration */
  guint n_matched;
  guint32 only_region;      /* the one region it matches (TS_NO_REGION: none, several,
                             * or a phase rule) */
  /* After prepare (per_occurrence kinds). */
  TsSpool *durations;     /* per rank: double per occurrence, in visit order */
  GArray *targets;          /* double per occurrence; NaN where no selected rank had it;
                             * across_threads: empty (each phase's target is its own) */
  guint n_slots;            /* across_threads: threads of the rank that has the most */
};

/* The kinds, NULL-terminated. */
extern const TsRuleKind *const ts_rule_kinds[];

/* An across_threads rule on one team phase of a rank: @work[t] is thread
 * t's selected compute in it (t = 0: the rank's own location), @n of them;
 * @factor[t] gets what thread t's bursts are multiplied by. Returns what
 * each thread takes (the target; 0 where no thread ran the regions). */
double ts_rule_thread_factors (const TsRule *rule, const double *work, guint n, double *factor);
/* Whether @rule sets the team's size (`threads = N`, N its value). */
gboolean ts_rule_sets_team (const TsRule *rule);

/* Compile a regex rule's pattern (whole names must match); error: why not. */
gboolean ts_rule_compile (TsRule *rule, GError **error);
/* Whether @name is selected by @rule's pattern; -1 and @error when a
 * regular expression backtracks too much on it (the cost of matching is
 * bounded). */
int ts_rule_selects (const TsRule *rule, const char *name, GError **error);
void ts_rule_free_code (TsRule *rule);

/* The open regions of a rank (guint32 region ids, outermost first), as the
 * replay's hypotheses keep them and `hypotheses check` measures with them:
 * a LEAVE closes its region and whatever was opened inside it (a trace's
 * crossed regions); a LEAVE of no open region changes nothing. */
void ts_region_stack_leave (GArray *stack, guint32 region);
/* Whether an inclusive @rule covers a burst under @stack: a region it
 * selects is open around it. Inline: the replay asks it for every burst. */
static inline gboolean
ts_rule_covers (const TsRule *rule, const GArray *stack)
{
  for (guint d = 0; d < stack->len; d++)
    if (rule->matches[g_array_index (stack, guint32, d)])
      return TRUE;
  return FALSE;
}

gboolean ts_range_list_parse (const char *text, GArray **ranges, GError **error);
gboolean ts_range_list_contains (const GArray *ranges, guint64 v);

#endif
