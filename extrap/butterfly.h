/* The geometry of the BUTTERFLY pattern (extrap/pattern.h): recursive
 * doubling within the rows of a process grid, with a transpose partner or
 * not. pattern.c dispatches here; nothing else calls these. */
#ifndef TS_BUTTERFLY_H
#define TS_BUTTERFLY_H

#include "extrap/pattern.h"

G_BEGIN_DECLS

/* Rows and columns at @p ranks into @dims (rows first): one row of @p, or
 * 2^floor(n/2) rows of 2^ceil(n/2) at p = 2^n. A @p that is no power of
 * two gets rows x columns below it, which no rank count matches. */
void ts_butterfly_dims (gboolean one_row, guint p, guint *dims);

/* Rank @r's partners under @at, appended to @out, without @r, unsorted
 * (pattern.c sorts them). */
void ts_butterfly_partners (const TsPattern *at, guint r, GArray *out);

/* Rank @r's partner through @slot (TS_PATTERN_TRANSPOSE_SLOT, or the bit
 * of the column), or -1 where it has none (a bit beyond the row; no
 * transpose). The transpose partner may be @r itself. */
gint ts_butterfly_slot_neighbour (const TsPattern *at, guint r, guint slot);

/* Whether @at's ranks talk through @slot. */
gboolean ts_butterfly_slot_used (const TsPattern *at, guint slot);

/* "2-D grid 2x4, rows by recursive doubling (column XOR 2^k), and a
 * transpose partner" (owned by the caller). */
char *ts_butterfly_describe (const TsPattern *t);

G_END_DECLS

#endif
