/* The report's region colours, kept perceptibly apart.
 *
 * Differences are CIEDE2000 (Sharma, Wu and Dalal, "The CIEDE2000
 * color-difference formula: implementation notes, supplementary test data,
 * and mathematical observations", Color Research & Application 30(1),
 * 21-30, 2005), on CIELAB from sRGB under D65. A difference of 10 or more
 * is one a reader sees at a glance, side by side in a timeline.
 *
 * A page's regions are ranked by their time, largest first; the n-th MPI
 * region takes the n-th colour of a red band (reds, oranges, pinks,
 * browns), the n-th of the program's own regions the n-th of the other
 * hues (greens, cyans, blues, violets). The first TS_PALETTE_DISTINCT of
 * each band are 10 or more apart from each other, from every colour of the
 * other band's first TS_PALETTE_DISTINCT, and from the page's white: any 20
 * largest regions are told apart, whatever their mix. Regions past them
 * take a colour from their band by their name's hash. */
#ifndef TS_PALETTE_H
#define TS_PALETTE_H

#include <glib.h>

G_BEGIN_DECLS

#define TS_PALETTE_DISTINCT 20
/* The page's background (and the PNG twins'). */
#define TS_PALETTE_BACKGROUND "#ffffff"

typedef struct {
  double L, a, b;
} TsLab;

/* "#rrggbb" (sRGB, 8 bits a channel) as CIELAB, D65 white; FALSE when
 * @hex is no such colour. */
gboolean ts_lab_from_hex (const char *hex, TsLab *lab);
/* CIEDE2000 between @x and @y (kL = kC = kH = 1); symmetric. */
double ts_ciede2000 (TsLab x, TsLab y);
/* CIELAB hue angle of @lab in degrees, [0, 360). */
double ts_lab_hue (TsLab lab);

/* The colours of one page: region name -> "#rrggbb". */
typedef struct TsPalette TsPalette;
TsPalette *ts_palette_new (void);
void ts_palette_free (TsPalette *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (TsPalette, ts_palette_free)
/* Give @name (copied) the next colour of its band; call in rank order,
 * largest first. A name given twice keeps its first colour. */
void ts_palette_add (TsPalette *p, const char *name, gboolean mpi);
/* @name's colour (owned by @p, or a static string): a name never added
 * takes its band's colour by hash. */
const char *ts_palette_colour (TsPalette *p, const char *name, gboolean mpi);

G_END_DECLS

#endif
